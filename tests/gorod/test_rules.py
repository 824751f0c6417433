"""The GoRoD rules (rules/gorod.md) and our decisions, one readable case each, plus properties."""

from __future__ import annotations

import copy
import importlib
import inspect
import pkgutil
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gorod.codes
import gorod.rules
import gorod.rules.instants
import gorod.rules.record
from core.records import RecordError, format_time
from gorod.rules import (
    GameRecord,
    clock_over,
    compute,
    generate_routes,
    level_sums,
    next_deadline,
    parse_record,
    rank,
    replay,
    statistics_table,
    team_result,
    with_event,
)
from tests.gorod.conftest import (
    START,
    at,
    average,
    bonus,
    code,
    disqualify,
    force_majeure,
    penalty,
    record,
    sliv,
    timeout,
)
from tests.properties import examples


def pick(out: dict, path: str):
    """``"A.levels.0.hints_at"`` → that value of team A in the replay output."""
    team, *rest = path.split(".")
    node = next(t for t in out["teams"] if t["team"] == team) if team else out
    for key in rest:
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def same(actual, expected) -> bool:
    if isinstance(expected, str) and expected[:4] == "2026" and isinstance(actual, str):
        return datetime.fromisoformat(actual) == datetime.fromisoformat(expected)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            same(a, e) for a, e in zip(actual, expected, strict=True))
    if isinstance(expected, float) and isinstance(actual, int | float):
        return abs(actual - expected) < 1e-6
    return actual == expected


ONE = (70,)

