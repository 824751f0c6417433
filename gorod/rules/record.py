"""The game's record (``docs/spec/record-format.md``): the rules' constants, the parsed record
(``GameRecord``: levels, teams, routes, events), its parser with "what and where" messages, and
the organizer's settings check. The parser's speed tricks (levels parsed once per shape) live
here, not in the engine.

Pure, like the whole package (see ``gorod.rules``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from types import MappingProxyType

from core.records import (
    RecordError,
    check_type,
    format_time,
    optional,
    parse_time,
    require,
    team_names,
)
from gorod.rules.instants import HOUR, MINUTE, from_us, to_us

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


DEFAULT_LIMIT_MIN = 70
DEFAULT_HINT_OFFSETS_MIN = (25, 50)
DEFAULT_SLIV_PENALTY_MIN = 15
#: The share of finished teams from which the rules let the organizer end the game (3.12).
END_SHARE = 0.8
DEFAULT_MAX_DURATION_H = 24
TIMEOUT_MIN_RANGE = (1, 30)


CLOSING_TYPES = ("code", "sliv", "force_majeure")
RULING_TYPES = ("penalty", "bonus", "average_time", "disqualify")
#: ``pause`` is game-wide (no ``team``): the organizer stopped every team's clock (3.5, 9.1).
EVENT_TYPES = (*CLOSING_TYPES, "timeout", *RULING_TYPES, "pause")
#: A pause of the whole game lasts more than 0 minutes and at most the longest game allowed
#: (1000 h, ``check_settings``): a live pause is as long as the organizer left it.
PAUSE_MIN_RANGE = (0, 60000)
#: Organizer rulings that take effect at a moment of the game (the record's ``at``); the others
#: are about totals. A ``code`` ruling is a code credited by fixing a level during play.
TIMED_RULINGS = ("sliv", "force_majeure", "timeout", "code")
#: Rulings about one level (the record's ``level``).
LEVEL_RULINGS = ("sliv", "force_majeure", "average_time", "code")
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
    team: str | None  # None: a game-wide ``pause``
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

    @property
    def stop_us(self) -> tuple[int, int]:
        """A timeout's or a pause's ``[start, end)`` in instants: the clock stands then."""
        return self.at_us, self.at_us + round(self.minutes * MINUTE)


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
        return self.start_us + round(self.max_duration_h * HOUR)

    @property
    def cap(self) -> datetime:
        """The time cap: the start plus the game's maximal duration."""
        return from_us(self.cap_us, self.start.tzinfo)

    @property
    def level_by_id(self) -> Mapping[str, Level]:
        return {level.id: level for level in self.levels}


def _time(value: Any, where: str) -> tuple[datetime, int]:
    parsed = parse_time(value, where)
    # Far-away years would overflow once the engine adds hours to them; no game is played there.
    if not 1900 <= parsed.year <= 9000:
        raise RecordError(f"{where}: {value!r} is not a plausible game time (year 1900–9000)")
    return parsed, to_us(parsed, where)


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

    cap_us = start_us + round(max_h * HOUR)
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
                              f" ({format_time(from_us(bound, start.tzinfo))})")


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
                None if record.now is None else to_us(record.now, "now"), record.cap_us,
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
        levels.append(Level(level_id, limit, round(limit * MINUTE)))
    return tuple(levels)


def _parse_routes(raw: dict, ids: list[str], teams: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    routes: dict[str, tuple[str, ...]] = {}
    known_teams, known_levels = set(teams), set(ids)
    for team, route in raw.items():
        # The common case, checked whole: strings naming every level, as many as there are
        # levels (so none twice), pass every check below: a 200-team night's 6 000 level ids
        # one check at a time were a large share of its replay.
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
        self.pauses: list[Event] = []

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
        elif event.type == "pause":
            self.pauses.append(event)

    def add(self, item: Any, i: int) -> Event:
        where = f"events[{i}]"
        check_type(item, dict, where)
        if item.get("type") == "pause":
            return self._pause(item, i, where)
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
            for pause in self.pauses:
                _refuse_inside(event, pause)
            self.closings[(team, level)] = event
        elif kind == "timeout":
            if team in self.timeouts:
                raise RecordError(f"{where}: {team} takes a second timeout (one per game, 3.10; "
                                  f"the first is {self.timeouts[team].where})")
            for pause in self.pauses:
                _refuse_overlap(event, pause)
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

    def _pause(self, item: dict, i: int, where: str) -> Event:
        """A pause of the whole game: no team, a moment and a length; refused when another
        pause or a team's timeout overlaps it, or a level closes inside it."""
        if "team" in item:
            raise RecordError(f"{where}.team: a pause is of the whole game and names no team")
        at, at_us = _time(require(item, "at", str, where), f"{where}.at")
        minutes = _number(require(item, "minutes", (int, float), where), f"{where}.minutes",
                          *PAUSE_MIN_RANGE, low_open=True)
        event = Event(i, None, "pause", at, at_us, None, minutes,
                      _text(item, "reason", where), _text(item, "by", where))
        for other in (*self.pauses, *self.timeouts.values()):
            _refuse_overlap(other, event)
        for closing in self.closings.values():
            _refuse_inside(closing, event)
        self.pauses.append(event)
        return event


def _refuse_overlap(one: Event, other: Event) -> None:
    """A pause and another stop of the clock (a pause, a team's timeout) share no moment; the
    later-listed of the two is named as the refused event."""
    start, end = one.stop_us
    o_start, o_end = other.stop_us
    if not (start < o_end and o_start < end):
        return
    first, second = sorted((one, other), key=lambda e: e.index)
    if first.type == second.type:
        raise RecordError(f"{second.where}: the pause at {format_time(second.at)} overlaps the "
                          f"pause at {format_time(first.at)} ({first.minutes:g} min, "
                          f"{first.where})")
    timeout, pause = (one, other) if one.type == "timeout" else (other, one)
    raise RecordError(f"{second.where}: {timeout.team}'s timeout at {format_time(timeout.at)} "
                      f"({timeout.minutes:g} min) overlaps the pause of the game at "
                      f"{format_time(pause.at)} ({pause.minutes:g} min)")


def _refuse_inside(event: Event, pause: Event) -> None:
    """No level closes while the whole game is paused; one closed at the pause's very start
    came before it, and at its end the clock runs again."""
    start, end = pause.stop_us
    if start < event.at_us < end:
        raise RecordError(f"{event.where}: {event.team}'s {event.type} on level {event.level} at "
                          f"{format_time(event.at)} is during the pause of the game "
                          f"({format_time(pause.at)}, {pause.minutes:g} min, {pause.where})")
