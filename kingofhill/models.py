"""King of the Hill live data: the game's settings and snapshot, questions and what teams sent.

Models hold data and constraints only. The board is never edited here: a write in
``kingofhill.services`` that changes the closed questions rebuilds the record from these rows,
recomputes it with the pure ``kingofhill.rules`` and stores the result in ``KothGame.board``;
what each screen shows is stored, versioned, by the live core (``live.models.LiveStream``).
Teams are ``teams.Application`` rows (approved ones play); a team's name in the record is its
``teams.Team`` name.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core.models import DecidedByOrganizer
from kingofhill import rules
from teams.models import Application, Game

# Distinct on a projector and for the colour-blind as far as 24 colours go; registration order
# picks the colour, so a team keeps it for the whole evening and across reloads.
PALETTE = (
    "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6", "#bcf60c",
    "#008080", "#9a6324", "#800000", "#808000", "#000075", "#ffe119", "#fabebe", "#e6beff",
    "#aaffc3", "#ffd8b1", "#808080", "#469990", "#dcbeff", "#a9a9a9", "#fffac8", "#000000",
)


def team_colour(index: int) -> str:
    """The colour of the team registered ``index``-th (0-based); the palette repeats past 24."""
    return PALETTE[index % len(PALETTE)]


class Shown(models.TextChoices):
    """When a screen shows a question's text and image (``rules.question_shown``)."""

    ANNOUNCE = "announce", _("on announce")
    CLOSE = "close", _("after the close")
    NEVER = "never", _("never (only when the host reveals it)")


class KothGame(models.Model):
    """The live King of the Hill state of one scheduled ``teams.Game``.

    The primary key *is* the game's id, so ``/koth/<id>/…`` and the team-phone binding (keyed
    by ``teams.Game`` id) always speak of the same number.
    """

    class Status(models.TextChoices):
        SETUP = "setup", _("setup")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="koth",
        verbose_name=_("game"),
    )
    summit = models.PositiveSmallIntegerField(_("summit step"), default=rules.DEFAULT_SUMMIT)
    main_questions = models.PositiveSmallIntegerField(_("main questions"),
                                                      default=rules.DEFAULT_MAIN_QUESTIONS)
    reserve_questions = models.PositiveSmallIntegerField(
        _("reserve questions"), default=rules.DEFAULT_RESERVE_QUESTIONS)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.SETUP
    )
    # Bumped each time the board is recomputed and stored: a process that kept the closed
    # questions of another generation reads them again (kingofhill.selectors.remember_closed).
    board_generation = models.PositiveIntegerField(_("board generation"), default=0)
    board = models.JSONField(_("board"), default=dict, blank=True)
    # Application ids in registration (slope) order, frozen when the game starts so a late
    # change of applications cannot reshuffle the record of a running game.
    team_order = models.JSONField(_("team order"), default=list, blank=True)
    # Hosts see and control only the games they are assigned to; organizers every game.
    hosts = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True,
                                   related_name="koth_games_hosted", verbose_name=_("hosts"))
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    # Whether an answer that arrives after the host's countdown has run out is still taken
    # (the host's choice per game; a club that plays strictly to the second leaves it off).
    answers_after_zero = models.BooleanField(_("answers taken after the countdown's end"),
                                             default=False)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    # The game's defaults for showing a question, which each announcement may override.
    show_projector = models.CharField(_("question on the projector"), max_length=10,
                                      choices=Shown.choices, default=Shown.ANNOUNCE)
    show_phones = models.CharField(_("question on the phones"), max_length=10,
                                   choices=Shown.choices, default=Shown.ANNOUNCE)

    class Meta:
        verbose_name = _("King of the Hill game")
        verbose_name_plural = _("King of the Hill games")

    def __str__(self) -> str:
        return str(self.game)

    @property
    def id(self) -> int:  # the views and templates speak of the game id
        return self.pk


