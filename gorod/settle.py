"""Settling a GoRoD write: the live core's ``settle`` hook (``live.write.LiveGame``), called by
``publish`` after the action and before the states are built. It makes the locked game follow
its rules at ``w.now`` — the game finishes when the engine says it is over, the clock's next
deadline is stored and its failed ticks forgotten — and returns what it computed, typed by the
path the write takes, for ``gorod.states.build_states`` to render:

- ``Whole``: one computation of the game (the action's snapshot or a new one);
- ``Attempts``: codes that closed no level with nothing due: no result moves;
- ``Moved``: the teams a write moved on (a closing code, a deadline, the clock's tick), from
  their own rows, with the organizer's stored parts they are ranked into;
- ``Deadline``: a tick with nothing due: only the moment and the next deadline change;
- ``Noted``: a message sent or seen (``gorod.messages``) with nothing due: it changes no time.

The path is picked by what the action changed (``w.change``, one of ``gorod.changes``); an
incremental path that cannot be exact (a team finished, an average-time ruling stands, a stored
state is missing) falls back to ``Whole``. The only writes are the game row's (and its
``teams.Game`` status when it finishes)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from core import sql
from gorod import changes, reads, realtime, rules
from gorod.models import CodeAttempt, GorodGame
from gorod.selectors import (
    Snapshot,
    averages_in_force,
    joined,
    snapshot_or_refusal,
    team_snapshot,
)
from live.messages import team_audience
from live.store import streams_stored
from live.write import Write
from teams.models import Game


@dataclass(frozen=True, slots=True)
class Whole:
    """Every audience from one computation of the game, settled at the write's moment."""

    snapshot: Snapshot
    running: bool  # the game still runs (and has results) once settled
    # A write about this team alone with nothing due: the other teams' views are rebuilt only
    # if the public state changed.
    team: int | None = None
    # The teams asked for safety check-ins (``safety_watch``), when the game asks for them.
    watch: tuple[Watch, ...] = ()


@dataclass(frozen=True, slots=True)
class Watch:
    """A team on a level of danger grade 3–4 in a game with check-ins: when its next
    check-in is due, and whether it is overdue (the organizer's alarm) at the settled moment."""

    application: int
    level: str  # the level's label
    level_id: int
    received_at: datetime
    last_checkin: datetime | None  # the team's, or the organizer's acknowledgement
    due_at: datetime
    overdue: bool


@dataclass(frozen=True, slots=True)
class Attempts:
    """Codes that closed no level, nothing due: each code's team's own part, its row and the
    organizer's attempt log change; no result moves."""

    codes: tuple[changes.CodeChecked, ...]
    organizer: dict  # the organizer's stored ``attempts`` and ``teams`` (read only)


@dataclass(frozen=True, slots=True)
class Moved:
    """Some teams moved on (``due``), computed from their own rows; the others stand."""

    snapshot: Snapshot  # the due teams' results at the write's moment, no places
    due: frozenset[int]
    organizer: dict  # the organizer's stored ``statistics``, ``teams``, ``attempts`` (read only)
    rows_of: dict[int, reads.TeamRows]  # the rows the write's codes read, by team
    rest: tuple[int, ...]  # the due teams no code read: their data is read with the build
    attempts: tuple[CodeAttempt, ...]  # the new lines of the attempt log


@dataclass(frozen=True, slots=True)
class Deadline:
    """The clock's tick with nothing due (a write already moved the teams on)."""


@dataclass(frozen=True, slots=True)
class Noted:
    """A message sent or seen with nothing due: the organizer's list of messages and these
    teams' own (a bonus hint: their part too, from the sending's ``snapshot``)."""

    teams: tuple[int, ...]
    snapshot: Snapshot | None = None


Settled = Whole | Attempts | Moved | Deadline | Noted


