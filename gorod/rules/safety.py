"""Safety check-ins on dangerous levels (issue 32, the danger grade of 8.8): on a grade 3–4
level the team confirms "all fine" every N minutes, set per game; a check-in that is overdue
raises an alarm on the organizer's screen until the team checks in or the organizer
acknowledges it.

Pure, like the whole package (see ``gorod.rules``): the clock is passed in.
"""

from __future__ import annotations

from datetime import datetime, timedelta

#: The danger grades whose levels ask for check-ins (8.8: 3 — dangerous, 4 — two people go).
CHECKIN_GRADES = frozenset({3, 4})


def checkin_due(*, every_min: float | None, danger: int | None, received_at: datetime,
                last_checkin: datetime | None) -> datetime | None:
    """When the team's next check-in is due on the level it plays: ``every_min`` minutes after
    it received a grade 3–4 level, then ``every_min`` after its last check-in on that level
    (an organizer's acknowledgement counts as one). None: no check-in is asked (check-ins off,
    or a level of grade 1–2 or none).

    >>> at = lambda hm: datetime.fromisoformat(f"2026-12-05T{hm}:00+03:00")
    >>> checkin_due(every_min=15, danger=4, received_at=at("22:00"), last_checkin=None).isoformat()
    '2026-12-05T22:15:00+03:00'
    >>> checkin_due(every_min=15, danger=3, received_at=at("22:00"),
    ...             last_checkin=at("22:12")).isoformat()
    '2026-12-05T22:27:00+03:00'
    >>> checkin_due(every_min=15, danger=2, received_at=at("22:00"), last_checkin=None) is None
    True
    """
    if not every_min or every_min <= 0 or danger not in CHECKIN_GRADES:
        return None
    # A check-in from before the level was received belongs to another level.
    since = received_at if last_checkin is None else max(received_at, last_checkin)
    return since + timedelta(minutes=every_min)


def checkin_overdue(due: datetime | None, now: datetime) -> bool:
    """The due moment has passed without a check-in: the alarm stands (at the due moment itself
    it has just fallen due, which the clock wakes for)."""
    return due is not None and now >= due


def next_checkin_wake(dues, now: datetime) -> datetime | None:
    """The earliest due check-in still ahead of ``now`` (the clock wakes then to raise its
    alarm); None when none is ahead. Overdue ones are alarms already."""
    ahead = [due for due in dues if due is not None and due > now]
    return min(ahead) if ahead else None
