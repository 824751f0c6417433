"""The season table (``docs/rules/rating.md``, 3.21): table by table, then properties on top."""

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.records import RecordError
from rating.rules import (
    KOTH_BAND_SCALE,
    Game,
    Organizer,
    Scale,
    Season,
    Tally,
    rank,
    replay,
    season_table,
)
from tests.rating.season_records import (
    FAST,
    games,
    json_junk,
    paths,
    rows,
    season,
    seasons,
)

# --- the season table -----------------------------------------------------------------------

@pytest.mark.parametrize("tallies, expected", [
    pytest.param([Tally("A", 10, 1, {1: 1}), Tally("B", 8, 1, {2: 1}), Tally("C", 8, 1, {2: 1}),
                  Tally("D", 5, 1, {3: 1})],
                 [("A", 1), ("B", 2), ("C", 2), ("D", 4)],
                 id="teams equal on points and countback share a place and the next is skipped"),
    pytest.param([Tally("B", 12, 2, {1: 1, 5: 1}), Tally("A", 12, 2, {2: 2})],
                 [("B", 1), ("A", 2)], id="on equal points more first places wins"),
    pytest.param([Tally("B", 12, 2, {2: 1, 3: 1}), Tally("A", 12, 3, {2: 1, 4: 2})],
                 [("B", 1), ("A", 2)], id="on equal first places more second places wins"),
    pytest.param([Tally("A", 12, 3, {2: 1, 5: 2}), Tally("B", 12, 3, {2: 1, 4: 1, 6: 1})],
                 [("B", 1), ("A", 2)], id="countback goes several places deep (to fourth)"),
    pytest.param([Tally("A", 9, 3, {7: 1, 9: 1}), Tally("B", 9, 3, {7: 1, 8: 1})],
                 [("B", 1), ("A", 2)], id="countback goes as deep as the deepest place"),
    pytest.param([Tally("B", 30, 1), Tally("A", 30, 4)], [("A", 1), ("B", 1)],
                 id="the number of games does not break a tie"),
    pytest.param([Tally("A", -6, 1), Tally("B", 0, 1), Tally("C", 3, 1)],
                 [("C", 1), ("B", 2), ("A", 3)], id="a negative total ranks below zero"),
    pytest.param([], [], id="an empty season has an empty table"),
])
def test_the_table_order_and_places(tallies, expected):
    assert [(s.name, s.place) for s in rank(tallies)] == expected


@pytest.mark.parametrize("record, fields, expected", [
    pytest.param(season({"results": ["A", "B", "C"]}, scale=[10, 8]),
                 ("team", "points"), [("A", 10), ("B", 8), ("C", 7)],
                 id="a scale shorter than the field gives the next place one point less"),
    pytest.param(season({"results": ["A", "B", "C"]}, {"results": ["B"], "disqualified": ["A"]}),
                 ("team", "points", "games", "places"),
                 [("B", 196, 2, {"1": 1, "2": 1}), ("A", 100, 2, {"1": 1}),
                  ("C", 92, 1, {"3": 1})],
                 id="a disqualified team scores nothing, the game counts in games, not places"),
    pytest.param(season({"results": ["A", "B"], "deductions": {"A": 10}},
                        {"results": ["A", "B"], "deductions": {"A": 4, "B": 0}}),
                 ("team", "points"), [("B", 192), ("A", 186)],
                 id="deductions are subtracted from the season total and may reorder it"),
    pytest.param(season({"results": ["A", "B"]},
                        {"results": ["B"], "disqualified": ["A"], "deductions": {"A": 10}},
                        scale=[5, 3]),
                 ("team", "place", "points"), [("B", 1, 8), ("A", 2, -5)],
                 id="a deduction larger than the points makes the total negative"),
    pytest.param(season({"results": ["A"], "organizer": {"team": "O"}}),
                 ("team", "points", "games", "places"),
                 [("A", 100, 1, {"1": 1}), ("O", 96, 1, {})],
                 id="the organizer with no votes gets R(i+1), counts a game but no place"),
    pytest.param(season({"results": ["A", "B"], "disqualified": ["C"],
                         "organizer": {"team": "O", "votes": {"A": 100, "C": 0}}}),
                 ("team", "points"), [("A", 100), ("B", 96), ("O", 94), ("C", 0)],
                 id="disqualified teams count among those that played and may vote"),
    pytest.param(season({"results": ["F1", "A", "F2", "F3", "B", "F4"]},
                        {"results": ["F1", "B", "F2", "A", "F3", "F4"]},
                        {"results": ["F1", "F2", "F3", "F4", "B", "A"]},
                        scale=[10, 8, 6, 4, 2, 0]),
                 ("team", "place", "points"),
                 [("F1", 1, 30), ("F2", 2, 20), ("A", 3, 12), ("B", 4, 12), ("F3", 5, 12),
                  ("F4", 6, 4)],
                 id="the replayed table breaks ties by countback down to the fourth place"),
    pytest.param(season({"results": ["A", "B"]}, {"results": ["B", "A"]}),
                 ("team", "place"), [("A", 1), ("B", 1)],
                 id="teams equal on everything share first place, listed by name"),
    pytest.param(season(), ("team",), [], id="a season with no games has an empty table"),
])
def test_a_season_replays_to_its_table(record, fields, expected):
    assert rows(replay(record), *fields) == expected