def settle(w: Write) -> Settled:
    """The live core's ``settle`` for GoRoD: the path the write's states take, the game settled
    on it. Reuses the action's snapshot (``Computed``, ``RulingAdded``): it already includes
    the action's event.

    A write about one team (a ruling: ``RulingAdded``) changes the organizer's view and that
    team's own; the other teams' views are the public state plus their own results, which a
    write about another team cannot change while the game runs (places and totals are shown
    only once it is over). A code that closes no level (``CodeChecked``) changes no result at
    all. A code that closes a level (``LevelClosed``), a code past a deadline and the clock's
    tick (``Tick``) move on only the teams they concern (``Moved``). A change this settle does
    not know is refused."""
    gg = w.game
    if gg.checkin_every_min and not isinstance(w.change, changes.Note):
        # [decision] A game that asks for check-ins computes every write whole: the alarms
        # depend on every team's level and check-ins, which the incremental paths do not read.
        # Games without check-ins (the measured code path) are unchanged.
        return _safety_whole(w)
    calm = _nothing_due(gg, w.now)
    team_id, snap, found = None, None, None
    match w.change:
        case None:
            pass
        case changes.Computed(snapshot=snap):
            pass
        case changes.PauseChanged(snapshot=snap):
            pass
        case changes.LevelFixed(snapshot=snap):
            # Texts and credits can touch any team: every audience from the fix's snapshot.
            pass
        case changes.RulingAdded(team=team_id, snapshot=snap):
            pass
        case changes.CodeChecked() as code:
            team_id = code.team
            if calm:
                found = _attempts(w, [code])
            if found is None:
                found = _moved(w, {code.team}, team_rows=code.rows, like=code.snapshot,
                               rows_of=_rows_of(code), attempts=[code.attempt])
        case changes.LevelClosed() as code:
            team_id = code.team
            found = _moved(w, {code.team}, team_rows=code.rows, like=code.before,
                           rows_of=_rows_of(code), attempts=[code.attempt])
        case changes.Tick():
            found = _moved(w, set())
        case changes.CodesApplied(codes=codes):
            found = _batch(w, codes, calm)
        case changes.MessageSent(teams=teams, snapshot=snap):
            # A message changes no time: past a deadline the write settles it like any other.
            if calm or gg.status == GorodGame.Status.FINISHED:
                return Noted(teams=teams, snapshot=snap)
        case changes.SafetyChanged(team=team_id):
            pass  # check-ins switched off since: the organizer's and the team's views
        case changes.MessagesSeen(team=team):
            if calm or gg.status == GorodGame.Status.FINISHED:
                return Noted(teams=(team,))
        case _:
            raise TypeError(f"GoRoD builds no {type(w.change).__name__}: {w.change!r}")
    if found is not None:
        return found
    # Another team's view changes by the time alone at a deadline: past one, build them all.
    return _whole(w, team_id if calm else None, snap)


def _whole(w: Write, team_id: int | None, snap: Snapshot | None) -> Whole:
    """The game computed (``snap``, or a new computation) and settled: finished when the engine
    says it is over, its next deadline stored."""
    gg = w.game
    snap = snap or snapshot_or_refusal(gg, w.now)
    fields = ["next_deadline", "clock_failures"]
    results = snap.results
    if gg.status == GorodGame.Status.RUNNING and results is not None and results.game_over:
        gg.status = GorodGame.Status.FINISHED
        gg.ended_at = gg.ended_at or results.ended_at
        fields += ["status", "ended_at"]
        Game.objects.filter(pk=gg.pk, status=Game.Status.RUNNING).update(
            status=Game.Status.FINISHED)
        snap = snapshot_or_refusal(gg, w.now)  # the record now carries the end
    running = gg.status == GorodGame.Status.RUNNING and snap.results is not None
    # While the whole game is paused every deadline is after its start, inside the open pause:
    # the clock fires nothing until the resume stores the moved ones.
    gg.next_deadline = (rules.next_deadline(snap.results)
                        if running and gg.paused_at is None else None)
    watch = safety_watch(snap) if running and gg.checkin_every_min else ()
    if running and gg.paused_at is None:
        # The clock also wakes when a check-in falls due, so its alarm appears with no write.
        wake = rules.next_checkin_wake([x.due_at for x in watch], snap.now)
        gg.next_deadline = min((d for d in (gg.next_deadline, wake) if d is not None),
                               default=None)
    gg.clock_failures = 0
    gg.save(update_fields=fields)
    return Whole(snapshot=snap, running=running, team=team_id, watch=watch)


def _safety_whole(w: Write) -> Whole:
    """A write in a game with check-ins: the action's own computation of the game when it made
    one, about its one team when it concerns one."""
    change = w.change
    snap = getattr(change, "snapshot", None) if isinstance(
        change, changes.Computed | changes.PauseChanged | changes.RulingAdded
        | changes.SafetyChanged | changes.LevelFixed) else None
    team = change.team if isinstance(change, changes.RulingAdded | changes.SafetyChanged) else None
    return _whole(w, team if _nothing_due(w.game, w.now) else None, snap)


