"""GoRoD live data: the game's settings, its levels and codes, routes, every code attempt and
every organizer ruling.

Models hold data and constraints only. The state of every team (the level it is on, the hints
shown, the fail times, the statistics) is a pure function of the record these rows make
(``gorod.services.game_record``) and the current time, computed by ``gorod.rules.compute``;
what each screen shows is stored, versioned, by the live core (``live.models.LiveStream``) at
every write and at every deadline (``gorod.clock``). Teams are ``teams.Application`` rows (approved ones play); a team's
name in the record is its ``teams.Team`` name.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core.models import DecidedByOrganizer
from gorod import codes, rules
from teams.models import Application, Game, Team

#: the sector an accepted photo "finds": the whole level (its ``CodeAttempt`` closes it)
PHOTO_SECTOR = "photo"


def _default_offsets() -> list:
    return list(rules.DEFAULT_HINT_OFFSETS_MIN)


class GorodGame(models.Model):
    """The live GoRoD state of one scheduled ``teams.Game``; the primary key is the game's id."""

    class Status(models.TextChoices):
        SETUP = "setup", _("setup")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="gorod",
        verbose_name=_("game"),
    )
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.SETUP
    )
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)
    hint_offsets_min = models.JSONField(_("hint times (min after receiving the level)"),
                                        default=_default_offsets)
    sliv_penalty_min = models.FloatField(_("penalty per failed level (min)"),
                                         default=rules.DEFAULT_SLIV_PENALTY_MIN)
    max_duration_h = models.FloatField(_("maximum duration (h)"),
                                       default=rules.DEFAULT_MAX_DURATION_H)
    max_wrong = models.PositiveSmallIntegerField(_("wrong codes allowed per window"),
                                                 default=codes.DEFAULT_MAX_WRONG)
    wrong_window_s = models.PositiveSmallIntegerField(_("brute-force window (s)"),
                                                      default=codes.DEFAULT_WINDOW_S)
    # Safety on dangerous levels (``rules.checkin_due``): on a grade 3–4 level the team
    # confirms "all fine" this often; 0: no check-ins asked.
    checkin_every_min = models.PositiveSmallIntegerField(
        _("check-in every (min) on grade 3–4 levels"), default=0, blank=True,
        help_text=_("0: off. On a level of danger grade 3 or 4 the team's phone asks to "
                    "confirm that all is fine this often; a missed check-in raises an alarm "
                    "on the organizer's screen."))
    # Application ids in registration order, frozen at the start so a late change of
    # applications cannot reshuffle the record of a running game.
    team_order = models.JSONField(_("team order"), default=list, blank=True)
    # The clock's schedule (gorod.clock): the engine's next deadline (a hint, a failed level, a
    # timeout's end, the time cap), stored by every write; the clock handles only games due.
    next_deadline = models.DateTimeField(_("next deadline"), null=True, blank=True,
                                         db_index=True)
    # The organizer's switch: the public screen shows the live standings (levels closed and
    # time so far, never codes) while the game runs.
    leaderboard_public = models.BooleanField(_("live public leaderboard"), default=False)
    # The organizer's switch (before the start): the clock starts the game by itself at the
    # announced time (``teams.Game.starts_at``, rules 4.1.7-4.1.8), stamped at that time.
    auto_start = models.BooleanField(_("start by itself at the announced time"), default=False)
    # The organizer's switch (after the end): the scenario (tasks, hints, codes) and the
    # statistics are public on the game's scenario page.
    scenario_public = models.BooleanField(_("scenario published"), default=False)
    # Failed clock attempts in a row (reset by every successful write): the retry backoff.
    clock_failures = models.PositiveSmallIntegerField(_("clock failures"), default=0)
    # Moves on at every change of what a code is checked against besides this row: a level, a
    # team's name (``gorod.signals``). A write reads the game's levels and team names from the
    # process's cache under this number (``selectors.setup``) instead of from the database.
    setup_version = models.PositiveIntegerField(_("set-up version"), default=0, editable=False)
    # The open pause of the whole game (3.5, 9.1): since when every team's clock stands, or
    # None. Read on the locked row, so a code is refused without a query.
    paused_at = models.DateTimeField(_("paused since"), null=True, blank=True)
    # The ended pauses as the record's ``pause`` events ({"at", "minutes"}), oldest first: what
    # every team's timeline is computed with, read from the locked row like the settings (a
    # code's write reads no other table for them). ``Pause`` rows keep who and why.
    pauses = models.JSONField(_("pauses"), default=list, blank=True, editable=False)
    # A test run's speed-up (``gorod.testruns``): its minutes were divided by it once, when it
    # was copied from its source; 1 for every real night. Shown, never applied again.
    clock_factor = models.PositiveSmallIntegerField(_("clock speed-up"), default=1,
                                                    editable=False)

    class Meta:
        verbose_name = _("GoRoD game")
        verbose_name_plural = _("GoRoD games")

    def __str__(self) -> str:
        return str(self.game)

    @property
    def id(self) -> int:
        return self.pk