RULES = [
    pytest.param(record(ONE, ["A"], [code("A", "1", 10)]),
                 {"A.levels.0.hints_at": [], "A.levels.0.duration_s": 600.0},
                 id="a code before the first hint shows no hints and counts its own time"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 30)]),
                 {"A.levels.0.hints_at": [at(25)]},
                 id="hint one appears 25 minutes after the level was received"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 55)]),
                 {"A.levels.0.hints_at": [at(25), at(50)]},
                 id="hint two appears 50 minutes after the level was received"),
    pytest.param(record(ONE, ["A"]),
                 {"A.levels.0.closed_at": at(70), "A.levels.0.outcome": "auto_sliv",
                  "A.levels.0.hints_at": [at(25), at(50)]},
                 id="a level without a code fails by the clock 70 minutes after it was received"),
    pytest.param(record((70, 70), ["A"], [code("A", "1", 12.5)]),
                 {"A.levels.1.received_at": at(12.5)},
                 id="the next level is received at the moment the previous one closed"),
    pytest.param(record((70, 70), ["A"]),
                 {"A.levels.1.received_at": at(70), "A.levels.1.closed_at": at(140)},
                 id="after a fail the next level is received at the fail time"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 70)]),
                 {"A.levels.0.outcome": "code", "A.slivs": 0, "A.total_s": 4200.0},
                 id="a code at exactly the fail time counts"),
    pytest.param(record(ONE, ["A"]),
                 {"A.total_s": 4200.0 + 900.0, "A.slivs": 1, "A.failed_levels": ["1"]},
                 id="a failed level adds 15 minutes of penalty to the total"),
    pytest.param(record((45,), ["A"]),
                 {"A.levels.0.closed_at": at(45), "A.levels.0.hints_at": [at(25)]},
                 id="a 45 minute level fails at 45 minutes and shows only hint one"),
    pytest.param(record((100,), ["A"], [code("A", "1", 90)]),
                 {"A.levels.0.hints_at": [at(25), at(50)], "A.levels.0.closed_at": at(90)},
                 id="a 100 minute level keeps its hints at 25 and 50 minutes"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 25)]),
                 {"A.levels.0.hints_at": []},
                 id="a hint due at the instant a code closes the level does not appear"),
    pytest.param(record((50,), ["A"]),
                 {"A.levels.0.hints_at": [at(25)], "A.levels.0.closed_at": at(50)},
                 id="a 50 minute level never shows its 50 minute hint"),
    pytest.param(record((70, 70, 70), ["A"]),
                 {"A.levels.0.level": "1", "A.levels.1.level": "2", "A.levels.2.level": "3"},
                 id="a team without a route plays the levels in game order"),
    pytest.param(record((70, 70, 45), ["A", "B"], routes={"B": ["3", "1", "2"]}),
                 {"B.levels.0.level": "3", "B.levels.1.received_at": at(45),
                  "A.levels.0.level": "1"},
                 id="a team with a route plays its own order"),
    pytest.param(record(ONE, ["A"], [sliv("A", "1", 20)]),
                 {"A.levels.0.outcome": "sliv", "A.levels.0.closed_at": at(20),
                  "A.slivs": 1, "A.total_s": 1200.0 + 900.0},
                 id="an organizer-confirmed fail closes the level at once with the 15 minute penalty"),
    pytest.param(record(ONE, ["A"], [force_majeure("A", "1", 20)]),
                 {"A.levels.0.outcome": "force_majeure", "A.slivs": 0, "A.total_s": 1200.0},
                 id="force majeure moves the team on at that moment without penalty"),
    pytest.param(record(ONE, ["A"], [timeout("A", 30, 20)]),
                 {"A.levels.0.closed_at": at(90), "A.levels.0.duration_s": 4200.0,
                  "A.timeout_s": 1200.0},
                 id="a timeout moves the fail time later by its length"),
    pytest.param(record(ONE, ["A"], [timeout("A", 30, 20)]),
                 {"A.levels.0.hints_at": [at(25), at(70)]},
                 id="a timeout moves the hints still to come but not those already shown"),
    pytest.param(record(ONE, ["A"], [timeout("A", 25, 10)]),
                 {"A.levels.0.hints_at": [at(25), at(60)]},
                 id="a hint due at the very start of a timeout has appeared and does not move"),
    pytest.param(record(ONE, ["A"], [timeout("A", 30, 20), code("A", "1", 60)]),
                 {"A.total_s": 2400.0, "A.levels.0.duration_s": 2400.0},
                 id="a timeout is not counted in the total nor in the time on the level"),
    pytest.param(record(ONE, ["A"], [timeout("A", 30, 20), code("A", "1", 50)]),
                 {"A.levels.0.outcome": "code", "A.levels.0.duration_s": 1800.0},
                 id="a code right when the timeout ends is accepted"),
    pytest.param(record((70, 70), ["A"], [code("A", "1", 30), timeout("A", 30, 10)]),
                 {"A.levels.1.closed_at": at(110), "A.levels.0.timeout_s": 0.0,
                  "A.levels.1.timeout_s": 600.0},
                 id="a timeout starting at the instant a level closes belongs to the next level"),
    pytest.param(record((70, 70), ["A"], [code("A", "1", 10), timeout("A", 20, 20)],
                        now=at(30)),
                 {"A.total_s": 600.0, "A.timeout_s": 1200.0},
                 id="a timeout on the level still open is not yet subtracted from the total"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 10), penalty("A", 20)]),
                 {"A.total_s": 600.0 + 1200.0, "A.penalty_s": 1200.0},
                 id="penalty minutes add to the total"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 30), bonus("A", 5)]),
                 {"A.total_s": 1800.0 - 300.0, "A.bonus_s": 300.0},
                 id="bonus minutes subtract from the total"),
    pytest.param(record(ONE, ["A", "B", "C"], [code("A", "1", 10), code("B", "1", 20),
                                               code("C", "1", 40), average("A", "1")]),
                 {"A.total_s": 1800.0, "A.levels.0.average_s": 1800.0,
                  "A.levels.0.duration_s": 600.0, "A.average_adjust_s": 1200.0},
                 id="average time replaces the team's time by the other teams' average"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 10), average("A", "1")]),
                 {"A.total_s": 600.0, "A.levels.0.average_s": None},
                 id="average time changes nothing when no other team closed the level"),
    pytest.param(record(ONE, ["A", "B"], [code("B", "1", 20), average("A", "1")], now=at(30)),
                 {"A.total_s": 0.0, "A.average_adjust_s": 0.0},
                 id="average time changes nothing while the team itself has not closed the level"),
    pytest.param(record(ONE, ["A", "B", "C"], [code("A", "1", 10), code("B", "1", 20),
                                               average("A", "1")]),
                 {"A.total_s": (1200.0 + 4200.0) / 2},
                 id="average time counts another team's failed level as closed"),
    pytest.param(record((70, 70), ["A", "B"], [code("A", "1", 10), code("B", "1", 30),
                                               average("A", "1")]),
                 {"A.levels.1.received_at": at(10)},
                 id="average time does not move the team's timeline"),
    pytest.param(record(ONE, ["A", "B"], [code("A", "1", 30), code("B", "1", 20)]),
                 {"B.place": 1, "A.place": 2},
                 id="finished teams are ranked by total time"),
    pytest.param(record(ONE, ["A", "B"], [code("A", "1", 30), bonus("A", 10), code("B", "1", 20)]),
                 {"B.place": 1, "A.place": 2, "A.total_s": 1200.0, "B.total_s": 1200.0},
                 id="equal totals are ranked by the earlier finish"),
    pytest.param(record(ONE, ["A", "B"], [code("B", "1", 20), code("A", "1", 20)]),
                 {"A.place": 1, "B.place": 2},
                 id="equal totals and finish times go by registration order"),
    pytest.param(record((70, 70), ["A", "B"], [code("A", "1", 5), code("A", "2", 10),
                                               penalty("A", 600), code("B", "1", 5)],
                        end=at(20)),
                 {"A.place": 1, "B.place": 2, "B.status": "stopped"},
                 id="a finished team ranks above every team that did not finish"),
    pytest.param(record((70, 70, 70), ["A", "B"], [code("A", "1", 5), code("B", "1", 5),
                                                   code("B", "2", 60)], end=at(65)),
                 {"B.place": 1, "A.place": 2},
                 id="unfinished teams rank by levels closed, more first"),
    pytest.param(record((70, 70), ["A", "B"], [code("A", "1", 30), code("B", "1", 20)],
                        end=at(40)),
                 {"B.place": 1, "A.place": 2, "A.total_s": 1800.0, "B.total_s": 1200.0},
                 id="unfinished teams with as many levels closed rank by the total over them"),
    pytest.param(record(ONE, ["A", "B"], [code("A", "1", 5), disqualify("A"), code("B", "1", 50)]),
                 {"A.place": None, "A.status": "disqualified", "B.place": 1,
                  "A.levels.0.outcome": "code", ".teams.1.team": "A"},
                 id="a disqualified team keeps its record but gets no place and is listed last"),
    pytest.param(record((70, 70), ["A"], end=at(100)),
                 {"A.status": "stopped", "A.levels_closed": 1, "A.levels.1.closed_at": None,
                  ".end_reason": "organizer", ".finished": True},
                 id="the organizer's end stops the teams still playing"),
    pytest.param(record((70, 70, 70), ["A"], max_duration_h=2),
                 {"A.status": "stopped", "A.levels_closed": 1, ".end_reason": "cap",
                  ".ended_at": at(120)},
                 id="the game stops at the duration cap after the start"),
    pytest.param(record((70,) * 25, ["A"]),
                 {"A.status": "stopped", "A.levels_closed": 20, ".ended_at": at(24 * 60)},
                 id="by default the cap is 24 hours after the start"),
    pytest.param(record((70, 70), ["A", "B"], [code("A", "1", 10), code("A", "2", 15)]),
                 {"A.status": "finished", "A.finished_at": at(15), "B.finished_at": at(140),
                  ".end_reason": "all_finished", ".ended_at": at(140)},
                 id="a team finishes when it closes its last level and the game when all have"),
    pytest.param(record((70, 70), ["A"], [code("A", "1", 10)], now=at(20)),
                 {"A.status": "playing", "A.current_level": "2", "A.finished_at": None,
                  ".finished": False},
                 id="a live view marks a team that has not finished as playing"),
    pytest.param(record((70, 45), ["A"], [code("A", "1", 10)], now=at(20)),
                 {"A.levels.1.hints_at": [at(35), at(60)], "A.levels.1.hints_shown": 0,
                  "A.levels.1.closed_at": None, "A.levels.1.duration_s": None},
                 id="a live view lists every future hint of the open level"),
    pytest.param(record((70, 70), ["A"], now=at(75)),
                 {"A.levels.0.outcome": "auto_sliv", "A.levels.1.received_at": at(70),
                  "A.current_level": "2", "A.total_s": 4200.0 + 900.0},
                 id="a live view after the fail time shows the team moved on by the clock"),
    pytest.param(record((70, 70), ["A"], end=at(100)),
                 {"A.levels.1.hints_at": [at(95)]},
                 id="a stopped team's open level lists only the hints that appeared"),
    pytest.param(record((70,), ["A"], [code("A", "1", 30)],
                        hint_offsets_min=[10], sliv_penalty_min=20),
                 {"A.levels.0.hints_at": [at(10)]},
                 id="hint times are a setting of the game"),
    pytest.param(record((70,), ["A"], sliv_penalty_min=20),
                 {"A.total_s": 4200.0 + 1200.0},
                 id="the fail penalty is a setting of the game"),
    pytest.param(record(ONE, ["A"], [{"team": "A", "type": "code", "level": "1",
                                      "at": "2026-12-05T19:31:10+00:00"}]),
                 {"A.levels.0.duration_s": 1870.0},
                 id="times written with another offset are compared as instants"),
    pytest.param(record((70, 70), ["A", "B"], [code("B", "2", 40), bonus("A", 1), code("B", "1", 10),
                                               code("A", "1", 5)]),
                 {"B.levels.1.closed_at": at(40), "A.levels.0.closed_at": at(5)},
                 id="events may come in any order"),
    pytest.param(record((70, 70), ["A"], now=at(70)),
                 {"A.levels.0.outcome": "auto_sliv", "A.levels.0.closed_at": at(70),
                  "A.current_level": "2", "A.levels.1.received_at": at(70)},
                 id="a live view at exactly the fail time shows the level failed and the next one received"),
    pytest.param(record(ONE, ["A"], now=at(25)),
                 {"A.levels.0.hints_shown": 1, "A.next_deadline": at(50)},
                 id="a live view at exactly a hint time shows that hint"),
    pytest.param(record((45,), ["A"], [timeout("A", 10, 20)]),
                 {"A.levels.0.hints_at": [at(45)], "A.levels.0.closed_at": at(65),
                  "A.levels.0.duration_s": 2700.0},
                 id="a timeout on a 45 minute level shifts its hint and its fail time"),
    pytest.param(record(ONE, ["A"], [timeout("A", 0, 10)]),
                 {"A.levels.0.hints_at": [at(35), at(60)], "A.levels.0.closed_at": at(80),
                  "A.total_s": 4200.0 + 900.0},
                 id="a timeout at the very start of a level shifts both hints and the fail time"),
    pytest.param(record(ONE, ["A"], [timeout("A", 60, 10), code("A", "1", 80)]),
                 {"A.levels.0.outcome": "code", "A.slivs": 0, "A.total_s": 4200.0},
                 id="a code at exactly the fail time moved by a timeout counts"),
    pytest.param(record(ONE, ["A"], [timeout("A", 60, 10)], now=at(65)),
                 {"A.next_deadline": at(70), "A.levels.0.fail_at": at(80), "A.total_s": 0.0},
                 id="during a timeout the next deadline is the timeout's end"),
    pytest.param(record((70, 70), ["A"], [sliv("A", "1", 70), code("A", "2", 80)]),
                 {"A.levels.0.outcome": "sliv", "A.slivs": 1, "A.levels.1.received_at": at(70)},
                 id="an organizer fail at exactly the fail time is the organizer's ruling"),
    pytest.param(record(ONE, ["A"], [force_majeure("A", "1", 60), penalty("A", 10)]),
                 {"A.total_s": 3600.0 + 600.0, "A.slivs": 0},
                 id="force majeure adds no fail penalty while other penalties still count"),
    pytest.param(record(ONE, ["A", "B"], [code("A", "1", 10), code("B", "1", 30), disqualify("B"),
                                          average("A", "1")]),
                 {"A.total_s": 1800.0, "B.place": None},
                 id="a disqualified team's time on a level still counts in another team's average"),
    pytest.param(record(ONE, ["A", "B", "C"], [code("A", "1", 10), code("B", "1", 20),
                                               code("C", "1", 40), average("A", "1"),
                                               average("B", "1")]),
                 {"A.total_s": 1800.0, "B.total_s": 1500.0},
                 id="each averaged team's average is over the other teams' own times"),
    pytest.param(record((70, 70), ["B", "A"], [code("A", "1", 20), code("B", "1", 20)], end=at(30)),
                 {"B.place": 1, "A.place": 2, "A.status": "stopped"},
                 id="unfinished teams equal in levels and total go by registration order"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 20)], end=at(30)),
                 {".end_reason": "all_finished", ".ended_at": at(20), "A.status": "finished"},
                 id="an organizer's end after every team finished does not move the game's end"),
    pytest.param(record((70, 70), ["A", "B"], [code("A", "1", 10), code("A", "2", 20)],
                        end=at(30)),
                 {".finished_share": 0.5, "B.status": "stopped", "A.place": 1},
                 id="the organizer may end the game early and the share of finished teams is shown"),
    pytest.param(record((70, 70, 70), ["A"], [code("A", "1", 10)], max_duration_h=24, now=at(10)),
                 {"A.levels.1.received_at": at(10), "A.levels_closed": 1, "A.total_s": 600.0},
                 id="a live view shows the total over the closed levels"),
]


