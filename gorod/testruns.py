"""A test run of a GoRoD scenario before the night: the organizer copies a game still in set-up
(levels, task images, settings, routes) into a test run (``teams.Game.test_of``) with test
teams whose phones join by link or PIN, on a real or speeded-up clock; plays it, resets it to
set-up as often as needed, and deletes it. Nothing of it reaches the results or the season: a
test run is never listed, published nor rated (``teams.selectors.games_listed``,
``rating.services``), and its teams are never listed with the club's."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError
from gorod import rules, selectors, signals
from gorod.guards import require_organizer
from gorod.live import LIVE
from gorod.models import (
    CheckIn,
    CodeAttempt,
    GorodGame,
    Level,
    Message,
    Pause,
    PhotoProof,
    Route,
    Ruling,
    TaskImage,
    TimeoutRequest,
)
from live.write import Write
from teams import services as teams_services
from teams.errors import TeamsError
from teams.models import Application, Game

DEFAULT_FACTOR = 10
DEFAULT_TEAMS = 2
MAX_TEAMS = 20
TITLE_MAX = 200


def _source(game) -> GorodGame:
    game_id = game if isinstance(game, int) else game.pk
    found = GorodGame.objects.select_related("game").filter(pk=game_id).first()
    if found is None:
        raise DomainError(_("No GoRoD game here."))
    return found


def _whole_number(value, low: int, high: int, message: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise DomainError(message)
    return value


@transaction.atomic
def test_run_create(*, actor, game, factor: int = DEFAULT_FACTOR, teams: int = DEFAULT_TEAMS,
                    now: datetime | None = None) -> GorodGame:
    """Copy a game still in set-up into a new test run «Test: <title>» with ``teams`` test
    teams and its clock ``factor`` times faster (``rules.speed_up``: the copy's minutes are
    divided once, here). [decision] Only before the night (the source in set-up): a played
    night is tested by replaying its record. A source with routes (a non-linear game) gets
    routes generated for the test teams; personal code parts name the source's teams and are
    copied as they are: the copy's set-up says which test team lacks one."""
    require_organizer(actor)
    now = now or timezone.now()
    low, high = rules.SPEED_UP_RANGE
    factor = _whole_number(factor, low, high, _(
        "The clock's speed-up is a whole number from %(low)d to %(high)d.")
        % {"low": low, "high": high})
    teams = _whole_number(teams, 1, MAX_TEAMS, _(
        "A test run has from 1 to %(max)d test teams.") % {"max": MAX_TEAMS})
    source = _source(game)
    Game.objects.select_for_update().get(pk=source.pk)  # one copy at a time per source
    if source.game.test_of_id is not None:
        raise DomainError(_("This is a test run already: make a test run of its source game."))
    if source.status != GorodGame.Status.SETUP:
        raise DomainError(_("A test run is made before the night, from a game still in set-up."))
    levels = selectors.levels(source)
    if not levels:
        raise DomainError(_("Add at least one level before a test run."))
    speeded = rules.speed_up(
        factor=factor, hint_offsets_min=source.hint_offsets_min,
        sliv_penalty_min=source.sliv_penalty_min, max_duration_h=source.max_duration_h,
        durations_min=[lv.duration_min for lv in levels],
        checkin_every_min=source.checkin_every_min)
    # A checked game's minutes divided stay within the engine's bounds: no check can refuse.
    settings = {"hint_offsets_min": speeded.hint_offsets_min,
                "sliv_penalty_min": speeded.sliv_penalty_min,
                "max_duration_h": speeded.max_duration_h}
    title = _("Test: %(title)s") % {"title": source.game.title}
    copy = teams_services.game_create(
        actor=actor, title=title[:TITLE_MAX], game_format=Game.Format.GOROD, starts_at=now,
        fee=0, rated=False)
    copy.test_of = source.game
    copy.save(update_fields=["test_of"])
    gg = GorodGame.objects.create(
        game=copy, **settings, max_wrong=source.max_wrong,
        wrong_window_s=source.wrong_window_s, checkin_every_min=speeded.checkin_every_min,
        clock_factor=factor)
    TaskImage.objects.bulk_create(
        TaskImage(gorod=gg, name=image.name, content_type=image.content_type, data=image.data,
                  size=image.size) for image in TaskImage.objects.filter(gorod=source))
    Level.objects.bulk_create(
        Level(gorod=gg, order=lv.order, label=lv.label, task=lv.task, hint1=lv.hint1,
              hint2=lv.hint2, duration_min=minutes, danger=lv.danger, codes=lv.codes,
              images=lv.images, photo_proof=lv.photo_proof)
        for lv, minutes in zip(levels, speeded.durations_min, strict=True))
    entries = []
    for n in range(1, teams + 1):
        name = _("Testers %(n)d · run %(run)d") % {"n": n, "run": gg.pk}
        try:
            entries.append(teams_services.test_team_create(game=copy, actor=actor, name=name,
                                                           now=now))
        except TeamsError as exc:
            raise DomainError(exc.message) from None
    if Route.objects.filter(gorod=source).exists():
        routes = rules.generate_routes([lv.label for lv in levels],
                                       [str(a.pk) for a in entries], uuid.uuid4().hex)
        Route.objects.bulk_create(Route(gorod=gg, application_id=int(pk), levels=route)
                                  for pk, route in routes.items())
    audit.record(game=source, actor=actor, action="gorod.test_run", at=now, before=None,
                 after={"test_run": gg.pk, "factor": factor, "teams": teams})
    LIVE.refresh(game=gg.pk, now=now)
    return gg