class Level(models.Model):
    class Danger(models.IntegerChoices):
        """The danger grade of 8.8, stated with the task."""

        SAFE = 1, _("1 — not dangerous for anyone's life, health or property")
        CAREFUL = 2, _("2 — be careful: a potential danger")
        VERY_CAREFUL = 3, _("3 — be extremely careful")
        TWO_PEOPLE = 4, _("4 — at least two people go: the highest danger")

    gorod = models.ForeignKey(GorodGame, on_delete=models.CASCADE, related_name="levels",
                              verbose_name=_("game"))
    order = models.PositiveSmallIntegerField(_("order"))
    label = models.CharField(_("level id"), max_length=40,
                             help_text=_("The level's id in the game record, e.g. 1."))
    task = models.TextField(_("task"), blank=True)
    hint1 = models.TextField(_("hint 1"), blank=True)
    hint2 = models.TextField(_("hint 2"), blank=True)
    duration_min = models.FloatField(_("time limit (min)"), default=rules.DEFAULT_LIMIT_MIN)
    danger = models.PositiveSmallIntegerField(_("danger grade"), choices=Danger.choices,
                                              null=True, blank=True)
    # The shape ``gorod.codes.level_codes_from_dict`` takes: {"code": "..."} or {"sectors": [...]}.
    codes = models.JSONField(_("codes"), default=dict)
    # Names of the game's TaskImage rows shown with the task, in order (names, not keys, so a
    # scenario file can refer to them and a re-import of the levels keeps the images).
    images = models.JSONField(_("images"), default=list, blank=True)
    # 3.23: the team may close the level by a photo of the spot the organizer accepts (its
    # codes still close it too).
    photo_proof = models.BooleanField(_("photo proof"), default=False)

    class Meta:
        ordering = ["gorod", "order"]
        verbose_name = _("level")
        verbose_name_plural = _("levels")
        constraints = [
            models.UniqueConstraint(fields=["gorod", "order"], name="gorod_level_order_once"),
            models.UniqueConstraint(fields=["gorod", "label"], name="gorod_level_label_once"),
            models.CheckConstraint(condition=models.Q(danger__isnull=True)
                                   | models.Q(danger__gte=1, danger__lte=4),
                                   name="gorod_level_danger_1_to_4"),
        ]

    def __str__(self) -> str:
        return f"{self.gorod} · {self.label}"

    def hint_text(self, index: int) -> str:
        return (self.hint1, self.hint2)[index] if index < 2 else ""


