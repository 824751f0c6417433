"""Standings (``docs/rules/gorod.md``, places): finished teams by total time, then earlier
finish, then registration; the rest by levels closed; and the per-level sums an average-time
ruling compares with.

Pure, like the whole package (see ``gorod.rules``).
"""

from __future__ import annotations

from dataclasses import replace
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