@pytest.mark.parametrize(("data", "expected"), RULES)
def test_rule(data, expected):
    out = replay(data)
    for path, value in expected.items():
        assert same(pick(out, path), value), (path, pick(out, path), value)


INVALID = [
    pytest.param(record(ONE, ["A"], [code("A", "1", 10), code("A", "1", 20)]), "closed twice",
                 id="a level closed twice by two codes is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 10), sliv("A", "1", 20)]), "closed twice",
                 id="a fail ruling on a level already closed by code is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 70.5)]), "fail time",
                 id="a code after the level's fail time is refused"),
    pytest.param(record((70, 70), ["A"], [code("A", "2", 30)]), "received",
                 id="a code for a level the team has not received yet is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 30, 20), code("A", "1", 40)]), "timeout",
                 id="a code during the team's timeout is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 30, 20), code("A", "1", 30)]), "timeout",
                 id="a code at the very start of the timeout is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 30, 20), sliv("A", "1", 35)]), "timeout",
                 id="an organizer fail during the timeout is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 10, 5), timeout("A", 30, 5)]), "second timeout",
                 id="a second timeout is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 10, 0)]), "minutes",
                 id="a timeout of zero minutes is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 10, 31)]), "minutes",
                 id="a timeout over 30 minutes is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 5), timeout("A", 10, 5)], now=at(20)),
                 "finished", id="a timeout after the team finished is refused"),
    pytest.param(record(ONE, ["A"], [code("Z", "1", 5)]), "unknown team",
                 id="an event of an unknown team is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "9", 5)]), "unknown level",
                 id="an event on an unknown level is refused"),
    pytest.param(record((70, 70), ["A"], routes={"Z": ["1", "2"]}), "unknown team",
                 id="a route of an unknown team is refused"),
    pytest.param(record((70, 70), ["A"], routes={"A": ["1"]}), "misses",
                 id="a route that misses a level is refused"),
    pytest.param(record((70, 70), ["A"], routes={"A": ["1", "1", "2"]}), "twice",
                 id="a route that visits a level twice is refused"),
    pytest.param(record((70, 70), ["A"], routes={"A": ["1", "2", "7"]}), "unknown level",
                 id="a route through an unknown level is refused"),
    pytest.param(record(ONE, ["A"], start="2026-12-05T22:00:00"), "offset",
                 id="a start time without a UTC offset is refused"),
    pytest.param(record(ONE, ["A"], [{"team": "A", "type": "code", "level": "1",
                                      "at": "2026-12-05T22:10:00"}]), "offset",
                 id="an event time without a UTC offset is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 50)], end=at(40)), "later than the game's end",
                 id="an event later than the organizer's end is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 50)], now=at(40)), "later than now",
                 id="an event later than now is refused"),
    pytest.param(record((70, 70), ["A"], [code("A", "1", 10), code("A", "2", 70)],
                        max_duration_h=1), "cap", id="an event later than the cap is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", -5)]), "before the start",
                 id="an event before the start is refused"),
    pytest.param(record(ONE, ["A"], end=at(-5)), "before the start",
                 id="an end before the start is refused"),
    pytest.param(record(ONE, ["A"], end=at(25 * 60)), "cap", id="an end after the cap is refused"),
    pytest.param(record(ONE, ["A"], end=at(30), now=at(20)), "later than now",
                 id="an end later than now is refused"),
    pytest.param(record(ONE, ["A"], [{"team": "A", "type": "kiss", "at": at(1)}]),
                 "unknown event type", id="an unknown event type is refused"),
    pytest.param(record(ONE, ["A"], [{"team": "A", "type": "code", "level": "1"}]),
                 "events[0].at: missing", id="a code without a time is refused"),
    pytest.param(record(ONE, ["A"], [{"team": "A", "type": "penalty", "minutes": True}]),
                 "boolean", id="a boolean where minutes belong is refused"),
    pytest.param(record(ONE, ["A"], [{"team": "A", "type": "penalty", "minutes": "20"}]),
                 "expected a number", id="minutes written as text are refused"),
    pytest.param(record(ONE, ["A", "A"]), "duplicate team name", id="a team listed twice is refused"),
    pytest.param(dict(record(ONE, ["A"]), levels=[{"id": "1"}, {"id": "1"}]), "twice",
                 id="a level listed twice is refused"),
    pytest.param(dict(record(ONE, ["A"]), levels=[{"id": 1}]), "levels[0].id",
                 id="a level id that is not a string is refused"),
    pytest.param(dict(record(ONE, ["A"]), levels=[{"id": "1", "duration_min": 0}]),
                 "duration_min", id="a level of zero minutes is refused"),
    pytest.param(record(ONE, ["A"], hint_offsets_min=[50, 25]), "increase",
                 id="hint times that do not increase are refused"),
    pytest.param({k: v for k, v in record(ONE, ["A"]).items() if k != "start"}, "start: missing",
                 id="a record without a start is refused"),
    pytest.param(record(ONE, ["A"], [average("A", "1"), average("A", "1")]), "already ruled",
                 id="a second average-time ruling on the same level is refused"),
    pytest.param(record(ONE, ["A"], [disqualify("A"), disqualify("A")]), "already disqualified",
                 id="a second disqualification is refused"),
    pytest.param(dict(record(ONE, ["A"]), teams="A"), "teams", id="teams not given as a list are refused"),
    pytest.param([], "object", id="a record that is not an object is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 60, 10), code("A", "1", 80.5)]), "fail time",
                 id="a code after the fail time moved by a timeout is refused"),
    pytest.param(record(ONE, ["A"], [force_majeure("A", "1", 30), code("A", "1", 40)]),
                 "closed twice", id="a code on a level already closed by force majeure is refused"),
    pytest.param(record(ONE, ["A"], end="2026-12-05T23:00:00"), "offset",
                 id="an end without a UTC offset is refused"),
    pytest.param(record(ONE, ["A"], now="2026-12-05T23:00:00"), "offset",
                 id="a now without a UTC offset is refused"),
    pytest.param(record(ONE, ["A"], [average("A", "9")]), "unknown level",
                 id="an average-time ruling on an unknown level is refused"),
    pytest.param(record(ONE, ["A"], [penalty("Z", 10)]), "unknown team",
                 id="a penalty for an unknown team is refused"),
]


