"""The GoRoD rules (rules/gorod.md) and our decisions, one readable case each; the package
itself (its worked examples, what it loads). Split by topic: ``test_rules_record``,
``test_rules_engine``, ``test_rules_deadlines``, ``test_rules_output``, ``test_rules_setup``."""

from __future__ import annotations

import inspect
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import gorod.codes
import gorod.rules
import gorod.rules.instants
import gorod.rules.record
from core.records import RecordError
from gorod.rules import (
    compute,
    next_deadline,
    parse_record,
    replay,
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
from tests.gorod.rules_cases import ONE, _t, pick, rules_modules, same

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
