"""Atomic limit counters: parallel hits all count, on the local cache and on Redis."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from core import limits


@pytest.fixture(params=["locmem", "redis"])
def cache(request, monkeypatch):
    """The counters on the per-process cache and on Redis (what several workers share)."""
    if request.param == "redis":
        from django.core.cache.backends.redis import RedisCache

        backend = RedisCache(request.getfixturevalue("redis_url"), {"KEY_PREFIX": "test-limits"})
    else:
        from django.core.cache.backends.locmem import LocMemCache

        backend = LocMemCache("test-limits", {})
    monkeypatch.setattr(limits, "cache", backend)
    backend.clear()
    yield backend
    backend.clear()


def test_parallel_reservations_each_get_their_own_number(cache):
    def hit(_):
        return limits.reserve("k", limit=25, window=60).used

    with ThreadPoolExecutor(max_workers=16) as pool:
        numbers = sorted(pool.map(hit, range(100)))
    assert numbers == list(range(1, 101))
    assert limits.peek("k", limit=25, window=60).used == 100


def test_exactly_the_limit_passes_and_the_rest_are_exceeded(cache):
    with ThreadPoolExecutor(max_workers=16) as pool:
        counts = list(pool.map(lambda _: limits.reserve("k", limit=10, window=60), range(40)))
    assert sum(not c.exceeded for c in counts) == 10


def test_a_refund_gives_the_attempt_back(cache):
    count = limits.reserve("k", limit=1, window=60)
    limits.refund(count)
    assert not limits.reserve("k", limit=1, window=60).exceeded


def test_the_window_closes_after_its_length(cache):
    for _ in range(3):
        limits.reserve("k", limit=2, window=60, now=1000.0)
    assert limits.peek("k", limit=2, window=60, now=1030.0).retry_after == 30
    assert limits.reserve("k", limit=2, window=60, now=1060.0).used == 1


def test_clear_starts_afresh(cache):
    for _ in range(3):
        limits.reserve("k", limit=2, window=60)
    limits.clear("k")
    assert limits.peek("k", limit=2, window=60).used == 0
    assert limits.reserve("k", limit=2, window=60).used == 1
