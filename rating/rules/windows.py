"""The results' calendar and the limits on protests and votes (``docs/rules/rating.md``):
when answers, protests, votes and final results are due, and how many protests and votes a
team may file.

The calendar itself lives in ``core.deadlines`` (the games read it too); the rating names it
here too.

Pure, like the whole package (see ``rating.rules``).
"""

from __future__ import annotations

from core.deadlines import (  # noqa: F401
    ANSWER_DUE,
    FINAL_DUE,
    PROTEST_WINDOW,
    VOTE_WINDOW,
    answer_due,
    answer_overdue,
    final_due,
    final_is_early,
    protest_deadline,
    protest_open,
    vote_deadline,
    vote_open,
)

#: [decision] open protests one team may have on one game's results at a time: each waits
#: for an organizer's answer, and one captain filed 161 in two seconds
PROTESTS_OPEN_MAX = 3
#: [decision] times one team's captain may cast (or change) its vote on one game
VOTES_CAST_MAX = 5
