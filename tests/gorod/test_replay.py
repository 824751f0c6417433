"""``manage.py replay`` on GoRoD records: the contract examples and the error line."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from django.core.management import call_command

from gorod.rules import replay
from tests.gorod.conftest import at, code, record, sliv, timeout

RECORDS = Path(__file__).resolve().parent.parent / "fixtures" / "records"
EXAMPLES = sorted(RECORDS.glob("gorod-*.in.json"))

TEAM_FIELDS = ("team", "place", "status", "levels_closed", "slivs", "finished_at", "total_s",
               "penalty_s", "bonus_s", "timeout_s")
LEVEL_FIELDS = ("level", "received_at", "hints_at", "closed_at", "outcome", "duration_s")


def assert_same(actual, expected, where):
    if isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_same(a, e, f"{where}[{i}]")
    elif isinstance(expected, bool) or expected is None:
        assert actual is expected, where
    elif isinstance(expected, int | float):
        assert actual == pytest.approx(expected, abs=1e-3), where
    elif isinstance(expected, str) and where.endswith(("_at", "]")) and expected[:2] == "20":
        assert datetime.fromisoformat(actual) == datetime.fromisoformat(expected), where
    else:
        assert actual == expected, where


def assert_contract(actual: dict, expected: dict):
    assert actual["format"] == "gorod"
    assert [t["team"] for t in actual["teams"]] == [t["team"] for t in expected["teams"]]
    for got, want in zip(actual["teams"], expected["teams"], strict=True):
        for key in TEAM_FIELDS:
            assert_same(got[key], want[key], f"{want['team']}.{key}")
        assert len(got["levels"]) == len(want["levels"]), f"{want['team']}.levels"
        for i, (level, level_want) in enumerate(zip(got["levels"], want["levels"], strict=True)):
            for key in LEVEL_FIELDS:
                assert_same(level[key], level_want[key], f"{want['team']}.levels[{i}].{key}")


def expected_of(path: Path) -> dict:
    return json.loads(path.with_name(path.name.replace(".in.", ".out.")).read_text("utf-8"))


def test_the_gorod_examples_are_all_here():
    assert {p.name for p in EXAMPLES} >= {"gorod-basic.in.json", "gorod-live.in.json",
                                          "gorod-random.in.json"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_each_example_replays_through_the_command_to_its_expected_output(path, capsys):
    call_command("replay", str(path))
    out = capsys.readouterr()
    assert out.err == ""
    assert_contract(json.loads(out.out), expected_of(path))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_each_example_replays_through_the_pure_engine_to_its_expected_output(path):
    assert_contract(replay(json.loads(path.read_text("utf-8"))), expected_of(path))


def test_replay_reads_a_record_from_standard_input(monkeypatch, capsys):
    import io
    import sys

    path = RECORDS / "gorod-live.in.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO(path.read_text("utf-8")))
    call_command("replay", "-")
    assert_contract(json.loads(capsys.readouterr().out), expected_of(path))


def test_a_replayed_output_is_json_with_the_extra_fields_the_live_app_uses(capsys):
    call_command("replay", str(RECORDS / "gorod-live.in.json"))
    out = json.loads(capsys.readouterr().out)
    assert out["finished"] is False
    assert datetime.fromisoformat(out["next_deadline"]) == datetime.fromisoformat(at(95))
    alpha = out["teams"][0]
    assert alpha["current_level"] == "2" and alpha["levels"][1]["hints_shown"] == 2


INVALID = [
    pytest.param(record((70,), ["A"], [code("A", "1", 10), code("A", "1", 20)]), "closed twice",
                 id="a level closed twice"),
    pytest.param(record((70,), ["A"], [code("A", "1", 71)]), "fail time",
                 id="a code after the level's fail time"),
    pytest.param(record((70,), ["A"], [timeout("A", 10, 20), code("A", "1", 15)]), "timeout",
                 id="a code during a timeout"),
    pytest.param(record((70,), ["A"], [timeout("A", 10, 5), timeout("A", 30, 5)]), "second timeout",
                 id="a second timeout"),
    pytest.param(record((70,), ["A"], [timeout("A", 10, 45)]), "minutes",
                 id="a timeout longer than 30 minutes"),
    pytest.param(record((70,), ["A"], [timeout("A", 10, 0.5)]), "minutes",
                 id="a timeout shorter than a minute"),
    pytest.param(record((70,), ["A"], [sliv("Z", "1", 10)]), "unknown team", id="an unknown team"),
    pytest.param(record((70,), ["A"], [sliv("A", "X", 10)]), "unknown level", id="an unknown level"),
    pytest.param(record((70, 70), ["A"], routes={"A": ["2"]}), "route", id="a route missing a level"),
    pytest.param(record((70, 70), ["A"], routes={"A": ["2", "2"]}), "route",
                 id="a route visiting a level twice"),
    pytest.param(record((70,), ["A"], now="2026-12-05T23:00:00"), "UTC offset",
                 id="a time without a UTC offset"),
    pytest.param(record((70,), ["A"], [code("A", "1", 40)], end=at(30)), "later than",
                 id="an event later than the end"),
    pytest.param(record((70,), ["A"], [code("A", "1", 40)], now=at(30)), "later than now",
                 id="an event later than now"),
    pytest.param(record((70,), ["A"], [sliv("A", "1", 61)], max_duration_h=1), "cap",
                 id="an event later than the cap"),
    pytest.param(dict(record((70,), ["A"]), levels=[{"id": "1", "duration_min": "70"}]), "duration_min",
                 id="a wrongly typed field"),
    pytest.param({"format": "gorod"}, "start", id="a record with nothing in it"),
]


@pytest.mark.parametrize(("data", "fragment"), INVALID)
def test_an_invalid_record_prints_one_error_line_and_exits_2(data, fragment, tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    with pytest.raises(SystemExit) as exc:
        call_command("replay", str(path))
    assert exc.value.code == 2
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert fragment in lines[0]
    assert "Traceback" not in out.err and out.out == ""


def test_a_record_with_every_organizer_ruling_replays_with_the_rulings_and_the_organizers_end():
    out = replay(json.loads((RECORDS / "gorod-extra-rulings.in.json").read_text("utf-8")))
    assert (out["end_reason"], out["finished"]) == ("organizer", True)
    assert datetime.fromisoformat(out["ended_at"]) == datetime.fromisoformat("2026-12-06T00:20:00+03:00")
    assert out["finished_share"] == 0.75
    delta = next(t for t in out["teams"] if t["team"] == "Delta")
    # Level 1 averaged over Alpha 1200 s, Beta 1800 s and the disqualified Gamma's 600 s.
    assert delta["average_adjust_s"] == -2400.0 and delta["levels"][0]["average_s"] == 1200.0
    assert delta["rulings"] == [{"type": "average_time", "minutes": None, "level": "1", "at": None,
                                 "reason": "the level's box was missing", "by": "chief"}]
    alpha = next(t for t in out["teams"] if t["team"] == "Alpha")
    assert [r["reason"] for r in alpha["rulings"] if r["type"] != "bonus"] == [
        "lost the equipment (3.6)", "the road was closed"]