@pytest.mark.parametrize(("data", "fragment"), INVALID)
def test_invalid_record(data, fragment):
    with pytest.raises(RecordError) as exc:
        replay(data)
    assert fragment in str(exc.value)


def test_a_game_across_a_daylight_saving_change_keeps_exact_minutes():
    # Berlin leaves summer time at 03:00 CEST on 2026-10-25 (clocks go back to 02:00 CET):
    # wall-clock arithmetic would put level 2's fail an hour off.
    data = record((70, 70), ["A"], start="2026-10-25T01:30:00+02:00",
                  events=[{"team": "A", "type": "code", "level": "1",
                           "at": "2026-10-25T02:30:00+02:00"}])
    level_one, level_two = pick(replay(data), "A.levels")
    assert level_one["duration_s"] == 3600.0
    assert _t(level_two["closed_at"]) == _t("2026-10-25T02:40:00+01:00")
    berlin_now = datetime(2026, 10, 25, 2, 30, tzinfo=ZoneInfo("Europe/Berlin"), fold=1)
    live = compute(parse_record(data), berlin_now)
    assert live.teams[0].levels[1].closed_at is None
    assert next_deadline(live) == _t("2026-10-25T02:40:00+01:00")


def test_now_given_as_an_argument_overrides_the_record():
    rec = parse_record(record((70, 70), ["A"], [code("A", "1", 10)]))
    live = compute(rec, START + timedelta(minutes=20))
    assert live.teams[0].status == "playing"
    assert compute(rec).teams[0].status == "finished"


def test_a_naive_now_is_refused():
    rec = parse_record(record(ONE, ["A"]))
    with pytest.raises(RecordError, match="now"):
        compute(rec, datetime(2026, 12, 5, 22, 30))


def test_an_event_after_the_now_argument_is_refused():
    rec = parse_record(record(ONE, ["A"], [code("A", "1", 30)]))
    with pytest.raises(RecordError, match="later than now"):
        compute(rec, START + timedelta(minutes=20))


def test_next_deadline_is_the_earliest_hint_or_fail_time_of_any_team():
    rec = parse_record(record((70, 45), ["A", "B"], [code("A", "1", 10)], routes={"B": ["2", "1"]}))
    live = compute(rec, START + timedelta(minutes=30))
    # A: level 2 from 10 → hint at 35; B: level 2 (45 min) from 0 → fails at 45.
    assert live.teams[0].next_deadline == START + timedelta(minutes=35)
    assert next_deadline(live) == START + timedelta(minutes=35)
    later = compute(rec, START + timedelta(minutes=36))
    assert next_deadline(later) == START + timedelta(minutes=45)


def test_next_deadline_skips_a_hint_that_falls_after_the_fail_time():
    rec = parse_record(record((45,), ["A"]))
    assert next_deadline(compute(rec, START + timedelta(minutes=30))) == START + timedelta(minutes=45)


def test_next_deadline_includes_the_end_of_a_running_timeout():
    rec = parse_record(record(ONE, ["A"], [timeout("A", 26, 10)]))
    assert next_deadline(compute(rec, START + timedelta(minutes=30))) == START + timedelta(minutes=36)


def test_next_deadline_never_goes_past_the_cap():
    rec = parse_record(record((70, 70), ["A"], max_duration_h=1))
    assert next_deadline(compute(rec, START + timedelta(minutes=55))) == START + timedelta(hours=1)


def test_next_deadline_before_the_start_is_the_start():
    rec = parse_record(record(ONE, ["A"]))
    live = compute(rec, START - timedelta(minutes=5))
    assert next_deadline(live) == START
    assert live.teams[0].levels == () and live.teams[0].status == "playing"


def test_next_deadline_is_none_once_the_game_is_over():
    assert next_deadline(compute(parse_record(record(ONE, ["A"])))) is None


def test_statistics_table_has_a_cell_per_level_in_game_order():
    rec = parse_record(record((70, 70), ["A", "B"], [code("A", "1", 30), penalty("B", 10)],
                              routes={"B": ["2", "1"]}, now=at(40)))
    table = statistics_table(compute(rec))
    assert table["levels"] == ["1", "2"]
    a_row, b_row = table["rows"]
    assert a_row["team"] == "A" and a_row["place"] == 1
    first = a_row["cells"][0]
    assert (first["hints_shown"], first["how"], first["time_s"]) == (1, "code", 1800.0)
    assert b_row["cells"][0] is None  # B has not received level 1 yet
    assert b_row["cells"][1]["order"] == 1 and b_row["penalty_s"] == 600.0
    assert b_row["rulings"][0].reason == "test"


def test_statistics_table_names_how_each_level_closed():
    rec = parse_record(record((70, 70, 70), ["A"], [sliv("A", "1", 5), force_majeure("A", "2", 10)]))
    cells = statistics_table(compute(rec))["rows"][0]["cells"]
    assert [c["how"] for c in cells] == ["failed (organizer)", "force majeure (organizer)",
                                         "failed (time out)"]


def test_finished_share_counts_finished_teams():
    rec = parse_record(record(ONE, ["A", "B", "C", "D", "E"], [code("A", "1", 5), code("B", "1", 6),
                                                               code("C", "1", 7), code("D", "1", 8)],
                              now=at(9)))
    assert compute(rec).finished_share == pytest.approx(0.8)


# ---- routes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("levels", "teams"), [(5, 5), (8, 3), (3, 7), (1, 2)])
def test_generated_routes_visit_every_level_once(levels, teams):
    ids = [str(i) for i in range(1, levels + 1)]
    names = [f"T{i}" for i in range(teams)]
    routes = generate_routes(ids, names, seed=42)
    assert list(routes) == names
    assert all(sorted(route) == sorted(ids) for route in routes.values())
    parse_record(record((70,) * levels, names, routes=routes))


@pytest.mark.parametrize(("levels", "teams"), [(5, 5), (8, 3), (30, 30), (30, 7)])
def test_generated_routes_start_teams_on_different_levels(levels, teams):
    routes = generate_routes([str(i) for i in range(levels)], [f"T{i}" for i in range(teams)], 1)
    firsts = [route[0] for route in routes.values()]
    assert len(set(firsts)) == teams
    # Moving at the same pace, no two teams meet on a level.
    for step in range(levels):
        assert len({route[step] for route in routes.values()}) == teams


