"""The GoRoD night-game timing engine: level clock, organizer rulings, totals and places.

Pure: this module must not import Django, must not read the clock, the database, the network or
the environment. The current time is always an argument (``compute(record, now)``), so the live
app, ``manage.py replay`` and the tests all get the same answer for the same record.

The rules are ``docs/rules/gorod.md``; the record and the replay output are ``docs/spec/record-format.md``.
Every bad input raises ``core.records.RecordError`` with a "what and where" message, never
another exception.

Internally every instant is an ``int`` of microseconds since the Unix epoch: the arithmetic is
exact (a code at exactly ``r + limit`` is compared without float noise) and runs on instants,
so a daylight-saving change during the night cannot move a deadline. Datetimes are made only
at the edges (parsing, results).

Decisions the rules page leaves open are marked ``[decision]`` where they are implemented.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from types import MappingProxyType

from core.deadlines import final_due, protest_deadline
from core.records import (
    RecordError,
    check_type,
    format_time,
    optional,
    parse_time,
    require,
    team_names,
)

# typing only names types for readers (annotations are not evaluated here), and importing it
# cost a replay process some 5 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DEFAULT_LIMIT_MIN",
    "GameRecord",
    "LevelResult",
    "Results",
    "TeamResult",
    "clock_over",
    "compute",
    "generate_routes",
    "level_sums",
    "rank",
    "team_result",
    "check_settings",
    "next_deadline",
    "parse_record",
    "replay",
    "setup_warnings",
    "statistics_table",
]

DEFAULT_LIMIT_MIN = 70
DEFAULT_HINT_OFFSETS_MIN = (25, 50)
DEFAULT_SLIV_PENALTY_MIN = 15
#: The share of finished teams from which the rules let the organizer end the game (3.12).
END_SHARE = 0.8
DEFAULT_MAX_DURATION_H = 24
TIMEOUT_MIN_RANGE = (1, 30)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = 1_000_000
_MIN = 60 * _US
_HOUR = 60 * _MIN

CLOSING_TYPES = ("code", "sliv", "force_majeure")
RULING_TYPES = ("penalty", "bonus", "average_time", "disqualify")
EVENT_TYPES = (*CLOSING_TYPES, "timeout", *RULING_TYPES)
#: Organizer rulings that take effect at a moment of the game (the record's ``at``); the others
#: are about totals.
TIMED_RULINGS = ("sliv", "force_majeure", "timeout")
#: Rulings about one level (the record's ``level``).
LEVEL_RULINGS = ("sliv", "force_majeure", "average_time")
#: Rulings that carry minutes.
MINUTE_RULINGS = ("penalty", "bonus", "timeout")

#: How the statistics screen names each outcome (3.x: code / failed / organizer ruling).
HOW = {
    "code": "code",
    "auto_sliv": "failed (time out)",
    "sliv": "failed (organizer)",
    "force_majeure": "force majeure (organizer)",
    None: None,
}


# --------------------------------------------------------------------------------------------
# The record
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Level:
    id: str
    limit_min: float
    limit_us: int


@dataclass(frozen=True)
class Event:
    index: int  # position in the record's ``events``, for messages
    team: str
    type: str
    at: datetime | None
    at_us: int | None
    level: str | None = None
    minutes: float | None = None
    reason: str | None = None
    by: str | None = None

    @property
    def where(self) -> str:
        return f"events[{self.index}]"


@dataclass(frozen=True)
class GameRecord:
    start: datetime
    start_us: int
    levels: tuple[Level, ...]
    teams: tuple[str, ...]
    routes: Mapping[str, tuple[str, ...]]  # every team, defaulting to the game order
    events: tuple[Event, ...]
    end: datetime | None
    end_us: int | None
    now: datetime | None
    hint_offsets_min: tuple[float, ...]
    sliv_penalty_min: float
    max_duration_h: float

    @property
    def cap_us(self) -> int:
        return self.start_us + round(self.max_duration_h * _HOUR)

    @property
    def cap(self) -> datetime:
        """The time cap: the start plus the game's maximal duration."""
        return _from_us(self.cap_us, self.start.tzinfo)

    @property
    def level_by_id(self) -> Mapping[str, Level]:
        return {level.id: level for level in self.levels}


def _to_us(value: datetime, where: str) -> int:
    try:
        return (value - _EPOCH) // timedelta(microseconds=1)
    except OverflowError:
        raise RecordError(f"{where}: {value.isoformat()} is out of range") from None


def _from_us(us: int, tz: tzinfo) -> datetime:
    return (_EPOCH + timedelta(microseconds=us)).astimezone(tz)


def _moments(tz: tzinfo) -> Callable[[int], datetime]:
    """``_from_us`` for one zone, for the many moments of a result. A fixed offset (what
    ``parse_time`` gives every record) maps an instant to its wall time by adding the offset,
    so the epoch's wall time plus the instant is the same datetime for a third less; any other
    zone converts each moment."""
    if type(tz) is not timezone:
        return functools.partial(_from_us, tz=tz)
    epoch = _EPOCH.astimezone(tz)
    return lambda us: epoch + timedelta(microseconds=us)


def _iso_writer(tz: tzinfo) -> Callable[[int], str]:
    """``_from_us(us, tz).isoformat()`` for one zone, as a function of ``us``: a replay writes
    a 200-team night's 18 000 moments, and making and formatting a datetime for each was two
    thirds of its time. For a fixed offset the text is the wall time's minute (the same for
    many moments: made once, by ``isoformat``), its seconds, any microseconds and the offset's
    own text; any other zone formats each moment the long way."""
    if type(tz) is not timezone:
        return lambda us: _from_us(us, tz).isoformat()
    offset_us = tz.utcoffset(None) // _ONE_US
    # What isoformat writes after the seconds for this zone: "+03:00", "-00:30:15.000001".
    suffix = datetime(2000, 1, 1, tzinfo=tz).isoformat()[19:]
    minutes: dict[int, str] = {}  # "YYYY-MM-DDTHH:MM:" by the wall time's minute
    # Seconds, microseconds and the offset by the moment's place in its minute: a level's hints
    # and fail time are whole minutes after its receipt, so they share its tail.
    tails: dict[int, str] = {}
    # A level's close is the next one's receipt: half of a night's moments are written twice.
    known: dict[int, str] = {}

    def iso(us: int) -> str:
        text = known.get(us)
        if text is not None:
            return text
        minute, rest = divmod(us + offset_us, _MIN)
        head = minutes.get(minute)
        if head is None:
            # Naive: isoformat writes no offset after the wall time.
            head = minutes[minute] = (_NAIVE_EPOCH + timedelta(minutes=minute)).isoformat()[:17]
        tail = tails.get(rest)
        if tail is None:
            second, micro = divmod(rest, _US)
            # Six digits of microseconds: the leading 1 keeps the zeros a plain str() drops.
            tail = tails[rest] = (f"{_SECONDS[second]}.{str(_US + micro)[1:]}{suffix}" if micro
                                  else _SECONDS[second] + suffix)
        text = known[us] = head + tail
        return text

    return iso


