"""Standings (``docs/rules/gorod.md``, places): finished teams by total time, then earlier
finish, then registration; the rest by levels closed; and the per-level sums an average-time
ruling compares with.

Pure, like the whole package (see ``gorod.rules``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gorod.rules.engine import TeamResult


def level_sums(teams) -> dict[str, tuple[float, int]]:
    """Per level, the total time (seconds, timeouts excluded) and the number of teams that
    closed it by any means: what an average-time ruling compares with (section 12). Summed in
    registration order, as ``compute`` does, so the floats are the same.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...     "teams": ["A", "B"], "events": [
    ...     {"team": "A", "type": "code", "level": "1", "at": "2026-12-05T22:10:00+03:00"},
    ...     {"team": "B", "type": "code", "level": "1", "at": "2026-12-05T22:30:00+03:00"}]})
    >>> level_sums(compute(rec).teams)
    {'1': (2400.0, 2)}
    """
    sums: dict[str, tuple[float, int]] = {}
    for result in sorted(teams, key=lambda t: t.registration):
        for level in result.levels:
            if level.closed_at is not None:
                total, count = sums.get(level.level, (0.0, 0))
                sums[level.level] = (total + level.duration_s, count + 1)
    return sums


def rank(teams) -> tuple[TeamResult, ...]:
    """The standings of these results, with their places (section 3): finished teams first by
    total time, then by finish; then the others by levels closed and total; disqualified teams
    last, in registration order, with no place. ``compute`` ranks the same way.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00",
    ...     "levels": [{"id": "1"}, {"id": "2"}], "teams": ["A", "B"], "events": [
    ...     {"team": "B", "type": "code", "level": "1", "at": "2026-12-05T22:10:00+03:00"}]})
    >>> now = datetime.fromisoformat("2026-12-05T22:20:00+03:00")
    >>> [(t.team, t.place) for t in rank([team_result(rec, n, now) for n in ("A", "B")])]
    [('B', 1), ('A', 2)]
    """
    return tuple(replace(result, place=place) for result, place in placed_in_order(
        teams, lambda r: standing_key(r.status, r.finished_at, r.total_s, r.levels_closed,
                                      r.registration),
        lambda r: r.registration))


def placed_in_order(items, key_of, registration_of) -> list[tuple[Any, int | None]]:
    """``(item, place)`` in standings order: the items with a ``standing_key`` (``key_of``)
    sorted by it and numbered from 1, then those without one (disqualified) in registration
    order with no place. ``rank`` places results this way; the live core re-ranks stored
    statistics rows with it.

    >>> rows = [{"n": "A", "key": (1, -2, 900.0, 0), "reg": 0}, {"n": "B", "key": None, "reg": 1},
    ...         {"n": "C", "key": (0, 5400.0, 1, 2), "reg": 2}]
    >>> [(r["n"], p) for r, p in placed_in_order(rows, lambda r: r["key"], lambda r: r["reg"])]
    [('C', 1), ('A', 2), ('B', None)]
    """
    placed, unplaced = [], []
    for item in items:
        key = key_of(item)
        if key is None:
            unplaced.append(item)
        else:
            placed.append((key, item))
    placed.sort(key=lambda pair: pair[0])
    return ([(item, place) for place, (_k, item) in enumerate(placed, start=1)]
            + [(item, None) for item in sorted(unplaced, key=registration_of)])


def standing_key(status: str, finished_at: datetime | None, total_s: float, levels_closed: int,
                 registration: int) -> tuple | None:
    """Where a team stands (``rank`` sorts by it, smaller first); None for a disqualified team,
    which has no place. A finished team ranks by its total, then its finish; the others after
    every finished team, by levels closed, then total; registration breaks the last tie. The
    live core re-ranks stored rows by it when one team's result changes.

    >>> at = datetime.fromisoformat("2026-12-05T23:00:00+03:00")
    >>> standing_key("finished", at, 5400.0, 3, 1) < standing_key("playing", None, 100.0, 9, 0)
    True
    >>> standing_key("playing", None, 900.0, 4, 2) < standing_key("playing", None, 100.0, 3, 0)
    True
    >>> standing_key("disqualified", None, 0.0, 5, 0) is None
    True
    """
    if status == "disqualified":
        return None
    if finished_at is not None:
        return (0, total_s, finished_at, registration)
    return (1, -levels_closed, total_s, registration)


@dataclass(frozen=True)
class StandingChange:
    """One team's line of a preview: its place and total before and after a change."""

    team: str
    place_before: int | None  # None: no place (disqualified), or not in that standings
    place_after: int | None
    total_before_s: float
    total_after_s: float


def standings_diff(before, after) -> tuple[StandingChange, ...]:
    """The teams whose place or total differs between two standings (results with ``team``,
    ``place`` and ``total_s``, as ``compute`` ranks them), in the order of ``after``: what a
    ruling or its undo would change, before the organizer confirms it.

    Worked example: Сова gets a 15-minute bonus and overtakes Лисы.

    >>> from types import SimpleNamespace as T
    >>> before = [T(team="Лисы", place=1, total_s=8760.0), T(team="Ёжики", place=2, total_s=9000.0),
    ...           T(team="Сова", place=3, total_s=9660.0)]
    >>> after = [T(team="Сова", place=1, total_s=8760.0 - 60), T(team="Лисы", place=2,
    ...           total_s=8760.0), T(team="Ёжики", place=3, total_s=9000.0)]
    >>> [(c.team, c.place_before, c.place_after) for c in standings_diff(before, after)]
    [('Сова', 3, 1), ('Лисы', 1, 2), ('Ёжики', 2, 3)]
    >>> standings_diff(before, before)
    ()
    """
    old = {t.team: t for t in before}
    changes = []
    for now in after:
        was = old.get(now.team)
        place_before = was.place if was is not None else None
        total_before = was.total_s if was is not None else 0.0
        if place_before != now.place or abs(total_before - now.total_s) > 1e-6:
            changes.append(StandingChange(now.team, place_before, now.place, total_before,
                                          now.total_s))
    return tuple(changes)


def clock_text(seconds: float, *, with_seconds: bool = False) -> str:
    """A total as the standings say it: ``h:mm`` (``h:mm:ss`` with ``with_seconds``), cut
    down to the second, negative with a sign.

    >>> clock_text(9660), clock_text(8760.9), clock_text(75, with_seconds=True), clock_text(-90)
    ('2:41', '2:26', '0:01:15', '-0:01')
    """
    sign = "-" if seconds < 0 else ""
    whole = int(abs(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return (f"{sign}{hours}:{minutes:02d}:{secs:02d}" if with_seconds
            else f"{sign}{hours}:{minutes:02d}")
