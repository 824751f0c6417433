"""The engine's instants: ``int`` microseconds since the Unix epoch (exact arithmetic, and a
daylight-saving change during the night cannot move a deadline), and the fast ways back to
datetimes and ISO text used where a result or a replay writes thousands of moments.

Pure, like the whole package (see ``gorod.rules``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone, tzinfo

from core.records import RecordError

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# A second, a minute, an hour in the engine's microseconds.
SECOND = 1_000_000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE


def to_us(value: datetime, where: str) -> int:
    try:
        return (value - _EPOCH) // timedelta(microseconds=1)
    except OverflowError:
        raise RecordError(f"{where}: {value.isoformat()} is out of range") from None


def from_us(us: int, tz: tzinfo) -> datetime:
    return (_EPOCH + timedelta(microseconds=us)).astimezone(tz)


def moment_reader(tz: tzinfo) -> Callable[[int], datetime]:
    """``from_us`` for one zone, for the many moments of a result. A fixed offset (what
    ``parse_time`` gives every record) maps an instant to its wall time by adding the offset,
    so the epoch's wall time plus the instant is the same datetime for a third less; any other
    zone converts each moment."""
    if type(tz) is not timezone:
        return functools.partial(from_us, tz=tz)
    epoch = _EPOCH.astimezone(tz)
    return lambda us: epoch + timedelta(microseconds=us)


def iso_writer(tz: tzinfo) -> Callable[[int], str]:
    """``from_us(us, tz).isoformat()`` for one zone, as a function of ``us``: a replay writes
    a 200-team night's 18 000 moments, and making and formatting a datetime for each was two
    thirds of its time. For a fixed offset the text is the wall time's minute (the same for
    many moments: made once, by ``isoformat``), its seconds, any microseconds and the offset's
    own text; any other zone formats each moment the long way."""
    if type(tz) is not timezone:
        return lambda us: from_us(us, tz).isoformat()
    offset_us = tz.utcoffset(None) // _ONE_US
    # What isoformat writes after the seconds for this zone: "+03:00", "-00:30:15.000001".
    suffix = datetime(2000, 1, 1, tzinfo=tz).isoformat()[19:]
    minutes: dict[int, str] = {}  # "YYYY-MM-DDTHH:MM:" by the wall time's minute
    # Seconds, microseconds and the offset by the moment's place in its minute: a level's hints
    # and fail time are whole minutes after its receipt, so they share its tail.
    tails: dict[int, str] = {}
    # A level's close is the next one's receipt: half of a night's moments are written twice.
    known: dict[int, str] = {}

    def iso(us: int) -> str:
        text = known.get(us)
        if text is not None:
            return text
        minute, rest = divmod(us + offset_us, MINUTE)
        head = minutes.get(minute)
        if head is None:
            # Naive: isoformat writes no offset after the wall time.
            head = minutes[minute] = (_NAIVE_EPOCH + timedelta(minutes=minute)).isoformat()[:17]
        tail = tails.get(rest)
        if tail is None:
            second, micro = divmod(rest, SECOND)
            # Six digits of microseconds: the leading 1 keeps the zeros a plain str() drops.
            tail = tails[rest] = (f"{_SECONDS[second]}.{str(SECOND + micro)[1:]}{suffix}" if micro
                                  else _SECONDS[second] + suffix)
        text = known[us] = head + tail
        return text

    return iso


_ONE_US = timedelta(microseconds=1)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_SECONDS = tuple(f"{second:02d}" for second in range(60))