def safety_watch(snap: Snapshot) -> tuple[Watch, ...]:
    """The teams on a level of danger grade 3–4, each with its next check-in's due moment
    (``rules.checkin_due``) and whether it is overdue at the computed moment (the engine's:
    while the game is paused no check-in falls due)."""
    gg, results = snap.gorod, snap.results
    if results is None or not gg.checkin_every_min:
        return ()
    found, last = [], None
    for pk, name in snap.names.items():
        result = snap.by_name.get(name)
        if result is None or result.status != "playing" or result.current_level is None:
            continue
        level = snap.level(result.current_level)
        if level is None or level.danger not in rules.CHECKIN_GRADES:
            continue
        if last is None:
            last = reads.last_checkins(gg.pk)  # read once, only when a team needs it
        received = result.levels[-1].received_at
        checked = last.get((pk, level.pk))
        due = rules.checkin_due(every_min=gg.checkin_every_min, danger=level.danger,
                                received_at=received, last_checkin=checked)
        found.append(Watch(application=pk, level=level.label, level_id=level.pk,
                           received_at=received,
                           last_checkin=checked if checked and checked >= received else None,
                           due_at=due, overdue=rules.checkin_overdue(due, results.now or snap.now)))
    return tuple(found)


def _nothing_due(gg: GorodGame, now: datetime) -> bool:
    """No deadline of the engine's has passed since the stored states were built (and the clock
    has not claimed one it has yet to apply): the stored results still hold at ``now``."""
    return (gg.status == GorodGame.Status.RUNNING and gg.clock_failures == 0
            and gg.next_deadline is not None and now < gg.next_deadline)


def merged(writes: list[Write]) -> Write:
    """Several codes applied in one batch (``live.batch``) as the one write ``settle`` takes:
    the latest moment, and the codes in the order they were applied. Only codes batch
    (``services.code_submit``): anything else is refused, and the live core then applies each
    write alone."""
    last = writes[-1]
    if not all(isinstance(x.change, changes.Code) for x in writes):
        raise ValueError("only codes are merged")
    return Write(game=last.game, now=last.now,
                 change=changes.CodesApplied(tuple(x.change for x in writes)))


def _batch(w: Write, codes: tuple[changes.Code, ...], calm: bool) -> Attempts | Moved | None:
    """A batch of codes: what applying them one by one would leave. Codes that closed no level
    with nothing due are ``Attempts``; otherwise every team of the batch moves on at once
    (``Moved``, each team's timeline at the batch's latest moment, which is where one by one
    the last of them would have left it). None: the whole game is computed."""
    if calm and all(isinstance(x, changes.CodeChecked) for x in codes):
        found = _attempts(w, codes)
        if found is not None:
            return found
    latest = {x.team: x for x in codes}  # each team's last code saw its earlier ones
    last = codes[-1]
    # A team whose last code closed no level keeps that code's view while none of its own
    # deadlines passed since (its results change only at its events and deadlines).
    snapshots = {}
    for pk, x in latest.items():
        if not isinstance(x, changes.CodeChecked):
            continue
        snap = x.snapshot
        result = snap.by_name.get(snap.names.get(pk))
        if result is not None and result.next_deadline is not None and (
                result.next_deadline > w.now):
            snapshots[pk] = snap
    return _moved(
        w, set(latest), attempts=[x.attempt for x in codes],
        like=last.before if isinstance(last, changes.LevelClosed) else last.snapshot,
        rows_of={pk: x.rows for pk, x in latest.items()}, given=snapshots)


def _attempts(w: Write, codes: Sequence[changes.CodeChecked]) -> Attempts | None:
    """Codes that closed no level (one code, or a batch's), when their states can be built on
    the stored ones: None when an average-time ruling stands or a stored state is missing."""
    if any(averages_in_force(w.game, x.rows) for x in codes):
        return None  # the team's own timeline alone does not give its average-time credit
    latest = {x.team for x in codes}
    keys = ["attempts", "teams"]
    # ``as_of`` too: every key the write returns is read here, for the comparison.
    stored = w.read_values({realtime.ORGANIZER: [*keys, "as_of"],
                            **{team_audience(pk): ["me"] for pk in latest}})
    organizer = stored.get(realtime.ORGANIZER, {})
    if not set(keys) <= set(organizer) or any(
            "me" not in stored.get(team_audience(pk), {}) for pk in latest):
        return None
    return Attempts(codes=tuple(codes), organizer=organizer)