def test_generated_routes_are_deterministic_for_a_seed_and_vary_with_it():
    ids, names = [str(i) for i in range(10)], [f"T{i}" for i in range(6)]
    assert generate_routes(ids, names, 3) == generate_routes(ids, names, 3)
    assert any(generate_routes(ids, names, s) != generate_routes(ids, names, 3) for s in range(4, 9))


# ---- properties -----------------------------------------------------------------------------

LIMITS = st.sampled_from([30, 45, 50, 70, 70, 90])


@st.composite
def valid_games(draw, with_now=None):
    """A valid record built by playing each team forward with the level clock."""
    limits = draw(st.lists(LIMITS, min_size=1, max_size=5))
    ids = [str(i) for i in range(1, len(limits) + 1)]
    limit_of = dict(zip(ids, limits, strict=True))
    teams = [f"T{i}" for i in range(draw(st.integers(1, 4)))]
    cap_h = draw(st.sampled_from([2, 5, 24]))
    cap_s = cap_h * 3600
    routes, events = {}, []
    for team in teams:
        route = draw(st.permutations(ids)) if draw(st.booleans()) else ids
        if route is not ids:
            routes[team] = list(route)
        r, timeout_free = 0, True
        for level in route:
            limit_s = limit_of[level] * 60
            fail, earliest = r + limit_s, r
            if timeout_free and draw(st.integers(0, 4)) == 0:
                t_at = r + draw(st.integers(0, limit_s - 1))
                length = draw(st.integers(1, 30))
                events.append({"team": team, "type": "timeout", "minutes": length, "at": t_at})
                fail += length * 60
                earliest = t_at + length * 60
                timeout_free = False
            how = draw(st.sampled_from(["code", "code", "code", "clock", "sliv", "force_majeure"]))
            if how == "clock":
                close = fail
            else:
                close = draw(st.integers(earliest, fail))
                events.append({"team": team, "type": how, "level": level, "at": close})
            r = close
        for _ in range(draw(st.integers(0, 2))):
            events.append({"team": team, "type": draw(st.sampled_from(["penalty", "bonus"])),
                           "minutes": draw(st.integers(1, 90))})
        if draw(st.integers(0, 3)) == 0:
            events.append({"team": team, "type": "average_time", "level": draw(st.sampled_from(ids))})
    horizon = cap_s
    if with_now if with_now is not None else draw(st.booleans()):
        horizon = draw(st.integers(0, cap_s))
    end = None
    if with_now is None and draw(st.integers(0, 3)) == 0:
        end = draw(st.integers(0, horizon))
        horizon = end
    kept = [e for e in events if "at" not in e or e["at"] <= horizon]
    for e in kept:
        if "at" in e:
            e["at"] = at(e["at"] / 60)
    draw(st.randoms()).shuffle(kept)
    data = record(limits, teams, kept, routes=routes, max_duration_h=cap_h)
    if horizon < cap_s and end is None:
        data["now"] = at(horizon / 60)
    if end is not None:
        data["end"] = at(end / 60)
        if draw(st.booleans()):
            data["now"] = at(draw(st.integers(end, end + 600)) / 60)
    return data


PROPS = settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _t(text):
    return datetime.fromisoformat(text)


@PROPS
@given(valid_games())
def test_a_teams_levels_follow_each_other_without_overlap(data):
    out = replay(data)
    for team in out["teams"]:
        received = _t(data["start"])
        for level in team["levels"]:
            assert _t(level["received_at"]) == received
            if level["closed_at"] is None:
                assert level is team["levels"][-1]
                break
            assert _t(level["closed_at"]) >= received
            received = _t(level["closed_at"])


@PROPS
@given(valid_games())
def test_no_level_lasts_past_its_limit_plus_the_timeout(data):
    out = replay(data)
    limits = {lv["id"]: lv["duration_min"] * 60 for lv in data["levels"]}
    for team in out["teams"]:
        for level in team["levels"]:
            if level["closed_at"] is not None:
                span = (_t(level["closed_at"]) - _t(level["received_at"])).total_seconds()
                assert span <= limits[level["level"]] + level["timeout_s"] + 1e-6
                assert level["duration_s"] <= limits[level["level"]] + 1e-6


@PROPS
@given(valid_games())
def test_total_time_is_the_formula_of_the_rules(data):
    out = replay(data)
    start = _t(data["start"])
    durations: dict[str, dict[str, float]] = {}
    for team in out["teams"]:
        for level in team["levels"]:
            if level["duration_s"] is not None:
                durations.setdefault(level["level"], {})[team["team"]] = level["duration_s"]
    for team in out["teams"]:
        closed = [lv for lv in team["levels"] if lv["closed_at"] is not None]
        last = _t(closed[-1]["closed_at"]) if closed else start
        timeout_s = sum(lv["timeout_s"] for lv in closed)
        slivs = sum(lv["outcome"] in ("sliv", "auto_sliv") for lv in closed)
        adjust = 0.0
        for event in data["events"]:
            if event["team"] == team["team"] and event["type"] == "average_time":
                times = durations.get(event["level"], {})
                own = times.get(team["team"])
                others = [v for k, v in times.items() if k != team["team"]]
                if own is not None and others:
                    adjust += sum(others) / len(others) - own
        expected = ((last - start).total_seconds() - timeout_s + 900 * slivs
                    + team["penalty_s"] - team["bonus_s"] + adjust)
        assert team["total_s"] == pytest.approx(expected, abs=1e-6)
        assert team["slivs"] == slivs


@PROPS
@given(valid_games(with_now=True), st.integers(1, 3000))
def test_a_later_now_never_changes_a_closed_level(data, later_s):
    rec = parse_record(data)
    now = rec.now or (START + timedelta(hours=rec.max_duration_h))
    first = compute(rec, now)
    second = compute(rec, now + timedelta(seconds=later_s))
    for a, b in zip(first.teams and sorted(first.teams, key=lambda t: t.team),
                    sorted(second.teams, key=lambda t: t.team), strict=True):
        for level_a, level_b in zip(a.levels, b.levels, strict=False):
            if level_a.closed_at is not None:
                # An average-time ruling's replacement may still move while other teams close
                # that level; the level's own timeline may not.
                assert replace(level_a, average_s=None) == replace(level_b, average_s=None)
        assert len(b.levels) >= len(a.levels)


def _one_team(data: dict, team: str) -> dict:
    """The record as a live write reads it for one team: every team named, only its events."""
    return {**data, "events": [e for e in data["events"] if e["team"] == team]}


@PROPS
@given(valid_games(), st.data())
def test_each_teams_own_timeline_ranked_equals_the_full_recompute(data, draw):
    if data["teams"] and draw.draw(st.booleans()):
        data["events"].append({"team": draw.draw(st.sampled_from(data["teams"])),
                               "type": "disqualify"})
    rec = parse_record(data)
    full = compute(rec)
    sums = level_sums(full.teams)
    incremental = rank([team_result(parse_record(_one_team(data, team)), team, sums=sums)
                        for team in rec.teams])
    assert incremental == full.teams