class TaskImage(models.Model):
    """An image uploaded for the tasks of a game, by its file name. Kept in the database, like
    everything else of a game, so a night needs no media storage; levels list the names they
    show. [decision] Organizers see them at set-up; teams are to see a level's images once they
    receive that level (the team screen of the live pipeline)."""

    gorod = models.ForeignKey(GorodGame, on_delete=models.CASCADE, related_name="images",
                              verbose_name=_("game"))
    name = models.CharField(_("file name"), max_length=100)
    content_type = models.CharField(_("type"), max_length=40)
    data = models.BinaryField(_("content"))
    size = models.PositiveIntegerField(_("size (bytes)"))
    uploaded_at = models.DateTimeField(_("uploaded at"), auto_now=True)

    class Meta:
        ordering = ["gorod", "name"]
        verbose_name = _("task image")
        verbose_name_plural = _("task images")
        constraints = [
            models.UniqueConstraint(fields=["gorod", "name"], name="gorod_image_name_once"),
        ]

    def __str__(self) -> str:
        return f"{self.gorod} · {self.name}"


class Route(models.Model):
    """A team's own level order in a non-linear game (every level once)."""

    gorod = models.ForeignKey(GorodGame, on_delete=models.CASCADE, related_name="routes",
                              verbose_name=_("game"))
    application = models.ForeignKey(Application, on_delete=models.CASCADE,
                                    related_name="gorod_routes", verbose_name=_("team"))
    levels = models.JSONField(_("level ids in order"), default=list)

    class Meta:
        verbose_name = _("route")
        verbose_name_plural = _("routes")
        constraints = [
            models.UniqueConstraint(fields=["gorod", "application"], name="gorod_route_once"),
        ]

    def __str__(self) -> str:
        return f"{self.application_id}: {' → '.join(self.levels)}"


class CodeAttempt(models.Model):
    class Verdict(models.TextChoices):
        ACCEPTED = "accepted", _("accepted")
        REPEAT = "repeat", _("already found")
        WRONG = "wrong", _("wrong")
        # A code of a level the team already closed (or failed and got the code of): stored,
        # answered as such, never counted as wrong.
        CLOSED_LEVEL = "closed_level", _("level already closed")
        # Refused unchecked by the brute-force limit: stored so the organizer sees the flood.
        LIMITED = "limited", _("refused: too many wrong codes")

    gorod = models.ForeignKey(GorodGame, on_delete=models.CASCADE, related_name="attempts",
                              verbose_name=_("game"))
    application = models.ForeignKey(Application, on_delete=models.CASCADE,
                                    related_name="gorod_attempts", verbose_name=_("team"))
    # The level the team was on when the attempt arrived (the one it was checked against);
    # for ``closed_level`` the closed level whose code it is.
    level = models.ForeignKey(Level, on_delete=models.CASCADE, related_name="attempts",
                              verbose_name=_("level"))
    text = models.CharField(_("text"), max_length=200)
    normalized = models.CharField(_("normalised text"), max_length=200)
    at = models.DateTimeField(_("arrived at"), db_index=True)
    verdict = models.CharField(_("verdict"), max_length=20, choices=Verdict.choices)
    sector = models.CharField(_("sector"), max_length=100, blank=True)
    # The attempt that found the level's last sector: the record's ``code`` event.
    closes_level = models.BooleanField(_("closed the level"), default=False)
    # Generated by the phone per submission: a retried send carries the same id and gets the
    # stored attempt back instead of being counted twice.
    client_id = models.UUIDField(_("client id"), null=True, blank=True)

    class Meta:
        ordering = ["at", "pk"]
        verbose_name = _("code attempt")
        verbose_name_plural = _("code attempts")
        constraints = [
            models.UniqueConstraint(fields=["application", "client_id"],
                                    name="gorod_attempt_client_once"),
            models.UniqueConstraint(fields=["application", "level"],
                                    condition=models.Q(closes_level=True),
                                    name="gorod_level_closed_once"),
        ]
        # A code reads its own team's attempts, newest first: without this the planner walked
        # the game's index over every team's, slow on a night with many attempts.
        indexes = [models.Index(fields=["application", "at"], name="gorod_attempt_team_at")]

    def __str__(self) -> str:
        return f"{self.application_id} @ {self.level_id}: {self.text} ({self.verdict})"


