"""The results' calendar (``docs/rules/rating.md``): when protests close, when the organizer's
answer and the final results are due, until when captains vote on the organizing team. Pure,
like ``rating.rules``, which re-exports it. It lives in core because the games' engines (a
GoRoD night's protest and final times) and the rating both read it, and a game must not import
the rating; a module of its own so that a GoRoD replay does not load the season rules (~10 ms
of a replay process, ``make bench``)."""

from __future__ import annotations

from datetime import datetime, timedelta

PROTEST_WINDOW = timedelta(hours=12)   # 3.15: protests within 12 h of the game's end
ANSWER_DUE = timedelta(hours=24)       # the organizer answers a protest within 24 h
FINAL_DUE = timedelta(hours=72)        # final results within 72 h of the game's end
VOTE_WINDOW = timedelta(hours=72)      # 10.6: captains vote on the organizers within 72 h


def protest_deadline(ended_at: datetime) -> datetime:
    """The last moment a protest may be filed: 12 h after the game's end.

    >>> protest_deadline(datetime(2026, 12, 5, 23, 0)).isoformat()
    '2026-12-06T11:00:00'
    """
    return ended_at + PROTEST_WINDOW


def protest_open(ended_at: datetime, now: datetime) -> bool:
    """May a captain still protest at ``now``? Up to and including the deadline.

    >>> end = datetime(2026, 12, 5, 23, 0)
    >>> protest_open(end, datetime(2026, 12, 6, 11, 0)), protest_open(end, datetime(2026, 12, 6, 11, 1))
    (True, False)
    """
    return now <= protest_deadline(ended_at)


def answer_due(filed_at: datetime) -> datetime:
    """When the organizer's answer to a protest is due: 24 h after it was filed.

    >>> answer_due(datetime(2026, 12, 6, 1, 30)).isoformat()
    '2026-12-07T01:30:00'
    """
    return filed_at + ANSWER_DUE


def answer_overdue(filed_at: datetime, answered: bool, now: datetime) -> bool:
    """An unanswered protest past its 24 h is overdue (an answered one never is).

    >>> filed = datetime(2026, 12, 6, 1, 30)
    >>> answer_overdue(filed, False, datetime(2026, 12, 7, 2, 0)), answer_overdue(filed, True, datetime(2026, 12, 9))
    (True, False)
    """
    return not answered and now > answer_due(filed_at)


def final_due(ended_at: datetime) -> datetime:
    """When the final results are due: 72 h after the game's end.

    >>> final_due(datetime(2026, 12, 5, 23, 0)).isoformat()
    '2026-12-08T23:00:00'
    """
    return ended_at + FINAL_DUE


def final_is_early(ended_at: datetime, now: datetime) -> bool:
    """Would making the results final at ``now`` cut the protest window short? Then the
    organizer must confirm an early final and say why.

    >>> end = datetime(2026, 12, 5, 23, 0)
    >>> final_is_early(end, datetime(2026, 12, 6, 10, 0)), final_is_early(end, datetime(2026, 12, 6, 11, 1))
    (True, False)
    """
    return protest_open(ended_at, now)


def vote_deadline(ended_at: datetime) -> datetime:
    """The last moment a captain may vote on the organizing team: 72 h after the end.

    >>> vote_deadline(datetime(2026, 12, 5, 23, 0)).isoformat()
    '2026-12-08T23:00:00'
    """
    return ended_at + VOTE_WINDOW


def vote_open(ended_at: datetime, now: datetime) -> bool:
    """May a captain still vote at ``now``?

    >>> end = datetime(2026, 12, 5, 23, 0)
    >>> vote_open(end, datetime(2026, 12, 8, 23, 0)), vote_open(end, datetime(2026, 12, 9))
    (True, False)
    """
    return now <= vote_deadline(ended_at)