def _require_test_run(gg: GorodGame) -> None:
    if gg.game.test_of_id is None:
        raise DomainError(_("Only a test run can be reset or deleted; this is a real game."))


@LIVE.write
def test_run_reset(w: Write, *, actor) -> GorodGame:
    """Clear a test run's play — attempts, rulings, timeouts, photos, messages, check-ins,
    pauses — back to set-up, so it can be played again; its levels, settings, teams and their
    phones stay. Audited. The states are rebuilt whole at the next version: open screens
    follow to set-up."""
    require_organizer(actor)
    gg = w.game
    _require_test_run(gg)
    played = {"status": gg.status, "started_at": selectors.iso(gg.started_at),
              "attempts": CodeAttempt.objects.filter(gorod=gg).count(),
              "rulings": Ruling.objects.filter(gorod=gg).count()}
    for model in (CodeAttempt, Ruling, TimeoutRequest, PhotoProof, Message, CheckIn, Pause):
        model.objects.filter(gorod=gg).delete()
    gg.status = GorodGame.Status.SETUP
    gg.started_at = gg.ended_at = gg.next_deadline = gg.paused_at = None
    gg.team_order, gg.pauses = [], []
    gg.clock_failures = 0
    gg.auto_start = gg.leaderboard_public = gg.scenario_public = False
    gg.save(update_fields=["status", "started_at", "ended_at", "next_deadline", "paused_at",
                           "team_order", "pauses", "clock_failures", "auto_start",
                           "leaderboard_public", "scenario_public"])
    Game.objects.filter(pk=gg.pk).update(status=Game.Status.SCHEDULED)
    signals.bump([gg.pk])  # what the writes keep of its set-up starts afresh
    audit.record(game=gg, actor=actor, action="gorod.test_run_reset", at=w.now, before=played,
                 after={"status": gg.status})
    return gg


@transaction.atomic
def test_run_delete(*, actor, game, now: datetime | None = None) -> int:
    """Delete a test run with its test teams and everything played in it; recorded in the
    audit log of its source. Returns the source game's id."""
    require_organizer(actor)
    gg = _source(game)
    _require_test_run(gg)
    copy = Game.objects.select_for_update().get(pk=gg.pk)
    source_id = copy.test_of_id
    audit.record(game=source_id, actor=actor, action="gorod.test_run_delete", at=now,
                 before={"test_run": gg.pk, "title": copy.title, "status": gg.status},
                 after=None)
    copy.delete()
    return source_id


@dataclass(frozen=True)
class TestRun:
    """A test run as the source's set-up page lists it."""

    gorod: GorodGame
    teams: list[Application]


def test_runs(source: GorodGame) -> list[TestRun]:
    """The test runs of a game, the newest first, each with its test teams (their join link
    and PIN)."""
    runs = list(GorodGame.objects.select_related("game").filter(game__test_of_id=source.pk)
                .order_by("-pk"))
    teams: dict[int, list[Application]] = {}
    for entry in (Application.objects.select_related("team")
                  .filter(game_id__in=[gg.pk for gg in runs]).order_by("pk")):
        teams.setdefault(entry.game_id, []).append(entry)
    return [TestRun(gorod=gg, teams=teams.get(gg.pk, [])) for gg in runs]
