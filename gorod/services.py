"""Writes of the live GoRoD game: one keyword-only ``<entity>_<action>`` per action.

Each runs in one transaction that locks the ``GorodGame`` row (``select_for_update``) so the
writers of one game are serialised, validates, writes, and then recomputes the whole game with
the pure ``gorod.rules.compute(record, now)`` from the rows: a write the engine refuses (an
impossible ruling) raises ``DomainError`` with the engine's message and nothing is stored.
``_publish`` stores ``version + 1`` and, after the commit, broadcasts the new states through
``gorod.realtime``. Nothing derived is stored: hints and failed levels follow from the record
and the clock (``gorod_clock`` only broadcasts at each deadline).

Authorization of the request is the caller's job (views, API, consumers); organizer actions
also check ``core.roles.is_organizer`` here.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import DomainError, NotAllowed
from core.records import RecordError
from core.roles import is_organizer
from gorod import realtime, rules, selectors
from gorod.codes import (
    CodeSpecError,
    check_attempt_limit,
    level_codes_from_dict,
    match_attempt,
    normalize_code,
)
from gorod.models import CodeAttempt, GorodGame, Level, Route, Ruling
from teams.models import Application, Game

CODE_MAX = 200


# --- plumbing ---------------------------------------------------------------------------------


def _lock(game: GorodGame | Game | int) -> GorodGame:
    game_id = game if isinstance(game, int) else game.pk
    try:
        return GorodGame.objects.select_for_update().select_related("game").get(pk=game_id)
    except GorodGame.DoesNotExist:
        raise DomainError(_("No GoRoD game with id %(id)s.") % {"id": game_id}) from None


def _require_organizer(actor) -> None:
    if not is_organizer(actor):
        raise NotAllowed(_("Only organizers may do this."))


def _require_running(gg: GorodGame) -> None:
    if gg.status == GorodGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    if gg.status == GorodGame.Status.FINISHED:
        raise DomainError(_("The game has ended."))


def _entry(gg: GorodGame, application: Application | int) -> Application:
    app_id = application if isinstance(application, int) else application.pk
    if app_id not in (gg.team_order or []):
        raise DomainError(_("This team does not play in this game."))
    return Application.objects.select_related("team").get(pk=app_id)


def _snapshot(gg: GorodGame, now: datetime, *, end: datetime | None = None) -> selectors.Snapshot:
    try:
        return selectors.load_snapshot(gg, now, end=end)
    except RecordError as exc:
        raise DomainError(
            _("The game engine refuses this: %(why)s") % {"why": exc}) from None


ALL = None  # every team's view changed


def _publish(gg: GorodGame, now: datetime, *, teams: Sequence[int] | None = ALL,
             snap: selectors.Snapshot | None = None) -> selectors.Snapshot:
    """Recompute (refusing an impossible record), follow the engine's end of the game, store
    the bumped versions and broadcast after the commit."""
    snap = snap or _snapshot(gg, now)
    results = snap.results
    fields = ["version", "team_versions"]
    if gg.status == GorodGame.Status.RUNNING and results is not None and results.game_over:
        gg.status = GorodGame.Status.FINISHED
        gg.ended_at = gg.ended_at or results.ended_at
        fields += ["status", "ended_at"]
        Game.objects.filter(pk=gg.pk, status=Game.Status.RUNNING).update(
            status=Game.Status.FINISHED)
        snap = _snapshot(gg, now)
        teams = ALL
    ids = [a.pk for a in snap.entries] if teams is ALL else list(teams)
    gg.version += 1
    versions = dict(gg.team_versions or {})
    for pk in ids:
        versions[str(pk)] = int(versions.get(str(pk), 0)) + 1
    gg.team_versions = versions
    gg.save(update_fields=fields)
    game_id, version = gg.pk, gg.version

    def send() -> None:
        # Recomputed after the commit, from what was committed.
        fresh = selectors.gorod_game(game_id)
        after = selectors.load_snapshot(fresh, now)
        realtime.broadcast_states(
            game_id, version, public=selectors.public_state(after),
            organizer=selectors.organizer_state(after),
            teams={pk: (int(versions[str(pk)]), selectors.team_state(after, pk)) for pk in ids})

    transaction.on_commit(send)
    return snap


def _check_codes(spec: dict, where: str) -> dict:
    try:
        level_codes_from_dict(spec)
    except (CodeSpecError, TypeError) as exc:
        raise DomainError(_("Level %(level)s: %(why)s") % {"level": where, "why": exc}) from None
    return spec


# --- set-up -----------------------------------------------------------------------------------


@transaction.atomic
def gorod_create(*, actor, game: Game | int, levels: Iterable[dict] = (),
                 hint_offsets_min: Sequence[float] = (25, 50), sliv_penalty_min: float = 15,
                 max_duration_h: float = 24, max_wrong: int = 10,
                 wrong_window_s: int = 60) -> GorodGame:
    """Set up the live GoRoD of a scheduled ``teams.Game`` with its levels (dicts with
    ``label``, ``task``, ``hint1``, ``hint2``, ``duration_min``, ``codes``)."""
    _require_organizer(actor)
    game_id = game if isinstance(game, int) else game.pk
    try:
        game = Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise DomainError(_("No game with id %(id)s.") % {"id": game_id}) from None
    if game.format != Game.Format.GOROD:
        raise DomainError(_("This game is not a GoRoD game."))
    if GorodGame.objects.filter(pk=game.pk).exists():
        raise DomainError(_("This game's GoRoD is already set up."))
    if max_wrong < 1 or wrong_window_s < 1:
        raise DomainError(_("The brute-force limit needs at least 1 code and 1 second."))
    gg = GorodGame.objects.create(
        game=game, hint_offsets_min=[float(x) for x in hint_offsets_min],
        sliv_penalty_min=sliv_penalty_min, max_duration_h=max_duration_h,
        max_wrong=max_wrong, wrong_window_s=wrong_window_s)
    for spec in levels:
        level_add(actor=actor, game=gg, **spec)
    return gg


@transaction.atomic
def level_add(*, actor, game: GorodGame | int, codes: dict, label: str | None = None,
              task: str = "", hint1: str = "", hint2: str = "",
              duration_min: float = rules.DEFAULT_LIMIT_MIN) -> Level:
    """Add a level at the end of the game order (before the start only)."""
    _require_organizer(actor)
    gg = _lock(game)
    if gg.status != GorodGame.Status.SETUP:
        raise DomainError(_("Levels can only be added before the start."))
    order = Level.objects.filter(gorod=gg).count() + 1
    label = str(label or order).strip()
    if not label or Level.objects.filter(gorod=gg, label=label).exists():
        raise DomainError(_("Level %(level)s already exists.") % {"level": label})
    if not isinstance(duration_min, int | float) or not 0 < duration_min <= 10080:
        raise DomainError(_("A level's time limit is more than 0 and at most 10080 minutes."))
    return Level.objects.create(gorod=gg, order=order, label=label, task=task, hint1=hint1,
                                hint2=hint2, duration_min=duration_min,
                                codes=_check_codes(codes, label))


@transaction.atomic
def level_delete(*, actor, game: GorodGame | int, level: Level | int) -> None:
    """Remove a level before the start; the later levels move up one place. [decision] Routes
    list every level, so a deletion drops them: generate them again."""
    _require_organizer(actor)
    gg = _lock(game)
    if gg.status != GorodGame.Status.SETUP:
        raise DomainError(_("Levels can only be deleted before the start."))
    level_id = level if isinstance(level, int) else level.pk
    found = Level.objects.filter(gorod=gg, pk=level_id).first()
    if found is None:
        raise DomainError(_("There is no such level in this game."))
    found.delete()
    # One at a time, upwards: each level moves into the place just freed (order is unique).
    for later in Level.objects.filter(gorod=gg, order__gt=found.order).order_by("order"):
        later.order -= 1
        later.save(update_fields=["order"])
    Route.objects.filter(gorod=gg).delete()


@transaction.atomic
def routes_generate(*, actor, game: GorodGame | int, seed: int | str | None = None) -> dict:
    """Routes for a non-linear game (Latin-square rotation of a seeded shuffle), before the
    start; returns ``{application id: [level ids]}``."""
    _require_organizer(actor)
    gg = _lock(game)
    if gg.status != GorodGame.Status.SETUP:
        raise DomainError(_("Routes can only be changed before the start."))
    labels = [lv.label for lv in selectors.levels(gg)]
    teams = selectors.entries(gg)
    if not labels or not teams:
        raise DomainError(_("Routes need levels and approved teams."))
    seed = seed if seed is not None else uuid.uuid4().hex
    routes = rules.generate_routes(labels, [str(a.pk) for a in teams], seed)
    Route.objects.filter(gorod=gg).delete()
    Route.objects.bulk_create([Route(gorod=gg, application_id=int(pk), levels=route)
                               for pk, route in routes.items()])
    return {int(pk): route for pk, route in routes.items()}


@transaction.atomic
def game_start(*, actor, game: GorodGame | int, now: datetime | None = None) -> GorodGame:
    """Every team receives its first level now."""
    _require_organizer(actor)
    now = now or timezone.now()
    gg = _lock(game)
    if gg.status != GorodGame.Status.SETUP:
        raise DomainError(_("The game has already started."))
    level_rows = selectors.levels(gg)
    if not level_rows:
        raise DomainError(_("Add at least one level before the start."))
    teams = selectors.entries(gg)
    if not teams:
        raise DomainError(_("At least one approved team is needed to start."))
    names = [a.team.name for a in teams]
    for level in level_rows:
        missing = level_codes_from_dict(level.codes).missing_for(names)
        if missing:
            raise DomainError(_("Level %(level)s has no personal code for: %(teams)s.")
                              % {"level": level.label, "teams": ", ".join(missing)})
    gg.team_order = [a.pk for a in teams]
    gg.status = GorodGame.Status.RUNNING
    gg.started_at = now
    gg.save(update_fields=["team_order", "status", "started_at"])
    Game.objects.filter(pk=gg.pk, status=Game.Status.SCHEDULED).update(status=Game.Status.RUNNING)
    _publish(gg, now)
    return gg


@transaction.atomic
def game_end(*, actor, game: GorodGame | int, now: datetime | None = None) -> GorodGame:
    """The organizer ends the game now; teams still playing are stopped."""
    _require_organizer(actor)
    now = now or timezone.now()
    gg = _lock(game)
    _require_running(gg)
    snap = _snapshot(gg, now, end=now)
    gg.ended_at = now
    gg.status = GorodGame.Status.FINISHED
    gg.save(update_fields=["ended_at", "status"])
    Game.objects.filter(pk=gg.pk, status=Game.Status.RUNNING).update(status=Game.Status.FINISHED)
    _publish(gg, now, snap=snap)
    return gg


@transaction.atomic
def game_tick(*, game: GorodGame | int, now: datetime | None = None) -> datetime | None:
    """The clock's write: nothing is stored but the versions (and the end of the game when the
    engine says it is over); every audience gets its recomputed state. Returns the next
    deadline."""
    now = now or timezone.now()
    gg = _lock(game)
    if gg.status != GorodGame.Status.RUNNING:
        return None
    snap = _publish(gg, now)
    return rules.next_deadline(snap.results) if snap.results else None


# --- team actions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Submitted:
    attempt: CodeAttempt
    remaining: int  # sectors still to find on that level
    duplicate: bool  # a retried submission: the stored attempt, counted once


@transaction.atomic
def code_submit(*, game: GorodGame | int, application: Application | int, text: str,
                client_id: uuid.UUID | str | None = None,
                now: datetime | None = None) -> Submitted:
    """Check a code against the team's current level (from the engine at ``now``). Every
    checked attempt is stored; when the level's last sector is found, the attempt is the
    record's ``code`` event and the team is on its next level."""
    now = now or timezone.now()
    gg = _lock(game)
    if gg.status == GorodGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    entry = _entry(gg, application)
    if client_id not in (None, ""):
        try:
            client_id = uuid.UUID(str(client_id))
        except ValueError:
            raise DomainError(_("A bad client id.")) from None
        seen = CodeAttempt.objects.filter(application=entry, client_id=client_id).first()
        if seen is not None:
            remaining = _remaining(seen)
            return Submitted(seen, remaining, True)
    else:
        client_id = None
    _require_running(gg)
    text = (text or "").strip()
    normalized = normalize_code(text)
    if not normalized:
        raise DomainError(_("Type a code."))
    if len(text) > CODE_MAX:
        raise DomainError(_("A code is at most %(n)d characters.") % {"n": CODE_MAX})
    snap = _snapshot(gg, now)
    if snap.results.game_over:
        raise DomainError(_("The game has ended."))
    result = snap.by_name[entry.team.name]
    if result.status == "disqualified":
        raise DomainError(_("Your team is disqualified."))
    if result.current_level is None:
        raise DomainError(_("Your team has closed every level."))
    if result.timeout_at is not None:
        until = result.timeout_at + timedelta(seconds=result.timeout_s)
        if result.timeout_at <= now < until:
            raise DomainError(_("Your team is on a timeout until %(t)s: codes are not accepted.")
                              % {"t": timezone.localtime(until).strftime("%H:%M:%S")})
    level = snap.level(result.current_level)
    window = timedelta(seconds=gg.wrong_window_s)
    wrong = list(CodeAttempt.objects.filter(
        application=entry, level=level, verdict=CodeAttempt.Verdict.WRONG,
        at__gt=now - window, at__lte=now).values_list("at", flat=True))
    limit = check_attempt_limit(wrong, now, gg.max_wrong, gg.wrong_window_s)
    if not limit.allowed:
        raise DomainError(_("Too many wrong codes: wait %(s)d s.") % {"s": limit.wait_s})
    try:
        match = match_attempt(level_codes_from_dict(level.codes), entry.team.name, text,
                              selectors.found_sectors(entry.pk, level))
    except CodeSpecError as exc:  # pragma: no cover - checked at the start
        raise DomainError(str(exc)) from None
    attempt = CodeAttempt.objects.create(
        gorod=gg, application=entry, level=level, text=text[:CODE_MAX],
        normalized=normalized[:CODE_MAX], at=now, verdict=match.verdict,
        sector=match.sector or "", closes_level=match.verdict == "accepted" and match.closed,
        client_id=client_id)
    # A wrong or repeated code changes only this team's attempts list.
    _publish(gg, now, teams=[entry.pk])
    return Submitted(attempt, match.remaining, False)


