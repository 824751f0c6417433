"""The engine (``gorod.rules.engine``) as properties: level clock, totals, and one team's
timeline against the full recompute."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gorod.rules import (
    clock_over,
    compute,
    level_sums,
    parse_record,
    rank,
    replay,
    team_result,
)
from tests.gorod.conftest import (
    START,
)
from tests.gorod.rules_cases import PROPS, _t, valid_games


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
