"""The GoRoD clock: an armed game starts at its announced time, hints appear, levels fail and
the time cap ends a game with no request.

A scheduler, not a loop over every game: each running game stores the engine's next deadline
(``GorodGame.next_deadline``, written by every live write). ``run_due`` handles only the games
whose deadline has passed, each in its own transaction (``services.game_tick``) and behind its
own error boundary: a failing game is retried with a growing backoff and never stops the others.
A game is claimed with a conditional update (its deadline moves to the retry moment only if
nobody moved it since), so a second clock running beside the first is harmless, and a clock that
starts after a pause applies at once every deadline it missed (state is a function of the record
and the time, so one tick catches up with all of them).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from gorod import services
from gorod.models import GorodGame

log = logging.getLogger(__name__)

#: Retry after a failure: 2, 4, 8 … seconds, at most this many.
MAX_BACKOFF_S = 60


def backoff_s(failures: int) -> float:
    """Seconds before the next try after ``failures`` failed ticks in a row."""
    return float(min(2 ** max(failures, 1), MAX_BACKOFF_S))


def run_due(now: datetime | None = None) -> list[int]:
    """Start every armed game whose announced time has come, then tick every running game
    whose deadline has passed; returns the ids ticked successfully. One query when nothing is
    due (the clock's round every second)."""
    now = now or timezone.now()
    due = list(GorodGame.objects.filter(
        Q(status=GorodGame.Status.RUNNING, next_deadline__lte=now)
        | Q(status=GorodGame.Status.SETUP, auto_start=True, game__starts_at__lte=now))
        .values_list("pk", "status", "next_deadline", "clock_failures"))
    ticked = []
    for game_id, status, deadline, failures in due:
        if status == GorodGame.Status.SETUP:
            _start(game_id, now)
        elif _tick(game_id, deadline, failures, now):
            ticked.append(game_id)
    return ticked


def _start(game_id: int, now: datetime) -> None:
    """Start a game armed to start by itself (``GorodGame.auto_start``) whose announced time
    has come, stamped at that time (``services.game_start_scheduled``): a clock that was down
    starts it at once when it is back. A failure is retried at the next round."""
    try:
        services.game_start_scheduled(game=game_id, now=now)
    except Exception:  # noqa: BLE001 - one bad game must never stop the others
        log.exception("GoRoD clock: game %s failed to start; retry at the next round", game_id)


def _tick(game_id: int, deadline: datetime, failures: int, now: datetime) -> bool:
    retry_at = now + timedelta(seconds=backoff_s(failures + 1))
    claimed = GorodGame.objects.filter(pk=game_id, next_deadline=deadline).update(
        next_deadline=retry_at, clock_failures=failures + 1)
    if not claimed:
        return False  # another clock (or a write) moved it since we looked
    try:
        # The tick stores the engine's real next deadline and resets the failures.
        services.game_tick(game=game_id)
    except Exception:  # noqa: BLE001 - one bad game must never stop the others
        log.exception("GoRoD clock: game %s failed; retry at %s", game_id,
                      retry_at.isoformat())
        return False
    return True
