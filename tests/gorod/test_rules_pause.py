"""A pause of the whole game (the record's ``pause`` event, rules 3.5 and 9.1): every open
level's hints and fail time move later by its length, no level closes inside it, and its length
leaves the totals as a timeout's does. Edges as a table, then properties: a pause is the night
after it shifted by its length, and one team's timeline still equals the full recompute."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from django.core.management import call_command
from hypothesis import assume, given
from hypothesis import strategies as st

from core.records import RecordError
from gorod.rules import compute, level_sums, parse_record, rank, replay, team_result, with_event
from tests.gorod.conftest import START, at, code, force_majeure, record, sliv, timeout
from tests.gorod.rules_cases import PROPS, valid_games


def pause(minutes: float, length: float) -> dict:
    return {"type": "pause", "at": at(minutes), "minutes": length}


def team(out: dict, name: str) -> dict:
    return next(t for t in out["teams"] if t["team"] == name)


def moment(text: str) -> float:
    """Minutes after the start of an ISO time of the output."""
    return (datetime.fromisoformat(text) - START) / timedelta(minutes=1)


# --- what a pause moves -------------------------------------------------------------------------


def test_a_pause_moves_the_open_levels_remaining_hints_and_fail_time_by_its_length():
    out = replay(record((70,), ["A"], [pause(30, 20)], now=at(60)))
    level = team(out, "A")["levels"][0]
    # The 25-min hint had appeared; the 50-min one and the fail at 70 move by 20.
    assert [moment(h) for h in level["hints_at"]] == [25, 70]
    assert moment(level["fail_at"]) == 90


def test_a_hint_due_at_the_pauses_very_start_has_appeared_and_does_not_move():
    level = team(replay(record((70,), ["A"], [pause(25, 10)], now=at(30))), "A")["levels"][0]
    assert [moment(h) for h in level["hints_at"]] == [25, 60]


def test_a_code_at_the_pauses_start_came_before_it_and_the_next_level_received_then_is_moved():
    out = replay(record((70, 70), ["A"], [pause(30, 20), code("A", "1", 30)], now=at(60)))
    first, second = team(out, "A")["levels"]
    assert first["duration_s"] == 30 * 60 and moment(first["closed_at"]) == 30
    # Level 2 received at 30, the pause's start: it is open at the pause and moves.
    assert moment(second["received_at"]) == 30 and moment(second["fail_at"]) == 120


def test_a_level_failed_by_the_clock_at_the_pauses_start_hands_the_pause_to_the_next_level():
    out = replay(record((30, 70), ["A"], [pause(30, 10)], now=at(60)))
    first, second = team(out, "A")["levels"]
    assert first["outcome"] == "auto_sliv" and moment(first["closed_at"]) == 30
    assert moment(second["fail_at"]) == 110


def test_a_code_at_the_pauses_end_is_accepted_and_the_pause_leaves_its_duration():
    out = replay(record((70,), ["A"], [pause(10, 20), code("A", "1", 30)]))
    a = team(out, "A")
    assert a["levels"][0]["duration_s"] == 10 * 60 and a["total_s"] == 10 * 60


def test_a_pause_after_the_teams_last_closed_level_leaves_its_total_alone():
    data = record((70, 70), ["A"], [code("A", "1", 20), pause(40, 15)], now=at(60))
    a = team(replay(data), "A")
    assert a["total_s"] == 20 * 60 and a["status"] == "playing"
    assert moment(a["levels"][1]["fail_at"]) == 20 + 70 + 15


def test_a_pause_before_a_closed_level_closed_leaves_the_total_as_a_timeout_does():
    paused = team(replay(record((70, 70), ["A"], [pause(10, 15), code("A", "1", 40)])), "A")
    timed = team(replay(record((70, 70), ["A"], [timeout("A", 10, 15), code("A", "1", 40)])), "A")
    assert paused["total_s"] == timed["total_s"] == (40 - 15 + 70 + 15) * 60
    assert paused["timeout_s"] == 0 and timed["timeout_s"] == 15 * 60


def test_a_pause_and_a_timeout_on_one_level_both_move_it_in_their_order():
    out = replay(record((70,), ["A"], [pause(10, 20), timeout("A", 40, 10)], now=at(50)))
    level = team(out, "A")["levels"][0]
    # 25 → 45 (pause) → 55 (timeout at 40); 50 → 70 → 80; fail 70 → 90 → 100.
    assert [moment(h) for h in level["hints_at"]] == [55, 80]
    assert moment(level["fail_at"]) == 100


def test_a_finished_team_is_not_touched_by_a_later_pause():
    out = replay(record((70,), ["A", "B"], [code("A", "1", 10), pause(20, 30)]))
    a, b = team(out, "A"), team(out, "B")
    assert a["total_s"] == 600 and a["finished_at"] == at(10)
    assert moment(b["levels"][0]["closed_at"]) == 100  # failed 30 min later than 70


def test_a_pause_moves_every_teams_open_level():
    out = replay(record((70, 70), ["A", "B"], [code("A", "1", 5), pause(10, 20)], now=at(30)))
    assert moment(team(out, "A")["levels"][1]["fail_at"]) == 5 + 70 + 20
    assert moment(team(out, "B")["levels"][0]["fail_at"]) == 70 + 20


def test_during_a_pause_the_next_deadline_is_its_end():
    out = replay(record((70,), ["A"], [pause(10, 20)], now=at(15)))
    assert moment(out["next_deadline"]) == 30


def test_a_team_timeline_with_a_pause_added_after_it_is_parsed_equals_the_parsed_record():
    data = record((70, 70), ["A"], [pause(10, 5)])
    added = with_event(parse_record(data), code("A", "1", 40))
    whole = parse_record({**data, "events": [*data["events"], code("A", "1", 40)]})
    assert added == whole


# --- what is refused ------------------------------------------------------------------------------


INVALID = [
    pytest.param([pause(10, 20), code("A", "1", 20)], "during the pause", id="a code inside"),
    pytest.param([code("A", "1", 20), pause(10, 20)], "during the pause",
                 id="a code inside, listed before the pause"),
    pytest.param([pause(10, 20), sliv("A", "1", 29)], "during the pause", id="a sliv inside"),
    pytest.param([pause(10, 20), force_majeure("A", "1", 11)], "during the pause",
                 id="a force majeure inside"),
    pytest.param([pause(10, 20), pause(25, 5)], "overlaps the pause", id="overlapping pauses"),
    pytest.param([pause(25, 5), pause(10, 20)], "overlaps the pause",
                 id="overlapping pauses, the later listed first"),
    pytest.param([pause(10, 20), pause(10, 5)], "overlaps the pause", id="pauses at one moment"),
    pytest.param([timeout("A", 10, 10), pause(15, 5)], "overlaps the pause of the game",
                 id="a pause inside a timeout"),
    pytest.param([pause(15, 5), timeout("A", 10, 10)], "overlaps the pause of the game",
                 id="a timeout over a pause"),
    pytest.param([pause(10, 0)], "minutes", id="a pause of no length"),
    pytest.param([pause(10, -5)], "minutes", id="a pause of negative length"),
    pytest.param([{"type": "pause", "at": at(10)}], "minutes", id="a pause without a length"),
    pytest.param([{"type": "pause", "minutes": 5}], "at", id="a pause without a moment"),
    pytest.param([{**pause(10, 5), "team": "A"}], "names no team", id="a pause naming a team"),
    pytest.param([pause(-1, 5)], "before the start", id="a pause before the start"),
]


@pytest.mark.parametrize(("events", "fragment"), INVALID)
def test_an_invalid_pause_is_refused_with_a_clear_error_line(events, fragment, tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record((70,), ["A"], events), ensure_ascii=False), "utf-8")
    with pytest.raises(SystemExit) as exc:
        call_command("replay", str(path))
    assert exc.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0]


@pytest.mark.parametrize("events", [
    [pause(10, 20), pause(30, 5)],  # one pause ends as the next begins
    [timeout("A", 10, 10), pause(20, 5)],  # the timeout ends as the pause begins
    [pause(10, 10), timeout("A", 20, 5)],
], ids=["back-to-back pauses", "a pause right after a timeout", "a timeout right after a pause"])
def test_stops_of_the_clock_that_only_touch_are_accepted(events):
    parse_record(record((70,), ["A"], events))


def test_the_pause_is_not_a_teams_timeout_one_of_each_on_a_level_is_fine():
    rec = parse_record(record((70,), ["A"], [pause(5, 5), timeout("A", 20, 10)], now=at(40)))
    assert compute(rec).teams[0].timeout_s == 600


# --- properties -----------------------------------------------------------------------------------


def _shift(data: dict, pause_at_s: int, length_min: int) -> dict:
    """The record with everything after ``pause_at_s`` (seconds after the start) later by the
    pause's length, and the pause there: what the night would have been had it been paused."""
    def moved(text):
        s = (datetime.fromisoformat(text) - START).total_seconds()
        return at((s + (length_min * 60 if s > pause_at_s else 0)) / 60)
    shifted = dict(data, events=[dict(e, at=moved(e["at"])) if "at" in e else e
                                 for e in data["events"]])
    for key in ("now", "end"):
        if key in data:
            shifted[key] = moved(data[key])
    shifted["max_duration_h"] = data["max_duration_h"] + length_min / 60
    shifted["events"].append(pause(pause_at_s / 60, length_min))
    return shifted


