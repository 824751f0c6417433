"""The season rating rules (``docs/rules/rating.md``), table by table, then properties on top."""

import copy
import doctest
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import deadlines
from core.records import RecordError
from rating import rules
from rating.rules import (
    GOROD_SCALE,
    KOTH_BAND_SCALE,
    Game,
    Organizer,
    Scale,
    Season,
    Tally,
    koth_bonuses,
    koth_bonuses_by_team,
    koth_bonuses_from_record,
    organizer_points,
    points_for_place,
    rank,
    replay,
    scale_from_data,
    season_table,
)
from tests.properties import examples

REPO = Path(__file__).resolve().parents[2]


def rows(output, *fields):
    return [tuple(row[f] for f in fields) for row in output["teams"]]


# --- points per place -------------------------------------------------------------------------

GOROD_TABLE = {1: 100, 2: 96, 3: 92, 4: 88, 5: 84, 6: 81, 7: 78, 8: 75, 9: 72, 10: 69, 11: 66,
               12: 63, 13: 60, 14: 57, 15: 54, 16: 52, 17: 50, 18: 48, 19: 46, 20: 44, 21: 43,
               22: 42, 23: 41, 24: 40, 25: 39, 26: 38, 27: 37, 28: 36, 29: 35, 30: 34}


def test_the_default_scale_is_the_gorod_table_of_the_rules_place_by_place():
    assert {place: points_for_place(place) for place in range(1, 31)} == GOROD_TABLE


@pytest.mark.parametrize("scale, place, points", [
    pytest.param(GOROD_SCALE, 31, 33, id="the place after 30 gets one point less than 30th"),
    pytest.param(GOROD_SCALE, 32, 32, id="each further place gets one point less again"),
    pytest.param(GOROD_SCALE, 63, 1, id="the extension reaches 1 point at place 63"),
    pytest.param(GOROD_SCALE, 200, 1, id="a place far down still gets 1 point, never 0"),
    pytest.param(KOTH_BAND_SCALE, 1, 115, id="the band scale gives 115 for first"),
    pytest.param(KOTH_BAND_SCALE, 2, 110, id="the band scale gives 110 for second"),
    pytest.param(KOTH_BAND_SCALE, 3, 105, id="the band scale gives 105 for third"),
    pytest.param(KOTH_BAND_SCALE, 4, 100, id="the band scale gives 100 for fourth"),
    pytest.param(KOTH_BAND_SCALE, 5, 100, id="the band scale gives 100 for fifth"),
    pytest.param(KOTH_BAND_SCALE, 6, 90, id="the band scale gives 90 from sixth"),
    pytest.param(KOTH_BAND_SCALE, 10, 90, id="the band scale gives 90 up to tenth"),
    pytest.param(KOTH_BAND_SCALE, 11, 70, id="the band scale gives 70 from eleventh"),
    pytest.param(KOTH_BAND_SCALE, 15, 70, id="the band scale gives 70 up to fifteenth"),
    pytest.param(KOTH_BAND_SCALE, 16, 50, id="the band scale gives 50 from sixteenth"),
    pytest.param(KOTH_BAND_SCALE, 19, 50, id="the band scale gives 50 up to nineteenth"),
    pytest.param(KOTH_BAND_SCALE, 20, 30, id="the band scale gives 30 for twentieth"),
    pytest.param(KOTH_BAND_SCALE, 64, 30, id="the band scale gives 30 for any place below 20"),
    pytest.param(Scale((10, 8, 7)), 3, 7, id="a short scale gives its own value inside it"),
    pytest.param(Scale((10, 8, 7)), 4, 6, id="a short scale extends one point less per place"),
    pytest.param(Scale((10, 8, 7)), 10, 1, id="a short scale's extension stops at 1"),
    pytest.param(Scale((10, 8, 7)), 40, 1, id="a short scale's extension never goes below 1"),
    pytest.param(Scale((5, 0)), 3, 0, id="a short scale already at 0 stays at 0"),
    pytest.param(Scale((20, 10), "repeat"), 9, 10, id="a repeat scale keeps its last value"),
])
def test_points_for_a_place(scale, place, points):
    assert points_for_place(place, scale) == points


@pytest.mark.parametrize("data, place, points", [
    pytest.param(None, 31, 33, id="no scale in the record means the GoRoD table"),
    pytest.param([100, 96, 92], 4, 91, id="a list scale shorter than the field extends by one"),
    pytest.param("gorod", 2, 96, id="the name gorod is the default table"),
    pytest.param("kingofhill", 25, 30, id="the name kingofhill is the band scale"),
    pytest.param({"points": [9, 9]}, 3, 8, id="an object scale extends by one by default"),
    pytest.param({"points": [9, 5], "beyond": "repeat"}, 7, 5,
                 id="an object scale may repeat its last value"),
])
def test_a_scale_is_read_from_the_record(data, place, points):
    assert scale_from_data(data).points_for(place) == points


