"""Counters that limit how often something may fail (wrong PINs), shared by every worker.

A counter lives in Django's cache (Redis when ``REDIS_URL`` is set, so every worker sees the
same count) and changes only through the cache's atomic ``add``/``incr``: parallel requests
each get their own number, none reads a stale count and slips past the limit. A window opens
at the first hit under a key and closes ``window`` seconds later.

A caller *reserves* an attempt before doing the work (``reserve``) and gives it back when the
attempt turned out fine (``refund``), so a burst of parallel guesses is counted before any of
them is checked.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.core.cache import cache


@dataclass(frozen=True)
class Count:
    used: int
    limit: int
    #: seconds until the window closes (0 when nothing is counted)
    retry_after: int
    #: the cache key of this window's counter (for ``refund``)
    key: str = ""

    @property
    def exceeded(self) -> bool:
        """This attempt is past the limit."""
        return self.used > self.limit

    @property
    def spent(self) -> bool:
        """No attempt is left in the window."""
        return self.used >= self.limit


def _window_start(key: str, window: int, now: float, *, open_one: bool) -> float | None:
    since_key = f"{key}:since"
    if open_one:
        cache.add(since_key, now, timeout=window)
    since = cache.get(since_key)
    if not isinstance(since, (int, float)) or now - since >= window:
        # Gone, or the clock the caller passed ran past it (the cache's TTL runs on real time).
        if not open_one:
            return None
        cache.set(since_key, now, timeout=window)
        since = now
    return float(since)


def _counter_key(key: str, since: float) -> str:
    return f"{key}:{int(since * 1000)}"


def reserve(key: str, *, limit: int, window: int, now: float | None = None) -> Count:
    """Count one attempt under ``key``; ``exceeded`` says whether it is past ``limit``."""
    now = time.time() if now is None else now
    since = _window_start(key, window, now, open_one=True)
    counter = _counter_key(key, since)
    cache.add(counter, 0, timeout=window)
    try:
        used = cache.incr(counter)
    except ValueError:  # expired between add and incr: this attempt opens the next window
        cache.add(counter, 1, timeout=window)
        used = 1
    return Count(used=used, limit=limit, retry_after=max(int(since + window - now), 0), key=counter)


def refund(count: Count) -> None:
    """Give back the attempt ``count`` reserved (it succeeded)."""
    try:
        cache.decr(count.key)
    except ValueError:
        pass  # the window closed meanwhile: nothing to give back


def peek(key: str, *, limit: int, window: int, now: float | None = None) -> Count:
    """The count under ``key`` now, without changing it."""
    now = time.time() if now is None else now
    since = _window_start(key, window, now, open_one=False)
    if since is None:
        return Count(used=0, limit=limit, retry_after=0)
    counter = _counter_key(key, since)
    used = cache.get(counter)
    used = used if isinstance(used, int) else 0
    return Count(used=used, limit=limit, retry_after=max(int(since + window - now), 0), key=counter)


def clear(key: str) -> None:
    """Forget the window under ``key`` (an organizer lifted the limit)."""
    since = cache.get(f"{key}:since")
    doomed = [f"{key}:since"]
    if isinstance(since, (int, float)):
        doomed.append(_counter_key(key, since))
    cache.delete_many(doomed)