@st.composite
def paused_games(draw):
    """A valid game and the same night with a pause of the whole game inserted at a moment no
    timeout spans."""
    data = draw(valid_games())
    cap_s = data["max_duration_h"] * 3600
    horizon = min((datetime.fromisoformat(data[k]) - START).total_seconds()
                  for k in ("now", "end") if k in data) if (
        "now" in data or "end" in data) else cap_s
    pause_at_s = draw(st.integers(0, int(horizon)))
    for e in data["events"]:
        if e["type"] == "timeout":
            start = (datetime.fromisoformat(e["at"]) - START).total_seconds()
            assume(not start <= pause_at_s < start + e["minutes"] * 60)
    length = draw(st.integers(1, 120))
    return data, _shift(data, pause_at_s, length), pause_at_s, length


LEVEL_KEYS = ("level", "outcome", "duration_s", "timeout_s", "average_s", "hints_shown")
TEAM_KEYS = ("team", "place", "status", "levels_closed", "slivs", "total_s", "penalty_s",
             "bonus_s", "timeout_s", "average_adjust_s", "failed_levels", "current_level")


@PROPS
@given(paused_games())
def test_a_pause_is_the_night_after_it_shifted_by_its_length(case):
    """Every duration, outcome, total and place stay; every moment after the pause moves."""
    data, paused, pause_at_s, length = case
    plain, out = replay(data), replay(paused)
    assert (out["finished"], out["end_reason"]) == (plain["finished"], plain["end_reason"])

    def moved(text):
        if text is None:
            return None
        s = (datetime.fromisoformat(text) - START).total_seconds()
        return s + (length * 60 if s > pause_at_s else 0)

    for want, got in zip(plain["teams"], out["teams"], strict=True):
        assert _kept(got, TEAM_KEYS) == _kept(want, TEAM_KEYS)
        assert _s(got["finished_at"]) == moved(want["finished_at"])
        for lw, lg in zip(want["levels"], got["levels"], strict=True):
            assert _kept(lg, LEVEL_KEYS) == _kept(lw, LEVEL_KEYS)
            assert _s(lg["received_at"]) == moved(lw["received_at"])
            assert _s(lg["closed_at"]) == moved(lw["closed_at"])
            assert [_s(h) for h in lg["hints_at"]] == [moved(h) for h in lw["hints_at"]]


