"""Set-up (``gorod.rules.setup``): generated routes for a non-linear game, the settings check and
the set-up warnings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.records import RecordError
from gorod import rules
from gorod.rules import generate_routes, parse_record
from tests.gorod.conftest import record
from tests.properties import examples

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


# --- the pure checks: rules.check_settings and rules.setup_warnings -------------------------------

@pytest.mark.parametrize("values, message", [
    ({"hint_offsets_min": [50, 25]}, "hint_offsets_min: the hint times must increase"),
    ({"hint_offsets_min": [-1]}, "hint_offsets_min[0]: -1 is outside [0, 10080]"),
    ({"hint_offsets_min": "25"}, "hint_offsets_min: expected"),
    ({"sliv_penalty_min": -15}, "sliv_penalty_min: -15 is outside [0, 1440]"),
    ({"max_duration_h": 0}, "max_duration_h: 0 is outside (0, 1000]"),
    ({"max_duration_h": 10**9}, "max_duration_h: 1000000000 is outside (0, 1000]"),
    ({"max_duration_h": "24"}, "max_duration_h: expected a number, got a string"),
    ({"max_wrong": 2.5}, "max_wrong: expected a whole number"),
    ({"wrong_window_s": True}, "wrong_window_s: expected a number, got a boolean"),
])
def test_check_settings_refuses_what_the_engine_cannot_play(values, message):
    with pytest.raises(RecordError) as caught:
        rules.check_settings(**values)
    assert message in str(caught.value)


def test_check_settings_is_what_parse_record_applies():
    record = {"format": "gorod", "start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
              "teams": ["A"], "hint_offsets_min": [50, 25]}
    with pytest.raises(RecordError, match="must increase"):
        rules.parse_record(record)
    assert rules.check_settings(max_wrong=3, wrong_window_s=30)["max_wrong"] == 3


@pytest.mark.parametrize("levels, routes, kinds", [
    ([{"id": "1", "codes": {"code": "A"}}], None, []),
    ([{"id": "1", "duration_min": 50, "codes": {"code": "A"}}], None, [("hint_after_limit", "1")]),
    ([{"id": "1", "duration_min": 20, "codes": {"code": "A"}}], None,
     [("hint_after_limit", "1"), ("hint_after_limit", "1")]),
    ([{"id": "1", "codes": {}}], None, [("no_code", "1")]),
    ([{"id": "1", "codes": {"code": None}}], None, [("no_code", "1")]),
    ([{"id": "1", "codes": {"sectors": [{"name": "d", "kind": "personal_digit", "codes": ["A"],
                                         "personal": {"T1": "1"}}]}}], None,
     [("no_personal_code", "1")]),
    ([{"id": "1", "codes": {"code": "ОРЕХ"}}, {"id": "2", "codes": {"code": "opex"}}], None,
     [("duplicate_code", None)]),
    ([{"id": "1", "codes": {"sectors": [{"name": "a", "codes": ["X"]},
                                        {"name": "b", "codes": ["x"]}]}}], None,
     [("duplicate_code", None)]),
    ([{"id": "1", "codes": {"sectors": [{"name": "a", "codes": ["X", "x"]}]}}], None, []),
    ([{"id": "1", "codes": {"code": "A"}}, {"id": "2", "codes": {"code": "B"}}],
     {"T1": ["2", "1"], "T2": ["1", "2"]}, []),
    ([{"id": "1", "codes": {"code": "A"}}, {"id": "2", "codes": {"code": "B"}}],
     {"T1": ["2", "9"]}, [("route", None), ("no_route", None)]),
])
def test_setup_warnings(levels, routes, kinds):
    found = rules.setup_warnings(levels=levels, teams=["T1", "T2"], routes=routes)
    assert [(w.kind, w.level) for w in found] == kinds