def test_a_record_without_players_has_no_players_table():
    assert "players" not in replay(season({"results": ["A"]}))


def test_players_get_their_teams_points_for_each_game_they_played():
    output = replay(season(
        {"results": ["A", "B"], "players": {"A": ["ann", "bob"], "B": ["cid"]}},
        {"results": ["B"], "disqualified": ["A"], "organizer": {"team": "O"},
         "deductions": {"B": 50}, "players": {"B": ["ann"], "A": ["bob"], "O": ["cid"]}},
    ))
    assert output["players"] == [
        {"player": "ann", "place": 1, "points": 200, "games": 2, "places": {"1": 2}},
        {"player": "cid", "place": 2, "points": 188, "games": 2, "places": {"2": 1}},
        {"player": "bob", "place": 3, "points": 100, "games": 2, "places": {"1": 1}},
    ]


def test_players_add_their_teams_bonuses_except_when_the_team_is_disqualified():
    table = season_table(Season((
        Game(("A", "B"), players={"A": ("ann",), "B": ("bob",)}, bonuses={"A": 5, "B": 9}),
        Game(("B",), disqualified=("A",), players={"A": ("ann",), "B": ("bob",)},
             bonuses={"A": 7, "B": 1}),
    ), Scale((10, 8))))
    assert [(s.name, s.place, s.points) for s in table.players] == [("bob", 1, 28), ("ann", 2, 15)]
    assert [(s.name, s.points) for s in table.teams] == [("B", 18), ("A", 10)]


def test_the_organizers_points_come_from_the_seasons_own_scale():
    table = season_table(Season((Game(("A", "B"), organizer=Organizer("O", {"A": 0})),),
                                KOTH_BAND_SCALE))
    assert [(s.name, s.points, s.games, s.places) for s in table.teams] == [
        ("A", 115, 1, {1: 1}), ("B", 110, 1, {2: 1}), ("O", 105, 1, {})]


def test_players_equal_on_everything_share_a_place_like_teams():
    output = replay(season({"results": ["A", "B"], "players": {"A": ["x", "y"], "B": ["z"]}}))
    assert [(p["player"], p["place"]) for p in output["players"]] == [("x", 1), ("y", 1), ("z", 3)]


@FAST
@given(seasons(), games())
def test_adding_a_game_never_lowers_a_teams_game_count(record, extra):
    before = {row["team"]: row["games"] for row in replay(record)["teams"]}
    longer = copy.deepcopy(record)
    longer["games"].append(extra)
    after = {row["team"]: row["games"] for row in replay(longer)["teams"]}
    assert all(after.get(team, -1) >= count for team, count in before.items())
    before = {row["player"]: row["games"] for row in replay(record).get("players", [])}
    after = {row["player"]: row["games"] for row in replay(longer).get("players", [])}
    assert all(after.get(player, -1) >= count for player, count in before.items())


@FAST
@given(seasons(), st.randoms(use_true_random=False))
def test_the_order_of_the_games_changes_nothing(record, random):
    shuffled = copy.deepcopy(record)
    random.shuffle(shuffled["games"])
    assert replay(shuffled) == replay(record)


def table_key(row, depth):
    return (-row["points"], *(-row["places"].get(str(p), 0) for p in range(1, depth + 1)))


@FAST
@given(seasons())
def test_the_table_is_sorted_by_points_then_countback_and_places_follow_ties(record):
    table = replay(record)["teams"]
    depth = max((int(p) for row in table for p in row["places"]), default=0)
    keys = [table_key(row, depth) for row in table]
    assert keys == sorted(keys)
    for row, key in zip(table, keys, strict=True):
        assert row["place"] == 1 + sum(other < key for other in keys)
    players = replay(record).get("players", [])
    depth = max((int(p) for row in players for p in row["places"]), default=0)
    keys = [table_key(row, depth) for row in players]
    assert keys == sorted(keys)
    for row, key in zip(players, keys, strict=True):
        assert row["place"] == 1 + sum(other < key for other in keys)
    assert sum(row["games"] for row in table) == sum(
        len(g["results"]) + len(g.get("disqualified", [])) + ("organizer" in g)
        for g in record["games"])


@st.composite
def damaged_seasons(draw):
    record = draw(seasons(min_games=1))
    path = draw(st.sampled_from(list(paths(record))[1:]))
    target = record
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = draw(json_junk)
    return record


@FAST
@given(st.one_of(json_junk, damaged_seasons()))
def test_junk_input_raises_only_record_error(data):
    try:
        output = replay(data)
    except RecordError as exc:
        assert str(exc)
    else:
        assert output["format"] == "season"
