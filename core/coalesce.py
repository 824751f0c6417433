"""Many small changes, one live write: a refresh that any number of changes ask for and that
runs once per window.

Why: a King of the Hill phone's socket opening or closing changes one line of the host's
console (which teams are connected). As a write of its own, 1 000 phones connecting at once
were 1 000 live writes queued on the game's lock, each rebuilding the host's state, and the
host's next action waited behind all of them. Now a change stores its own row without the lock
and asks for the refresh; the first to ask in a window schedules it ``PRESENCE_REFRESH_MS``
later, the others find it scheduled, and the one write then reads every row committed by then.

The claim lives in the cache (Redis when there are several workers, so they share it). The
refresh releases the claim *before* it reads: a change committed after the read finds no claim
and schedules the next refresh, and one committed before it is read — none is lost. A claim
whose worker died expires after a few windows. With ``PRESENCE_REFRESH_MS = 0`` every change
refreshes at once, in its own call (the tests' default: no timer outlives a test).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from channels.db import database_sync_to_async
from django.conf import settings
from django.core.cache import cache

from core import realtime
from core.errors import DomainError

log = logging.getLogger(__name__)

# Scheduled refreshes, kept referenced until done (the event loop keeps only weak references).
_PENDING: set[asyncio.Task] = set()


def window_s() -> float:
    return max(0, settings.PRESENCE_REFRESH_MS) / 1000


@dataclass(frozen=True)
class Coalesced:
    """``refresh(game_id)`` (sync: a live write) run once per window however many ask."""

    name: str
    refresh: Callable[[int], object]

    def key(self, game_id: int) -> str:
        return f"coalesce:{self.name}:{game_id}"

    def ask(self, game_id: int, *, now: bool = True) -> bool:
        """Sync, after the change is stored: True when the caller must ``schedule`` the
        refresh (the first to ask in this window); with no window, refresh now — or, with
        ``now=False``, always leave it to ``schedule``."""
        window = window_s()
        if window == 0:
            if not now:
                return True
            self.run(game_id)
            return False
        try:
            return cache.add(self.key(game_id), 1, timeout=max(5, int(window * 5)))
        except Exception:  # noqa: BLE001 - the cache is down: refresh now, as with no window
            log.warning("%s: no cache for the claim; refreshing game %s now", self.name, game_id)
            self.run(game_id)
            return False

    def schedule(self, game_id: int) -> None:
        """From async code (a consumer): run the refresh one window from now, in a thread."""
        task = asyncio.get_running_loop().create_task(self._later(game_id, window_s()))
        _PENDING.add(task)
        task.add_done_callback(_PENDING.discard)

    async def _later(self, game_id: int, delay: float) -> None:
        await asyncio.sleep(delay)
        await database_sync_to_async(self._release_and_run)(game_id)

    def _release_and_run(self, game_id: int) -> None:
        cache.delete(self.key(game_id))  # before the read: see the module's docstring
        self.run(game_id)

    def run(self, game_id: int) -> None:
        try:
            self.refresh(game_id)
        except DomainError:
            pass  # the game is gone: nothing to show
        except Exception:  # noqa: BLE001 - a refresh is best effort; the next change retries
            log.exception("%s refresh of game %s failed", self.name, game_id)


async def drain() -> None:
    """Wait for every refresh scheduled on this loop and for the pushes it handed to the loop's
    sender (tests: a loop closed while its sender is sending cancels it mid-send)."""
    loop = asyncio.get_running_loop()
    while pending := [task for task in _PENDING if task.get_loop() is loop]:
        await asyncio.gather(*pending, return_exceptions=True)
    await realtime.flush()