def _kept(row: dict, keys: tuple[str, ...]) -> dict:
    """Those fields, numbers to the millisecond (the shifted night's floats add differently)."""
    return {k: round(row[k], 3) if isinstance(row[k], float) else row[k] for k in keys}


def _s(text):
    return None if text is None else (datetime.fromisoformat(text) - START).total_seconds()


@PROPS
@given(paused_games())
def test_with_pauses_each_teams_own_timeline_equals_the_full_recompute(case):
    """What a live code reads: one team's events and the game's pauses give its result."""
    _plain, data, _at, _length = case
    rec = parse_record(data)
    now = rec.now or (START + timedelta(hours=rec.max_duration_h))
    full = compute(rec, now)
    sums = level_sums(full.teams)
    for expected in full.teams:
        own = {**data, "events": [e for e in data["events"]
                                  if e.get("team", expected.team) == expected.team]}
        assert team_result(parse_record(own), expected.team, now, sums=sums) == replace(
            expected, place=None)
    assert rank([team_result(parse_record({**data, "events": [
        e for e in data["events"] if e.get("team", t.team) == t.team]}), t.team, sums=sums)
        for t in compute(rec).teams]) == compute(rec).teams


def test_a_code_refused_inside_a_pause_is_a_record_error_for_a_live_write_too():
    rec = parse_record(record((70,), ["A"], [pause(10, 20)]))
    with pytest.raises(RecordError, match="during the pause"):
        with_event(rec, code("A", "1", 15))
