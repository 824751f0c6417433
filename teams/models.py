"""Who plays: teams and their members, the scheduled games both formats share, applications
(with the secret that lets phones join a team), bans, notices and prize benefits.

Models hold data and constraints only. Rules live in ``teams.rules`` (pure) and writes in
``teams.services``; ``Game`` is deliberately small because ``kingofhill.KothGame`` and
``gorod.GorodGame`` hang their own state on it with a OneToOneField.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core.models import DecidedByOrganizer

DEFAULT_FEE = 400  # RUB, GoRoD 3.27


class Team(models.Model):
    name = models.CharField(_("name"), max_length=100)
    # NFKC + casefold of the name, set by the services: "unique case-insensitively" for any
    # script (SQLite's LOWER() folds ASCII only, so a functional constraint is not enough).
    name_key = models.CharField(max_length=100, unique=True, editable=False)
    captain = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="captained_teams",
        verbose_name=_("captain"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    # A team made only to play a test run of a game (its testers' phones): gone with that
    # game, and never listed with the club's teams.
    test_game = models.ForeignKey(
        "Game",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="test_teams",
        verbose_name=_("test run"),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("team")
        verbose_name_plural = _("teams")

    def __str__(self) -> str:
        return self.name


class Member(models.Model):
    """A player. ``nickname`` is public; full name, phone and e-mail are private (GoRoD 5.2):
    only organizers and the team's own captain see them.

    ``user`` is the player's profile (an account) once the player claimed this roster entry or
    the captain linked it (``teams.profiles``); ``linked_at`` says since when, which decides
    the games the entry counts for in the King of the Hill players' rating (rule 2.6)."""

    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="members", verbose_name=_("team")
    )
    nickname = models.CharField(_("nickname"), max_length=100)
    nickname_key = models.CharField(max_length=100, editable=False)
    full_name = models.CharField(_("full name"), max_length=200, blank=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)
    email = models.EmailField(_("e-mail"), blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="memberships",
        verbose_name=_("profile"),
    )
    linked_at = models.DateTimeField(_("linked at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["team", "nickname"]
        verbose_name = _("member")
        verbose_name_plural = _("members")
        constraints = [
            models.UniqueConstraint(
                fields=["team", "nickname_key"], name="teams_member_nickname_ci_unique"
            ),
            # One person is one entry of a team's roster (NULLs, the unlinked, are distinct).
            models.UniqueConstraint(fields=["team", "user"], name="teams_member_user_once"),
        ]

    def __str__(self) -> str:
        return self.nickname


class Game(models.Model):
    """One scheduled game of either format. Applications, fees and join links hang on it."""

    class Format(models.TextChoices):
        KINGOFHILL = "kingofhill", _("King of the Hill")
        GOROD = "gorod", _("GoRoD")

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("scheduled")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        CANCELLED = "cancelled", _("cancelled")

    title = models.CharField(_("title"), max_length=200)
    format = models.CharField(_("format"), max_length=20, choices=Format.choices)
    starts_at = models.DateTimeField(_("starts at"))
    fee = models.PositiveIntegerField(_("fee, RUB"), default=DEFAULT_FEE)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.SCHEDULED
    )
    rated = models.BooleanField(_("rated"), default=True)
    # The team that prepares the game (GoRoD 10.5): it may not apply to play it, and the
    # playing teams' captains vote on its work after the game.
    organizing_team = models.ForeignKey(
        "Team",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="organized_games",
        verbose_name=_("organizing team"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    # Published (applications open) when created: GoRoD 8.6 wants it 4+ days before the start.
    created_at = models.DateTimeField(_("published at"), auto_now_add=True)
    # A test run: the organizers' copy of this game, played before the night by testers. It is
    # never listed with the games, never published nor rated, and goes with its source.
    test_of = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="test_runs",
        verbose_name=_("test run of"),
    )

    class Meta:
        ordering = ["-starts_at"]
        verbose_name = _("game")
        verbose_name_plural = _("games")

    def __str__(self) -> str:
        return self.title

    def team_page_url(self) -> str | None:
        """Where a joined phone plays this game: each format app names its team page
        ``<format>:play`` (e.g. ``kingofhill:play``); None while a format has no live pages."""
        try:
            return reverse(f"{self.format}:play", args=[self.pk])
        except NoReverseMatch:
            return None


class Application(DecidedByOrganizer):
    """A team's application for a game, with the roster; once approved, the team plays.

    An approved application carries the join secret for team phones: ``join_token`` (the link
    and QR code), ``join_pin`` (6 digits, unique within the game) and ``join_version``, which
    a revocation increments so every phone bound to the old version is logged out.
    """

    class Status(models.TextChoices):
        # Contexts: an application (заявка) is feminine, a protest (протест) masculine.
        PENDING = "pending", pgettext_lazy("application status", "pending")
        APPROVED = "approved", pgettext_lazy("application status", "approved")
        REJECTED = "rejected", pgettext_lazy("application status", "rejected")
        WITHDRAWN = "withdrawn", pgettext_lazy("application status", "withdrawn")

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="applications", verbose_name=_("game")
    )
    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="applications", verbose_name=_("team")
    )
    members = models.ManyToManyField(
        Member, related_name="applications", blank=True, verbose_name=_("roster")
    )
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )
    created_at = models.DateTimeField(_("applied at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    paid = models.BooleanField(_("fee paid"), default=False)
    paid_at = models.DateTimeField(_("paid at"), null=True, blank=True)
    join_token = models.CharField(
        _("join token"), max_length=64, unique=True, null=True, blank=True, editable=False
    )
    join_pin = models.CharField(  # noqa: DJ001 - NULL = no PIN; unique per game when set
        _("join PIN"), max_length=6, null=True, blank=True, editable=False
    )
    join_version = models.PositiveIntegerField(_("join version"), default=1, editable=False)

    class Meta:
        ordering = ["game", "created_at"]
        verbose_name = _("application")
        verbose_name_plural = _("applications")
        constraints = [
            models.UniqueConstraint(fields=["game", "team"], name="teams_application_once"),
            models.UniqueConstraint(
                fields=["game", "join_pin"], name="teams_application_pin_unique_in_game"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.team} @ {self.game}"


class Ban(models.Model):
    """A team may not apply while a ban lasts (disqualification, GoRoD 11.3.8–9)."""

    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="bans", verbose_name=_("team")
    )
    reason = models.TextField(_("reason"))
    until = models.DateTimeField(_("until"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["-until"]
        verbose_name = _("ban")
        verbose_name_plural = _("bans")

    def __str__(self) -> str:
        return f"{self.team} → {self.until:%Y-%m-%d}"


class Notice(models.Model):
    """A message shown on a team's page (e.g. "the game was cancelled")."""

    class Kind(models.TextChoices):
        GAME_CANCELLED = "game_cancelled", _("game cancelled")
        APPLICATION_APPROVED = "application_approved", _("application approved")
        APPLICATION_REJECTED = "application_rejected", _("application rejected")
        JOIN_REVOKED = "join_revoked", _("join link revoked")
        BANNED = "banned", _("banned")
        BENEFIT = "benefit", _("prize benefit")
        RESULTS_PRELIMINARY = "results_preliminary", _("preliminary results")
        PROTEST_ANSWERED = "protest_answered", _("protest answered")
        RESULTS_FINAL = "results_final", _("final results")

    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="notices", verbose_name=_("team")
    )
    game = models.ForeignKey(
        Game,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="notices",
        verbose_name=_("game"),
    )
    kind = models.CharField(_("kind"), max_length=30, choices=Kind.choices)
    text = models.TextField(_("organizer's note"), blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("notice")
        verbose_name_plural = _("notices")

    def __str__(self) -> str:
        return f"{self.team}: {self.get_kind_display()}"


class Benefit(models.Model):
    """A prize benefit won at ``game`` (GoRoD 3.28): 1st place 100 % off the next game's fee,
    2nd 50 %, 3rd 25 %. Which game it pays for (or that it lapsed, 3.31) is computed by
    ``teams.rules.fee_ledger`` from the team's games; nothing about its use is stored."""

    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="benefits", verbose_name=_("team")
    )
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="benefits", verbose_name=_("won at")
    )
    place = models.PositiveSmallIntegerField(_("place"))
    percent = models.PositiveSmallIntegerField(_("discount, %"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["game", "place"]
        verbose_name = _("prize benefit")
        verbose_name_plural = _("prize benefits")
        constraints = [
            models.UniqueConstraint(fields=["team", "game"], name="teams_benefit_once_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.team}: −{self.percent}% ({self.game})"