@PROPS
@given(valid_games(with_now=True))
def test_a_teams_result_from_its_own_events_is_the_full_recomputes_at_any_moment(data):
    """What a code submission reads: the team's level, status and deadlines from its own
    events; only an average-time adjustment needs the other teams' times."""
    rec = parse_record(data)
    now = rec.now or (START + timedelta(hours=rec.max_duration_h))
    full = compute(rec, now)
    sums = level_sums(full.teams)
    for expected in full.teams:
        one = parse_record(_one_team(data, expected.team))
        assert team_result(one, expected.team, now, sums=sums) == replace(expected, place=None)
        if not any(e["type"] == "average_time" and e["team"] == expected.team
                   for e in data["events"]):
            assert team_result(one, expected.team, now) == replace(expected, place=None)
    everyone_finished = all(t.finished_at is not None for t in full.teams)
    assert full.game_over == (clock_over(rec, now) or everyone_finished)


def _with_event_or_error(data: dict, item) -> GameRecord | str:
    try:
        return with_event(parse_record(data), item)
    except RecordError as exc:
        return f"error: {exc}"


# One more event as a live write may add it, or one the parser refuses: an unknown team,
# type or level, a level closed again, a second timeout, a time out of the game's span, junk.
_EVENT_FIELD = {
    "team": st.sampled_from(["T0", "T1", "T3", "Z", 7]),
    "type": st.sampled_from(["code", "code", "sliv", "force_majeure", "timeout", "penalty",
                             "bonus", "average_time", "disqualify", "hop"]),
    "level": st.sampled_from(["1", "2", "3", "9", None]),
    "at": st.one_of(st.integers(-5, 30 * 60).map(lambda m: at(m / 60)),
                    st.sampled_from(["soon", "2026-12-05T22:00:00"])),
    "minutes": st.sampled_from([0, 1, 15, 30, 45, -3, "5"]),
    "reason": st.sampled_from(["late", 3]),
}
_EVENTS = st.one_of(
    st.fixed_dictionaries({"team": _EVENT_FIELD["team"], "type": _EVENT_FIELD["type"]},
                          optional={k: v for k, v in _EVENT_FIELD.items()
                                    if k not in ("team", "type")}),
    st.none(), st.integers(), st.lists(st.integers(), max_size=2))


@PROPS
@given(valid_games(), st.data())
def test_adding_an_event_to_a_parsed_record_is_parsing_the_record_with_it(data, draw):
    """``with_event`` (a live code's closing event on its team's parsed record) gives what
    parsing the whole record again gives, and refuses what it refuses, with the same words."""
    if data["events"] and draw.draw(st.booleans()):
        events, item = data["events"][:-1], data["events"][-1]  # the record's own last event
    else:
        events = data["events"]
        item = draw.draw(_EVENTS | st.sampled_from(events or [None]))  # a repeat, or anything
    before = {**data, "events": events}
    assert _with_event_or_error(before, item) == _parsed_or_error(
        parse_record, {**data, "events": [*events, item]})


def test_an_added_closing_event_moves_the_team_on_as_the_whole_record_does():
    data = record([30, 30], ["A", "B"], [code("A", "1", 10)])
    added = with_event(parse_record(data), code("A", "2", 25))
    assert added == parse_record({**data, "events": [*data["events"], code("A", "2", 25)]})
    assert team_result(added, "A", _t(at(26))).levels_closed == 2
    with pytest.raises(RecordError, match=r"events\[2\]: A's level 2 is closed twice "
                                          r"\(already by code in events\[1\]\)"):
        with_event(added, code("A", "2", 27))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True)
    | st.text(max_size=30) | st.sampled_from(["2026-12-05T22:00:00+03:00", "1", "code", "A"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["format", "start", "levels", "teams", "events", "routes", "id", "team",
                         "type", "at", "level", "minutes", "end", "now", "duration_min",
                         "max_duration_h", "hint_offsets_min", "sliv_penalty_min"]) | st.text(max_size=5),
        inner, max_size=6),
    max_leaves=20,
)


@settings(max_examples=examples(150), deadline=None)
@given(JSON)
def test_junk_raises_only_record_errors(junk):
    try:
        replay(junk)
    except RecordError:
        pass


@st.composite
def mutated_games(draw):
    data = copy.deepcopy(draw(valid_games()))
    for _ in range(draw(st.integers(1, 3))):
        node = data
        # Walk to a random container, then break one of its values.
        while True:
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            if not keys:
                break
            key = draw(st.sampled_from(keys))
            child = node[key]
            if isinstance(child, dict | list) and child and draw(st.booleans()):
                node = child
                continue
            if draw(st.booleans()) and isinstance(node, dict):
                del node[key]
            else:
                node[key] = draw(JSON)
            break
    return data


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_games())
def test_broken_records_raise_only_record_errors(data):
    try:
        replay(data)
    except RecordError:
        pass


def rules_modules():
    """Every module of the ``gorod.rules`` package (the rules read by topic)."""
    return [importlib.import_module(f"gorod.rules.{m.name}")
            for m in pkgutil.iter_modules(gorod.rules.__path__)]


def test_the_worked_examples_in_the_rule_docstrings_hold():
    import doctest

    # The examples use the rules' public names, whichever module of the package they are in.
    results = [doctest.testmod(module, extraglobs=vars(gorod.rules)) for module in rules_modules()]
    assert sum(r.failed for r in results) == 0
    assert sum(r.attempted for r in results) >= 52  # every example of the single-file rules


def test_protests_run_12_hours_and_final_results_come_72_hours_after_the_game_ended():
    out = replay(record((70,), ["A"], [code("A", "1", 30)]))
    assert same(out["ended_at"], at(30))
    assert same(out["protests_until"], at(30 + 12 * 60))
    assert same(out["final_by"], at(30 + 72 * 60))
    live = replay(record((70,), ["A"], now=at(10)))
    assert live["protests_until"] is None and live["final_by"] is None


def test_the_engine_loads_neither_django_nor_the_clock():
    # A fresh interpreter: in this one the test runner has long since imported Django. Nor
    # does it load the season rules: a replay process needs only the results' calendar.
    probe = ("import sys, gorod.rules, gorod.codes; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'"
             " or m == 'rating.rules'))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "[]"
    for module in (*rules_modules(), gorod.codes):
        source = inspect.getsource(module)
        assert "datetime.now" not in source and "time.time" not in source


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(1, 40), st.integers(0, 60), st.integers(0, 10**6))
def test_generated_routes_keep_their_guarantees_for_any_size_and_seed(levels, teams, seed):
    ids = [f"L{i}" for i in range(levels)]
    names = [f"T{i}" for i in range(teams)]
    routes = generate_routes(ids, names, seed)
    assert list(routes) == names
    assert all(sorted(route) == sorted(ids) for route in routes.values())
    firsts = [route[0] for route in routes.values()]
    if teams <= levels:
        assert len(set(firsts)) == teams
    else:
        # More teams than levels: every level starts some team, none more than one extra.
        counts = [firsts.count(level) for level in ids]
        assert min(counts) >= 1 and max(counts) - min(counts) <= 1
    assert generate_routes(ids, names, seed) == routes


def test_route_generation_refuses_duplicate_or_missing_levels_and_duplicate_teams():
    with pytest.raises(ValueError):
        generate_routes([], ["A"], 1)
    with pytest.raises(ValueError):
        generate_routes(["1", "1"], ["A"], 1)
    with pytest.raises(ValueError):
        generate_routes(["1", "2"], ["A", "A"], 1)


@pytest.mark.parametrize(("finished", "teams", "allowed"), [
    (0, 5, False), (3, 5, False), (4, 5, True), (5, 5, True), (7, 9, False), (8, 10, True)])
