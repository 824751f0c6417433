"""Set-up (``gorod.rules.setup``): generated routes for a non-linear game."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gorod.rules import (
    generate_routes,
    parse_record,
)
from tests.gorod.conftest import (
    record,
)
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