class Pause(models.Model):
    """A pause of the whole game by the organizer (force majeure, 3.5 and 9.1): open from
    ``started_at`` until ``ended_at`` (None while it lasts). [decision] A pause cannot be
    undone: while it lasted the phones refused codes and showed the clock stopped, so the
    teams played it as a pause; taking it out afterwards would fail levels they were told
    were standing still."""

    gorod = models.ForeignKey(GorodGame, on_delete=models.CASCADE, related_name="pause_rows",
                              verbose_name=_("game"))
    started_at = models.DateTimeField(_("paused at"))
    ended_at = models.DateTimeField(_("resumed at"), null=True, blank=True)
    reason = models.TextField(_("reason"), blank=True)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, blank=True, related_name="+",
                                   verbose_name=_("paused by"))
    ended_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                 null=True, blank=True, related_name="+",
                                 verbose_name=_("resumed by"))

    class Meta:
        ordering = ["started_at", "pk"]
        verbose_name = _("pause")
        verbose_name_plural = _("pauses")
        constraints = [
            models.UniqueConstraint(fields=["gorod"], condition=models.Q(ended_at__isnull=True),
                                    name="gorod_one_open_pause"),
            models.CheckConstraint(condition=models.Q(ended_at__isnull=True)
                                   | models.Q(ended_at__gt=models.F("started_at")),
                                   name="gorod_pause_ends_after_it_starts"),
        ]

    def __str__(self) -> str:
        return f"{self.gorod_id}: {self.started_at:%H:%M}"