def test_the_rules_let_the_organizer_end_once_80_percent_of_teams_finished(
        finished, teams, allowed):
    def team(name, done):
        return gorod.rules.TeamResult(
            team=name, registration=0, place=None, status="finished" if done else "playing",
            levels=(), current_level=None, next_deadline=None, levels_closed=0,
            failed_levels=(), finished_at=START if done else None, penalty_s=0, bonus_s=0,
            timeout_s=0, timeout_at=None, average_adjust_s=0, total_s=0, rulings=())

    results = gorod.rules.Results(
        start=START, now=START, game_over=False, ended_at=None, end_reason=None, level_ids=(),
        teams=tuple(team(f"t{i}", i < finished) for i in range(teams)), cap=START)
    assert results.end_allowed is allowed


# --- timeout requests (3.10) ------------------------------------------------------------------


def _team_at(events, m):
    results = gorod.rules.compute(gorod.rules.parse_record(record(events=events)),
                                  datetime.fromisoformat(at(m)))
    return next(t for t in results.teams if t.team == "A")


@pytest.mark.parametrize("events,m,minutes,taken,pending,why", [
    ([], 20, 10, False, False, None),
    ([], 20, 1, False, False, None),
    ([], 20, 30, False, False, None),
    ([], 20, 0.9, False, False, "length"),
    ([], 20, 31, False, False, "length"),
    ([], 20, True, False, False, "length"),
    ([], 20, 10, False, True, "pending"),
    ([], 20, 10, True, False, "taken"),
    ([timeout("A", 5, 10)], 10, 10, False, False, "taken"),
    ([timeout("A", 5, 10)], 40, 10, False, False, "taken"),
    ([code("A", "1", 1), code("A", "2", 2), code("A", "3", 3)], 20, 10, False, False,
     "not_on_level"),
    ([disqualify("A")], 20, 10, False, False, "not_on_level"),
])
def test_a_timeout_request_is_refused_exactly_when_the_rules_say(events, m, minutes, taken,
                                                                  pending, why):
    team = _team_at(events, m)
    assert gorod.rules.timeout_request_refusal(team, minutes=minutes, taken=taken,
                                               pending=pending) == why


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_only_lengths_from_1_to_30_minutes_may_be_asked(minutes):
    team = _team_at([], 20)
    why = gorod.rules.timeout_request_refusal(team, minutes=minutes, taken=False, pending=False)
    assert (why is None) == (1 <= minutes <= 30)


_level_value = st.one_of(st.none(), st.booleans(), st.integers(-5, 20000), st.floats(),
                         st.sampled_from(["1", "2", "", "бонус"]),
                         st.lists(st.integers(), max_size=1))
_level = st.dictionaries(st.sampled_from(["id", "duration_min", "note"]), _level_value, max_size=3)


def _parsed_or_error(parse, raw):
    try:
        return parse(raw)
    except RecordError as exc:
        return f"error: {exc}"


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_level, max_size=4))
def test_kept_parsed_levels_are_what_checking_the_levels_again_gives(raw):
    # Every code parses the game's levels again; the kept result must be the same result, or
    # the same refusal, for whatever ids and durations a record holds.
    expected = _parsed_or_error(gorod.rules.record._levels_checked, raw)
    for _ in range(2):
        found = _parsed_or_error(gorod.rules.record._parse_levels, raw)
        assert repr(found) == repr(expected)


# ---- the replay's fast moments --------------------------------------------------------------
# Instants are microseconds since the epoch inside the engine; the replay writes them without a
# datetime each (gorod.rules.instants._iso_writer) and compute makes its datetimes from the zone's epoch
# (gorod.rules.instants._moments). Both must be exactly what the plain datetime path gives.

_UTC = UTC


def _us(text: str) -> int:
    return (datetime.fromisoformat(text) - datetime(1970, 1, 1, tzinfo=_UTC)) // timedelta(
        microseconds=1)


def _zone(hours: int = 0, minutes: int = 0, seconds: int = 0, micro: int = 0) -> timezone:
    return timezone(timedelta(hours=hours, minutes=minutes, seconds=seconds, microseconds=micro))


@pytest.mark.parametrize(("moment", "zone", "expected"), [
    ("2026-12-05T19:00:00+00:00", _zone(3), "2026-12-05T22:00:00+03:00"),
    ("2026-12-05T19:31:10.000001+00:00", _zone(3), "2026-12-05T22:31:10.000001+03:00"),
    ("2026-12-05T19:31:10.999999+00:00", _zone(3), "2026-12-05T22:31:10.999999+03:00"),
    ("2026-12-05T19:31:10.5+00:00", _zone(3), "2026-12-05T22:31:10.500000+03:00"),
    ("2026-12-05T21:00:00+00:00", _zone(3), "2026-12-06T00:00:00+03:00"),
    ("2026-12-05T20:59:59.999999+00:00", _zone(3), "2026-12-05T23:59:59.999999+03:00"),
    ("2026-12-31T21:00:00+00:00", _zone(3), "2027-01-01T00:00:00+03:00"),
    ("2027-01-01T05:00:00+00:00", _zone(-8), "2026-12-31T21:00:00-08:00"),
    ("2028-02-28T22:30:00+00:00", _zone(5, 30), "2028-02-29T04:00:00+05:30"),
    ("2026-12-05T19:00:00+00:00", _UTC, "2026-12-05T19:00:00+00:00"),
    ("2026-12-05T19:00:00+00:00", _zone(14), "2026-12-06T09:00:00+14:00"),
    ("2026-12-05T19:00:00+00:00", _zone(-23, -59), "2026-12-04T19:01:00-23:59"),
    ("2026-12-05T19:00:00+00:00", _zone(0, 30, 15), "2026-12-05T19:30:15+00:30:15"),
    ("2026-12-05T19:00:00+00:00", _zone(0, 0, 0, 1), "2026-12-05T19:00:00.000001+00:00:00.000001"),
    ("2026-12-05T19:00:00+00:00", _zone(0, 0, 0, -1), "2026-12-05T18:59:59.999999-00:00:00.000001"),
    ("1969-12-31T23:59:59.999999+00:00", _UTC, "1969-12-31T23:59:59.999999+00:00"),
    ("1900-01-01T00:00:00+00:00", _zone(-1), "1899-12-31T23:00:00-01:00"),
    ("1900-01-01T00:00:00+03:00", _zone(3), "1900-01-01T00:00:00+03:00"),
    ("9000-12-31T23:59:59.999999+00:00", _zone(1), "9001-01-01T00:59:59.999999+01:00"),
    # Named zones (not what a record gives, but what compute's zone could be): the plain path,
    # on both sides of daylight-saving changes.
    ("2026-03-29T00:59:59+00:00", ZoneInfo("Europe/Berlin"), "2026-03-29T01:59:59+01:00"),
    ("2026-03-29T01:00:00+00:00", ZoneInfo("Europe/Berlin"), "2026-03-29T03:00:00+02:00"),
    ("2026-10-25T00:30:00+00:00", ZoneInfo("Europe/Berlin"), "2026-10-25T02:30:00+02:00"),
    ("2026-10-25T01:30:00+00:00", ZoneInfo("Europe/Berlin"), "2026-10-25T02:30:00+01:00"),
    ("2010-10-30T22:30:00+00:00", ZoneInfo("Europe/Moscow"), "2010-10-31T02:30:00+04:00"),
    ("2010-10-30T23:30:00+00:00", ZoneInfo("Europe/Moscow"), "2010-10-31T02:30:00+03:00"),
])
def test_the_fast_formatter_writes_what_isoformat_writes(moment, zone, expected):
    us = _us(moment)
    reference = gorod.rules.instants._from_us(us, zone)
    assert reference.isoformat() == expected
    assert gorod.rules.instants._iso_writer(zone)(us) == expected
    made = gorod.rules.instants._moments(zone)(us)
    assert (made, made.isoformat(), made.tzinfo, made.fold) == (
        reference, expected, reference.tzinfo, reference.fold)