_ONE_US = timedelta(microseconds=1)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_SECONDS = tuple(f"{second:02d}" for second in range(60))


def _time(value: Any, where: str) -> tuple[datetime, int]:
    parsed = parse_time(value, where)
    # Far-away years would overflow once the engine adds hours to them; no game is played there.
    if not 1900 <= parsed.year <= 9000:
        raise RecordError(f"{where}: {value!r} is not a plausible game time (year 1900–9000)")
    return parsed, _to_us(parsed, where)


def _number(value: Any, where: str, low: float, high: float, *, low_open: bool = False) -> float:
    check_type(value, (int, float), where)
    if not math.isfinite(value):
        raise RecordError(f"{where}: expected a finite number, got {value!r}")
    too_low = value <= low if low_open else value < low
    if too_low or value > high:
        bracket = "(" if low_open else "["
        raise RecordError(f"{where}: {value!r} is outside {bracket}{low:g}, {high:g}]")
    return value


def _text(mapping: dict, key: str, where: str) -> str | None:
    return optional(mapping, key, str, where)


def parse_record(data: Any) -> GameRecord:
    """Check a GoRoD game record's shape and static consistency and return it typed.

    Static checks only (types, names, routes, timeout length, events inside the game's span);
    the timeline checks that need the level clock (a code after a fail time, a level closed
    twice) happen in ``compute``.

    >>> rec = parse_record({"format": "gorod", "start": "2026-12-05T22:00:00+03:00",
    ...                     "levels": [{"id": "1"}], "teams": ["A"]})
    >>> rec.levels[0].limit_min, rec.routes["A"]
    (70, ('1',))
    """
    if not isinstance(data, dict):
        raise RecordError("the record must be a JSON object")
    fmt = data.get("format", "gorod")
    if fmt != "gorod":
        raise RecordError(f"format: expected 'gorod', got {fmt!r}")

    start, start_us = _time(require(data, "start", str, "record"), "start")

    settings = check_settings(
        hint_offsets_min=optional(data, "hint_offsets_min", list, "record",
                                  list(DEFAULT_HINT_OFFSETS_MIN)),
        sliv_penalty_min=optional(data, "sliv_penalty_min", (int, float), "record",
                                  DEFAULT_SLIV_PENALTY_MIN),
        max_duration_h=optional(data, "max_duration_h", (int, float), "record",
                                DEFAULT_MAX_DURATION_H))
    max_h, sliv_min = settings["max_duration_h"], settings["sliv_penalty_min"]
    offsets = tuple(settings["hint_offsets_min"])

    levels = _parse_levels(require(data, "levels", list, "record"))
    ids = [level.id for level in levels]
    teams = team_names(require(data, "teams", list, "record"))
    routes = _parse_routes(optional(data, "routes", dict, "record", {}), ids, teams)

    cap_us = start_us + round(max_h * _HOUR)
    end = end_us = now = None
    now_us = None
    if data.get("now") is not None:
        now, now_us = _time(data["now"], "now")
    if data.get("end") is not None:
        end, end_us = _time(data["end"], "end")
        if end_us < start_us:
            raise RecordError(f"end: {data['end']} is before the start {data['start']}")
        if end_us > cap_us:
            raise RecordError(f"end: {data['end']} is after the {max_h:g} h cap")
        if now_us is not None and end_us > now_us:
            raise RecordError(f"end: {data['end']} is later than now ({data['now']})")

    events = _parse_events(optional(data, "events", list, "record", []), set(ids), set(teams))
    for event in events:
        _check_span(event, start, start_us, end_us, now_us, cap_us, max_h)

    game_order = tuple(ids)
    return GameRecord(
        start=start, start_us=start_us, levels=levels, teams=teams,
        routes=MappingProxyType({t: routes.get(t, game_order) for t in teams}),
        events=events, end=end, end_us=end_us, now=now, hint_offsets_min=offsets,
        sliv_penalty_min=sliv_min, max_duration_h=max_h,
    )


def _check_span(event: Event, start: datetime, start_us: int, end_us: int | None,
                now_us: int | None, cap_us: int, max_h: float) -> None:
    """Refuse an event before the start or after the game's end, now or the time cap."""
    if event.at_us is None:
        return
    if event.at_us < start_us:
        raise RecordError(f"{event.where}.at: {format_time(event.at)} is before the start "
                          f"{format_time(start)}")
    for label, bound in (("the game's end", end_us), ("now", now_us),
                         (f"the {max_h:g} h cap", cap_us)):
        if bound is not None and event.at_us > bound:
            raise RecordError(f"{event.where}.at: {format_time(event.at)} is later than {label}"
                              f" ({format_time(_from_us(bound, start.tzinfo))})")


def with_event(record: GameRecord, item: Any) -> GameRecord:
    """``record`` with one more event, ``item`` (an event as a record's ``events`` hold it), at
    the end: what ``parse_record`` gives for the record with ``item`` appended to its events,
    refused with the same message, without parsing the other events again
    (tests/gorod/test_rules.py). A live code advances its team's timeline this way: its team's
    record is parsed once, and each closing code adds its one event.

    Worked example: team A's code at 22:31:10 closes level 1; at 22:40 it is on level 2.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00",
    ...                     "levels": [{"id": "1"}, {"id": "2"}], "teams": ["A"]})
    >>> rec = with_event(rec, {"team": "A", "type": "code", "level": "1",
    ...                        "at": "2026-12-05T22:31:10+03:00"})
    >>> team_result(rec, "A", datetime.fromisoformat("2026-12-05T22:40:00+03:00")).current_level
    '2'
    """
    parser = _EventParser({level.id for level in record.levels}, set(record.teams))
    for event in record.events:
        parser.seen(event)
    event = parser.add(item, len(record.events))
    _check_span(event, record.start, record.start_us, record.end_us,
                None if record.now is None else _to_us(record.now, "now"), record.cap_us,
                record.max_duration_h)
    return replace(record, events=(*record.events, event))


