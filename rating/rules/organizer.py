"""The team that organized a game (``docs/rules/rating.md``, 10.5–10.7): the votes on its
game and its points K.

Pure, like the whole package (see ``rating.rules``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from core.records import RecordError
from rating.rules.checks import check_whole, describe
from rating.rules.points import GOROD_SCALE, Scale, points_for_place

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VOTES = (0, 25, 50, 75, 100)


@dataclass(frozen=True)
class Organizer:
    team: str
    votes: Mapping[str, int | None] = field(default_factory=dict)


def organizer_points(teams_played: int, votes: Iterable[int | None],
                     scale: Scale = GOROD_SCALE) -> int:
    """The organizing team's points K = (100 − Rj)·Q/100 + Rj, rounded half up.

    ``teams_played`` is i (disqualified teams included), j = i + 1, Rj the points for place j;
    Q is the average of the votes given (``None`` = did not vote, which counts as the average
    of the others); with no votes at all Q = 0. The rules' example, 10 teams, R11 = 66:

    >>> [organizer_points(10, [q]) for q in (100, 75, 50, 25, 0)]
    [100, 92, 83, 75, 66]
    >>> organizer_points(10, [100, 75, None])   # Q = 87.5: 95.75
    96
    >>> organizer_points(10, [None, None])      # no votes: Q = 0, K = R11
    66
    """
    check_whole(teams_played, "teams_played")
    if teams_played < 0:
        raise RecordError(f"teams_played: expected 0 or more, got {teams_played}")
    if isinstance(votes, (str, bytes, Mapping)) or not isinstance(votes, Iterable):
        raise RecordError("votes: expected a list of votes")
    given = [check_vote(vote, f"votes[{n}]") for n, vote in enumerate(votes)]
    given = [vote for vote in given if vote is not None]
    # Here, not at the top: fractions (and the decimal it imports) cost every process that
    # loads these rules, a GoRoD replay's included (for its protest window), some 5 ms.
    from fractions import Fraction

    quality = Fraction(sum(given), len(given)) if given else Fraction(0)
    r_j = points_for_place(teams_played + 1, scale)
    # Exact fractions, then half up: float round() would round 91.5 to even and 0.1s drift.
    return math.floor(r_j + (100 - r_j) * quality / 100 + Fraction(1, 2))


def check_vote(vote: Any, where: str) -> int | None:
    if vote is None:
        return None
    if type(vote) is not int or vote not in VOTES:
        raise RecordError(f"{where}: expected one of {', '.join(map(str, VOTES))}, got "
                          f"{describe(vote)}")
    return vote
