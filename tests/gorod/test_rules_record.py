"""The game's record (``gorod.rules.record``): what is refused and how, an event added to a
parsed record, junk and broken records, the kept levels, and routes."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.records import RecordError
from gorod.rules import (
    GameRecord,
    parse_record,
    replay,
    team_result,
    with_event,
)
from tests.gorod.conftest import (
    at,
    average,
    code,
    disqualify,
    force_majeure,
    penalty,
    record,
    sliv,
    timeout,
)
from tests.gorod.rules_cases import JSON, ONE, PROPS, _t, valid_games
from tests.properties import examples

INVALID = [
    pytest.param(record(ONE, ["A"], [code("A", "1", 10), code("A", "1", 20)]), "closed twice",
                 id="a level closed twice by two codes is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 10), sliv("A", "1", 20)]), "closed twice",
                 id="a fail ruling on a level already closed by code is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 70.5)]), "fail time",
                 id="a code after the level's fail time is refused"),
    pytest.param(record((70, 70), ["A"], [code("A", "2", 30)]), "received",
                 id="a code for a level the team has not received yet is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 30, 20), code("A", "1", 40)]), "timeout",
                 id="a code during the team's timeout is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 30, 20), code("A", "1", 30)]), "timeout",
                 id="a code at the very start of the timeout is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 30, 20), sliv("A", "1", 35)]), "timeout",
                 id="an organizer fail during the timeout is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 10, 5), timeout("A", 30, 5)]), "second timeout",
                 id="a second timeout is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 10, 0)]), "minutes",
                 id="a timeout of zero minutes is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 10, 31)]), "minutes",
                 id="a timeout over 30 minutes is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 5), timeout("A", 10, 5)], now=at(20)),
                 "finished", id="a timeout after the team finished is refused"),
    pytest.param(record(ONE, ["A"], [code("Z", "1", 5)]), "unknown team",
                 id="an event of an unknown team is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "9", 5)]), "unknown level",
                 id="an event on an unknown level is refused"),
    pytest.param(record((70, 70), ["A"], routes={"Z": ["1", "2"]}), "unknown team",
                 id="a route of an unknown team is refused"),
    pytest.param(record((70, 70), ["A"], routes={"A": ["1"]}), "misses",
                 id="a route that misses a level is refused"),
    pytest.param(record((70, 70), ["A"], routes={"A": ["1", "1", "2"]}), "twice",
                 id="a route that visits a level twice is refused"),
    pytest.param(record((70, 70), ["A"], routes={"A": ["1", "2", "7"]}), "unknown level",
                 id="a route through an unknown level is refused"),
    pytest.param(record(ONE, ["A"], start="2026-12-05T22:00:00"), "offset",
                 id="a start time without a UTC offset is refused"),
    pytest.param(record(ONE, ["A"], [{"team": "A", "type": "code", "level": "1",
                                      "at": "2026-12-05T22:10:00"}]), "offset",
                 id="an event time without a UTC offset is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 50)], end=at(40)), "later than the game's end",
                 id="an event later than the organizer's end is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", 50)], now=at(40)), "later than now",
                 id="an event later than now is refused"),
    pytest.param(record((70, 70), ["A"], [code("A", "1", 10), code("A", "2", 70)],
                        max_duration_h=1), "cap", id="an event later than the cap is refused"),
    pytest.param(record(ONE, ["A"], [code("A", "1", -5)]), "before the start",
                 id="an event before the start is refused"),
    pytest.param(record(ONE, ["A"], end=at(-5)), "before the start",
                 id="an end before the start is refused"),
    pytest.param(record(ONE, ["A"], end=at(25 * 60)), "cap", id="an end after the cap is refused"),
    pytest.param(record(ONE, ["A"], end=at(30), now=at(20)), "later than now",
                 id="an end later than now is refused"),
    pytest.param(record(ONE, ["A"], [{"team": "A", "type": "kiss", "at": at(1)}]),
                 "unknown event type", id="an unknown event type is refused"),
    pytest.param(record(ONE, ["A"], [{"team": "A", "type": "code", "level": "1"}]),
                 "events[0].at: missing", id="a code without a time is refused"),
    pytest.param(record(ONE, ["A"], [{"team": "A", "type": "penalty", "minutes": True}]),
                 "boolean", id="a boolean where minutes belong is refused"),
    pytest.param(record(ONE, ["A"], [{"team": "A", "type": "penalty", "minutes": "20"}]),
                 "expected a number", id="minutes written as text are refused"),
    pytest.param(record(ONE, ["A", "A"]), "duplicate team name", id="a team listed twice is refused"),
    pytest.param(dict(record(ONE, ["A"]), levels=[{"id": "1"}, {"id": "1"}]), "twice",
                 id="a level listed twice is refused"),
    pytest.param(dict(record(ONE, ["A"]), levels=[{"id": 1}]), "levels[0].id",
                 id="a level id that is not a string is refused"),
    pytest.param(dict(record(ONE, ["A"]), levels=[{"id": "1", "duration_min": 0}]),
                 "duration_min", id="a level of zero minutes is refused"),
    pytest.param(record(ONE, ["A"], hint_offsets_min=[50, 25]), "increase",
                 id="hint times that do not increase are refused"),
    pytest.param({k: v for k, v in record(ONE, ["A"]).items() if k != "start"}, "start: missing",
                 id="a record without a start is refused"),
    pytest.param(record(ONE, ["A"], [average("A", "1"), average("A", "1")]), "already ruled",
                 id="a second average-time ruling on the same level is refused"),
    pytest.param(record(ONE, ["A"], [disqualify("A"), disqualify("A")]), "already disqualified",
                 id="a second disqualification is refused"),
    pytest.param(dict(record(ONE, ["A"]), teams="A"), "teams", id="teams not given as a list are refused"),
    pytest.param([], "object", id="a record that is not an object is refused"),
    pytest.param(record(ONE, ["A"], [timeout("A", 60, 10), code("A", "1", 80.5)]), "fail time",
                 id="a code after the fail time moved by a timeout is refused"),
    pytest.param(record(ONE, ["A"], [force_majeure("A", "1", 30), code("A", "1", 40)]),
                 "closed twice", id="a code on a level already closed by force majeure is refused"),
    pytest.param(record(ONE, ["A"], end="2026-12-05T23:00:00"), "offset",
                 id="an end without a UTC offset is refused"),
    pytest.param(record(ONE, ["A"], now="2026-12-05T23:00:00"), "offset",
                 id="a now without a UTC offset is refused"),
    pytest.param(record(ONE, ["A"], [average("A", "9")]), "unknown level",
                 id="an average-time ruling on an unknown level is refused"),
    pytest.param(record(ONE, ["A"], [penalty("Z", 10)]), "unknown team",
                 id="a penalty for an unknown team is refused"),
]


@pytest.mark.parametrize(("data", "fragment"), INVALID)
def test_invalid_record(data, fragment):
    with pytest.raises(RecordError) as exc:
        replay(data)
    assert fragment in str(exc.value)


def _with_event_or_error(data: dict, item) -> GameRecord | str:
    try:
        return with_event(parse_record(data), item)
    except RecordError as exc:
        return f"error: {exc}"


# One more event as a live write may add it, or one the parser refuses: an unknown team,
# type or level, a level closed again, a second timeout, a time out of the game's span, junk.
_EVENT_FIELD = {
    "team": st.sampled_from(["T0", "T1", "T3", "Z", 7]),
    "type": st.sampled_from(["code", "code", "sliv", "force_majeure", "timeout", "penalty",
                             "bonus", "average_time", "disqualify", "hop"]),
    "level": st.sampled_from(["1", "2", "3", "9", None]),
    "at": st.one_of(st.integers(-5, 30 * 60).map(lambda m: at(m / 60)),
                    st.sampled_from(["soon", "2026-12-05T22:00:00"])),
    "minutes": st.sampled_from([0, 1, 15, 30, 45, -3, "5"]),
    "reason": st.sampled_from(["late", 3]),
}
_EVENTS = st.one_of(
    st.fixed_dictionaries({"team": _EVENT_FIELD["team"], "type": _EVENT_FIELD["type"]},
                          optional={k: v for k, v in _EVENT_FIELD.items()
                                    if k not in ("team", "type")}),
    st.none(), st.integers(), st.lists(st.integers(), max_size=2))


@PROPS
@given(valid_games(), st.data())
def test_adding_an_event_to_a_parsed_record_is_parsing_the_record_with_it(data, draw):
    """``with_event`` (a live code's closing event on its team's parsed record) gives what
    parsing the whole record again gives, and refuses what it refuses, with the same words."""
    if data["events"] and draw.draw(st.booleans()):
        events, item = data["events"][:-1], data["events"][-1]  # the record's own last event
    else:
        events = data["events"]
        item = draw.draw(_EVENTS | st.sampled_from(events or [None]))  # a repeat, or anything
    before = {**data, "events": events}
    assert _with_event_or_error(before, item) == _parsed_or_error(
        parse_record, {**data, "events": [*events, item]})


def test_an_added_closing_event_moves_the_team_on_as_the_whole_record_does():
    data = record([30, 30], ["A", "B"], [code("A", "1", 10)])
    added = with_event(parse_record(data), code("A", "2", 25))
    assert added == parse_record({**data, "events": [*data["events"], code("A", "2", 25)]})
    assert team_result(added, "A", _t(at(26))).levels_closed == 2
    with pytest.raises(RecordError, match=r"events\[2\]: A's level 2 is closed twice "
                                          r"\(already by code in events\[1\]\)"):
        with_event(added, code("A", "2", 27))


@settings(max_examples=examples(150), deadline=None)
@given(JSON)
def test_junk_raises_only_record_errors(junk):
    try:
        replay(junk)
    except RecordError:
        pass


@st.composite
def mutated_games(draw):
    data = copy.deepcopy(draw(valid_games()))
    for _ in range(draw(st.integers(1, 3))):
        node = data
        # Walk to a random container, then break one of its values.
        while True:
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            if not keys:
                break
            key = draw(st.sampled_from(keys))
            child = node[key]
            if isinstance(child, dict | list) and child and draw(st.booleans()):
                node = child
                continue
            if draw(st.booleans()) and isinstance(node, dict):
                del node[key]
            else:
                node[key] = draw(JSON)
            break
    return data


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_games())
def test_broken_records_raise_only_record_errors(data):
    try:
        out = replay(data)
    except RecordError as exc:
        assert str(exc)  # a message to show, never an empty refusal
    else:
        assert out["format"] == "gorod"


_level_value = st.one_of(st.none(), st.booleans(), st.integers(-5, 20000), st.floats(),
                         st.sampled_from(["1", "2", "", "бонус"]),
                         st.lists(st.integers(), max_size=1))
_level = st.dictionaries(st.sampled_from(["id", "duration_min", "note"]), _level_value, max_size=3)


def _parsed_or_error(parse, raw):
    try:
        return parse(raw)
    except RecordError as exc:
        return f"error: {exc}"


def _levels_or_error(raw) -> object:
    """The levels a record listing ``raw`` has (id, duration and the duration's type), or its
    refusal."""
    try:
        levels = parse_record(record(teams=["A"], levels=()) | {"levels": raw}).levels
    except RecordError as exc:
        return f"error: {exc}"
    return [(level.id, level.limit_min, type(level.limit_min)) for level in levels]


# Levels that compare equal but are not the same: a duration True is not 1, 1.0 is not 1, and
# an absent duration is the default, as a null one is.
LOOKALIKES = [
    ([{"id": "1", "duration_min": 1}], [("1", 1, int)]),
    ([{"id": "1", "duration_min": True}],
     "error: levels[0].duration_min: expected a number, got a boolean"),
    ([{"id": "1", "duration_min": 1.0}], [("1", 1.0, float)]),
    ([{"id": "1", "duration_min": False}],
     "error: levels[0].duration_min: expected a number, got a boolean"),
    ([{"id": "1", "duration_min": 0}], "error: levels[0].duration_min: 0 is outside (0, 10080]"),
    ([{"id": "1"}], [("1", 70, int)]),
    ([{"id": "1", "duration_min": None}], [("1", 70, int)]),
    ([{"id": "1", "duration_min": [1]}],
     "error: levels[0].duration_min: expected a number, got a list"),
    ([{"id": 1}], "error: levels[0].id: expected a string, got a number"),
    ([{"id": True}], "error: levels[0].id: expected a string, got a boolean"),
    ([{"id": "1", "note": "a"}, {"id": "1"}], "error: levels[1].id: level '1' is listed twice"),
]


@pytest.mark.parametrize("order", [1, -1], ids=["in order", "backwards"])
def test_records_with_lookalike_levels_each_keep_their_own_levels_or_refusal(order):
    # Every code parses the game's levels again, and a process keeps what it parsed: levels
    # equal to another record's but not the same must not come back as that record's.
    cases = LOOKALIKES[::order]
    for _ in range(2):
        for raw, expected in cases:
            assert _levels_or_error(raw) == expected, raw


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.lists(_level, max_size=4), min_size=1, max_size=4))
def test_a_records_kept_levels_are_what_it_lists_whatever_was_parsed_before(raws):
    # A kept level is the record's own: its id, and its duration as the record wrote it (type
    # and all; 70 when none). A refused record is refused again in the same words.
    first = [_levels_or_error(raw) for raw in raws]
    for raw, found in zip(raws, first, strict=True):
        if isinstance(found, list):
            listed = [(item["id"], 70 if item.get("duration_min") is None
                       else item["duration_min"]) for item in raw]
            assert found == [(i, d, type(d)) for i, d in listed]
    for raw, found in zip(raws[::-1], first[::-1], strict=True):
        assert _levels_or_error(raw) == found


@st.composite
def _routes(draw):
    ids = [str(i) for i in range(1, draw(st.integers(1, 5)) + 1)]
    teams = ("A", "B", "C")
    items = st.sampled_from([*ids, "9", 1, True, None])
    whole = st.permutations(ids).map(list)
    route = (whole | whole.flatmap(lambda r: st.sampled_from(r).map(lambda twice: [*r, twice]))
             | whole.map(lambda r: r[1:]) | st.lists(items, max_size=7)
             | st.sampled_from([tuple(ids), "1", {"1": 1}]))
    raw = draw(st.dictionaries(st.sampled_from([*teams, "Z"]), route, max_size=4))
    return raw, ids, teams


def _route_record(raw, ids, teams):
    return record(levels=(70,) * len(ids), teams=teams, routes=raw)


@settings(max_examples=examples(400), deadline=None)
@given(_routes())
def test_a_route_is_taken_exactly_when_it_visits_every_level_once(case):
    """The rule itself, not a second implementation: a known team's route is a list naming
    each level exactly once; the first team (in the record's order) whose route is not is
    named by the error, and the teams without one play in the game's order."""
    raw, ids, teams = case
    good = {team: type(route) is list and all(type(i) is str for i in route)
            and sorted(route) == sorted(ids) for team, route in raw.items()}
    bad = [team for team in raw if team not in teams or not good[team]]
    if bad:
        with pytest.raises(RecordError) as refused:
            parse_record(_route_record(raw, ids, teams))
        assert str(refused.value).startswith(f"routes.{bad[0]}")
    else:
        routes = parse_record(_route_record(raw, ids, teams)).routes
        assert dict(routes) == {team: tuple(raw.get(team, ids)) for team in teams}


@pytest.mark.parametrize(("route", "message"), [
    (["3", "1", "2"], None),
    ("123", "routes.A: expected a list, got a string"),
    (["1", 2, "3"], "routes.A[1]: expected a string, got a number"),
    (["1", "9", "3"], "routes.A[1]: unknown level '9'"),
    (["1", "2", "3", "1"],
     "routes.A[3]: level '1' is visited twice (a route visits every level exactly once)"),
    (["1", "2", "2"],
     "routes.A[2]: level '2' is visited twice (a route visits every level exactly once)"),
    (["1", "2"], "routes.A: the route misses level(s) 3 (a route visits every level exactly once)"),
], ids=["a permutation", "not a list", "not a string", "an unknown level", "a level twice",
        "a level twice in place of another", "a level missing"])
def test_a_wrong_route_is_refused_naming_the_place_and_the_reason(route, message):
    data = _route_record({"A": route}, ["1", "2", "3"], ("A", "B"))
    if message is None:
        assert parse_record(data).routes["A"] == ("3", "1", "2")
        return
    with pytest.raises(RecordError) as refused:
        parse_record(data)
    assert str(refused.value) == message


def test_a_route_for_a_team_not_in_the_game_is_refused():
    with pytest.raises(RecordError, match=r"^routes\.Z: unknown team 'Z'$"):
        parse_record(_route_record({"Z": ["1", "2", "3"]}, ["1", "2", "3"], ("A", "B")))