MAX_WRONG_RANGE = (1, 1000)
WRONG_WINDOW_S_RANGE = (1, 3600)


def check_settings(*, hint_offsets_min: Any = DEFAULT_HINT_OFFSETS_MIN,
                   sliv_penalty_min: Any = DEFAULT_SLIV_PENALTY_MIN,
                   max_duration_h: Any = DEFAULT_MAX_DURATION_H,
                   max_wrong: Any = None, wrong_window_s: Any = None) -> dict:
    """A game's settings as the engine takes them, or ``RecordError`` naming the first setting
    it refuses. ``parse_record`` and the set-up (the page, scenario files) both ask this, so a
    game that can be set up can be played and replayed.

    - hint times: minutes after receiving a level, each in [0, 10080], increasing;
    - penalty per failed level: minutes in [0, 1440];
    - maximum duration: hours in (0, 1000];
    - brute-force limit (when given; not part of the record): wrong codes in [1, 1000] per a
      window of [1, 3600] s, both whole numbers.

    >>> check_settings(hint_offsets_min=[20, 40], sliv_penalty_min=15, max_duration_h=12)
    {'hint_offsets_min': [20, 40], 'sliv_penalty_min': 15, 'max_duration_h': 12}
    >>> check_settings(hint_offsets_min=[50, 25])
    Traceback (most recent call last):
    ...
    core.records.RecordError: hint_offsets_min: the hint times must increase
    """
    check_type(hint_offsets_min, (list, tuple), "hint_offsets_min")
    offsets = [_number(v, f"hint_offsets_min[{i}]", 0, 10080)
               for i, v in enumerate(hint_offsets_min)]
    if any(b <= a for a, b in zip(offsets, offsets[1:], strict=False)):
        raise RecordError("hint_offsets_min: the hint times must increase")
    settings = {
        "hint_offsets_min": offsets,
        "sliv_penalty_min": _number(sliv_penalty_min, "sliv_penalty_min", 0, 1440),
        "max_duration_h": _number(max_duration_h, "max_duration_h", 0, 1000, low_open=True),
    }
    for key, value, bounds in (("max_wrong", max_wrong, MAX_WRONG_RANGE),
                               ("wrong_window_s", wrong_window_s, WRONG_WINDOW_S_RANGE)):
        if value is not None:
            check_type(value, int, key)
            settings[key] = int(_number(value, key, *bounds))
    return settings


def _parse_levels(raw: list) -> tuple[Level, ...]:
    # A live write parses a record of the game's levels on every code: the same levels. Only
    # each level's id and duration decide the result (whether given, and their types: True is
    # not 1 here), so the levels parsed last are kept by those.
    if all(type(item) is dict for item in raw):
        key = tuple(tuple((field in item, item.get(field), type(item.get(field)))
                          for field in ("id", "duration_min")) for item in raw)
        try:
            return _levels_kept(key)
        except TypeError:  # an id or duration no key can hold (a list): refused below
            pass
    return _levels_checked(raw)


@functools.lru_cache(maxsize=64)
def _levels_kept(key: tuple) -> tuple[Level, ...]:
    return _levels_checked([{field: value for field, (given, value, _type)
                             in zip(("id", "duration_min"), item, strict=True) if given}
                            for item in key])


def _levels_checked(raw: list) -> tuple[Level, ...]:
    if not raw:
        raise RecordError("levels: a game needs at least one level")
    levels: list[Level] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        where = f"levels[{i}]"
        level_id = require(item, "id", str, where)
        if level_id in seen:
            raise RecordError(f"{where}.id: level {level_id!r} is listed twice")
        seen.add(level_id)
        limit = _number(optional(item, "duration_min", (int, float), where, DEFAULT_LIMIT_MIN),
                        f"{where}.duration_min", 0, 10080, low_open=True)
        levels.append(Level(level_id, limit, round(limit * _MIN)))
    return tuple(levels)