def _remaining(attempt: CodeAttempt) -> int:
    try:
        spec = level_codes_from_dict(attempt.level.codes)
    except CodeSpecError:  # pragma: no cover
        return 0
    found = CodeAttempt.objects.filter(
        application_id=attempt.application_id, level_id=attempt.level_id,
        verdict=CodeAttempt.Verdict.ACCEPTED, at__lte=attempt.at).values_list("sector", flat=True)
    return len(spec.sectors) - len(set(found))


# --- organizer rulings ------------------------------------------------------------------------


@transaction.atomic
def ruling_add(*, actor, game: GorodGame | int, application: Application | int, type: str,
               minutes: float | None = None, level: str | None = None,
               at: datetime | None = None, reason: str = "",
               now: datetime | None = None) -> Ruling:
    """Record an organizer ruling (rules: penalty, bonus, sliv, force majeure, timeout,
    average time, disqualify). Fail, force majeure and timeout take effect at ``at`` (default
    now); a fail or force majeure without a level applies to the team's current level. The
    whole record is replayed through the engine: a ruling it refuses is not stored."""
    _require_organizer(actor)
    now = now or timezone.now()
    gg = _lock(game)
    if gg.status == GorodGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    entry = _entry(gg, application)
    if type not in Ruling.Type.values:
        raise DomainError(_("Unknown ruling %(type)s.") % {"type": type})
    if type in ("penalty", "bonus", "timeout"):
        if minutes is None:
            raise DomainError(_("Give the minutes."))
    else:
        minutes = None
    level_row = None
    if type in ("sliv", "force_majeure", "average_time"):
        if not level:
            if type == "average_time":
                raise DomainError(_("Choose the level."))
            current = _snapshot(gg, now).by_name[entry.team.name].current_level
            if current is None:
                raise DomainError(_("The team is not on a level now; choose the level."))
            level = current
        level_row = Level.objects.filter(gorod=gg, label=str(level)).first()
        if level_row is None:
            raise DomainError(_("There is no level %(level)s.") % {"level": level})
    timed = type in selectors.TIMED_RULINGS
    at = (at or now) if timed else None
    if at is not None and at > now:
        raise DomainError(_("A ruling cannot take effect in the future."))
    ruling = Ruling.objects.create(
        gorod=gg, application=entry, type=type, minutes=minutes, level=level_row, at=at,
        reason=(reason or "").strip(), by=actor, created_at=now)
    snap = _snapshot(gg, now)  # the engine's refusal rolls the ruling back
    _publish(gg, now, teams=[entry.pk], snap=snap)
    return ruling


# --- the record -------------------------------------------------------------------------------


def game_record(game: GorodGame | int, *, now: datetime | None = None) -> dict:
    """The game's record in the contract format (``spec/record-format.md``). For a running
    game it carries ``now`` (the live moment); replaying it gives exactly the live
    statistics."""
    gg = selectors.gorod_game(game if isinstance(game, int) else game.pk)
    if gg.started_at is None:
        raise DomainError(_("The game has not started yet."))
    running = gg.status == GorodGame.Status.RUNNING
    return selectors.build_record(gg, now=(now or timezone.now()) if running else None)
