"""The record helpers every engine shares: clear errors that say what and where."""

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.records
from core.records import RecordError, check_type, parse_time, require, team_names
from tests.properties import examples


def test_the_worked_examples_in_the_docstrings_hold():
    assert doctest.testmod(core.records).failed == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        pytest.param(lambda: parse_time("2026-12-05T22:00:00", "start"), "start: '2026-12-05T22:00:00' has no UTC offset (write e.g. +03:00)",
                     id="a time without an offset is refused"),
        pytest.param(lambda: parse_time("tomorrow", "end"), "end: 'tomorrow' is not an ISO 8601 time",
                     id="a time that is not a time is refused"),
        pytest.param(lambda: parse_time(5, "now"), "now: expected an ISO 8601 time string, got a number",
                     id="a number is not a time"),
        pytest.param(lambda: check_type(True, int, "summit"), "summit: expected a number, got a boolean",
                     id="true is not a number"),
        pytest.param(lambda: require({}, "teams", list, "record"), "record.teams: missing",
                     id="a missing field is named with its path"),
        pytest.param(lambda: require([], "teams", list, "record"), "record: expected an object, got a list",
                     id="a list where an object belongs is refused"),
        pytest.param(lambda: team_names(["A", "A"]), "teams[1]: duplicate team name 'A'",
                     id="a team listed twice is refused"),
        pytest.param(lambda: team_names(["A", "  "]), "teams[1]: a team name must not be empty",
                     id="a blank team name is refused"),
        pytest.param(lambda: team_names(["A"], minimum=2), "teams: at least 2 teams are needed, got 1",
                     id="too few teams are refused"),
    ],
)
def test_bad_values_raise_a_record_error_that_says_what_and_where(call, message):
    with pytest.raises(RecordError) as exc:
        call()
    assert str(exc.value) == message


class _Text(str):
    pass


_KINDS = [str, int, float, bool, dict, list, (int, float), (list, tuple), (str, int), (dict,),
          (bool, int), (float,), (int, float, bool)]
_VALUES = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
           | st.builds(_Text, st.text()) | st.lists(st.integers(), max_size=2)
           | st.tuples(st.integers()) | st.dictionaries(st.text(), st.integers(), max_size=2))


def _taken(value, kind) -> bool:
    """The rule: a value of one of the named kinds (a subclass too), except that a boolean is
    no number — it passes only where ``bool`` itself is named."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return isinstance(value, kinds) and (not isinstance(value, bool) or bool in kinds)


@settings(max_examples=examples(500))
@given(_VALUES, st.sampled_from(_KINDS))
def test_check_type_passes_exactly_the_values_of_its_kinds_and_names_the_place_otherwise(
        value, kind):
    try:
        passed = check_type(value, kind, "where")
    except RecordError as exc:
        assert not _taken(value, kind)
        assert str(exc).startswith("where: expected ")
    else:
        assert _taken(value, kind) and passed is value


@pytest.mark.parametrize(("value", "kind", "message"), [
    (True, int, "x: expected a number, got a boolean"),
    (1.5, int, "x: expected a whole number, got 1.5"),
    (1.5, (str, int), "x: expected a whole number, got 1.5"),
    ("s", int, "x: expected a number, got a string"),
    ([], (int, float), "x: expected a number, got a list"),
    (None, str, "x: expected a string, got null"),
    ({}, list, "x: expected a list, got an object"),
    (2, (list, tuple), "x: expected a list or tuple, got a number"),
], ids=["a boolean for a number", "a fraction for a whole number",
        "a fraction for a text or a whole number", "a text for a number", "a list for a number",
        "null for a text", "an object for a list", "a number for a list"])
def test_check_type_says_what_was_expected_and_what_came(value, kind, message):
    with pytest.raises(RecordError) as refused:
        check_type(value, kind, "x")
    assert str(refused.value) == message