def _parse_routes(raw: dict, ids: list[str], teams: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    routes: dict[str, tuple[str, ...]] = {}
    known_teams, known_levels = set(teams), set(ids)
    for team, route in raw.items():
        # The common case, checked whole: strings naming every level, as many as there are
        # levels (so none twice), pass every check below. A 200-team night's 6 000 level ids
        # one check at a time took 7 ms of its replay (now 1 ms).
        if (team in known_teams and type(route) is list and len(route) == len(known_levels)
                and all(type(level_id) is str for level_id in route)
                and set(route) == known_levels):
            routes[team] = tuple(route)
            continue
        where = f"routes.{team}"
        if team not in teams:
            raise RecordError(f"{where}: unknown team {team!r}")
        check_type(route, list, where)
        for j, level_id in enumerate(route):
            check_type(level_id, str, f"{where}[{j}]")
            if level_id not in ids:
                raise RecordError(f"{where}[{j}]: unknown level {level_id!r}")
        seen: set[str] = set()
        for j, level_id in enumerate(route):
            if level_id in seen:
                raise RecordError(f"{where}[{j}]: level {level_id!r} is visited twice "
                                  "(a route visits every level exactly once)")
            seen.add(level_id)
        missing = [level_id for level_id in ids if level_id not in seen]
        if missing:
            raise RecordError(f"{where}: the route misses level(s) {', '.join(missing)} "
                              "(a route visits every level exactly once)")
        routes[team] = tuple(route)
    return routes


def _parse_events(raw: list, level_ids: set[str], teams: set[str]) -> tuple[Event, ...]:
    parser = _EventParser(level_ids, teams)
    return tuple(parser.add(item, i) for i, item in enumerate(raw))


class _EventParser:
    """Checks events one at a time against those before them (a level closed twice, a second
    timeout, average time or disqualification): ``parse_record`` adds a record's events in
    order, ``with_event`` one more after those of a parsed record (``seen``)."""

    def __init__(self, level_ids: set[str], teams: set[str]):
        self.level_ids, self.teams = level_ids, teams
        self.closings: dict[tuple[str, str], Event] = {}
        self.timeouts: dict[str, Event] = {}
        self.averages: dict[tuple[str, str], Event] = {}
        self.disqualified: dict[str, Event] = {}

    def seen(self, event: Event) -> None:
        """An event already checked (the first of each kind stays the one named)."""
        if event.type in CLOSING_TYPES:
            self.closings.setdefault((event.team, event.level), event)
        elif event.type == "timeout":
            self.timeouts.setdefault(event.team, event)
        elif event.type == "average_time":
            self.averages.setdefault((event.team, event.level), event)
        elif event.type == "disqualify":
            self.disqualified.setdefault(event.team, event)

    def add(self, item: Any, i: int) -> Event:
        where = f"events[{i}]"
        check_type(item, dict, where)
        team = require(item, "team", str, where)
        if team not in self.teams:
            raise RecordError(f"{where}.team: unknown team {team!r}")
        kind = require(item, "type", str, where)
        if kind not in EVENT_TYPES:
            raise RecordError(f"{where}.type: unknown event type {kind!r} "
                              f"(expected one of {', '.join(EVENT_TYPES)})")
        needs_at = kind in CLOSING_TYPES or kind == "timeout"
        at = at_us = None
        if needs_at or item.get("at") is not None:
            at, at_us = _time(require(item, "at", str, where), f"{where}.at")
        level = None
        if kind in CLOSING_TYPES or kind == "average_time":
            level = require(item, "level", str, where)
            if level not in self.level_ids:
                raise RecordError(f"{where}.level: unknown level {level!r}")
        minutes = None
        if kind == "timeout":
            minutes = _number(require(item, "minutes", (int, float), where), f"{where}.minutes",
                              *TIMEOUT_MIN_RANGE)
        elif kind in ("penalty", "bonus"):
            minutes = _number(require(item, "minutes", (int, float), where), f"{where}.minutes",
                              0, 10080, low_open=True)
        event = Event(i, team, kind, at, at_us, level, minutes,
                      _text(item, "reason", where), _text(item, "by", where))

        if kind in CLOSING_TYPES:
            first = self.closings.get((team, level))
            if first is not None:
                raise RecordError(f"{where}: {team}'s level {level} is closed twice "
                                  f"(already by {first.type} in {first.where})")
            self.closings[(team, level)] = event
        elif kind == "timeout":
            if team in self.timeouts:
                raise RecordError(f"{where}: {team} takes a second timeout (one per game, 3.10; "
                                  f"the first is {self.timeouts[team].where})")
            self.timeouts[team] = event
        elif kind == "average_time":
            if (team, level) in self.averages:
                raise RecordError(f"{where}: average time for {team} on level {level} is "
                                  f"already ruled in {self.averages[(team, level)].where}")
            self.averages[(team, level)] = event
        elif kind == "disqualify":
            if team in self.disqualified:
                raise RecordError(f"{where}: {team} is already disqualified in "
                                  f"{self.disqualified[team].where}")
            self.disqualified[team] = event
        return event


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
        return _finished_share([t.finished_at for t in self.teams])

    @property
    def end_allowed(self) -> bool:
        """The rules let the organizer end the game: at least ``END_SHARE`` of the teams have
        finished (3.12). With 5 teams of which 4 finished, 0.8 ≥ 0.8: True; 3 of 5: False."""
        return self.finished_share >= END_SHARE


def _finished_share(finishes: list) -> float:
    """The share of these finishes (a moment, or None: not finished) that are moments."""
    if not finishes:
        return 0.0
    return sum(finish is not None for finish in finishes) / len(finishes)


class _Played:
    """One level of a team's timeline in instants (µs): received ``r``, failing at ``fail``,
    closed at ``close`` (None: open) with ``outcome``, and the timeout taken on it."""

    # A plain class: a 200-team night makes 6 000 of them, and a dataclass cost the replay
    # process 1.5 ms to define.
    __slots__ = ("level", "r", "fail", "close", "outcome", "timeout_us", "timeout_start")

    def __init__(self, level: str, r: int, fail: int, close: int | None, outcome: str | None,
                 timeout_us: int, timeout_start: int | None):
        self.level, self.r, self.fail, self.close, self.outcome = level, r, fail, close, outcome
        self.timeout_us, self.timeout_start = timeout_us, timeout_start


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
    game = _standings(record, now)
    moment = _moments(record.start.tzinfo)
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
                 end_reason: str | None, teams: list[tuple[_Times, int | None]]):
        self.now, self.over, self.ended, self.end_reason = now, over, ended, end_reason
        self.teams = teams  # (times, place) in standings order


