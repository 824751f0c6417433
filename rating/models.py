"""Published results of the games and the seasons they count in (``docs/rules/rating.md``).

Models hold data and constraints only. Results are computed from the live engines and written by
``rating.services``; the season table is never stored: ``rating.selectors`` builds the season
record from the final results and computes it with the pure ``rating.rules``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from rating.rules import VOTES
from teams.models import Game, Team

VOTE_CHOICES = [(v, str(v)) for v in sorted(VOTES, reverse=True)]


class Season(models.Model):
    """A season of one format: a points scale and the rated games assigned to it."""

    title = models.CharField(_("title"), max_length=200)
    format = models.CharField(_("format"), max_length=20, choices=Game.Format.choices)
    # Points by place, 1st first (the season record's ``scale``); set from the format's
    # default by ``rating.services.season_create``.
    scale = models.JSONField(_("points scale"), default=list, blank=True)
    games = models.ManyToManyField(
        Game, blank=True, related_name="seasons", verbose_name=_("games"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("created by"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("season")
        verbose_name_plural = _("seasons")

    def __str__(self) -> str:
        return self.title


class GameResult(models.Model):
    """The published results of one game: preliminary (editable), then final (they count)."""

    class Status(models.TextChoices):
        PRELIMINARY = "preliminary", _("preliminary")
        FINAL = "final", _("final")

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, related_name="result", verbose_name=_("game"))
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PRELIMINARY)
    # When the game ended, read from the game's record at publication: the protest window,
    # the vote window and the final due date all count from it (``rating.rules``).
    ended_at = models.DateTimeField(_("game ended at"), null=True, blank=True)
    # How the game ended, as its engine says (King of the Hill: ``summit``/``questions``…;
    # GoRoD: ``all_finished``/``organizer``/``cap``).
    finish_reason = models.CharField(_("how the game ended"), max_length=40, blank=True)
    published_at = models.DateTimeField(_("published at"))
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("published by"))
    finalized_at = models.DateTimeField(_("finalized at"), null=True, blank=True)
    reopen_reason = models.TextField(_("reason for re-opening"), blank=True)
    early_final_reason = models.TextField(_("reason for an early final"), blank=True)
    # Set when the game's board changed after publication (a verdict or partner mark of a
    # played question): the page says so until the organizer publishes again.
    outdated_at = models.DateTimeField(_("out of date since"), null=True, blank=True)
    outdated_reason = models.TextField(_("why out of date"), blank=True)

    class Meta:
        ordering = ["-published_at", "-id"]
        verbose_name = _("game results")
        verbose_name_plural = _("game results")

    def __str__(self) -> str:
        return f"{self.game} ({self.get_status_display()})"

    @property
    def is_final(self) -> bool:
        return self.status == self.Status.FINAL


class ResultRow(models.Model):
    """One team's line: its place (none when disqualified), a rating deduction, where the
    game's own standings put it and the game's own figures for it (from the game's record)."""

    result = models.ForeignKey(
        GameResult, on_delete=models.CASCADE, related_name="rows", verbose_name=_("results"))
    team = models.ForeignKey(
        Team, on_delete=models.PROTECT, related_name="result_rows", verbose_name=_("team"))
    place = models.PositiveSmallIntegerField(_("place"), null=True, blank=True)
    disqualified = models.BooleanField(_("disqualified"), default=False)
    deduction = models.PositiveIntegerField(_("deduction, points"), default=0)
    standing = models.PositiveSmallIntegerField(_("position in the game's standings"), default=0)
    # King of the Hill: ``step``, ``points``; GoRoD: ``levels_closed``, ``failed_levels``,
    # ``penalty_s``, ``bonus_s``, ``total_s``, ``status``.
    figures = models.JSONField(_("the game's figures"), default=dict, blank=True)

    class Meta:
        ordering = ["result", "disqualified", "place", "standing"]
        verbose_name = _("result row")
        verbose_name_plural = _("result rows")
        constraints = [
            models.UniqueConstraint(fields=["result", "team"], name="rating_row_once"),
        ]

    def __str__(self) -> str:
        return f"{self.team}: {self.place or '—'}"


class OrganizerVote(models.Model):
    """A playing team's captain's vote on the organizing team's game (10.6); none = no vote."""

    result = models.ForeignKey(
        GameResult, on_delete=models.CASCADE, related_name="votes", verbose_name=_("results"))
    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="organizer_votes", verbose_name=_("team"))
    value = models.PositiveSmallIntegerField(
        _("vote"), choices=VOTE_CHOICES, null=True, blank=True)
    voted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("voted by"))
    voted_at = models.DateTimeField(_("voted at"), null=True, blank=True)

    class Meta:
        ordering = ["result", "team_id"]
        verbose_name = _("organizer vote")
        verbose_name_plural = _("organizer votes")
        constraints = [
            models.UniqueConstraint(fields=["result", "team"], name="rating_vote_once"),
        ]

    def __str__(self) -> str:
        return f"{self.team}: {self.value}"


PROTEST_TEXT_MAX = 2000


class Protest(models.Model):
    """A playing team's protest against preliminary results, and the organizer's answer."""

    class Status(models.TextChoices):
        # Contexts: a protest (протест) is masculine, an application (заявка) feminine.
        OPEN = "open", pgettext_lazy("protest status", "open")
        UPHELD = "upheld", pgettext_lazy("protest status", "upheld")
        REJECTED = "rejected", pgettext_lazy("protest status", "rejected")

    result = models.ForeignKey(
        GameResult, on_delete=models.CASCADE, related_name="protests", verbose_name=_("results"))
    team = models.ForeignKey(
        Team, on_delete=models.PROTECT, related_name="protests", verbose_name=_("team"))
    text = models.TextField(_("protest"), max_length=PROTEST_TEXT_MAX)
    created_at = models.DateTimeField(_("filed at"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("filed by"))
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.OPEN)
    answer = models.TextField(_("answer"), blank=True, max_length=PROTEST_TEXT_MAX)
    answered_at = models.DateTimeField(_("answered at"), null=True, blank=True)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("answered by"))

    class Meta:
        ordering = ["result", "created_at", "id"]
        verbose_name = _("protest")
        verbose_name_plural = _("protests")

    def __str__(self) -> str:
        return f"{self.team}: {self.get_status_display()}"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN


class ResultChange(models.Model):
    """The audit log of a game's results: who changed what, when and why."""

    class Action(models.TextChoices):
        PUBLISH = "publish", _("published")
        EDIT = "edit", _("row changed")
        FINALIZE = "finalize", _("made final")
        EARLY_FINAL = "early_final", _("made final early")
        REOPEN = "reopen", _("re-opened")
        ORGANIZER = "organizer", _("organizing team")
        PROTEST = "protest", _("protest answered")

    result = models.ForeignKey(
        GameResult, on_delete=models.CASCADE, related_name="changes", verbose_name=_("results"))
    action = models.CharField(_("action"), max_length=20, choices=Action.choices)
    team = models.ForeignKey(
        Team, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name=_("team"))
    # ``{"field": [before, after], …}`` for a row change.
    detail = models.JSONField(_("what changed"), default=dict, blank=True)
    reason = models.TextField(_("reason"), blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("by"))
    at = models.DateTimeField(_("at"))

    class Meta:
        ordering = ["result", "-at", "-id"]
        verbose_name = _("results change")
        verbose_name_plural = _("results changes")

    def __str__(self) -> str:
        return f"{self.result_id}: {self.get_action_display()}"
