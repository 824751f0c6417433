"""The output (``gorod.rules.output``, ``gorod.rules.instants``): the statistics table and the
replay's fast moments."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
# datetime each and compute makes its datetimes from the zone's epoch. Both must be exactly
# what the plain datetime path gives: the moment, in the start's offset.

_UTC = UTC


def _zone(hours: int = 0, minutes: int = 0, seconds: int = 0) -> timezone:
    return timezone(timedelta(hours=hours, minutes=minutes, seconds=seconds))


def _night(start: str, codes: list[str], limits: tuple[int, ...] = (70,)) -> tuple[dict, object]:
    """What the replay writes and what compute gives of team A's levels in a night that starts
    at ``start`` (its offset is the night's zone) and whose codes close levels 1, 2 … at
    ``codes``."""
    data = {"format": "gorod", "start": start,
            "levels": [{"id": str(i), "duration_min": limit} for i, limit in enumerate(limits, 1)],
            "teams": ["A"],
            "events": [{"team": "A", "type": "code", "level": str(i), "at": at}
                       for i, at in enumerate(codes, 1)]}
    return replay(data)["teams"][0]["levels"], compute(parse_record(data)).teams[0].levels


def _plain(moment: datetime, zone) -> datetime:
    return moment.astimezone(zone)


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
    ("2026-12-05T19:00:00+00:00", _zone(0, -30, -15), "2026-12-05T18:29:45-00:30:15"),
    ("1969-12-31T23:59:59.999999+00:00", _UTC, "1969-12-31T23:59:59.999999+00:00"),
    ("1900-01-01T01:00:00+00:00", _zone(-1), "1900-01-01T00:00:00-01:00"),
    ("1900-01-01T00:00:00+03:00", _zone(3), "1900-01-01T00:00:00+03:00"),
    ("9000-12-31T22:59:59.999999+00:00", _zone(1), "9000-12-31T23:59:59.999999+01:00"),
])
def test_the_replay_and_compute_write_a_nights_moments_as_isoformat_writes_them(
        moment, zone, expected):
    # The night starts at the moment, in the zone; its code comes 31 min 10.5 s later, written
    # in UTC (in the zone where UTC's year is not a record's); the hints and the next level's
    # fail time follow on whole minutes.
    start = datetime.fromisoformat(moment)
    close = start + timedelta(minutes=31, seconds=10, microseconds=500_000)
    written_in = _UTC if close.astimezone(_UTC).year >= 1900 else zone
    written, computed = _night(expected, [close.astimezone(written_in).isoformat()], (70, 70))
    assert written[0]["received_at"] == expected
    plain = {"received": [start], "hints": [start + timedelta(minutes=25)],
             "closed": [close], "next hints": [close + timedelta(minutes=m) for m in (25, 50)],
             "next fail": [close + timedelta(minutes=70)]}
    got = {"received": [computed[0].received_at], "hints": list(computed[0].hints_at),
           "closed": [computed[0].closed_at], "next hints": list(computed[1].hints_at),
           "next fail": [computed[1].fail_at]}
    texts = {"received": [written[0]["received_at"]], "hints": written[0]["hints_at"],
             "closed": [written[0]["closed_at"]], "next hints": written[1]["hints_at"],
             "next fail": [written[1]["fail_at"]]}
    for name, moments in plain.items():
        reference = [_plain(m, zone) for m in moments]
        assert got[name] == reference, name
        assert [m.isoformat() for m in got[name]] == [m.isoformat() for m in reference], name
        assert [(m.utcoffset(), m.fold) for m in got[name]] == [
            (m.utcoffset(), m.fold) for m in reference], name
        assert texts[name] == [m.isoformat() for m in reference], name


# Whole seconds: Python 3.11 reads "-00:00:00.000001" as +00:00, so a record's offsets are
# whole seconds at the finest.
_NIGHT_ZONES = st.one_of(st.just(_UTC),
                         st.integers(-23 * 60, 23 * 60).map(lambda m: _zone(minutes=m)),
                         st.integers(-86_399, 86_399).map(lambda s: _zone(seconds=s)))
# A record's times are of the years 1900 to 9000.
_STARTS = st.integers(0, (datetime(8999, 1, 1) - datetime(1900, 1, 2)) // timedelta(seconds=1))
# A code's time on its level in µs: on a whole minute, on a whole second, or anywhere.
_ON_LEVEL = st.one_of(st.integers(0, 69).map(lambda m: m * 60_000_000),
                      st.integers(0, 4199).map(lambda s: s * 1_000_000),
                      st.integers(0, 70 * 60_000_000 - 1))


@settings(max_examples=examples(300), deadline=None)
@given(_NIGHT_ZONES, _STARTS, st.integers(0, 999_999),
       st.lists(st.tuples(_ON_LEVEL, _NIGHT_ZONES), max_size=10))
def test_the_replay_and_compute_agree_with_the_plain_datetime_path_on_every_moment(
        zone, start_s, start_us, codes):
    # Codes written in their own offsets, closing level after level; the levels a code did not
    # close fail by the clock (whole minutes after their receipt, the memo of minutes in play).
    start = (datetime(1900, 1, 2, tzinfo=_UTC) + timedelta(seconds=start_s, microseconds=start_us)
             ).astimezone(zone)
    moments, at = [], start
    for on_level, written_in in codes:
        at = at + timedelta(microseconds=on_level)
        moments.append(at.astimezone(written_in))
    written, computed = _night(start.isoformat(), [m.isoformat() for m in moments],
                               (70,) * (len(codes) + 2))
    received = start
    for i, (text, level) in enumerate(zip(written, computed, strict=True)):
        closed = moments[i] if i < len(moments) else None
        fail = received + timedelta(minutes=70)
        hints = [received + timedelta(minutes=m) for m in (25, 50)][:len(level.hints_at)]
        reference = [_plain(m, zone) for m in (received, *hints, fail)]
        made = [level.received_at, *level.hints_at, level.fail_at]
        assert made == reference
        assert [(m.isoformat(), m.utcoffset(), m.fold) for m in made] == [
            (m.isoformat(), m.utcoffset(), m.fold) for m in reference]
        assert [text["received_at"], *text["hints_at"], text["fail_at"]] == [
            m.isoformat() for m in reference]
        if closed is not None:
            assert level.closed_at.isoformat() == text["closed_at"] == _plain(
                closed, zone).isoformat()
        received = fail if closed is None else closed


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
