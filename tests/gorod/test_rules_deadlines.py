"""The live clock (``gorod.rules.deadlines``): the next deadline and timeout requests (3.10)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

import gorod.codes
import gorod.rules
import gorod.rules.instants
import gorod.rules.record
from gorod.rules import (
    compute,
    next_deadline,
    parse_record,
)
from tests.gorod.conftest import (
    START,
    at,
    code,
    disqualify,
    record,
    timeout,
)
from tests.gorod.rules_cases import ONE


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