def _standings(record: GameRecord, now: datetime | None) -> _Standings:
    now, now_us = _checked_now(record, now, record.events)
    cap_us = record.cap_us
    game_end = cap_us if record.end_us is None else record.end_us
    horizon = game_end if now_us is None else min(now_us, game_end)
    # Without `now` the record is complete; with it, the game is over once `now` reaches the
    # organizer's end or the cap.
    clock_over = now_us is None or now_us >= game_end

    by_team: dict[str, list[Event]] = {team: [] for team in record.teams}
    for event in record.events:
        by_team[event.team].append(event)

    level_by_id = record.level_by_id
    offsets_us = tuple(round(o * _MIN) for o in record.hint_offsets_min)
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
    teams: list[tuple[_Times, int | None]] = [
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
    now_us = _to_us(now, "now")
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
    events = [event for event in record.events if event.team == team]
    now, now_us = _checked_now(record, now, events)
    game_end = record.cap_us if record.end_us is None else record.end_us
    horizon = game_end if now_us is None else min(now_us, game_end)
    # For a team still playing "every team finished" is false, so only the clock can end the
    # game; a finished team's result does not depend on whether the game is over.
    game_over = now_us is None or now_us >= game_end
    rows = _play(record, team, events, record.level_by_id, horizon)
    # The times on each level count only for the team's average-time rulings (most teams have
    # none: a live code computes its team's timeline, and this was a fifth of that).
    level_sums: dict[str, list[float]] = {}
    if any(event.type == "average_time" for event in events):
        if sums is None:
            sums = _sums(record, {team: rows})
        level_sums = {lv.id: list(sums.get(lv.id, (0.0, 0))) for lv in record.levels}
    offsets_us = tuple(round(o * _MIN) for o in record.hint_offsets_min)
    times = _team_times(record, team, record.teams.index(team), events, rows, level_sums,
                        record.sliv_penalty_min * 60, offsets_us, horizon, game_over, now_us,
                        record.cap_us)
    return _team_result(times, None, _moments(record.start.tzinfo))


def level_sums(teams) -> dict[str, tuple[float, int]]:
    """Per level, the total time (seconds, timeouts excluded) and the number of teams that
    closed it by any means: what an average-time ruling compares with (section 12). Summed in
    registration order, as ``compute`` does, so the floats are the same.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...     "teams": ["A", "B"], "events": [
    ...     {"team": "A", "type": "code", "level": "1", "at": "2026-12-05T22:10:00+03:00"},
    ...     {"team": "B", "type": "code", "level": "1", "at": "2026-12-05T22:30:00+03:00"}]})
    >>> level_sums(compute(rec).teams)
    {'1': (2400.0, 2)}
    """
    sums: dict[str, tuple[float, int]] = {}
    for result in sorted(teams, key=lambda t: t.registration):
        for level in result.levels:
            if level.closed_at is not None:
                total, count = sums.get(level.level, (0.0, 0))
                sums[level.level] = (total + level.duration_s, count + 1)
    return sums


def rank(teams) -> tuple[TeamResult, ...]:
    """The standings of these results, with their places (section 3): finished teams first by
    total time, then by finish; then the others by levels closed and total; disqualified teams
    last, in registration order, with no place. ``compute`` ranks the same way.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00",
    ...     "levels": [{"id": "1"}, {"id": "2"}], "teams": ["A", "B"], "events": [
    ...     {"team": "B", "type": "code", "level": "1", "at": "2026-12-05T22:10:00+03:00"}]})
    >>> now = datetime.fromisoformat("2026-12-05T22:20:00+03:00")
    >>> [(t.team, t.place) for t in rank([team_result(rec, n, now) for n in ("A", "B")])]
    [('B', 1), ('A', 2)]
    """
    return tuple(replace(result, place=place) for result, place in placed_in_order(
        teams, lambda r: standing_key(r.status, r.finished_at, r.total_s, r.levels_closed,
                                      r.registration),
        lambda r: r.registration))


def placed_in_order(items, key_of, registration_of) -> list[tuple[Any, int | None]]:
    """``(item, place)`` in standings order: the items with a ``standing_key`` (``key_of``)
    sorted by it and numbered from 1, then those without one (disqualified) in registration
    order with no place. ``rank`` places results this way; the live core re-ranks stored
    statistics rows with it.

    >>> rows = [{"n": "A", "key": (1, -2, 900.0, 0), "reg": 0}, {"n": "B", "key": None, "reg": 1},
    ...         {"n": "C", "key": (0, 5400.0, 1, 2), "reg": 2}]
    >>> [(r["n"], p) for r, p in placed_in_order(rows, lambda r: r["key"], lambda r: r["reg"])]
    [('C', 1), ('A', 2), ('B', None)]
    """
    placed, unplaced = [], []
    for item in items:
        key = key_of(item)
        if key is None:
            unplaced.append(item)
        else:
            placed.append((key, item))
    placed.sort(key=lambda pair: pair[0])
    return ([(item, place) for place, (_k, item) in enumerate(placed, start=1)]
            + [(item, None) for item in sorted(unplaced, key=registration_of)])


def standing_key(status: str, finished_at: datetime | None, total_s: float, levels_closed: int,
                 registration: int) -> tuple | None:
    """Where a team stands (``rank`` sorts by it, smaller first); None for a disqualified team,
    which has no place. A finished team ranks by its total, then its finish; the others after
    every finished team, by levels closed, then total; registration breaks the last tie. The
    live core re-ranks stored rows by it when one team's result changes.

    >>> at = datetime.fromisoformat("2026-12-05T23:00:00+03:00")
    >>> standing_key("finished", at, 5400.0, 3, 1) < standing_key("playing", None, 100.0, 9, 0)
    True
    >>> standing_key("playing", None, 900.0, 4, 2) < standing_key("playing", None, 100.0, 3, 0)
    True
    >>> standing_key("disqualified", None, 0.0, 5, 0) is None
    True
    """
    if status == "disqualified":
        return None
    if finished_at is not None:
        return (0, total_s, finished_at, registration)
    return (1, -levels_closed, total_s, registration)


def _sums(record: GameRecord, played: Mapping[str, list[_Played]]) -> dict[str, list[float]]:
    sums: dict[str, list[float]] = {level.id: [0.0, 0] for level in record.levels}
    for rows in played.values():
        for row in rows:
            if row.close is not None:
                acc = sums[row.level]
                acc[0] += (row.close - row.r - row.timeout_us) / _US
                acc[1] += 1
    return sums


def _play(record: GameRecord, team: str, events: list[Event], level_by_id: Mapping[str, Level],
          horizon: int) -> list[_Played]:
    """Walk the team's route with the level clock up to ``horizon``; check every closing
    event and the timeout against the timeline."""
    closings = {e.level: e for e in events if e.type in CLOSING_TYPES}
    timeout = next((e for e in events if e.type == "timeout"), None)
    timeout_left = timeout is not None
    rows: list[_Played] = []
    r = record.start_us
    for level_id in record.routes[team]:
        if r > horizon:
            break
        fail = r + level_by_id[level_id].limit_us
        event = closings.pop(level_id, None)
        t_us = t_start = 0
        if timeout_left:
            start_t = timeout.at_us
            # The timeout belongs to the level the team is on at its start: received at or
            # before it and still open (a level that closes at that very instant hands the
            # timeout to the next level, received at that instant).
            if r <= start_t < fail and (event is None or event.at_us > start_t):
                t_us, t_start = round(timeout.minutes * _MIN), start_t
                fail += t_us
                timeout_left = False
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
        if close > horizon:
            if event is not None:  # pragma: no cover - events after the horizon are refused earlier
                raise RecordError(f"{event.where}: later than the computed moment")
            rows.append(_Played(level_id, r, fail, None, None, t_us, t_start if t_us else None))
            break
        rows.append(_Played(level_id, r, fail, close, outcome, t_us, t_start if t_us else None))
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
    return _from_us(us, record.start.tzinfo).isoformat()


def _was_on(rows: list[_Played], at: int, record: GameRecord) -> str:
    for row in rows:
        if row.r <= at and (row.close is None or at < row.close):
            return f" (it was on level {row.level} then)"
    return ""


class _Times:
    """One team's result in instants (µs), with no place: what ``TeamResult`` and the replay's
    output are both written from. ``levels`` are tuples ``(level, received, hints listed,
    hints shown, fail, closed or None, outcome, duration_s, timeout_s, average_s)``; ``key``
    is the team's ``standing_key`` (None: disqualified)."""

    __slots__ = ("team", "registration", "key", "status", "levels", "current_level", "deadline",
                 "levels_closed", "failed_levels", "finished", "penalty_s", "bonus_s", "timeout",
                 "average_adjust_s", "total_s", "rulings")


def _team_times(record: GameRecord, team: str, reg: int, events: list[Event],
                rows: list[_Played], sums: dict[str, list[float]], sliv_s: float,
                offsets_us: tuple[int, ...], horizon: int, game_over: bool,
                now_us: int | None, cap_us: int) -> _Times:
    averaged = {e.level for e in events if e.type == "average_time"}
    disqualified = any(e.type == "disqualify" for e in events)
    penalty_s = sum(e.minutes for e in events if e.type == "penalty") * 60.0
    bonus_s = sum(e.minutes for e in events if e.type == "bonus") * 60.0
    timeout = next((e for e in events if e.type == "timeout"), None)

    levels: list[tuple] = []
    failed: list[str] = []
    adjust = 0.0
    timeout_closed_us = 0
    last_close = record.start_us
    closed = 0
    for row in rows:
        t_start = row.timeout_start
        hints = []
        for off in offsets_us:
            h = row.r + off
            # [decision] A hint due at the very instant the timeout starts has appeared; only
            # later hints move.
            if t_start is not None and h > t_start:
                h += row.timeout_us
            hints.append(h)
        if row.close is not None:
            # [decision] A hint due at the instant the level closes does not appear (the level
            # is no longer open then), e.g. a 50-min level never shows its 50-min hint.
            listed = [h for h in hints if h < row.close]
            shown = len(listed)
            duration_us = row.close - row.r - row.timeout_us
            duration = duration_us / _US
            closed += 1
            last_close = row.close
            if row.timeout_us:
                timeout_closed_us = row.timeout_us
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
                       duration, row.timeout_us / _US, avg))

    finished = closed == len(record.levels)
    # The total counts the timeout only when it was taken on a level already closed: for a team
    # still on that level the total stops at its last close, before the timeout.
    total = ((last_close - record.start_us - timeout_closed_us) / _US + sliv_s * len(failed)
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
            deadline = _team_deadline(open_row, offsets_us, now_us, cap_us)

    times = _Times()
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


def _team_result(times: _Times, place: int | None, moment: Callable[[int], datetime]
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


def _team_deadline(row: _Played, offsets_us: tuple[int, ...], now_us: int, cap_us: int) -> int:
    candidates = [row.fail]
    for off in offsets_us:
        h = row.r + off
        if row.timeout_start is not None and h > row.timeout_start:
            h += row.timeout_us
        if now_us < h < row.fail:
            candidates.append(h)
    if row.timeout_start is not None and now_us < row.timeout_start + row.timeout_us:
        # Codes are accepted again when the timeout ends; the live screen should know.
        candidates.append(row.timeout_start + row.timeout_us)
    return min(min(c for c in candidates if c > now_us), cap_us)


def next_deadline(results: Results) -> datetime | None:
    """The earliest future moment at which some team's state changes by the clock alone: a hint
    appears, a level fails, a timeout ends, the first level arrives or the cap ends the game.
    None when the game is over (or the results are of a complete record).

    Worked example: a team still on its 70-min level 1 at 22:30 next changes at 22:50 (hint 2);
    once both hints are out, the next change is the fail at 23:10. The clock process sleeps
    until this moment and then recomputes.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...                     "teams": ["A"]})
    >>> next_deadline(compute(rec, datetime.fromisoformat("2026-12-05T22:30:00+03:00"))).isoformat()
    '2026-12-05T22:50:00+03:00'
    >>> next_deadline(compute(rec, datetime.fromisoformat("2026-12-05T22:55:00+03:00"))).isoformat()
    '2026-12-05T23:10:00+03:00'
    """
    moments = [t.next_deadline for t in results.teams if t.next_deadline is not None]
    return min(moments) if moments else None


def timeout_until(team: TeamResult, now: datetime) -> datetime | None:
    """When the team's timeout ends, if it is on its timeout at ``now`` (3.10: no codes are
    accepted then); None otherwise.

    Worked example: a 10-minute timeout taken at 22:30 holds at 22:35 until 22:40 and is over
    at 22:40 itself.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...     "teams": ["A"], "events": [{"team": "A", "type": "timeout", "minutes": 10,
    ...                                 "at": "2026-12-05T22:30:00+03:00"}]})
    >>> at = lambda hm: datetime.fromisoformat(f"2026-12-05T{hm}:00+03:00")
    >>> timeout_until(compute(rec, at("22:35")).teams[0], at("22:35")).isoformat()
    '2026-12-05T22:40:00+03:00'
    >>> timeout_until(compute(rec, at("22:40")).teams[0], at("22:40")) is None
    True
    """
    if team.timeout_at is None:
        return None
    end = team.timeout_at + timedelta(seconds=team.timeout_s)
    return end if team.timeout_at <= now < end else None


def timeout_request_refusal(team: TeamResult, *, minutes: float, taken: bool,
                            pending: bool) -> str | None:
    """Why a team's request for its timeout (3.10) cannot go to the organizer, or None when it
    can: ``"length"`` (not 1–30 min), ``"taken"`` (the team has had its one timeout: it is
    running or over), ``"pending"`` (a request waits for the organizer), ``"not_on_level"``
    (the team is not playing a level: finished, stopped or disqualified). [decision] A refused
    request does not use the team's timeout up: it may ask again.

    Worked example: a team on level 1 may ask for 10 minutes but not for 45; once its first
    request waits, a second one is refused.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...                     "teams": ["A"], "events": []})
    >>> a = compute(rec, datetime.fromisoformat("2026-12-05T22:20:00+03:00")).teams[0]
    >>> timeout_request_refusal(a, minutes=10, taken=False, pending=False) is None
    True
    >>> timeout_request_refusal(a, minutes=45, taken=False, pending=False)
    'length'
    >>> timeout_request_refusal(a, minutes=10, taken=False, pending=True)
    'pending'
    """
    if team.status != "playing" or team.current_level is None:
        return "not_on_level"
    if taken or team.timeout_at is not None:
        return "taken"
    if pending:
        return "pending"
    low, high = TIMEOUT_MIN_RANGE
    if isinstance(minutes, bool) or not isinstance(minutes, int | float) or not (
            low <= minutes <= high):
        return "length"
    return None


# --------------------------------------------------------------------------------------------
# Statistics and replay
# --------------------------------------------------------------------------------------------


def statistics_table(results: Results) -> dict:
    """The statistics screen: one row per team (standings order) with one cell per level in game
    order (received, hints shown, closed, how, time on level; None for a level not received
    yet), and the team's penalties, bonuses, timeout, total and place.

    Worked example: a team that closed level 1 by code after 31 min 10 s saw hint 1 (22:25) and
    spent 1870 s there; level 2 then failed by the clock and cost 15 min of penalty.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00",
    ...     "levels": [{"id": "1"}, {"id": "2"}], "teams": ["A"], "events": [
    ...     {"team": "A", "type": "code", "level": "1", "at": "2026-12-05T22:31:10+03:00"}]})
    >>> row = statistics_table(compute(rec))["rows"][0]
    >>> [(c["hints_shown"], c["how"], c["time_s"]) for c in row["cells"]]
    [(1, 'code', 1870.0), (2, 'failed (time out)', 4200.0)]
    >>> row["place"], row["total_s"]  # 1870 + 4200 + 900 s of penalty
    (1, 6970.0)
    """
    return {"levels": list(results.level_ids),
            "rows": [statistics_row(team, results.level_ids) for team in results.teams],
            "finished_share": results.finished_share}


def statistics_row(team: TeamResult, level_ids: tuple[str, ...]) -> dict:
    """One team's row of ``statistics_table`` (its place as the result carries it): what a
    write about that team alone replaces in the stored table before re-ranking it."""
    cells: dict[str, dict | None] = dict.fromkeys(level_ids)
    for order, level in enumerate(team.levels, start=1):
        cells[level.level] = {
            "order": order,
            "received_at": level.received_at,
            "hints_shown": level.hints_shown,
            "closed_at": level.closed_at,
            "outcome": level.outcome,
            "how": level.how,
            "time_s": level.duration_s,
            "average_s": level.average_s,
            "timeout_s": level.timeout_s,
        }
    return {
        "team": team.team, "place": team.place, "status": team.status,
        "cells": [cells[level_id] for level_id in level_ids],
        "levels_closed": team.levels_closed, "slivs": team.slivs,
        "penalty_s": team.penalty_s, "bonus_s": team.bonus_s, "timeout_s": team.timeout_s,
        "average_adjust_s": team.average_adjust_s, "total_s": team.total_s,
        "finished_at": team.finished_at, "rulings": team.rulings,
    }


def replay(data: dict) -> dict:
    """``manage.py replay`` for ``"format": "gorod"``: the contract output of
    ``docs/spec/record-format.md`` plus a few extra fields (fail times, hints shown, rulings).

    >>> out = replay({"format": "gorod", "start": "2026-12-05T22:00:00+03:00",
    ...               "levels": [{"id": "1"}], "teams": ["A"]})
    >>> team = out["teams"][0]
    >>> team["status"], team["levels"][0]["outcome"], team["total_s"]  # 70 min + 15 min penalty
    ('finished', 'auto_sliv', 5100.0)
    """
    record = parse_record(data)
    game = _standings(record, None)
    tz = record.start.tzinfo
    # Written straight from the instants: the same text as format_time of compute's datetimes
    # (tests/gorod/test_rules.py holds them equal), without a datetime per moment.
    iso = _iso_writer(tz)
    ended = None if game.ended is None else _from_us(game.ended, tz)
    deadlines = [times.deadline for times, _place in game.teams if times.deadline is not None]
    return {
        "format": "gorod",
        "finished": game.over,
        "ended_at": format_time(ended),
        "end_reason": game.end_reason,
        "finished_share": _finished_share([times.finished for times, _place in game.teams]),
        "protests_until": format_time(None if ended is None
                                      else protest_deadline(ended)),
        "final_by": format_time(None if ended is None else final_due(ended)),
        "next_deadline": iso(min(deadlines)) if deadlines else None,
        "teams": [_team_json(times, place, iso) for times, place in game.teams],
    }


def _team_json(times: _Times, place: int | None, iso: Callable[[int], str]) -> dict:
    timeout = times.timeout
    return {
        "team": times.team, "place": place, "status": times.status,
        "levels_closed": times.levels_closed, "slivs": len(times.failed_levels),
        "finished_at": None if times.finished is None else iso(times.finished),
        "total_s": times.total_s, "penalty_s": times.penalty_s, "bonus_s": times.bonus_s,
        "timeout_s": 0.0 if timeout is None else timeout.minutes * 60.0,
        "timeout_at": None if timeout is None else format_time(timeout.at),
        "average_adjust_s": times.average_adjust_s,
        "failed_levels": list(times.failed_levels), "current_level": times.current_level,
        "next_deadline": None if times.deadline is None else iso(times.deadline),
        "rulings": [{"type": e.type, "minutes": e.minutes, "level": e.level,
                     "at": format_time(e.at), "reason": e.reason, "by": e.by}
                    for e in times.rulings],
        "levels": [{
            "level": level, "received_at": iso(r), "hints_at": [iso(h) for h in listed],
            "hints_shown": shown, "fail_at": iso(fail),
            "closed_at": None if close is None else iso(close), "outcome": outcome,
            "duration_s": duration, "timeout_s": timeout_s, "average_s": avg,
        } for level, r, listed, shown, fail, close, outcome, duration, timeout_s, avg
            in times.levels],
    }


# --------------------------------------------------------------------------------------------
# Routes for a non-linear game
# --------------------------------------------------------------------------------------------


def generate_routes(level_ids: list[str], team_names: list[str], seed: int | str) -> dict[str, list[str]]:
    """Routes for a non-linear game (4.2) that spread teams across levels.

    A seeded shuffle of the levels, then a Latin-square rotation: team ``i`` starts at position
    ``i * n // t`` of the shuffled cycle and follows it around, so (with ``t`` teams and ``n``
    levels, ``t <= n``) no two teams start on the same level, and teams moving at the same pace
    never meet on a level. Teams are assigned to rotations in a seeded order too. With more teams
    than levels the rotations repeat as evenly as possible. The same seed gives the same routes.

    >>> generate_routes(["1", "2", "3"], ["A", "B", "C"], seed=7) == generate_routes(
    ...     ["1", "2", "3"], ["A", "B", "C"], seed=7)
    True
    >>> sorted(route[0] for route in generate_routes(["1", "2", "3"], ["A", "B", "C"], 1).values())
    ['1', '2', '3']
    """
    if len(set(level_ids)) != len(level_ids) or not level_ids:
        raise ValueError("level_ids must be distinct and not empty")
    if len(set(team_names)) != len(team_names):
        raise ValueError("team_names must be distinct")
    # Here, not at the top: only the set-up draws routes, and random cost a replay 2 ms to load.
    import random

    rng = random.Random(seed)
    cycle = list(level_ids)
    rng.shuffle(cycle)
    order = list(team_names)
    rng.shuffle(order)
    n, t = len(cycle), max(len(order), 1)
    routes = {}
    for i, team in enumerate(order):
        shift = (i * n // t) if t <= n else i % n
        routes[team] = cycle[shift:] + cycle[:shift]
    return {team: routes[team] for team in team_names}


# --------------------------------------------------------------------------------------------
# Set-up warnings
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetupWarning:
    """Something that will surprise the organizer during the night, found before the start.
    ``kind`` says what (the page words it); the other fields say where."""

    kind: str  # hint_after_limit | no_code | no_personal_code | duplicate_code | route | no_route
    level: str | None = None
    team: str | None = None
    hint: int | None = None  # 1-based
    minutes: float | None = None  # the hint's time
    limit_min: float | None = None
    code: str | None = None
    levels: tuple[str, ...] = ()  # duplicate_code: where the code is; route: levels missing
    teams: tuple[str, ...] = ()  # no_personal_code: teams without their part
    extra: tuple[str, ...] = ()  # route: levels unknown or visited twice


def setup_warnings(*, levels: list[Mapping], hint_offsets_min=DEFAULT_HINT_OFFSETS_MIN,
                   teams: list[str] = (), routes: Mapping[str, list[str]] | None = None
                   ) -> list[SetupWarning]:
    """What to fix before the start; none of it stops the engine. ``levels`` are mappings with
    ``id``, ``duration_min`` (default 70) and ``codes`` (``gorod.codes.level_codes_from_dict``
    form); ``routes`` maps a team to its level ids (none: a linear game).

    - a hint due at or after its level's limit: the level fails first, the hint never appears;
    - a level without a usable code, or a personal part / digit missing for some team;
    - a code that closes two places (two levels, or two sectors), read as ``codes_match`` does:
      a team on one level typing the other's code;
    - in a non-linear game, a team without a route, or a route that does not visit every level
      exactly once.

    Worked example: hint 2 at 50 min on a 45 min level, and level 2 repeating level 1's code
    typed on the Russian layout.

    >>> for w in setup_warnings(levels=[{"id": "1", "codes": {"code": "G1R1D"}},
    ...         {"id": "2", "duration_min": 45, "codes": {"code": "п1к1в"}}]):
    ...     print(w.kind, w.level or w.levels, w.hint, w.code)
    hint_after_limit 2 2 None
    duplicate_code ('1', '2') None G1R1D
    """
    # Here, not at the top: a replay (a process of its own, make bench) needs no code matching.
    from gorod.codes import CodeSpecError, level_codes_from_dict

    found: list[SetupWarning] = []
    places: list[tuple[str, str, str, str]] = []  # level, sector, normalised, layout form
    ids = [str(level.get("id")) for level in levels]
    for level in levels:
        level_id = str(level.get("id"))
        limit = level.get("duration_min", DEFAULT_LIMIT_MIN)
        for number, offset in enumerate(hint_offsets_min, start=1):
            if isinstance(limit, int | float) and offset >= limit:
                found.append(SetupWarning("hint_after_limit", level=level_id, hint=number,
                                          minutes=offset, limit_min=limit))
        try:
            spec = level_codes_from_dict(level.get("codes") or {})
        except CodeSpecError:
            found.append(SetupWarning("no_code", level=level_id))
            continue
        missing = spec.missing_for(teams)
        if missing:
            found.append(SetupWarning("no_personal_code", level=level_id, teams=tuple(missing)))
        for sector in spec.sectors:
            owners = [None] if sector.kind == "common" else [
                t for t in teams if t in sector.personal]
            for team in owners:
                for norm, keys in zip(sector.accepted(team), sector.accepted_layout(team),
                                      strict=True):
                    places.append((level_id, sector.name, norm, keys))
    reported: set[tuple] = set()
    for i, (level_a, sector_a, norm_a, keys_a) in enumerate(places):
        for level_b, sector_b, norm_b, keys_b in places[i + 1:]:
            if (level_a, sector_a) == (level_b, sector_b):
                continue  # alternatives of one sector may well look alike
            if norm_a == norm_b or keys_a == keys_b:
                key = (level_a, sector_a, level_b, sector_b)
                if key not in reported:
                    reported.add(key)
                    found.append(SetupWarning("duplicate_code", code=norm_a,
                                              levels=tuple(dict.fromkeys((level_a, level_b)))))
    if routes:
        for team in teams:
            route = routes.get(team)
            if route is None:
                found.append(SetupWarning("no_route", team=team))
                continue
            seen: set[str] = set()
            extra = []
            for level_id in route:
                if level_id in seen or level_id not in ids:
                    extra.append(level_id)
                seen.add(level_id)
            missing_levels = tuple(i for i in ids if i not in seen)
            if missing_levels or extra:
                found.append(SetupWarning("route", team=team, levels=missing_levels,
                                          extra=tuple(extra)))
    return found
