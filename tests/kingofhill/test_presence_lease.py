"""A phone's presence is a lease (``kingofhill.presence``): the worker holding a socket open
refreshes its row every heartbeat, and a row no worker refreshed for the lease — its worker
crashed — is a socket gone, so the host's console shows the team disconnected without the
team reconnecting. A live socket is never shown as gone, however long it stays."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from core import coalesce
from kingofhill import presence, selectors
from kingofhill.models import PhoneSocket
from tests.kingofhill.test_consumers import host_headers, team_headers
from tests.kingofhill.test_presence import open_socket

pytestmark = pytest.mark.django_db(transaction=True)

HEARTBEAT_MS, LEASE_MS = 100, 400


@pytest.fixture
def short_lease(settings):
    settings.PRESENCE_HEARTBEAT_MS = HEARTBEAT_MS
    settings.PRESENCE_LEASE_MS = LEASE_MS


def connected(koth) -> list[str]:
    return selectors.read_state(koth, kind="host")["state"]["host"]["connected"]


def crashed_worker_left(koth, application, channel="dead-worker!phone") -> None:
    """What a worker that crashed leaves: its socket's row, stored as every open stores it,
    and never a close."""
    presence.phone_opened(game=koth.pk, application=application.pk, channel=channel)


async def test_a_crashed_workers_phone_shows_as_gone_after_the_lease_and_a_live_one_stays(
        running, host, alpha, beta, short_lease):
    host_socket, first = await open_socket(f"/ws/koth/{running.pk}/host/",
                                           await sync_to_async(host_headers)(host))
    phone, _state = await open_socket(f"/ws/koth/{running.pk}/team/",
                                      await sync_to_async(team_headers)(beta))
    await sync_to_async(crashed_worker_left)(running, alpha)
    await coalesce.drain()
    assert await sync_to_async(connected)(running) == ["Alpha", "Beta"]
    beta_opened = (await sync_to_async(PhoneSocket.objects.get)(application=beta)).opened_at

    # The console learns that Alpha is gone, pushed, while Beta's phone stays connected.
    seen = []
    while ["Alpha", "Beta"] not in seen:  # the pushes of the connects first
        seen.append((await host_socket.receive_json_from(timeout=10))["state"]["host"]["connected"])
    seen = []
    while not seen or seen[-1] != ["Beta"]:
        seen.append((await host_socket.receive_json_from(timeout=10))["state"]["host"]["connected"])
    assert seen == [["Beta"]], seen
    assert not await sync_to_async(PhoneSocket.objects.filter(
        channel="dead-worker!phone").exists)()

    # Beta's socket outlives several leases: its worker's heartbeat keeps the row fresh.
    async def beta_seen():
        row = await sync_to_async(PhoneSocket.objects.get)(application=beta)
        return row.seen_at - beta_opened

    while await beta_seen() < timedelta(milliseconds=3 * LEASE_MS):
        assert await host_socket.receive_nothing(timeout=HEARTBEAT_MS / 1000)
        await coalesce.drain()
    assert await sync_to_async(connected)(running) == ["Beta"]

    await phone.disconnect()
    await coalesce.drain()
    assert (await host_socket.receive_json_from(timeout=10))["state"]["host"]["connected"] == []
    await host_socket.disconnect()
    assert presence.BEATS.sockets == {} and presence.BEATS.task is None


def test_only_rows_older_than_the_lease_expire_and_their_games_console_follows(
        running, alpha, beta, gamma, settings):
    settings.PRESENCE_LEASE_MS = 60_000
    now = timezone.now()
    for entry, age in ((alpha, 61), (beta, 59)):
        PhoneSocket.objects.create(koth=running, application=entry, channel=f"c{entry.pk}",
                                   opened_at=now - timedelta(hours=1),
                                   seen_at=now - timedelta(seconds=age))
    presence.presence_refresh(game=running.pk)
    assert connected(running) == ["Alpha", "Beta"]
    assert presence.phones_expire(now) == [running.pk]
    assert list(PhoneSocket.objects.values_list("application", flat=True)) == [beta.pk]
    presence.PRESENCE.run(running.pk)
    assert connected(running) == ["Beta"]
    # Nothing stale left: nothing to refresh.
    assert presence.phones_expire(now) == []


def test_a_beat_refreshes_this_workers_phones_and_restores_a_row_expired_meanwhile(
        running, alpha, beta, settings):
    settings.PRESENCE_LEASE_MS = 60_000
    beats = presence.Beats()
    beats.sockets = {"mine-a": (running.pk, alpha.pk), "mine-b": (running.pk, beta.pk),
                     "host": None}
    then = timezone.now() - timedelta(seconds=50)
    for channel, entry in (("mine-a", alpha), ("mine-b", beta)):
        PhoneSocket.objects.create(koth=running, application=entry, channel=channel,
                                   opened_at=then, seen_at=then)
    # This worker stalled past the lease and another one expired Beta's row meanwhile.
    PhoneSocket.objects.filter(channel="mine-b").delete()
    now = timezone.now()
    beats.beat(now)
    rows = dict(PhoneSocket.objects.values_list("channel", "seen_at"))
    assert set(rows) == {"mine-a", "mine-b"}
    assert rows["mine-a"] == now
    assert connected(running) == ["Alpha", "Beta"]


async def test_a_console_opened_after_a_crash_drops_the_rows_it_left_without_waiting_a_beat(
        running, host, alpha, settings):
    settings.PRESENCE_LEASE_MS = 60_000  # the heartbeat stays 20 s: longer than this test waits
    long_ago = timezone.now() - timedelta(minutes=5)
    await sync_to_async(PhoneSocket.objects.create)(
        koth=running, application=alpha, channel="dead-worker!old", opened_at=long_ago,
        seen_at=long_ago)
    await sync_to_async(presence.presence_refresh)(game=running.pk)
    host_socket, first = await open_socket(f"/ws/koth/{running.pk}/host/",
                                           await sync_to_async(host_headers)(host))
    assert first["state"]["host"]["connected"] == ["Alpha"]
    await coalesce.drain()
    push = await host_socket.receive_json_from(timeout=5)
    assert push["state"]["host"]["connected"] == []
    await host_socket.disconnect()