class Ruling(models.Model):
    class Type(models.TextChoices):
        PENALTY = "penalty", _("penalty")
        BONUS = "bonus", _("bonus")
        SLIV = "sliv", _("failed level (organizer)")
        FORCE_MAJEURE = "force_majeure", _("force majeure")
        TIMEOUT = "timeout", _("timeout")
        AVERAGE_TIME = "average_time", _("average time")
        DISQUALIFY = "disqualify", _("disqualification")
        # A stored attempt matching a level's corrected codes (``gorod.level_fix``): the
        # record's ``code`` event, made by the fix and undone like any ruling.
        CODE = "code", _("code credited (level fixed)")

    gorod = models.ForeignKey(GorodGame, on_delete=models.CASCADE, related_name="rulings",
                              verbose_name=_("game"))
    application = models.ForeignKey(Application, on_delete=models.CASCADE,
                                    related_name="gorod_rulings", verbose_name=_("team"))
    type = models.CharField(_("type"), max_length=20, choices=Type.choices)
    minutes = models.FloatField(_("minutes"), null=True, blank=True)
    level = models.ForeignKey(Level, on_delete=models.CASCADE, null=True, blank=True,
                              related_name="rulings", verbose_name=_("level"))
    # When it takes effect in the game (fail, force majeure, timeout start); empty for rulings
    # about totals (penalty, bonus, average time, disqualification).
    at = models.DateTimeField(_("at"), null=True, blank=True)
    reason = models.TextField(_("reason"), blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                           blank=True, related_name="+", verbose_name=_("ruled by"))
    created_at = models.DateTimeField(_("ruled at"))
    # An undone ruling stays (its history says who undid it, when and why) but is out of the
    # game's record.
    undone_at = models.DateTimeField(_("undone at"), null=True, blank=True)
    # Every correction, oldest first: {"action": "edit" | "undo", "before": {...}, "after":
    # {...}, "reason", "by", "at"} — what the audit log needs.
    history = models.JSONField(_("corrections"), default=list, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        verbose_name = _("ruling")
        verbose_name_plural = _("rulings")

    def __str__(self) -> str:
        return f"{self.application_id}: {self.type}"


class TimeoutRequest(DecidedByOrganizer):
    """A team's request for its timeout (3.10), asked from a phone; only the organizer's
    confirmation stops the clock (it records the TIMEOUT ruling, ``ruling``)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for the organizer")
        CONFIRMED = "confirmed", _("confirmed")
        REFUSED = "refused", _("refused")

    gorod = models.ForeignKey(GorodGame, on_delete=models.CASCADE,
                              related_name="timeout_requests", verbose_name=_("game"))
    application = models.ForeignKey(Application, on_delete=models.CASCADE,
                                    related_name="gorod_timeout_requests",
                                    verbose_name=_("team"))
    minutes = models.FloatField(_("minutes"))
    reason = models.TextField(_("reason"))
    asked_at = models.DateTimeField(_("asked at"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices,
                              default=Status.PENDING)
    answer = models.TextField(_("organizer's answer"), blank=True)
    ruling = models.OneToOneField(Ruling, on_delete=models.SET_NULL, null=True, blank=True,
                                  related_name="timeout_request", verbose_name=_("ruling"))

    class Meta:
        ordering = ["asked_at", "pk"]
        verbose_name = _("timeout request")
        verbose_name_plural = _("timeout requests")
        constraints = [
            models.UniqueConstraint(fields=["application"],
                                    condition=models.Q(status="pending"),
                                    name="gorod_timeout_request_pending_once"),
        ]

    def __str__(self) -> str:
        return f"{self.application_id}: {self.minutes} min ({self.status})"


class PhotoProof(DecidedByOrganizer):
    """A team's photo for a photo-proof level (3.23); the organizer accepts (the level closes
    at the upload, like a code) or rejects it."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for the organizer")
        ACCEPTED = "accepted", _("accepted")
        REJECTED = "rejected", _("rejected")

    gorod = models.ForeignKey(GorodGame, on_delete=models.CASCADE, related_name="photos",
                              verbose_name=_("game"))
    application = models.ForeignKey(Application, on_delete=models.CASCADE,
                                    related_name="gorod_photos", verbose_name=_("team"))
    level = models.ForeignKey(Level, on_delete=models.CASCADE, related_name="photos",
                              verbose_name=_("level"))
    content_type = models.CharField(_("type"), max_length=40)
    data = models.BinaryField(_("content"))
    size = models.PositiveIntegerField(_("size (bytes)"))
    uploaded_at = models.DateTimeField(_("uploaded at"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices,
                              default=Status.PENDING)
    answer = models.TextField(_("organizer's answer"), blank=True)

    class Meta:
        ordering = ["uploaded_at", "pk"]
        verbose_name = _("photo proof")
        verbose_name_plural = _("photo proofs")
        constraints = [
            models.UniqueConstraint(fields=["application", "level"],
                                    condition=models.Q(status="pending"),
                                    name="gorod_photo_pending_once"),
        ]

    def __str__(self) -> str:
        return f"{self.application_id} @ {self.level_id} ({self.status})"


class Message(models.Model):
    """The organizer's message or bonus hint (2.15.1, 4.1.4): it changes no time, so it is no
    event of the game's record. Its receivers are fixed when it is sent (``MessageReceipt``);
    a bonus hint ``later`` also reaches the teams that get its level afterwards."""

    class Kind(models.TextChoices):
        MESSAGE = "message", _("message")
        BONUS_HINT = "bonus_hint", _("bonus hint")

    class Audience(models.TextChoices):
        ALL = "all", _("all teams")
        LEVEL = "level", _("the teams on a level")
        TEAM = "team", _("one team")

    gorod = models.ForeignKey(GorodGame, on_delete=models.CASCADE, related_name="messages",
                              verbose_name=_("game"))
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices,
                            default=Kind.MESSAGE)
    audience = models.CharField(_("to"), max_length=20, choices=Audience.choices,
                                default=Audience.ALL)
    text = models.TextField(_("text"))
    # The level audience's level, or the bonus hint's level.
    level = models.ForeignKey(Level, on_delete=models.CASCADE, null=True, blank=True,
                              related_name="messages", verbose_name=_("level"))
    # The one team it is addressed to.
    application = models.ForeignKey(Application, on_delete=models.CASCADE, null=True,
                                    blank=True, related_name="gorod_messages",
                                    verbose_name=_("team"))
    later = models.BooleanField(_("also for teams that reach the level later"), default=False)
    sent_at = models.DateTimeField(_("sent at"))
    sent_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                blank=True, related_name="+", verbose_name=_("sent by"))

    class Meta:
        ordering = ["sent_at", "pk"]
        verbose_name = _("message to teams")
        verbose_name_plural = _("messages to teams")

    def __str__(self) -> str:
        return f"{self.gorod_id} · {self.kind} · {self.text[:40]}"


