"""Season records for the rating rules' tests: a record's builder, its table's rows, and the
Hypothesis strategies of whole seasons and of junk."""

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.properties import examples


def rows(output, *fields):
    return [tuple(row[f] for f in fields) for row in output["teams"]]


def season(*games, scale=None):
    record = {"format": "season", "games": list(games)}
    if scale is not None:
        record["scale"] = scale
    return record


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
