"""The pushes' patches (``live.delta``): applying the patch between two states gives the new
state exactly, for any JSON; equal states need none; a re-ranked table or a log with a new
line travels as its order and the rows that changed."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from live.codec import encode
from live.delta import diff, patch
from tests.properties import examples

SCALARS = (st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "b", "Ё"])
           | st.floats(-1e6, 1e6, allow_nan=False, width=32))  # exact in JS too
ROWS = st.lists(st.fixed_dictionaries({"id": st.integers(0, 6)}, optional={
    "v": SCALARS, "team": st.sampled_from(["A", "B"])}), max_size=6)
JSON = st.recursive(SCALARS | ROWS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
    st.sampled_from(["id", "team", "rows", "v", "w", "application"]), inner, max_size=5),
    max_leaves=25)


@settings(max_examples=examples(300), deadline=None)
@given(JSON, JSON)
def test_a_patch_turns_the_old_state_into_the_new_one_and_leaves_the_old_alone(old, new):
    before = encode(old)
    change = diff(old, new)
    # What travels is JSON text: the patch is applied to the parsed old state.
    parsed = json.loads(before)
    result = patch(parsed, None if change is None else json.loads(encode(change)))
    assert result == new
    assert encode(parsed) == before  # the state the client holds is not changed in place


@given(JSON)
def test_equal_states_need_no_patch(value):
    assert diff(value, json.loads(encode(value))) is None


def test_a_reranked_table_sends_its_order_and_the_changed_row_only():
    rows = [{"team": f"T{i}", "place": i + 1, "cells": [{"time_s": 60.0 * i}] * 30}
            for i in range(200)]
    moved = [dict(row) for row in rows]
    riser = dict(moved.pop(150), place=100, total_s=1.0)
    moved.insert(99, riser)
    for place, row in enumerate(moved, start=1):
        row["place"] = place
    change = diff({"rows": rows}, {"rows": moved})
    rows_patch = change["d"]["rows"]
    assert rows_patch["k"] == "team" and len(rows_patch["o"]) == 200
    # Every row that moved one place has its place changed; only the riser travels whole.
    assert rows_patch["c"]["T150"]["d"]["total_s"] == {"=": 1.0}
    assert all(set(sub["d"]) == {"place"} for key, sub in rows_patch["c"].items()
               if key != "T150")
    assert len(encode(change)) < len(encode({"rows": moved})) / 10
    assert patch({"rows": rows}, change) == {"rows": moved}


def test_a_log_with_a_new_line_on_top_sends_the_new_line_and_the_order():
    log = [{"id": n, "text": f"code {n}"} for n in range(100, 0, -1)]
    newer = [{"id": 101, "text": "code 101"}, *log[:-1]]
    change = diff({"attempts": log}, {"attempts": newer})
    assert change == {"d": {"attempts": {"k": "id", "o": [row["id"] for row in newer],
                                         "c": {"101": {"=": newer[0]}}}}}


def test_the_worked_examples_in_the_docstrings_hold():
    import doctest

    import live.delta

    assert doctest.testmod(live.delta).failed == 0