@pytest.mark.parametrize("data, message", [
    pytest.param([], "scale: a scale needs points", id="an empty scale is refused"),
    pytest.param([100, -1], "scale[1]: points may not be negative, got -1",
                 id="a negative scale value is refused"),
    pytest.param([90, 100], "scale[1]: 100 is more than the place before",
                 id="a scale giving a lower place more points is refused"),
    pytest.param([100, 95.5], "scale[1]: expected a whole number, got 95.5",
                 id="a fractional scale value"),
    pytest.param([True], "scale[0]: expected a whole number, got true",
                 id="a boolean scale value"),
    pytest.param("chess", "scale: expected a list of points or one of", id="an unknown scale name"),
    pytest.param({"points": [1], "beyond": "up"}, "scale.beyond: expected one of",
                 id="an unknown way of extending a scale"),
    pytest.param({"beyond": "repeat"}, "scale.points: missing", id="an object scale without points"),
    pytest.param(7, "scale: expected a list", id="a number is not a scale"),
])
def test_a_bad_scale_is_a_record_error(data, message):
    with pytest.raises(RecordError) as exc:
        scale_from_data(data)
    assert str(exc.value).startswith(message)


@pytest.mark.parametrize("place", [0, -3, 1.5, True, "1"], ids=lambda p: f"place {p!r}")
def test_a_place_that_is_not_a_positive_whole_number_is_a_record_error(place):
    with pytest.raises(RecordError, match=r"^place: "):
        points_for_place(place)


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


def season(*games, scale=None):
    record = {"format": "season", "games": list(games)}
    if scale is not None:
        record["scale"] = scale
    return record


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


# --- King of the Hill bonuses ---------------------------------------------------------------

def move(correct=(), partner=False, **effective):
    return {"question": 0, "ignored": {}, "partner": partner, "correct": list(correct),
            "effective": effective}


@pytest.mark.parametrize("moves, bonus", [
    pytest.param([], 0, id="no moves, no bonus"),
    pytest.param([move(["A"])], 1, id="a correct answer is worth 1"),
    pytest.param([move(["B"])], 0, id="a wrong answer is worth nothing"),
    pytest.param([move(["A"]), move(["A"]), move([])], 2, id="each correct answer adds 1"),
    pytest.param([move(["A"], A="jump")], 2, id="a correct jump adds 1 on top of the answer"),
    pytest.param([move([], A="jump")], 0, id="a failed jump is worth nothing"),
    pytest.param([move(["A"], A="revolution")], 1,
                 id="a correct revolution is only a correct answer"),
    pytest.param([move(["A"], B="jump")], 1, id="another team's jump does not count"),
    pytest.param([move(["A"], partner=True)], 5,
                 id="the only partner question answered: 1 answer, 1 partner, 3 all correct"),
    pytest.param([move(["A"], partner=True), move([], partner=True)], 2,
                 id="one partner question missed: no all-correct 3"),
    pytest.param([move([], partner=True)], 0, id="a missed partner question is worth nothing"),
    pytest.param([move(["A"], partner=True), move(["A"], partner=True), move([])], 7,
                 id="two of two partner questions answered earn the 3"),
    pytest.param([move(["A"], partner=True, A="jump")], 6,
                 id="a correct jump on a partner question earns all three ones and the 3"),
    pytest.param([move(["A"], A="jump"), move(["A"], A="jump")], 4,
                 id="two correct jumps are not enough for the jumps 3"),
    pytest.param([move(["A"], A="jump")] * 3, 9,
                 id="three correct jumps earn the jumps 3"),
    pytest.param([move(["A"], A="jump")] * 4, 11, id="four correct jumps earn the jumps 3 once"),
    pytest.param([move(["A"], A="jump"), move(["A"], A="jump"), move([], A="jump")], 4,
                 id="three jumps with one failed lose the jumps 3"),
    pytest.param([{"correct": ["A"]}], 1, id="missing fields mean no partner and no declaration"),
])
def test_king_of_the_hill_bonuses(moves, bonus):
    assert koth_bonuses(moves, "A") == bonus


def test_bonuses_for_several_teams_match_one_team_at_a_time():
    moves = [move(["A", "B"], partner=True, A="jump"), move(["B"], B="jump")]
    assert koth_bonuses_by_team(moves, ["A", "B", "C"]) == {
        "A": koth_bonuses(moves, "A"), "B": koth_bonuses(moves, "B"), "C": 0}


