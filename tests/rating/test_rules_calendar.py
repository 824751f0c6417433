"""The results' calendar (protest window, answer due, final due, vote window) and the
organizer's table of places, as ``rating.rules`` decides them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rating import rules

END = datetime(2026, 12, 5, 23, 0, tzinfo=UTC)
H = timedelta(hours=1)


@pytest.mark.parametrize(("question", "at", "expected"), [
    ("a protest one hour after the end is in time", END + H, True),
    ("a protest at exactly 12 h is in time", END + 12 * H, True),
    ("a protest a minute past 12 h is late", END + 12 * H + timedelta(minutes=1), False),
], ids=lambda v: v if isinstance(v, str) else "")
def test_the_protest_window_is_12_hours(question, at, expected):
    assert rules.protest_open(END, at) is expected
    assert rules.final_is_early(END, at) is expected


@pytest.mark.parametrize(("filed", "answered", "now", "overdue"), [
    (END, False, END + 23 * H, False),
    (END, False, END + 24 * H, False),
    (END, False, END + 25 * H, True),
    (END, True, END + 99 * H, False),
])
def test_an_unanswered_protest_is_overdue_after_24_hours(filed, answered, now, overdue):
    assert rules.answer_due(filed) == filed + 24 * H
    assert rules.answer_overdue(filed, answered, now) is overdue


@pytest.mark.parametrize(("now", "open_"), [
    (END + 71 * H, True), (END + 72 * H, True), (END + 73 * H, False)])
def test_captains_vote_and_final_results_are_due_within_72_hours(now, open_):
    assert rules.vote_open(END, now) is open_
    assert rules.final_due(END) == rules.vote_deadline(END) == END + 72 * H


@pytest.mark.parametrize(("rows", "expected"), [
    ([("A", 1, False), ("B", 2, False), ("C", 3, False)], {"A": 1, "B": 2, "C": 3}),
    ([("A", 1, False), ("B", 2, True), ("C", 3, False)], {"A": 1, "B": None, "C": 2}),
    ([("A", 1, True), ("B", 2, True), ("C", 3, False)], {"A": None, "B": None, "C": 1}),
    ([("A", 3, False), ("B", 1, False), ("C", 2, False)], {"A": 3, "B": 1, "C": 2}),
    ([("A", 1, False), ("B", 5, False)], {"A": 1, "B": 2}),
    ([("A", None, True)], {"A": None}),
], ids=["unchanged", "a disqualified team drops out and the rest close up",
        "two disqualified", "a reorder", "a gap closes", "only disqualified"])
def test_places_close_up_around_disqualified_teams(rows, expected):
    assert rules.table_places(rows) == expected


@pytest.mark.parametrize(("rows", "code"), [
    ([("A", 1, False), ("B", 1, False)], "duplicate"),
    ([("A", None, False)], "missing"),
    ([("A", 0, False)], "invalid"),
    ([("A", "2", False)], "invalid"),
], ids=["two teams on one place", "no place", "place zero", "a text place"])
def test_a_table_that_cannot_stand_is_refused(rows, code):
    with pytest.raises(rules.PlacesError) as caught:
        rules.table_places(rows)
    assert caught.value.code == code


@pytest.mark.parametrize(("rows", "complete"), [
    ([(1, False), (2, False), (None, True)], True),
    ([(1, False), (3, False)], False),
    ([(1, False), (1, False)], False),
    ([(None, False)], False),
    ([(1, True)], False),
    ([], True),
])
def test_places_are_1_to_n(rows, complete):
    assert rules.places_complete(rows) is complete


@given(st.lists(st.tuples(st.integers(1, 50), st.booleans()), max_size=12, unique_by=lambda r: r[0]))
def test_any_table_closes_up_to_1_to_n_in_the_asked_order(items):
    rows = [(f"T{i}", place, dq) for i, (place, dq) in enumerate(items)]
    places = rules.table_places(rows)
    assert rules.places_complete([(places[t], dq) for t, _p, dq in rows])
    kept = sorted((p, t) for t, p, dq in rows if not dq)
    assert [places[t] for _p, t in kept] == list(range(1, len(kept) + 1))


def test_game_points_and_the_progress_follow_the_season_table():
    season = rules.Season((rules.Game(("A", "B")),
                           rules.Game(("B",), disqualified=("A",), deductions={"A": 4},
                                      organizer=rules.Organizer("C", {"B": 50}))))
    progress = rules.season_progress(season)
    totals = {s.name: s.points for s in rules.season_table(season).teams}
    assert progress[-1] == totals == {"A": 96, "B": 196, "C": 96}
    assert rules.game_points(season.games[1], season.scale) == {"B": 100, "A": 0, "C": 96}
