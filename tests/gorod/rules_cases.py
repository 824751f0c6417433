"""Shared by the GoRoD rules tests: reading a replay's output, a valid game's strategy (each
team played forward with the level clock), junk JSON, and the rules package's modules."""

from __future__ import annotations

import importlib
import pkgutil
from datetime import datetime

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import gorod.codes
import gorod.rules
import gorod.rules.instants
import gorod.rules.record
from tests.gorod.conftest import (
    at,
    record,
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


def rules_modules():
    """Every module of the ``gorod.rules`` package (the rules read by topic)."""
    return [importlib.import_module(f"gorod.rules.{m.name}")
            for m in pkgutil.iter_modules(gorod.rules.__path__)]