_MOMENTS = st.integers(_us("1900-01-01T00:00:00+00:00"), _us("9000-12-31T00:00:00+00:00"))
_ZONES = st.one_of(
    st.just(_UTC),
    st.integers(-24 * 60 + 1, 24 * 60 - 1).map(lambda m: _zone(minutes=m)),
    st.integers(-86_399_999_999, 86_399_999_999).map(lambda u: _zone(micro=u)),
    st.sampled_from(["Europe/Moscow", "Europe/Berlin", "America/New_York", "Asia/Kathmandu",
                     "Australia/Lord_Howe", "UTC"]).map(ZoneInfo),
)


@settings(max_examples=examples(300), deadline=None)
@given(_ZONES, st.lists(st.tuples(_MOMENTS, st.sampled_from([0, 1, 60, 86_400])), max_size=40))
def test_the_fast_formatter_and_moments_agree_with_the_plain_datetime_path(zone, moments):
    # Moments on whole seconds, minutes and days as well as anywhere; one writer formats them
    # all (its memo of minutes and moments is then in play), some of them twice.
    iso, moment = gorod.rules.instants._iso_writer(zone), gorod.rules.instants._moments(zone)
    values = [us - us % (whole * 1_000_000) if whole else us for us, whole in moments]
    for us in values + values[::2]:
        reference = gorod.rules.instants._from_us(us, zone)
        assert iso(us) == reference.isoformat()
        made = moment(us)
        assert made == reference and made.isoformat() == reference.isoformat()
        assert made.tzinfo is reference.tzinfo and made.fold == reference.fold


# What the replay writes at the top that compute's results name otherwise.
_TOP = {"format": lambda results: "gorod", "finished": lambda results: results.game_over,
        "next_deadline": next_deadline}


def _computed_as_written(written, computed, top=False):
    """compute's value of every key the replay wrote (a field or property of the same name;
    teams, levels and rulings item by item), an instant as ``format_time`` writes it: no key the
    replay writes goes unchecked, and no copy of how the replay builds its output."""
    if isinstance(written, dict):
        out = {}
        for key, value in written.items():
            if top and key in _TOP:
                got = _TOP[key](computed)
            else:
                assert hasattr(computed, key), f"the replay writes {key!r}, compute has none"
                got = getattr(computed, key)
            out[key] = _computed_as_written(value, got)
        return out
    if isinstance(written, list):
        assert len(written) == len(computed)
        return [_computed_as_written(w, c) for w, c in zip(written, computed, strict=True)]
    return format_time(computed) if isinstance(computed, datetime) else computed


def _moved(data: dict, zone: timezone | None, micro: int, event_zone: timezone | None) -> dict:
    """The record with every time moved by ``micro`` µs and written in another offset (the
    start's, and the events' own)."""
    def moved(text, into):
        value = datetime.fromisoformat(text) + timedelta(microseconds=micro)
        return (value if into is None else value.astimezone(into)).isoformat()

    data = copy.deepcopy(data)
    for key in ("start", "now", "end"):
        if key in data:
            data[key] = moved(data[key], zone)
    for event in data["events"]:
        if "at" in event:
            event["at"] = moved(event["at"], event_zone)
    return data


# Whole seconds: Python 3.11 reads "-00:00:00.000001" as +00:00, so a record's times cannot
# carry finer offsets faithfully (the formatter's own properties above cover them).
_OFFSETS = st.one_of(st.none(), st.integers(-23 * 60, 23 * 60).map(lambda m: _zone(minutes=m)),
                     st.integers(-86_399, 86_399).map(lambda s: _zone(seconds=s)))


@PROPS
@given(valid_games(), _OFFSETS, st.integers(0, 999_999), _OFFSETS)
def test_a_replay_writes_what_format_time_writes_of_computes_datetimes(data, zone, micro,
                                                                        event_zone):
    data = _moved(data, zone, micro, event_zone)
    written = replay(data)
    assert written == _computed_as_written(written, compute(parse_record(data)), top=True)


@st.composite
def _routes(draw):
    ids = [str(i) for i in range(1, draw(st.integers(1, 5)) + 1)]
    teams = ("A", "B", "C")
    items = st.sampled_from([*ids, "9", 1, True, None])
    whole = st.permutations(ids).map(list)
    route = (whole | whole.flatmap(lambda r: st.sampled_from(r).map(lambda twice: [*r, twice]))
             | whole.map(lambda r: r[1:]) | st.lists(items, max_size=7)
             | st.sampled_from([tuple(ids), "1", {"1": 1}]))
    raw = draw(st.dictionaries(st.sampled_from([*teams, "Z"]), route, max_size=4))
    return raw, ids, teams


def _route_record(raw, ids, teams):
    return record(levels=(70,) * len(ids), teams=teams, routes=raw)


@settings(max_examples=examples(400), deadline=None)
@given(_routes())
def test_a_route_is_taken_exactly_when_it_visits_every_level_once(case):
    """The rule itself, not a second implementation: a known team's route is a list naming
    each level exactly once; the first team (in the record's order) whose route is not is
    named by the error, and the teams without one play in the game's order."""
    raw, ids, teams = case
    good = {team: type(route) is list and all(type(i) is str for i in route)
            and sorted(route) == sorted(ids) for team, route in raw.items()}
    bad = [team for team in raw if team not in teams or not good[team]]
    if bad:
        with pytest.raises(RecordError) as refused:
            parse_record(_route_record(raw, ids, teams))
        assert str(refused.value).startswith(f"routes.{bad[0]}")
    else:
        routes = parse_record(_route_record(raw, ids, teams)).routes
        assert dict(routes) == {team: tuple(raw.get(team, ids)) for team in teams}


@pytest.mark.parametrize(("route", "message"), [
    (["3", "1", "2"], None),
    ("123", "routes.A: expected a list, got a string"),
    (["1", 2, "3"], "routes.A[1]: expected a string, got a number"),
    (["1", "9", "3"], "routes.A[1]: unknown level '9'"),
    (["1", "2", "3", "1"],
     "routes.A[3]: level '1' is visited twice (a route visits every level exactly once)"),
    (["1", "2", "2"],
     "routes.A[2]: level '2' is visited twice (a route visits every level exactly once)"),
    (["1", "2"], "routes.A: the route misses level(s) 3 (a route visits every level exactly once)"),
], ids=["a permutation", "not a list", "not a string", "an unknown level", "a level twice",
        "a level twice in place of another", "a level missing"])
def test_a_wrong_route_is_refused_naming_the_place_and_the_reason(route, message):
    data = _route_record({"A": route}, ["1", "2", "3"], ("A", "B"))
    if message is None:
        assert parse_record(data).routes["A"] == ("3", "1", "2")
        return
    with pytest.raises(RecordError) as refused:
        parse_record(data)
    assert str(refused.value) == message


def test_a_route_for_a_team_not_in_the_game_is_refused():
    with pytest.raises(RecordError, match=r"^routes\.Z: unknown team 'Z'$"):
        parse_record(_route_record({"Z": ["1", "2", "3"]}, ["1", "2", "3"], ("A", "B")))