class MessageReceipt(models.Model):
    """A team a message reached, and when its phone first showed it (``seen_at``)."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="receipts",
                                verbose_name=_("message"))
    application = models.ForeignKey(Application, on_delete=models.CASCADE,
                                    related_name="gorod_receipts", verbose_name=_("team"))
    seen_at = models.DateTimeField(_("seen at"), null=True, blank=True)

    class Meta:
        ordering = ["message", "pk"]
        verbose_name = _("message receipt")
        verbose_name_plural = _("message receipts")
        constraints = [
            models.UniqueConstraint(fields=["message", "application"],
                                    name="gorod_receipt_once"),
        ]

    def __str__(self) -> str:
        return f"{self.message_id} → {self.application_id}"


class CheckIn(models.Model):
    """A team's "all fine" on a level of danger grade 3–4 (``by`` None), or the organizer's
    acknowledgement of its missed check-in's alarm (``by``, audited): either restarts the
    interval to the next one (``rules.checkin_due``)."""

    gorod = models.ForeignKey(GorodGame, on_delete=models.CASCADE, related_name="checkins",
                              verbose_name=_("game"))
    application = models.ForeignKey(Application, on_delete=models.CASCADE,
                                    related_name="gorod_checkins", verbose_name=_("team"))
    level = models.ForeignKey(Level, on_delete=models.CASCADE, related_name="checkins",
                              verbose_name=_("level"))
    at = models.DateTimeField(_("at"))
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                           blank=True, related_name="+", verbose_name=_("acknowledged by"))

    class Meta:
        ordering = ["at", "pk"]
        verbose_name = _("check-in")
        verbose_name_plural = _("check-ins")
        indexes = [models.Index(fields=["gorod", "application", "level", "at"],
                                name="gorod_checkin_latest")]

    def __str__(self) -> str:
        return f"{self.application_id} @ {self.level_id}: {self.at:%H:%M}"


class ScenarioProposal(models.Model):
    """A team's scenario offered for a future game (rules 10.1–10.4): the file as uploaded,
    checked like an import. Accepted, it becomes the game's scenario and the team its
    organizing team; rejected, it stays confidential to the team's captain and organizers
    (10.3). The file lives in the row, as task images do, so a backup holds it."""

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("proposal status", "pending")
        ACCEPTED = "accepted", pgettext_lazy("proposal status", "accepted")
        REJECTED = "rejected", pgettext_lazy("proposal status", "rejected")
        WITHDRAWN = "withdrawn", pgettext_lazy("proposal status", "withdrawn")

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="scenario_proposals",
                             verbose_name=_("team"))
    # The game it is offered for, None for "any future game"; once accepted, the game it went to.
    game = models.ForeignKey(Game, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="scenario_proposals", verbose_name=_("game"))
    file_name = models.CharField(_("file name"), max_length=200)
    content = models.TextField(_("scenario file"))
    levels = models.PositiveIntegerField(_("levels"), default=0)
    note = models.TextField(_("note"), blank=True)
    status = models.CharField(_("status"), max_length=20, choices=Status.choices,
                              default=Status.PENDING)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, blank=True, related_name="+",
                                   verbose_name=_("proposed by"))
    created_at = models.DateTimeField(_("proposed at"))
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, blank=True, related_name="+",
                                   verbose_name=_("decided by"))
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    answer = models.TextField(_("organizer's answer"), blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("scenario proposal")
        verbose_name_plural = _("scenario proposals")

    def __str__(self) -> str:
        return f"{self.team}: {self.file_name}"
