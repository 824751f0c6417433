"""The organizing team's points K (``docs/rules/rating.md``, 10.5–10.7), from the rule and
through a season record."""


import pytest

from core.records import RecordError
from rating.rules import (
    GOROD_SCALE,
    KOTH_BAND_SCALE,
    organizer_points,
    points_for_place,
    replay,
)
from tests.rating.season_records import (
    season,
)

# --- the organizing team --------------------------------------------------------------------

@pytest.mark.parametrize("quality, points", [
    pytest.param(100, 100, id="the rules example: 10 teams and Q 100 give 100"),
    pytest.param(75, 92, id="the rules example: 10 teams and Q 75 give 92 (91.5 rounds up)"),
    pytest.param(50, 83, id="the rules example: 10 teams and Q 50 give 83"),
    pytest.param(25, 75, id="the rules example: 10 teams and Q 25 give 75 (74.5 rounds up)"),
    pytest.param(0, 66, id="the rules example: 10 teams and Q 0 give R11 = 66"),
])
def test_the_rules_worked_example_of_the_organizers_points(quality, points):
    assert points_for_place(11) == 66
    assert organizer_points(10, [quality] * 10) == points


@pytest.mark.parametrize("played, votes, scale, points", [
    pytest.param(10, [100, None, 50], GOROD_SCALE, 92,
                 id="a team that did not vote counts as the average of those that did"),
    pytest.param(10, [100, 50], GOROD_SCALE, 92,
                 id="the same votes without the missing voter give the same K"),
    pytest.param(10, [None, None, None], GOROD_SCALE, 66, id="no votes at all means Q is 0"),
    pytest.param(10, [], GOROD_SCALE, 66, id="nobody voting at all also means Q is 0"),
    pytest.param(5, [50], GOROD_SCALE, 91, id="K of 90.5 rounds half up to 91, not to even 90"),
    pytest.param(10, [100, 75], GOROD_SCALE, 96, id="K of 95.75 rounds up to 96"),
    pytest.param(10, [75, 75, 50, 50, 50, 50], GOROD_SCALE, 86,
                 id="K of 85.83 rounds to 86 from an exact, not float, average"),
    pytest.param(10, [25, 0, 0], GOROD_SCALE, 69, id="K of 68.83 rounds to 69"),
    pytest.param(9, [0], GOROD_SCALE, 69,
                 id="j is the number of teams that played plus one"),
    pytest.param(0, [], GOROD_SCALE, 100, id="an organizer of a game nobody played gets R1"),
    pytest.param(3, [0], KOTH_BAND_SCALE, 100, id="on the band scale 3 teams give R4 = 100"),
    pytest.param(1, [0], KOTH_BAND_SCALE, 110,
                 id="a band value above 100 with Q 0 gives that value"),
    pytest.param(1, [100], KOTH_BAND_SCALE, 100,
                 id="a band value above 100 with Q 100 comes down to 100"),
    pytest.param(40, [50], GOROD_SCALE, 62,
                 id="past the table Rj comes from its extension (R41 = 23, K = 61.5)"),
])
def test_the_organizers_points(played, votes, scale, points):
    assert organizer_points(played, votes, scale) == points


@pytest.mark.parametrize("votes, message", [
    pytest.param([60], "votes[0]: expected one of 0, 25, 50, 75, 100, got 60", id="a vote of 60"),
    pytest.param([100, 75.0], "votes[1]: expected one of 0, 25, 50, 75, 100, got 75.0",
                 id="a fractional vote"),
    pytest.param([True], "votes[0]: expected one of 0, 25, 50, 75, 100, got true",
                 id="a boolean vote"),
    pytest.param(["100"], "votes[0]: expected one of 0, 25, 50, 75, 100, got '100'",
                 id="a vote written as text"),
    pytest.param(100, "votes: expected a list of votes", id="votes that are not a list"),
])
def test_a_bad_vote_is_a_record_error(votes, message):
    with pytest.raises(RecordError) as exc:
        organizer_points(10, votes)
    assert str(exc.value) == message


def test_the_rules_worked_example_holds_through_a_season_record():
    # One game per vote: ten teams play, an organizer gets every captain's same vote.
    teams = [f"T{n}" for n in range(1, 11)]
    record = season(*({"results": teams, "organizer": {
        "team": f"Q{quality}", "votes": dict.fromkeys(teams, quality)}}
        for quality in (100, 75, 50, 25, 0)))
    points = {row["team"]: row["points"] for row in replay(record)["teams"]}
    assert [points[f"Q{q}"] for q in (100, 75, 50, 25, 0)] == [100, 92, 83, 75, 66]


def test_votes_missing_or_null_count_as_the_average_of_those_given_in_a_record():
    # 10 played; A 100, B 50, C null, the rest silent: Q = 75, K = 66 + 34 * 0.75 = 91.5 -> 92.
    teams = [f"T{n}" for n in range(10)]
    record = season({"results": teams, "organizer": {
        "team": "O", "votes": {"T0": 100, "T1": 50, "T2": None}}})
    assert {row["team"]: row["points"] for row in replay(record)["teams"]}["O"] == 92
