"""Points per game (``docs/rules/rating.md``, 3.18): the scale of points by place, the named
scales (the GoRoD table, the King of the Hill band scale) and how places past a scale's end
score.

Pure, like the whole package (see ``rating.rules``).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.records import RecordError, check_type, optional, require
from rating.rules.checks import check_whole

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BEYOND = ("decrement", "repeat")


@dataclass(frozen=True)
class Scale:
    """Points by place: ``points[0]`` for 1st, then how places past the list score."""

    points: tuple[int, ...]
    beyond: str = "decrement"

    def __post_init__(self) -> None:
        _check_scale(self.points, self.beyond, "scale")

    def points_for(self, place: int) -> int:
        """Points for finishing ``place`` (1-based). See ``points_for_place``."""
        return points_for_place(place, self)


def _check_scale(points: Any, beyond: Any, where: str, points_where: str | None = None) -> None:
    points_where = points_where or where
    if not isinstance(points, (list, tuple)):
        raise RecordError(f"{points_where}: expected a list of points, got {type(points).__name__}")
    if not points:
        raise RecordError(f"{points_where}: a scale needs points for at least 1st place")
    for index, value in enumerate(points):
        spot = f"{points_where}[{index}]"
        check_whole(value, spot)
        if value < 0:
            raise RecordError(f"{spot}: points may not be negative, got {value}")
        # A better place earning less would make the table reward finishing lower.
        if index and value > points[index - 1]:
            raise RecordError(f"{spot}: {value} is more than the place before "
                              f"({points[index - 1]}); a scale may not increase")
    if beyond not in BEYOND:
        raise RecordError(f"{where}.beyond: expected one of {', '.join(BEYOND)}, got {beyond!r}")


GOROD_SCALE = Scale((100, 96, 92, 88, 84, 81, 78, 75, 72, 69, 66, 63, 60, 57, 54,
                     52, 50, 48, 46, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34))
KOTH_BAND_SCALE = Scale((115, 110, 105, 100, 100) + (90,) * 5 + (70,) * 5 + (50,) * 4 + (30,),
                        beyond="repeat")
NAMED_SCALES = {"gorod": GOROD_SCALE, "kingofhill": KOTH_BAND_SCALE}

def points_for_place(place: int, scale: Scale = GOROD_SCALE) -> int:
    """Points for finishing ``place`` on ``scale`` (the GoRoD table by default).

    Past the end of a ``decrement`` scale each place gets one point less than the place before,
    never below 1; a ``repeat`` scale keeps its last value.

    >>> points_for_place(1), points_for_place(30), points_for_place(31), points_for_place(99)
    (100, 34, 33, 1)
    >>> [points_for_place(p, KOTH_BAND_SCALE) for p in (1, 4, 5, 6, 19, 20, 40)]
    [115, 100, 100, 90, 50, 30, 30]
    >>> points_for_place(5, Scale((10, 8, 7)))
    5
    """
    check_whole(place, "place")
    if place < 1:
        raise RecordError(f"place: expected 1 or more, got {place}")
    if not isinstance(scale, Scale):
        raise RecordError(f"scale: expected a Scale, got {type(scale).__name__}")
    if place <= len(scale.points):
        return scale.points[place - 1]
    last = scale.points[-1]
    if scale.beyond == "repeat" or last <= 1:
        return last
    return max(1, last - (place - len(scale.points)))


def scale_from_data(value: Any, where: str = "scale") -> Scale:
    """A scale from its record form: a list of points, a scale's name, or an object.

    >>> scale_from_data([100, 96, 92]).points_for(5)
    90
    >>> scale_from_data("kingofhill") is KOTH_BAND_SCALE
    True
    >>> scale_from_data({"points": [20, 10], "beyond": "repeat"}).points_for(5)
    10
    """
    if value is None:
        return GOROD_SCALE
    if isinstance(value, str):
        if value not in NAMED_SCALES:
            names = ", ".join(repr(n) for n in NAMED_SCALES)
            raise RecordError(f"{where}: expected a list of points or one of {names}, got {value!r}")
        return NAMED_SCALES[value]
    if isinstance(value, dict):
        points = require(value, "points", list, where)
        beyond = optional(value, "beyond", str, where, "decrement")
        _check_scale(points, beyond, where, points_where=f"{where}.points")
        return Scale(tuple(points), beyond)
    check_type(value, list, where)
    _check_scale(value, "decrement", where)
    return Scale(tuple(value))