class Question(models.Model):
    class Phase(models.TextChoices):
        DECLARING = "declaring", _("declaring")
        ANSWERING = "answering", _("answering")
        CLOSED = "closed", _("closed")

    koth = models.ForeignKey(
        KothGame, on_delete=models.CASCADE, related_name="questions", verbose_name=_("game")
    )
    number = models.PositiveSmallIntegerField(_("number"))
    text = models.TextField(_("text"), blank=True)
    answer_key = models.CharField(_("answer"), max_length=300, blank=True)
    # Other accepted answers, as typed by the host (normalised when compared).
    variants = models.JSONField(_("accepted variants"), default=list, blank=True)
    partner = models.BooleanField(_("partner question"), default=False)
    # For the host's eyes only (from the question bank): never in a public or team state.
    note = models.TextField(_("note for the host"), blank=True)
    announced_at = models.DateTimeField(_("announced at"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    # The host's optional countdown for the answers: screens count down to its end.
    countdown_seconds = models.PositiveSmallIntegerField(_("countdown, seconds"), null=True,
                                                         blank=True)
    countdown_ends_at = models.DateTimeField(_("countdown ends at"), null=True, blank=True)
    # A paused countdown has no end, only the whole seconds it had left (what the screens
    # showed); resuming gives it a new end from the moment of the resume.
    countdown_paused_left = models.PositiveSmallIntegerField(_("countdown paused, seconds left"),
                                                             null=True, blank=True)
    # The host showed the question and its answer on the projector after the close.
    revealed_at = models.DateTimeField(_("revealed at"), null=True, blank=True)
    # The host's merges of answer groups: a normalised answer → the key of the group it joined
    # (answers arriving later with that form join it too); ``kingofhill.grouping``.
    merged = models.JSONField(_("merged answer groups"), default=dict, blank=True)
    # Fixed at the announcement, from the game's defaults or the host's choice for this one.
    show_projector = models.CharField(_("question on the projector"), max_length=10,
                                      choices=Shown.choices, blank=True)
    show_phones = models.CharField(_("question on the phones"), max_length=10,
                                   choices=Shown.choices, blank=True)
    image = models.ForeignKey("QuestionImage", on_delete=models.SET_NULL, null=True,
                              blank=True, related_name="+", verbose_name=_("image"))
    # Pairs of group keys the host said are not the same answer: never suggested again.
    kept_apart = models.JSONField(_("answer groups kept apart"), default=list, blank=True)

    class Meta:
        ordering = ["koth", "number"]
        verbose_name = _("question")
        verbose_name_plural = _("questions")
        constraints = [
            models.UniqueConstraint(fields=["koth", "number"], name="koth_question_once"),
        ]

    def __str__(self) -> str:
        return f"{self.koth} #{self.number}"

    @property
    def phase(self) -> str:
        if self.closed_at is not None:
            return self.Phase.CLOSED
        if self.announced_at is not None:
            return self.Phase.ANSWERING
        return self.Phase.DECLARING

    def shown_on(self, screen: str) -> bool:
        """Whether ``screen`` ("projector" or "phones") shows the text and image now."""
        show = self.show_projector if screen == "projector" else self.show_phones
        return rules.question_shown(show, announced=self.announced_at is not None,
                                    closed=self.closed_at is not None,
                                    revealed=self.revealed_at is not None)


class PreparedQuestion(models.Model):
    """A question prepared before the evening (``kingofhill.bank``): the announcement of a
    question takes the next one not yet used and links it (``question``)."""

    koth = models.ForeignKey(
        KothGame, on_delete=models.CASCADE, related_name="bank", verbose_name=_("game")
    )
    position = models.PositiveIntegerField(_("position"))
    text = models.TextField(_("text"))
    answer_key = models.CharField(_("answer"), max_length=300, blank=True)
    variants = models.JSONField(_("accepted variants"), default=list, blank=True)
    partner = models.BooleanField(_("partner question"), default=False)
    note = models.TextField(_("note for the host"), blank=True)
    image = models.ForeignKey("QuestionImage", on_delete=models.SET_NULL, null=True,
                              blank=True, related_name="+", verbose_name=_("image"))
    # The question it was announced as; a question dropped when a changed verdict finished the
    # game sets it free again.
    question = models.OneToOneField(
        Question, on_delete=models.SET_NULL, null=True, blank=True, related_name="prepared",
        verbose_name=_("announced as"),
    )

    class Meta:
        ordering = ["koth", "position", "pk"]
        verbose_name = _("prepared question")
        verbose_name_plural = _("prepared questions")

    def __str__(self) -> str:
        return self.text[:60]


class QuestionImage(models.Model):
    """A question's picture (a photo, a map, a score), cleaned by ``core.images``. Its own row,
    so the snapshot every write reads carries only its id, never its bytes."""

    koth = models.ForeignKey(KothGame, on_delete=models.CASCADE, related_name="images",
                             verbose_name=_("game"))
    content_type = models.CharField(_("content type"), max_length=40)
    data = models.BinaryField(_("data"))
    size = models.PositiveIntegerField(_("size, bytes"))

    class Meta:
        verbose_name = _("question image")
        verbose_name_plural = _("question images")

    def __str__(self) -> str:
        return f"{self.content_type}, {self.size} B"


class Declaration(models.Model):
    class Kind(models.TextChoices):
        JUMP = "jump", _("jump")
        REVOLUTION = "revolution", _("revolution")

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="declarations",
        verbose_name=_("question"),
    )
    application = models.ForeignKey(
        Application, on_delete=models.CASCADE, related_name="koth_declarations",
        verbose_name=_("team"),
    )
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    at = models.DateTimeField(_("declared at"))

    class Meta:
        ordering = ["question", "at"]
        verbose_name = _("declaration")
        verbose_name_plural = _("declarations")
        constraints = [
            models.UniqueConstraint(
                fields=["question", "application"], name="koth_declaration_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.application_id}: {self.kind} ({self.question})"


class Answer(models.Model):
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="answers", verbose_name=_("question")
    )
    application = models.ForeignKey(
        Application, on_delete=models.CASCADE, related_name="koth_answers",
        verbose_name=_("team"),
    )
    text = models.CharField(_("answer"), max_length=300)
    normalized = models.CharField(_("normalised answer"), max_length=300, db_index=True)
    at = models.DateTimeField(_("arrived at"))
    verdict = models.BooleanField(_("correct"), null=True, blank=True)
    judged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("judged by"),
    )
    judged_at = models.DateTimeField(_("judged at"), null=True, blank=True)
    # Generated once per question by the phone: a retried send carries the same id and gets
    # the stored answer back instead of an error.
    client_id = models.UUIDField(_("client id"))

    class Meta:
        ordering = ["question", "at", "pk"]
        verbose_name = _("answer")
        verbose_name_plural = _("answers")
        constraints = [
            models.UniqueConstraint(fields=["question", "application"], name="koth_answer_once"),
        ]

    def __str__(self) -> str:
        return self.text


class VerdictChange(models.Model):
    """Every verdict an answer ever had (automatic key matches have ``changed_by`` empty)."""

    answer = models.ForeignKey(
        Answer, on_delete=models.CASCADE, related_name="changes", verbose_name=_("answer")
    )
    old = models.BooleanField(_("old verdict"), null=True)
    new = models.BooleanField(_("new verdict"), null=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(_("changed at"))

    class Meta:
        ordering = ["changed_at", "pk"]
        verbose_name = _("verdict change")
        verbose_name_plural = _("verdict changes")

    def __str__(self) -> str:
        return f"{self.answer_id}: {self.old} → {self.new}"


class PartnerChange(models.Model):
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="partner_changes",
        verbose_name=_("question"),
    )
    old = models.BooleanField(_("old mark"))
    new = models.BooleanField(_("new mark"))
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(_("changed at"))

    class Meta:
        ordering = ["changed_at", "pk"]
        verbose_name = _("partner mark change")
        verbose_name_plural = _("partner mark changes")

    def __str__(self) -> str:
        return f"{self.question_id}: {self.old} → {self.new}"


class PhoneSocket(models.Model):
    """One open team-phone socket (``kingofhill.consumers.TeamConsumer``): a team is connected
    while it has at least one. The host console shows who is (presence)."""

    koth = models.ForeignKey(
        KothGame, on_delete=models.CASCADE, related_name="sockets", verbose_name=_("game")
    )
    application = models.ForeignKey(
        Application, on_delete=models.CASCADE, related_name="+", verbose_name=_("team"))
    channel = models.CharField(_("channel"), max_length=200, unique=True)
    opened_at = models.DateTimeField(_("opened at"))
    # The lease: the socket's worker refreshes it while the socket is open
    # (``kingofhill.presence.BEATS``); a row its worker stopped refreshing counts as gone.
    seen_at = models.DateTimeField(_("seen at"), default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["seen_at"], name="koth_phone_seen")]
        verbose_name = _("team phone socket")
        verbose_name_plural = _("team phone sockets")

    def __str__(self) -> str:
        return self.channel


class Appeal(DecidedByOrganizer):
    """A team disputing the verdict it got on one closed question (``kingofhill.appeals``):
    the host accepts it (the verdict flips, as a change of the past) or rejects it with an
    answer. One per team and question, whatever its outcome."""

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("appeal status", "open")
        ACCEPTED = "accepted", pgettext_lazy("appeal status", "accepted")
        REJECTED = "rejected", pgettext_lazy("appeal status", "rejected")

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="appeals", verbose_name=_("question"))
    application = models.ForeignKey(
        Application, on_delete=models.CASCADE, related_name="koth_appeals",
        verbose_name=_("team"))
    text = models.CharField(_("appeal"), max_length=500)
    # The verdict disputed: accepting sets the other one.
    verdict = models.BooleanField(_("disputed verdict"))
    created_at = models.DateTimeField(_("filed at"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices,
                              default=Status.OPEN)
    answer = models.TextField(_("host's answer"), blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        verbose_name = _("appeal")
        verbose_name_plural = _("appeals")
        constraints = [
            models.UniqueConstraint(fields=["question", "application"],
                                    name="koth_appeal_once"),
        ]

    def __str__(self) -> str:
        return f"{self.question_id}/{self.application_id}: {self.status}"