def _moved(w: Write, teams: set[int], *, team_rows: reads.TeamRows | None = None,
           rows_of: dict[int, reads.TeamRows] | None = None, like: Snapshot | None = None,
           given: dict[int, Snapshot] | None = None, attempts: Sequence[CodeAttempt] = ()
           ) -> Moved | Deadline | None:
    """A write that moves on only some teams' timelines — a code that closed a level (its
    team), a deadline that passed (the teams whose stored next deadline it is), the clock's tick
    (those alone) — from those teams' own rows (``rules.team_result``), with no recomputation
    of the game; the next deadline stored. The public state and the other teams' views stand:
    while the game runs they show no places, and nothing is due for the other teams.

    None (then the whole game is computed) when it cannot be exact that way: such a team
    finished or left play (the finished share, the end), the clock ended the game, the
    leaderboard is public (it shows places), an average-time ruling is in force, or a stored
    state is missing.

    What the write's codes read comes along: ``team_rows``, a lone code's team rows (they say
    whether an average-time ruling stands); ``rows_of``, by team, the rows each team's last
    code read; ``like``, a team snapshot the new ones take their shape from; ``given``, the
    teams whose last code's view still holds; ``attempts``, the new lines of the log."""
    gg = w.game
    if (gg.status != GorodGame.Status.RUNNING or gg.leaderboard_public or gg.started_at is None
            or gg.started_at > w.now or averages_in_force(gg, team_rows)):
        return None
    keys = ["statistics", "teams", "attempts"]
    # The write's own teams' streams are asked with the organizer's parts (one query); a team
    # that only a deadline made due is checked after.
    stored = w.read_values({realtime.ORGANIZER: [*keys, "as_of", "next_deadline"],
                           **{team_audience(pk): ["me"] for pk in teams}})
    organizer = stored.get(realtime.ORGANIZER, {})
    if not set(keys) <= set(organizer):
        return None
    rows = organizer["teams"]  # read only, like every value ``read_values`` gives
    # Once the game has started a team has a deadline exactly when it is on a level, and its
    # row on the team list shows it: the rows say who is due.
    due = teams | {row["application"] for row in rows if row["next_deadline"] is not None
                   and datetime.fromisoformat(row["next_deadline"]) <= w.now}
    if not due:
        _store_deadline(gg, _next_deadline(rows))
        return Deadline()
    unknown = [team_audience(pk) for pk in due if team_audience(pk) not in stored]
    if unknown and not streams_stored(gg.pk, unknown):
        return None
    # The write's own teams from the rows their codes read; a team only a deadline made due
    # (or a tick's) from its rows read now, all such teams at once.
    rows_of = rows_of or {}
    given = given or {}
    snaps = [given[pk] if pk in given else team_snapshot(gg, pk, w.now, like=like,
                                                         team_rows=rows_of[pk])
             for pk in sorted(due) if pk in rows_of or pk in given]
    rest = sorted(due - rows_of.keys() - given.keys())
    if rest:
        snaps.append(team_snapshot(gg, rest, w.now, like=like))
    snap = joined(snaps, w.now)
    if snap.results.game_over or any(
            r.status != "playing" or r.finished_at is not None for r in snap.results.teams):
        return None
    _store_deadline(gg, _next_deadline(rows, snap, due))
    return Moved(snapshot=snap, due=frozenset(due), organizer=organizer, rows_of=rows_of,
                 rest=tuple(rest), attempts=tuple(attempts))


def _rows_of(code: changes.Code) -> dict[int, reads.TeamRows]:
    """The team rows a lone code read, by its team."""
    return {code.rows.application_id: code.rows}


def _next_deadline(rows: list[dict], snap: Snapshot | None = None,
                   due: Collection[int] = ()) -> datetime | None:
    """``rules.next_deadline`` from the organizer's stored team rows, the earliest of the
    teams' own, and for the ``due`` teams from their new results in ``snap`` (a team has a
    deadline while it is on a level: what its row on the team list will show)."""
    deadlines = []
    for row in rows:
        pk = row["application"]
        if pk in due:
            result = snap.by_name.get(snap.names.get(pk))
            if result is not None and result.current_level is not None and (
                    result.next_deadline is not None):
                deadlines.append(result.next_deadline)
        elif row["next_deadline"] is not None:
            deadlines.append(datetime.fromisoformat(row["next_deadline"]))
    return min(deadlines) if deadlines else None


_STORE_DEADLINE = (f"UPDATE {sql.table(GorodGame)} SET {sql.column(GorodGame, 'next_deadline')} "
                   f"= %s, {sql.column(GorodGame, 'clock_failures')} = 0 "
                   f"WHERE {sql.column(GorodGame, 'pk')} = %s")


def _store_deadline(gg: GorodGame, deadline: datetime | None) -> None:
    """The clock's next deadline (and no failed tick pending), unless the row says so."""
    if gg.paused_at is not None:
        deadline = None  # nothing is due inside the open pause (``_whole``)
    if deadline == gg.next_deadline and gg.clock_failures == 0:
        return  # the locked row already says so
    gg.next_deadline = deadline
    gg.clock_failures = 0
    # Constant SQL: the ORM's save built its query for every closing code.
    sql.execute(_STORE_DEADLINE, [sql.param(GorodGame, "next_deadline", deadline), gg.pk])
