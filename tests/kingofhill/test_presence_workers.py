"""The coalesced presence refresh (``core.coalesce``) across two running workers on PostgreSQL and
Redis: the claim lives in the shared cache, so phones connecting through both workers at once
reach the host's console in a few refreshes, not one live write each, and none is lost; and a
worker killed with phones connected leaves rows that expire after the lease (the other worker's
heartbeat), while the other worker's phones stay."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from kingofhill import realtime
from kingofhill.models import PhoneSocket
from live.store import stream_versions
from tests.conftest import need_postgresql_and_redis
from tests.kingofhill.test_concurrency import set_up_evening
from tests.servers import WebSocket, parallel, server_env, start_workers

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

WINDOW_MS = 400


@pytest.fixture(scope="module")
def workers(request, django_db_setup, django_db_blocker):
    """Two workers that coalesce presence refreshes as deployed (a window, the claim in Redis)."""
    need_postgresql_and_redis()
    env = server_env(DEBUG="true", SCHEDULER_IN_PROCESS="false",
                     PRESENCE_REFRESH_MS=str(WINDOW_MS))
    started = start_workers(2, env, name="workers-presence")
    yield started
    started.stop()


def host_connected(evening) -> list[str]:
    return evening.live()["host"]["connected"]


def wait_for(check, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def test_phones_connecting_through_both_workers_at_once_reach_the_host_in_few_refreshes(workers):
    evening = set_up_evening(workers, 12)
    before = stream_versions(evening.id)[realtime.HOST]
    # Three phones per team's session, spread over both workers, all at once.
    sockets = parallel([
        lambda i=i: WebSocket(workers.urls[i % 2], f"/ws/koth/{evening.id}/team/",
                              browser=evening.phones[i % 12])
        for i in range(36)])
    try:
        names = sorted(entry.team.name for entry in evening.entries)
        assert wait_for(lambda: sorted(host_connected(evening)) == names), host_connected(evening)
        # The list is whole once each team has one socket in; the last sockets may still be
        # storing theirs.
        assert wait_for(lambda: PhoneSocket.objects.filter(koth_id=evening.id).count() == 36)
        # One refresh per window per claim, shared by both workers: far fewer host versions
        # than sockets (one live write each would be 36; seen here: 1).
        refreshes = stream_versions(evening.id)[realtime.HOST] - before
        assert 1 <= refreshes <= 4, refreshes
    finally:
        for ws in sockets:
            ws.close()
    # All gone through both workers: the host's list empties, as one more coalesced refresh.
    assert wait_for(lambda: host_connected(evening) == []), host_connected(evening)
    assert PhoneSocket.objects.filter(koth_id=evening.id).count() == 0


HEARTBEAT_MS, LEASE_MS = 200, 1000


@pytest.fixture
def leased_workers(django_db_setup, django_db_blocker):
    """Two workers with a short presence lease; the test kills one of them."""
    need_postgresql_and_redis()
    env = server_env(DEBUG="true", SCHEDULER_IN_PROCESS="false", PRESENCE_REFRESH_MS="200",
                     PRESENCE_HEARTBEAT_MS=str(HEARTBEAT_MS), PRESENCE_LEASE_MS=str(LEASE_MS))
    started = start_workers(2, env, name="workers-lease")
    yield started
    started.stop()


def test_a_crashed_workers_phones_leave_the_console_after_the_lease_and_the_others_stay(
        leased_workers):
    evening = set_up_evening(leased_workers, 2)
    sockets = [WebSocket(leased_workers.urls[i], f"/ws/koth/{evening.id}/team/",
                         browser=evening.phones[i]) for i in range(2)]
    names = {i: evening.entries[i].team.name for i in range(2)}
    assert wait_for(lambda: sorted(host_connected(evening)) == sorted(names.values()))
    # Worker 1 dies with its phone's socket open: no close, its row stays behind.
    leased_workers.procs[1].kill()
    leased_workers.procs[1].wait(timeout=10)
    assert PhoneSocket.objects.filter(koth_id=evening.id).count() == 2
    assert wait_for(lambda: host_connected(evening) == [names[0]]), host_connected(evening)
    # Worker 0's phone is still connected several leases after it opened: its heartbeat.
    row = PhoneSocket.objects.get(koth_id=evening.id)
    assert wait_for(lambda: PhoneSocket.objects.get(pk=row.pk).seen_at - row.opened_at
                    > timedelta(milliseconds=3 * LEASE_MS))
    assert host_connected(evening) == [names[0]]
    sockets[0].close()
