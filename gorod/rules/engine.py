"""The timing engine (``docs/rules/gorod.md``): each team's levels from its receipt to its
close (code, failed on time, organizer's ruling), hints, timeouts, penalties and bonuses, the
game's end, and the results with places (``compute``, ``team_result``).

Pure, like the whole package (see ``gorod.rules``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from core.deadlines import final_due, protest_deadline
from core.records import RecordError, format_time
from gorod.rules.deadlines import team_deadline
from gorod.rules.instants import MINUTE, SECOND, from_us, moment_reader, to_us
from gorod.rules.record import CLOSING_TYPES, END_SHARE, HOW, RULING_TYPES, GameRecord, parse_record

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gorod.rules.record import Event, Level


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LevelResult:
    level: str
    received_at: datetime
    #: Hints that appeared; for the open level of a playing team every scheduled hint.
    hints_at: tuple[datetime, ...]
    hints_shown: int  # how many had appeared by the computed moment
    fail_at: datetime  # r + limit, moved by a timeout taken on this level
    closed_at: datetime | None
    outcome: str | None  # code | sliv | auto_sliv | force_majeure | None (open)
    duration_s: float | None  # excludes a timeout taken on this level
    timeout_s: float  # timeout taken on this level (0 if none)
    average_s: float | None = None  # the average-time ruling's replacement, if applied

    @property
    def how(self) -> str | None:
        return HOW[self.outcome]


@dataclass(frozen=True)
class Ruling:
    type: str
    minutes: float | None
    level: str | None
    at: datetime | None
    reason: str | None
    by: str | None


@dataclass(frozen=True)
class TeamResult:
    team: str
    registration: int  # index in the record's ``teams``
    place: int | None
    status: str  # finished | playing | stopped | disqualified
    levels: tuple[LevelResult, ...]
    current_level: str | None
    next_deadline: datetime | None
    levels_closed: int
    failed_levels: tuple[str, ...]
    finished_at: datetime | None
    penalty_s: float
    bonus_s: float
    timeout_s: float
    timeout_at: datetime | None
    average_adjust_s: float
    total_s: float
    rulings: tuple[Ruling, ...]

    @property
    def slivs(self) -> int:
        return len(self.failed_levels)


@dataclass(frozen=True)
class Results:
    start: datetime
    now: datetime | None  # None: the record is complete
    game_over: bool
    ended_at: datetime | None  # the moment the game ended, if it has
    end_reason: str | None  # all_finished | organizer | cap | None
    level_ids: tuple[str, ...]  # game order
    teams: tuple[TeamResult, ...]  # standings order
    cap: datetime

    @property
    def protests_until(self) -> datetime | None:
        """Results stay preliminary and captains may protest for 12 h after the game ended
        (3.15; [decision] for stopped teams "the last finish" is the game's end). The window is
        the rating's (``core.deadlines.protest_deadline``): one rule, one place."""
        return None if self.ended_at is None else protest_deadline(self.ended_at)

    @property
    def final_by(self) -> datetime | None:
        """Final results are due at the latest 72 h after the game ended (3.16).

        >>> from datetime import timezone
        >>> end = datetime(2026, 12, 6, 2, 0, tzinfo=timezone.utc)
        >>> Results(end, None, True, end, "organizer", (), (), end).final_by.isoformat()
        '2026-12-09T02:00:00+00:00'
        """
        return None if self.ended_at is None else final_due(self.ended_at)

    @property
    def finished_share(self) -> float:
        """Share of teams that have finished (3.9: the organizer may end the game at 80 %)."""
        return share_finished([t.finished_at for t in self.teams])

    @property
    def end_allowed(self) -> bool:
        """The rules let the organizer end the game: at least ``END_SHARE`` of the teams have
        finished (3.12). With 5 teams of which 4 finished, 0.8 ≥ 0.8: True; 3 of 5: False."""
        return self.finished_share >= END_SHARE


def share_finished(finishes: list) -> float:
    """The share of these finishes (a moment, or None: not finished) that are moments."""
    if not finishes:
        return 0.0
    return sum(finish is not None for finish in finishes) / len(finishes)


class Played:
    """One level of a team's timeline in instants (µs): received ``r``, failing at ``fail``,
    closed at ``close`` (None: open) with ``outcome``, the timeout taken on it, the pauses of
    the whole game it was open at (``paused_us`` in all) and ``stops``: every ``(start,
    length)`` the level's clock stood still, in order (what moves its hints)."""

    # A plain class: a 200-team night makes 6 000 of them, and defining a dataclass slows the
    # replay process's start.
    __slots__ = ("level", "r", "fail", "close", "outcome", "timeout_us", "timeout_start",
                 "paused_us", "stops")

    def __init__(self, level: str, r: int, fail: int, close: int | None, outcome: str | None,
                 timeout_us: int, timeout_start: int | None, paused_us: int = 0,
                 stops: tuple[tuple[int, int], ...] = ()):
        self.level, self.r, self.fail, self.close, self.outcome = level, r, fail, close, outcome
        self.timeout_us, self.timeout_start = timeout_us, timeout_start
        self.paused_us, self.stops = paused_us, stops

    def hint(self, offset_us: int) -> int:
        """The moment the hint ``offset_us`` after receipt appears: every stop of the level's
        clock that began before it moves it later by the stop's length. [decision] A hint due
        at the very instant a timeout or a pause starts has appeared; only later hints move."""
        h = self.r + offset_us
        for start, length in self.stops:
            if h > start:
                h += length
        return h


def compute(record: GameRecord | dict, now: datetime | None = None) -> Results:
    """The state of every team as of ``now`` (or of the record's ``now``; without either the
    record is complete and the game is computed to its end).

    Worked example: level 1 (70 min) received at 22:00 and a code at 22:31:10 → hint 1 at
    22:25 was shown, the level took 1870 s and level 2 is received at 22:31:10; if no code
    comes for level 2 it fails at 23:41:10 with 15 min of penalty.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...     "teams": ["A"], "events": [{"team": "A", "type": "code", "level": "1",
    ...     "at": "2026-12-05T22:31:10+03:00"}]})
    >>> team = compute(rec).teams[0]
    >>> team.status, team.total_s, [h.isoformat() for h in team.levels[0].hints_at]
    ('finished', 1870.0, ['2026-12-05T22:25:00+03:00'])
    """
    if not isinstance(record, GameRecord):
        record = parse_record(record)
    game = standings_at(record, now)
    moment = moment_reader(record.start.tzinfo)
    return Results(
        start=record.start, now=game.now, game_over=game.over,
        ended_at=None if game.ended is None else moment(game.ended), end_reason=game.end_reason,
        level_ids=tuple(level.id for level in record.levels),
        teams=tuple(_team_result(times, place, moment) for times, place in game.teams),
        cap=moment(record.cap_us),
    )


class _Standings:
    """``compute``'s answer in instants (µs): what ``Results`` and the replay's output are both
    written from."""

    __slots__ = ("now", "over", "ended", "end_reason", "teams")

    def __init__(self, now: datetime | None, over: bool, ended: int | None,
                 end_reason: str | None, teams: list[tuple[Times, int | None]]):
        self.now, self.over, self.ended, self.end_reason = now, over, ended, end_reason
        self.teams = teams  # (times, place) in standings order


def standings_at(record: GameRecord, now: datetime | None) -> _Standings:
    now, now_us = _checked_now(record, now, record.events)
    cap_us = record.cap_us
    game_end = cap_us if record.end_us is None else record.end_us
    horizon = game_end if now_us is None else min(now_us, game_end)
    # Without `now` the record is complete; with it, the game is over once `now` reaches the
    # organizer's end or the cap.
    clock_over = now_us is None or now_us >= game_end

    by_team: dict[str, list[Event]] = {team: [] for team in record.teams}
    pauses = [event for event in record.events if event.type == "pause"]
    for event in record.events:
        if event.team is not None:
            by_team[event.team].append(event)
    if pauses:  # every team's clock stops at a pause of the whole game
        for events in by_team.values():
            events.extend(pauses)

    level_by_id = record.level_by_id
    offsets_us = tuple(round(o * MINUTE) for o in record.hint_offsets_min)
    played = {team: _play(record, team, by_team[team], level_by_id, horizon)
              for team in record.teams}

    # Average time (section 12) compares with every other team that closed the level by any
    # means; the gorod-random example counts auto-failed levels as closed.
    # [decision] A disqualified team's times count too: it keeps its record (7.3), and how long
    # a level took it says as much about the level as any other team's time.
    sums = _sums(record, played)

    all_finished = all(len(played[t]) == len(record.levels) and played[t][-1].close is not None
                       for t in record.teams)
    game_over = clock_over or all_finished

    sliv_s = record.sliv_penalty_min * 60
    unplaced = [_team_times(record, team, reg, by_team[team], played[team], sums, sliv_s,
                            offsets_us, horizon, game_over, now_us, cap_us)
                for reg, team in enumerate(record.teams)]
    placed = sorted((times for times in unplaced if times.key is not None),
                    key=lambda times: times.key)
    teams: list[tuple[Times, int | None]] = [
        (times, place) for place, times in enumerate(placed, start=1)]
    # [decision] Disqualified teams come last, in registration order, with no place.
    teams.extend((times, None) for times in unplaced if times.key is None)

    # The game ended at the earliest of: the last team's finish, the organizer's end, the cap.
    ends: list[tuple[int, str]] = []
    if all_finished:
        ends.append((max(rows[-1].close for rows in played.values()), "all_finished"))
    if record.end_us is not None:
        ends.append((record.end_us, "organizer"))
    elif now_us is None or now_us >= cap_us:
        ends.append((cap_us, "cap"))
    ended_at, end_reason = min(ends) if game_over and ends else (None, None)
    return _Standings(now, game_over, ended_at, end_reason, teams)


def _checked_now(record: GameRecord, now: datetime | None,
                 events: tuple[Event, ...] | list[Event]) -> tuple[datetime | None, int | None]:
    """``now`` (or the record's) in microseconds, refusing what ``compute`` refuses: a naive
    moment, an event or an end after it."""
    if now is None:
        now = record.now
    if now is None:
        return None, None
    if not isinstance(now, datetime) or now.tzinfo is None or now.utcoffset() is None:
        raise RecordError("now: expected an aware datetime (with a UTC offset)")
    now_us = to_us(now, "now")
    for event in events:
        if event.at_us is not None and event.at_us > now_us:
            raise RecordError(f"{event.where}.at: {format_time(event.at)} is later than now "
                              f"({format_time(now)})")
    if record.end_us is not None and record.end_us > now_us:
        raise RecordError(f"end: {format_time(record.end)} is later than now ({format_time(now)})")
    return now, now_us


def clock_over(record: GameRecord, now: datetime | None = None) -> bool:
    """Whether the clock alone has ended the game at ``now``: the organizer's end or the time
    cap has come (a complete record, without ``now``, is over). The other end — every team
    finished — needs every team's timeline (``compute``).

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...                     "teams": ["A"], "max_duration_h": 1})
    >>> at = lambda hm: datetime.fromisoformat(f"2026-12-05T{hm}:00+03:00")
    >>> clock_over(rec, at("22:59")), clock_over(rec, at("23:00")), clock_over(rec)
    (False, True, True)
    """
    _now, now_us = _checked_now(record, now, ())
    game_end = record.cap_us if record.end_us is None else record.end_us
    return now_us is None or now_us >= game_end


def team_result(record: GameRecord | dict, team: str, now: datetime | None = None, *,
                sums: Mapping[str, tuple[float, int]] | None = None) -> TeamResult:
    """One team's result at ``now`` as ``compute`` gives it, read from that team's events
    alone (the record may carry only them: a live write changes one team's timeline), with no
    place (``rank`` gives the places). Exact for a team that has not finished while the clock
    has not ended the game, and for a finished team; ``sums`` are every team's times on each
    level (``level_sums`` of all teams), needed only for an average-time ruling — without them
    the record's own events are the only times counted.

    Worked example: team A's code at 22:31:10 closes level 1; at 22:40 it is on level 2, whatever
    the other teams did.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00",
    ...     "levels": [{"id": "1"}, {"id": "2"}], "teams": ["A", "B"], "events": [
    ...     {"team": "A", "type": "code", "level": "1", "at": "2026-12-05T22:31:10+03:00"}]})
    >>> a = team_result(rec, "A", datetime.fromisoformat("2026-12-05T22:40:00+03:00"))
    >>> a.current_level, a.levels_closed, a.place
    ('2', 1, None)
    """
    if not isinstance(record, GameRecord):
        record = parse_record(record)
    events = [event for event in record.events if event.team == team or event.type == "pause"]
    now, now_us = _checked_now(record, now, events)
    game_end = record.cap_us if record.end_us is None else record.end_us
    horizon = game_end if now_us is None else min(now_us, game_end)
    # For a team still playing "every team finished" is false, so only the clock can end the
    # game; a finished team's result does not depend on whether the game is over.
    game_over = now_us is None or now_us >= game_end
    rows = _play(record, team, events, record.level_by_id, horizon)
    # The times on each level count only for the team's average-time rulings (most teams have
    # none, and a live code computes its team's timeline: skip the work when none needs it).
    level_sums: dict[str, list[float]] = {}
    if any(event.type == "average_time" for event in events):
        if sums is None:
            sums = _sums(record, {team: rows})
        level_sums = {lv.id: list(sums.get(lv.id, (0.0, 0))) for lv in record.levels}
    offsets_us = tuple(round(o * MINUTE) for o in record.hint_offsets_min)
    times = _team_times(record, team, record.teams.index(team), events, rows, level_sums,
                        record.sliv_penalty_min * 60, offsets_us, horizon, game_over, now_us,
                        record.cap_us)
    return _team_result(times, None, moment_reader(record.start.tzinfo))


def _sums(record: GameRecord, played: Mapping[str, list[Played]]) -> dict[str, list[float]]:
    sums: dict[str, list[float]] = {level.id: [0.0, 0] for level in record.levels}
    for rows in played.values():
        for row in rows:
            if row.close is not None:
                acc = sums[row.level]
                acc[0] += (row.close - row.r - row.timeout_us - row.paused_us) / SECOND
                acc[1] += 1
    return sums


def _play(record: GameRecord, team: str, events: list[Event], level_by_id: Mapping[str, Level],
          horizon: int) -> list[Played]:
    """Walk the team's route with the level clock up to ``horizon``; check every closing
    event and the timeout against the timeline."""
    closings = {e.level: e for e in events if e.type in CLOSING_TYPES}
    timeout = next((e for e in events if e.type == "timeout"), None)
    timeout_left = timeout is not None
    # The stops of the clock in order: the pauses of the whole game and the team's timeout
    # (the record refuses any two that overlap).
    stops = sorted((e for e in events if e.type == "pause" or e is timeout),
                   key=lambda e: e.at_us)
    rows: list[Played] = []
    r = record.start_us
    for level_id in record.routes[team]:
        if r > horizon:
            break
        fail = r + level_by_id[level_id].limit_us
        event = closings.pop(level_id, None)
        t_us = t_start = paused_us = 0
        applied: list[tuple[int, int]] = []
        for stop in stops:
            start = stop.at_us
            # A stop belongs to the level the team is on at its start: received at or before
            # it and still open (a level that closes at that very instant hands it to the next
            # level, received at that instant).
            if start < r:
                continue
            if start >= fail or (event is not None and event.at_us <= start):
                break
            length = round(stop.minutes * MINUTE)
            fail += length
            applied.append((start, length))
            if stop is timeout:
                t_us, t_start = length, start
                timeout_left = False
            else:
                paused_us += length
        if event is not None:
            at = event.at_us
            if at < r:
                raise RecordError(f"{_label(event, team, level_id)}: the team received that "
                                  f"level only at {_fmt(r, record)}{_was_on(rows, at, record)}")
            if at > fail:
                raise RecordError(f"{_label(event, team, level_id)}: after the level's fail time "
                                  f"{_fmt(fail, record)} (the level was already failed by the clock)")
            if t_us and t_start <= at < t_start + t_us:
                # [decision] Nothing closes a level during the team's timeout, an organizer
                # ruling neither: the team's clock is stopped (3.10).
                raise RecordError(f"{_label(event, team, level_id)}: during the team's timeout "
                                  f"({_fmt(t_start, record)} – {_fmt(t_start + t_us, record)})")
            close, outcome = at, event.type
        else:
            close, outcome = fail, "auto_sliv"
        stopped = tuple(applied)
        if close > horizon:
            if event is not None:  # pragma: no cover - events after the horizon are refused earlier
                raise RecordError(f"{event.where}: later than the computed moment")
            rows.append(Played(level_id, r, fail, None, None, t_us, t_start if t_us else None,
                                paused_us, stopped))
            break
        rows.append(Played(level_id, r, fail, close, outcome, t_us, t_start if t_us else None,
                            paused_us, stopped))
        r = close

    if closings:
        event = min(closings.values(), key=lambda e: e.index)
        finished = rows and rows[-1].close is not None and len(rows) == len(record.levels)
        why = (f"after the team finished at {_fmt(rows[-1].close, record)}" if finished
               else f"before the team received that level{_was_on(rows, event.at_us, record)}")
        raise RecordError(f"{event.where}: {team}'s {event.type} on level {event.level} at "
                          f"{format_time(event.at)}: {why}")
    if timeout_left:
        finished = rows and rows[-1].close is not None and len(rows) == len(record.levels)
        why = (f"after the team finished at {_fmt(rows[-1].close, record)}" if finished
               else "while the team was not on any level")
        raise RecordError(f"{timeout.where}: {team}'s timeout at {format_time(timeout.at)}: {why}")
    return rows


def _label(event: Event, team: str, level_id: str) -> str:
    # Written only for a refused event: every closing event of a night passes here.
    return f"{event.where}: {team}'s {event.type} on level {level_id} at {format_time(event.at)}"


def _fmt(us: int, record: GameRecord) -> str:
    return from_us(us, record.start.tzinfo).isoformat()


def _was_on(rows: list[Played], at: int, record: GameRecord) -> str:
    for row in rows:
        if row.r <= at and (row.close is None or at < row.close):
            return f" (it was on level {row.level} then)"
    return ""


class Times:
    """One team's result in instants (µs), with no place: what ``TeamResult`` and the replay's
    output are both written from. ``levels`` are tuples ``(level, received, hints listed,
    hints shown, fail, closed or None, outcome, duration_s, timeout_s, average_s)``; ``key``
    is the team's ``standing_key`` (None: disqualified)."""

    __slots__ = ("team", "registration", "key", "status", "levels", "current_level", "deadline",
                 "levels_closed", "failed_levels", "finished", "penalty_s", "bonus_s", "timeout",
                 "average_adjust_s", "total_s", "rulings")


def _team_times(record: GameRecord, team: str, reg: int, events: list[Event],
                rows: list[Played], sums: dict[str, list[float]], sliv_s: float,
                offsets_us: tuple[int, ...], horizon: int, game_over: bool,
                now_us: int | None, cap_us: int) -> Times:
    averaged = {e.level for e in events if e.type == "average_time"}
    disqualified = any(e.type == "disqualify" for e in events)
    penalty_s = sum(e.minutes for e in events if e.type == "penalty") * 60.0
    bonus_s = sum(e.minutes for e in events if e.type == "bonus") * 60.0
    timeout = next((e for e in events if e.type == "timeout"), None)

    levels: list[tuple] = []
    failed: list[str] = []
    adjust = 0.0
    stopped_closed_us = 0
    last_close = record.start_us
    closed = 0
    for row in rows:
        hints = [row.hint(off) for off in offsets_us]
        if row.close is not None:
            # [decision] A hint due at the instant the level closes does not appear (the level
            # is no longer open then), e.g. a 50-min level never shows its 50-min hint.
            listed = [h for h in hints if h < row.close]
            shown = len(listed)
            duration_us = row.close - row.r - row.timeout_us - row.paused_us
            duration = duration_us / SECOND
            closed += 1
            last_close = row.close
            # The timeout and the pauses count only on a level already closed: for a team
            # still on that level the total stops at its last close, before them.
            stopped_closed_us += row.timeout_us + row.paused_us
            if row.outcome in ("sliv", "auto_sliv"):
                failed.append(row.level)
            avg = None
            if row.level in averaged:
                total, count = sums[row.level]
                if count > 1:
                    avg = (total - duration) / (count - 1)
                    adjust += avg - duration
        else:
            shown = sum(1 for h in hints if h <= horizon and h < row.fail)
            # [decision] For the open level of a playing team every scheduled hint is listed,
            # with the time it will show (gorod-live lists a 45-min level's 50-min hint); once
            # the game is over only the hints that appeared remain.
            listed = [h for h in hints if h < horizon] if game_over else hints
            duration = avg = None
        levels.append((row.level, row.r, listed, shown, row.fail, row.close, row.outcome,
                       duration, row.timeout_us / SECOND, avg))

    finished = closed == len(record.levels)
    total = ((last_close - record.start_us - stopped_closed_us) / SECOND + sliv_s * len(failed)
             + penalty_s - bonus_s + adjust)

    if disqualified:
        status = "disqualified"
    elif finished:
        status = "finished"
    elif game_over:
        status = "stopped"
    else:
        status = "playing"

    open_row = rows[-1] if rows and rows[-1].close is None else None
    current = open_row.level if open_row is not None and not game_over else None
    deadline = None
    if now_us is not None and not game_over:
        if not rows and now_us < record.start_us:
            deadline = record.start_us
        elif open_row is not None:
            deadline = team_deadline(open_row, offsets_us, now_us, cap_us)

    times = Times()
    times.team, times.registration, times.status, times.levels = team, reg, status, levels
    times.current_level, times.deadline, times.levels_closed = current, deadline, closed
    times.failed_levels, times.finished = tuple(failed), last_close if finished else None
    times.penalty_s, times.bonus_s, times.timeout = penalty_s, bonus_s, timeout
    times.average_adjust_s, times.total_s = adjust, total
    times.rulings = [e for e in events
                     if e.type in RULING_TYPES or e.type in ("sliv", "force_majeure")]
    if disqualified:
        times.key = None
    elif finished:
        times.key = (0, total, last_close, reg)
    else:
        times.key = (1, -closed, total, reg)
    return times


def _team_result(times: Times, place: int | None, moment: Callable[[int], datetime]
                 ) -> TeamResult:
    timeout = times.timeout
    return TeamResult(
        team=times.team, registration=times.registration, place=place, status=times.status,
        levels=tuple(LevelResult(
            level=level, received_at=moment(r), hints_at=tuple(moment(h) for h in listed),
            hints_shown=shown, fail_at=moment(fail),
            closed_at=None if close is None else moment(close), outcome=outcome,
            duration_s=duration, timeout_s=timeout_s, average_s=avg,
        ) for level, r, listed, shown, fail, close, outcome, duration, timeout_s, avg
            in times.levels),
        current_level=times.current_level,
        next_deadline=None if times.deadline is None else moment(times.deadline),
        levels_closed=times.levels_closed, failed_levels=times.failed_levels,
        finished_at=None if times.finished is None else moment(times.finished),
        penalty_s=times.penalty_s, bonus_s=times.bonus_s,
        timeout_s=0.0 if timeout is None else timeout.minutes * 60.0,
        timeout_at=None if timeout is None else timeout.at,
        average_adjust_s=times.average_adjust_s, total_s=times.total_s,
        rulings=tuple(Ruling(e.type, e.minutes, e.level, e.at, e.reason, e.by)
                      for e in times.rulings),
    )