@pytest.mark.parametrize("moves, team, message", [
    pytest.param({}, "A", "moves: expected a list", id="moves that are not a list"),
    pytest.param([7], "A", "moves[0]: expected an object", id="a move that is not an object"),
    pytest.param([move(["A"], A="hop")], "A", "moves[0].effective.A: expected jump or revolution",
                 id="an unknown declaration kind"),
    pytest.param([{"correct": "A"}], "A", "moves[0].correct: expected a list",
                 id="correct teams that are not a list"),
    pytest.param([{"correct": [""]}], "A", "moves[0].correct[0]: a name may not be empty",
                 id="an empty team name among the correct ones"),
    pytest.param([{"partner": "yes"}], "A", "moves[0].partner: expected true or false",
                 id="a partner flag that is not a boolean"),
    pytest.param([], "", "team: a name may not be empty", id="an empty team name asked for"),
    pytest.param([], 3, "team: expected a string", id="a team that is not a name"),
])
def test_a_bad_moves_summary_is_a_record_error(moves, team, message):
    with pytest.raises(RecordError) as exc:
        koth_bonuses(moves, team)
    assert str(exc.value).startswith(message)


# --- the module itself ----------------------------------------------------------------------

def test_the_worked_examples_in_the_docstrings_hold():
    assert doctest.testmod(rules).failed == 0
    assert doctest.testmod(deadlines).failed == 0


def test_the_calendar_is_one_definition_the_rating_names_too():
    assert rules.protest_deadline is deadlines.protest_deadline
    assert rules.FINAL_DUE is deadlines.FINAL_DUE


def test_the_rules_module_loads_without_django():
    code = ("import sys; import rating.rules; "
            "assert not [m for m in sys.modules if m.split('.')[0] in ('django', 'kingofhill')]")
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)


# --- properties -----------------------------------------------------------------------------

NAMES = ["A", "B", "C", "D", "E", "Ёж", "Команда 7"]
PLAYERS = ["ann", "bob", "cid", "Дина", "eve"]
VOTE_OR_NONE = st.sampled_from([0, 25, 50, 75, 100, None])


@st.composite
def games(draw):
    teams = draw(st.permutations(NAMES))
    size = draw(st.integers(0, len(NAMES)))
    playing = list(teams[:size])
    cut = draw(st.integers(0, len(playing)))
    game = {"results": playing[:cut]}
    if cut < len(playing):
        game["disqualified"] = playing[cut:]
    if size < len(NAMES) and draw(st.booleans()):
        votes = {team: draw(VOTE_OR_NONE) for team in playing if draw(st.booleans())}
        game["organizer"] = {"team": teams[size], "votes": votes}
    in_game = playing + ([game["organizer"]["team"]] if "organizer" in game else [])
    deducted = draw(st.lists(st.sampled_from(in_game), unique=True)) if in_game else []
    if deducted:
        game["deductions"] = {team: draw(st.integers(0, 15)) for team in deducted}
    if in_game and draw(st.booleans()):
        # Each player plays for at most one team in a game, so deal a shuffled roster out.
        roster = draw(st.permutations(PLAYERS))
        cuts = sorted(draw(st.lists(st.integers(0, len(roster)), min_size=len(in_game),
                                    max_size=len(in_game))))
        starts = [0, *cuts[:-1]]
        game["players"] = {team: list(roster[start:end])
                           for team, start, end in zip(in_game, starts, cuts, strict=True)}
    return game


scales = st.one_of(
    st.none(),
    st.lists(st.integers(0, 120), min_size=1, max_size=8).map(lambda s: sorted(s, reverse=True)),
    st.sampled_from(["gorod", "kingofhill"]),
)


@st.composite
def seasons(draw, min_games=0):
    record = {"format": "season", "games": draw(st.lists(games(), min_size=min_games,
                                                         max_size=6))}
    scale = draw(scales)
    if scale is not None:
        record["scale"] = scale
    return record


FAST = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


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


json_junk = st.recursive(
    st.none() | st.booleans() | st.integers(-200, 200) | st.floats(allow_nan=True)
    | st.text(max_size=4) | st.sampled_from(["A", "season", "gorod", ""]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["format", "games", "results", "scale", "organizer",
                                       "team", "votes", "deductions", "disqualified",
                                       "players", "A", "B"]), inner, max_size=4),
    max_leaves=12,
)


def paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*path, index))


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


# --- King of the Hill bonuses from a real record (through kingofhill.rules) -----------------

