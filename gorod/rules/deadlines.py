"""The night's clock for the live game: the next moment anything changes on its own (a hint,
a failed level, the time cap), a team's running timeout, and when a timeout request is
refused.

Pure, like the whole package (see ``gorod.rules``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from gorod.rules.record import TIMEOUT_MIN_RANGE

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gorod.rules.engine import Played, Results, TeamResult


def team_deadline(row: Played, offsets_us: tuple[int, ...], now_us: int, cap_us: int) -> int:
    candidates = [row.fail]
    for off in offsets_us:
        h = row.hint(off)
        if now_us < h < row.fail:
            candidates.append(h)
    for start, length in row.stops:
        # Codes are accepted again when a timeout or a pause ends; the live screen should know.
        if now_us < start + length:
            candidates.append(start + length)
    return min(min(c for c in candidates if c > now_us), cap_us)


def next_deadline(results: Results) -> datetime | None:
    """The earliest future moment at which some team's state changes by the clock alone: a hint
    appears, a level fails, a timeout ends, the first level arrives or the cap ends the game.
    None when the game is over (or the results are of a complete record).

    Worked example: a team still on its 70-min level 1 at 22:30 next changes at 22:50 (hint 2);
    once both hints are out, the next change is the fail at 23:10. The clock process sleeps
    until this moment and then recomputes.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...                     "teams": ["A"]})
    >>> next_deadline(compute(rec, datetime.fromisoformat("2026-12-05T22:30:00+03:00"))).isoformat()
    '2026-12-05T22:50:00+03:00'
    >>> next_deadline(compute(rec, datetime.fromisoformat("2026-12-05T22:55:00+03:00"))).isoformat()
    '2026-12-05T23:10:00+03:00'
    """
    moments = [t.next_deadline for t in results.teams if t.next_deadline is not None]
    return min(moments) if moments else None


def timeout_until(team: TeamResult, now: datetime) -> datetime | None:
    """When the team's timeout ends, if it is on its timeout at ``now`` (3.10: no codes are
    accepted then); None otherwise.

    Worked example: a 10-minute timeout taken at 22:30 holds at 22:35 until 22:40 and is over
    at 22:40 itself.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...     "teams": ["A"], "events": [{"team": "A", "type": "timeout", "minutes": 10,
    ...                                 "at": "2026-12-05T22:30:00+03:00"}]})
    >>> at = lambda hm: datetime.fromisoformat(f"2026-12-05T{hm}:00+03:00")
    >>> timeout_until(compute(rec, at("22:35")).teams[0], at("22:35")).isoformat()
    '2026-12-05T22:40:00+03:00'
    >>> timeout_until(compute(rec, at("22:40")).teams[0], at("22:40")) is None
    True
    """
    if team.timeout_at is None:
        return None
    end = team.timeout_at + timedelta(seconds=team.timeout_s)
    return end if team.timeout_at <= now < end else None


def timeout_request_refusal(team: TeamResult, *, minutes: float, taken: bool,
                            pending: bool) -> str | None:
    """Why a team's request for its timeout (3.10) cannot go to the organizer, or None when it
    can: ``"length"`` (not 1–30 min), ``"taken"`` (the team has had its one timeout: it is
    running or over), ``"pending"`` (a request waits for the organizer), ``"not_on_level"``
    (the team is not playing a level: finished, stopped or disqualified). [decision] A refused
    request does not use the team's timeout up: it may ask again.

    Worked example: a team on level 1 may ask for 10 minutes but not for 45; once its first
    request waits, a second one is refused.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...                     "teams": ["A"], "events": []})
    >>> a = compute(rec, datetime.fromisoformat("2026-12-05T22:20:00+03:00")).teams[0]
    >>> timeout_request_refusal(a, minutes=10, taken=False, pending=False) is None
    True
    >>> timeout_request_refusal(a, minutes=45, taken=False, pending=False)
    'length'
    >>> timeout_request_refusal(a, minutes=10, taken=False, pending=True)
    'pending'
    """
    if team.status != "playing" or team.current_level is None:
        return "not_on_level"
    if taken or team.timeout_at is not None:
        return "taken"
    if pending:
        return "pending"
    low, high = TIMEOUT_MIN_RANGE
    if isinstance(minutes, bool) or not isinstance(minutes, int | float) or not (
            low <= minutes <= high):
        return "length"
    return None
