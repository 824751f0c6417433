"""The places of a game's results: the organizer's table of places, checked as a whole, and
whether a game's places are complete. (The results' calendar is ``rating.rules.windows``.)

Pure, like the whole package (see ``rating.rules``).
"""

from __future__ import annotations

from collections.abc import Iterable

from rating.rules.checks import describe

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class PlacesError(ValueError):
    """The organizer's table of places cannot stand; ``code`` says why, ``team`` where
    (``invalid``: a place that is not a whole number ≥ 1, ``missing``: a team that is not
    disqualified has no place, ``duplicate``: two teams with one place)."""

    def __init__(self, code: str, team: Any, message: str) -> None:
        super().__init__(message)
        self.code, self.team = code, team


def table_places(rows: Iterable[tuple[Any, Any, bool]]) -> dict[Any, int | None]:
    """Places 1..n from the organizer's table, checked as a whole.

    ``rows`` are ``(team, requested place, disqualified)``. Disqualified teams get no place and
    drop out; the others keep the order of their requested places and close up to 1, 2, … n,
    so a gap left by a disqualification closes by itself. Two teams asking for one place, a
    place that is not a whole number ≥ 1, or a team with none raise ``PlacesError``.

    >>> table_places([("A", 1, False), ("B", 2, True), ("C", 3, False)])
    {'A': 1, 'B': None, 'C': 2}
    >>> table_places([("A", 2, False), ("B", 1, False)])
    {'A': 2, 'B': 1}
    >>> table_places([("A", 1, False), ("B", 1, False)])
    Traceback (most recent call last):
    ...
    rating.rules.places.PlacesError: 'B' and 'A' both have place 1
    """
    rows = list(rows)
    taken: dict[int, Any] = {}
    for team, place, disqualified in rows:
        if disqualified:
            continue
        if place is None:
            raise PlacesError("missing", team, f"{team!r} is not disqualified and has no place")
        if type(place) is not int or place < 1:
            raise PlacesError("invalid", team, f"{team!r}: a place is a whole number, 1 or "
                                               f"more, got {describe(place)}")
        if place in taken:
            raise PlacesError("duplicate", team,
                              f"{team!r} and {taken[place]!r} both have place {place}")
        taken[place] = team
    closed = {team: n for n, (_place, team) in enumerate(sorted(taken.items()), 1)}
    return {team: closed.get(team) for team, _place, _dq in rows}


def places_complete(rows: Iterable[tuple[int | None, bool]]) -> bool:
    """"Places are 1..n": ``rows`` are ``(place, disqualified)``; every team that is not
    disqualified holds one of exactly 1, 2, … n (the season record scores a game by its order
    of finish), and disqualified teams hold none.

    >>> places_complete([(1, False), (2, False), (None, True)])
    True
    >>> places_complete([(1, False), (3, False)]), places_complete([(1, False), (None, False)])
    (False, False)
    """
    rows = list(rows)
    if any((place is None) != dq for place, dq in rows):
        return False
    held = sorted(place for place, dq in rows if not dq)
    return held == list(range(1, len(held) + 1))