KOTH_RECORD = {
    "format": "kingofhill",
    "teams": ["A", "B", "C"],
    "moves": [
        {"partner": True, "answers": {"A": {"correct": True}, "B": {"correct": True}}},
        {"announced_at": "2026-12-05T19:10:00+03:00",
         "declarations": {"A": {"kind": "jump", "at": "2026-12-05T19:09:00+03:00"},
                          "B": {"kind": "jump", "at": "2026-12-05T19:10:00+03:00"}},
         "answers": {"A": {"correct": True}, "B": {"correct": True}}},
        {"declarations": {"A": {"kind": "jump"}}, "answers": {"A": {"correct": True}}},
        {"declarations": {"A": {"kind": "jump"}}, "answers": {"A": {"correct": True}}},
    ],
}


def test_bonuses_from_a_king_of_the_hill_record_count_only_effective_declarations():
    # A: 4 answers + 3 jumps + 1 partner + 3 (all partner) + 3 (3 jumps, all correct) = 14.
    # B: 2 answers + 1 partner + 3 (all partner); its late jump was ignored, so no jump bonus.
    assert koth_bonuses_from_record(KOTH_RECORD) == {"A": 14, "B": 6, "C": 0}


def test_a_season_game_with_its_king_of_the_hill_record_gives_players_the_bonuses():
    output = replay(season({"results": ["A", "B", "C"], "kingofhill": KOTH_RECORD,
                            "players": {"A": ["ann", "al"], "B": ["bob"], "C": ["cid"]}},
                           scale="kingofhill"))
    assert [(p["player"], p["place"], p["points"]) for p in output["players"]] == [
        ("al", 1, 115 + 14), ("ann", 1, 115 + 14), ("bob", 3, 110 + 6), ("cid", 4, 105)]
    assert rows(output, "team", "points") == [("A", 115), ("B", 110), ("C", 105)]


@pytest.mark.parametrize("koth, message", [
    pytest.param({**KOTH_RECORD, "teams": ["A", "B", "C", "Z"]},
                 "games[0].kingofhill.teams: 'Z' is not in this game's results or disqualified",
                 id="a King of the Hill team that is not in the season game"),
    pytest.param({**KOTH_RECORD, "teams": ["A"], "moves": []}, "games[0].kingofhill: teams:",
                 id="an error inside the King of the Hill record says it is in that record"),
    pytest.param({**KOTH_RECORD, "format": None}, "games[0].kingofhill.format: expected",
                 id="a King of the Hill record without its format"),
])
def test_a_bad_king_of_the_hill_record_in_a_season_is_a_record_error(koth, message):
    with pytest.raises(RecordError) as exc:
        replay(season({"results": ["A", "B", "C"], "kingofhill": koth}))
    assert str(exc.value).startswith(message)


@pytest.mark.parametrize("error", [KeyError("moves"), TypeError("'NoneType' is not iterable"),
                                   ValueError(), RecursionError("too deep")],
                         ids=lambda e: type(e).__name__)
def test_any_other_failure_of_the_king_of_the_hill_engine_becomes_a_record_error(
        error, monkeypatch):
    import kingofhill.rules

    def broken_engine(record):
        raise error

    # The engine promises RecordError only; this stands for a slip in it on a malformed record.
    monkeypatch.setattr(kingofhill.rules, "replay", broken_engine)
    malformed = {"format": "kingofhill", "teams": ["A", "B"], "moves": [{"answers": 7}]}
    with pytest.raises(RecordError) as exc:
        replay(season({"results": ["A", "B"], "kingofhill": malformed}))
    assert str(exc.value).startswith(
        f"games[0].kingofhill: the King of the Hill engine could not replay this record "
        f"({type(error).__name__}")


def test_a_malformed_king_of_the_hill_record_nested_in_a_season_is_a_record_error():
    malformed = {**KOTH_RECORD, "moves": [{"answers": 7}]}
    with pytest.raises(RecordError) as exc:
        replay(season({"results": ["A", "B", "C"], "kingofhill": malformed}))
    assert str(exc.value).startswith("games[0].kingofhill: ")


@st.composite
def damaged_king_of_the_hill_seasons(draw):
    koth = copy.deepcopy(KOTH_RECORD)
    path = draw(st.sampled_from(list(paths(koth))[1:]))
    target = koth
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = draw(json_junk | st.sampled_from(["jump", "revolution", "2026-13-40"]))
    return season({"results": ["A", "B", "C"], "kingofhill": koth}, scale="kingofhill")


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_king_of_the_hill_seasons())
def test_a_damaged_nested_king_of_the_hill_record_raises_only_record_error(record):
    try:
        output = replay(record)
    except RecordError as exc:
        assert str(exc).startswith("games[0].kingofhill")
    else:
        assert [row["team"] for row in output["teams"]] == ["A", "B", "C"]


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
