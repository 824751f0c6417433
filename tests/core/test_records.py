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


def _check_type_in_full(value, kind, where):
    """check_type before its shortcut for a value of a named type: every check, every time."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise RecordError(f"{where}: expected {core.records._names(kinds)}, got a boolean")
    if isinstance(value, float) and int in kinds and float not in kinds:
        raise RecordError(f"{where}: expected a whole number, got {value!r}")
    if not isinstance(value, kinds):
        raise RecordError(f"{where}: expected {core.records._names(kinds)}, "
                          f"got {core.records._kind(value)}")
    return value


class _Text(str):
    pass


_KINDS = [str, int, float, bool, dict, list, (int, float), (list, tuple), (str, int), (dict,),
          (bool, int), (float,), (int, float, bool)]
_VALUES = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
           | st.builds(_Text, st.text()) | st.lists(st.integers(), max_size=2)
           | st.tuples(st.integers()) | st.dictionaries(st.text(), st.integers(), max_size=2))


def _outcome(check, value, kind):
    try:
        return "passed", check(value, kind, "where")
    except RecordError as exc:
        return "refused", str(exc)


@settings(max_examples=examples(500))
@given(_VALUES, st.sampled_from(_KINDS))
def test_check_type_passes_and_refuses_exactly_what_every_check_would(value, kind):
    assert _outcome(check_type, value, kind) == _outcome(_check_type_in_full, value, kind)
