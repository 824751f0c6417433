"""The output (``gorod.rules.output``, ``gorod.rules.instants``): the statistics table and the
replay's fast moments."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gorod.codes
import gorod.rules
import gorod.rules.instants
import gorod.rules.record
from core.records import format_time
from gorod.rules import (
    compute,
    next_deadline,
    parse_record,
    replay,
    statistics_table,
)
from tests.gorod.conftest import (
    at,
    code,
    force_majeure,
    penalty,
    record,
    sliv,
)
from tests.gorod.rules_cases import ONE, PROPS, valid_games
from tests.properties import examples


def test_statistics_table_has_a_cell_per_level_in_game_order():
    rec = parse_record(record((70, 70), ["A", "B"], [code("A", "1", 30), penalty("B", 10)],
                              routes={"B": ["2", "1"]}, now=at(40)))
    table = statistics_table(compute(rec))
    assert table["levels"] == ["1", "2"]
    a_row, b_row = table["rows"]
    assert a_row["team"] == "A" and a_row["place"] == 1
    first = a_row["cells"][0]
    assert (first["hints_shown"], first["how"], first["time_s"]) == (1, "code", 1800.0)
    assert b_row["cells"][0] is None  # B has not received level 1 yet
    assert b_row["cells"][1]["order"] == 1 and b_row["penalty_s"] == 600.0
    assert b_row["rulings"][0].reason == "test"


def test_statistics_table_names_how_each_level_closed():
    rec = parse_record(record((70, 70, 70), ["A"], [sliv("A", "1", 5), force_majeure("A", "2", 10)]))
    cells = statistics_table(compute(rec))["rows"][0]["cells"]
    assert [c["how"] for c in cells] == ["failed (organizer)", "force majeure (organizer)",
                                         "failed (time out)"]


def test_finished_share_counts_finished_teams():
    rec = parse_record(record(ONE, ["A", "B", "C", "D", "E"], [code("A", "1", 5), code("B", "1", 6),
                                                               code("C", "1", 7), code("D", "1", 8)],
                              now=at(9)))
    assert compute(rec).finished_share == pytest.approx(0.8)


# ---- the replay's fast moments --------------------------------------------------------------
# Instants are microseconds since the epoch inside the engine; the replay writes them without a
# datetime each (gorod.rules.instants._iso_writer) and compute makes its datetimes from the zone's epoch
# (gorod.rules.instants._moments). Both must be exactly what the plain datetime path gives.

_UTC = UTC


def _us(text: str) -> int:
    return (datetime.fromisoformat(text) - datetime(1970, 1, 1, tzinfo=_UTC)) // timedelta(
        microseconds=1)


def _zone(hours: int = 0, minutes: int = 0, seconds: int = 0, micro: int = 0) -> timezone:
    return timezone(timedelta(hours=hours, minutes=minutes, seconds=seconds, microseconds=micro))


@pytest.mark.parametrize(("moment", "zone", "expected"), [
    ("2026-12-05T19:00:00+00:00", _zone(3), "2026-12-05T22:00:00+03:00"),
    ("2026-12-05T19:31:10.000001+00:00", _zone(3), "2026-12-05T22:31:10.000001+03:00"),
    ("2026-12-05T19:31:10.999999+00:00", _zone(3), "2026-12-05T22:31:10.999999+03:00"),
    ("2026-12-05T19:31:10.5+00:00", _zone(3), "2026-12-05T22:31:10.500000+03:00"),
    ("2026-12-05T21:00:00+00:00", _zone(3), "2026-12-06T00:00:00+03:00"),
    ("2026-12-05T20:59:59.999999+00:00", _zone(3), "2026-12-05T23:59:59.999999+03:00"),
    ("2026-12-31T21:00:00+00:00", _zone(3), "2027-01-01T00:00:00+03:00"),
    ("2027-01-01T05:00:00+00:00", _zone(-8), "2026-12-31T21:00:00-08:00"),
    ("2028-02-28T22:30:00+00:00", _zone(5, 30), "2028-02-29T04:00:00+05:30"),
    ("2026-12-05T19:00:00+00:00", _UTC, "2026-12-05T19:00:00+00:00"),
    ("2026-12-05T19:00:00+00:00", _zone(14), "2026-12-06T09:00:00+14:00"),
    ("2026-12-05T19:00:00+00:00", _zone(-23, -59), "2026-12-04T19:01:00-23:59"),
    ("2026-12-05T19:00:00+00:00", _zone(0, 30, 15), "2026-12-05T19:30:15+00:30:15"),
    ("2026-12-05T19:00:00+00:00", _zone(0, 0, 0, 1), "2026-12-05T19:00:00.000001+00:00:00.000001"),
    ("2026-12-05T19:00:00+00:00", _zone(0, 0, 0, -1), "2026-12-05T18:59:59.999999-00:00:00.000001"),
    ("1969-12-31T23:59:59.999999+00:00", _UTC, "1969-12-31T23:59:59.999999+00:00"),
    ("1900-01-01T00:00:00+00:00", _zone(-1), "1899-12-31T23:00:00-01:00"),
    ("1900-01-01T00:00:00+03:00", _zone(3), "1900-01-01T00:00:00+03:00"),
    ("9000-12-31T23:59:59.999999+00:00", _zone(1), "9001-01-01T00:59:59.999999+01:00"),
    # Named zones (not what a record gives, but what compute's zone could be): the plain path,
    # on both sides of daylight-saving changes.
    ("2026-03-29T00:59:59+00:00", ZoneInfo("Europe/Berlin"), "2026-03-29T01:59:59+01:00"),
    ("2026-03-29T01:00:00+00:00", ZoneInfo("Europe/Berlin"), "2026-03-29T03:00:00+02:00"),
    ("2026-10-25T00:30:00+00:00", ZoneInfo("Europe/Berlin"), "2026-10-25T02:30:00+02:00"),
    ("2026-10-25T01:30:00+00:00", ZoneInfo("Europe/Berlin"), "2026-10-25T02:30:00+01:00"),
    ("2010-10-30T22:30:00+00:00", ZoneInfo("Europe/Moscow"), "2010-10-31T02:30:00+04:00"),
    ("2010-10-30T23:30:00+00:00", ZoneInfo("Europe/Moscow"), "2010-10-31T02:30:00+03:00"),
])
def test_the_fast_formatter_writes_what_isoformat_writes(moment, zone, expected):
    us = _us(moment)
    reference = gorod.rules.instants._from_us(us, zone)
    assert reference.isoformat() == expected
    assert gorod.rules.instants._iso_writer(zone)(us) == expected
    made = gorod.rules.instants._moments(zone)(us)
    assert (made, made.isoformat(), made.tzinfo, made.fold) == (
        reference, expected, reference.tzinfo, reference.fold)


_MOMENTS = st.integers(_us("1900-01-01T00:00:00+00:00"), _us("9000-12-31T00:00:00+00:00"))
_ZONES = st.one_of(
    st.just(_UTC),
    st.integers(-24 * 60 + 1, 24 * 60 - 1).map(lambda m: _zone(minutes=m)),
    st.integers(-86_399_999_999, 86_399_999_999).map(lambda u: _zone(micro=u)),
    st.sampled_from(["Europe/Moscow", "Europe/Berlin", "America/New_York", "Asia/Kathmandu",
                     "Australia/Lord_Howe", "UTC"]).map(ZoneInfo),
)


@settings(max_examples=examples(300), deadline=None)
@given(_ZONES, st.lists(st.tuples(_MOMENTS, st.sampled_from([0, 1, 60, 86_400])), max_size=40))
def test_the_fast_formatter_and_moments_agree_with_the_plain_datetime_path(zone, moments):
    # Moments on whole seconds, minutes and days as well as anywhere; one writer formats them
    # all (its memo of minutes and moments is then in play), some of them twice.
    iso, moment = gorod.rules.instants._iso_writer(zone), gorod.rules.instants._moments(zone)
    values = [us - us % (whole * 1_000_000) if whole else us for us, whole in moments]
    for us in values + values[::2]:
        reference = gorod.rules.instants._from_us(us, zone)
        assert iso(us) == reference.isoformat()
        made = moment(us)
        assert made == reference and made.isoformat() == reference.isoformat()
        assert made.tzinfo is reference.tzinfo and made.fold == reference.fold


# What the replay writes at the top that compute's results name otherwise.
_TOP = {"format": lambda results: "gorod", "finished": lambda results: results.game_over,
        "next_deadline": next_deadline}


def _computed_as_written(written, computed, top=False):
    """compute's value of every key the replay wrote (a field or property of the same name;
    teams, levels and rulings item by item), an instant as ``format_time`` writes it: no key the
    replay writes goes unchecked, and no copy of how the replay builds its output."""
    if isinstance(written, dict):
        out = {}
        for key, value in written.items():
            if top and key in _TOP:
                got = _TOP[key](computed)
            else:
                assert hasattr(computed, key), f"the replay writes {key!r}, compute has none"
                got = getattr(computed, key)
            out[key] = _computed_as_written(value, got)
        return out
    if isinstance(written, list):
        assert len(written) == len(computed)
        return [_computed_as_written(w, c) for w, c in zip(written, computed, strict=True)]
    return format_time(computed) if isinstance(computed, datetime) else computed


def _moved(data: dict, zone: timezone | None, micro: int, event_zone: timezone | None) -> dict:
    """The record with every time moved by ``micro`` µs and written in another offset (the
    start's, and the events' own)."""
    def moved(text, into):
        value = datetime.fromisoformat(text) + timedelta(microseconds=micro)
        return (value if into is None else value.astimezone(into)).isoformat()

    data = copy.deepcopy(data)
    for key in ("start", "now", "end"):
        if key in data:
            data[key] = moved(data[key], zone)
    for event in data["events"]:
        if "at" in event:
            event["at"] = moved(event["at"], event_zone)
    return data


# Whole seconds: Python 3.11 reads "-00:00:00.000001" as +00:00, so a record's times cannot
# carry finer offsets faithfully (the formatter's own properties above cover them).
_OFFSETS = st.one_of(st.none(), st.integers(-23 * 60, 23 * 60).map(lambda m: _zone(minutes=m)),
                     st.integers(-86_399, 86_399).map(lambda s: _zone(seconds=s)))


@PROPS
@given(valid_games(), _OFFSETS, st.integers(0, 999_999), _OFFSETS)
def test_a_replay_writes_what_format_time_writes_of_computes_datetimes(data, zone, micro,
                                                                        event_zone):
    data = _moved(data, zone, micro, event_zone)
    written = replay(data)
    assert written == _computed_as_written(written, compute(parse_record(data)), top=True)
