"""A phone's presence on the host's console: rows stored without the game's lock, and one
coalesced refresh (``core.coalesce``) for however many sockets opened or closed meanwhile."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config.asgi import application
from core import coalesce
from kingofhill import presence, realtime, selectors
from kingofhill.live import LIVE
from kingofhill.models import PhoneSocket
from live.messages import PUBLIC, team_audience
from live.store import stream_versions
from tests.kingofhill.test_consumers import ORIGIN, host_headers, team_headers
from tests.live_checks import Screen

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def window(settings):
    settings.PRESENCE_REFRESH_MS = 300
    cache.clear()
    yield 0.3
    cache.clear()


async def open_socket(path, headers=ORIGIN):
    """As ``test_consumers.open_socket``, with time for eight handshakes at once on a busy
    machine."""
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    communicator = Screen(communicator)
    return communicator, await communicator.receive_json_from(timeout=10)


async def _host_pushes(socket, quiet: float = 0.8) -> list[dict]:
    """Every push the host gets until it has been quiet for ``quiet`` seconds."""
    pushes = []
    while not await socket.receive_nothing(timeout=quiet):
        pushes.append(await socket.receive_json_from(timeout=5))
    return pushes


async def test_many_phones_connecting_at_once_reach_the_host_in_one_refresh(
        running, host, alpha, beta, window):
    host_socket, first = await open_socket(f"/ws/koth/{running.pk}/host/",
                                           await sync_to_async(host_headers)(host))
    assert first["state"]["host"]["connected"] == []
    headers = [await sync_to_async(team_headers)(team) for team in (alpha, beta) * 4]
    phones = await asyncio.gather(*(open_socket(f"/ws/koth/{running.pk}/team/", h)
                                    for h in headers))
    assert await sync_to_async(PhoneSocket.objects.count)() == 8
    await coalesce.drain()
    pushes = await _host_pushes(host_socket)
    # Eight sockets, one refresh (a second only if a connect missed the first window).
    assert 1 <= len(pushes) <= 2
    assert pushes[-1]["version"] == first["version"] + len(pushes)
    assert pushes[-1]["state"]["host"]["connected"] == ["Alpha", "Beta"]

    for socket, _first in phones:
        await socket.disconnect()
    await coalesce.drain()
    pushes = await _host_pushes(host_socket)
    assert 1 <= len(pushes) <= 2
    assert pushes[-1]["state"]["host"]["connected"] == []
    assert await sync_to_async(PhoneSocket.objects.count)() == 0
    await host_socket.disconnect()


async def test_a_phone_that_stays_keeps_its_team_connected_when_another_phone_leaves(
        running, host, alpha, window):
    host_socket, _first = await open_socket(f"/ws/koth/{running.pk}/host/",
                                            await sync_to_async(host_headers)(host))
    (one, _a), (two, _b) = [await open_socket(f"/ws/koth/{running.pk}/team/",
                                              await sync_to_async(team_headers)(alpha))
                            for _ in range(2)]
    await coalesce.drain()
    assert (await _host_pushes(host_socket))[-1]["state"]["host"]["connected"] == ["Alpha"]
    await one.disconnect()
    await coalesce.drain()
    # The team's list did not change: the refresh stores and pushes nothing.
    assert await _host_pushes(host_socket) == []
    await two.disconnect()
    await coalesce.drain()
    assert (await _host_pushes(host_socket))[-1]["state"]["host"]["connected"] == []
    await host_socket.disconnect()


def test_a_phone_opening_takes_no_lock_and_asks_for_one_refresh_per_window(
        running, alpha, window, settings):
    assert presence.phone_opened(game=running.pk, application=alpha.pk, channel="c1") is True
    # Within the window the refresh is already asked for.
    assert presence.phone_opened(game=running.pk, application=alpha.pk, channel="c2") is False
    assert presence.phone_closed(game=running.pk, channel="c2") is False
    # The same socket twice is one row.
    assert presence.phone_opened(game=running.pk, application=alpha.pk, channel="c1") is False
    assert PhoneSocket.objects.count() == 1
    # The refresh releases the claim before it reads: the next change asks again. (The window
    # it waits is made short here: the claim stands as it was made.)
    settings.PRESENCE_REFRESH_MS = 1

    async def the_window_passes():
        presence.PRESENCE.schedule(running.pk)
        await coalesce.drain()

    async_to_sync(the_window_passes)()
    settings.PRESENCE_REFRESH_MS = int(window * 1000)
    assert presence.phone_opened(game=running.pk, application=alpha.pk, channel="c3") is True


def test_a_presence_refresh_changes_only_the_hosts_list_and_pushes_only_it(
        running, alpha, beta):
    selectors.forget_closed()  # the refresh needs no kept board either
    before = stream_versions(running.pk)
    PhoneSocket.objects.create(koth=running, application=beta, channel="b1",
                               opened_at=running.started_at)
    with CaptureQueriesContext(connection) as queries:
        presence.presence_refresh(game=running.pk)
    after = stream_versions(running.pk)
    assert after[realtime.HOST] == before[realtime.HOST] + 1
    assert {a: v for a, v in after.items() if a != realtime.HOST} == {
        a: v for a, v in before.items() if a != realtime.HOST}
    assert selectors.read_state(running, kind="host")["state"]["host"]["connected"] == ["Beta"]
    # Lock, the stored host part, the teams, the sockets, the stream's parts, replace, bump.
    assert len(queries) <= 10, [q["sql"] for q in queries]
    # Nothing changed since: no version.
    presence.presence_refresh(game=running.pk)
    assert stream_versions(running.pk) == after
    assert PUBLIC in after and team_audience(alpha.pk) in after


def test_the_hosts_list_after_a_refresh_is_what_a_full_build_gives(running, host, alpha, beta):
    PhoneSocket.objects.create(koth=running, application=alpha, channel="a1",
                               opened_at=running.started_at)
    presence.presence_refresh(game=running.pk)
    patched = selectors.read_state(running, kind="host")["state"]
    LIVE.refresh(game=running.pk)
    assert selectors.read_state(running, kind="host")["state"] == patched


def test_a_refresh_without_a_cache_happens_at_once(running, alpha, window, monkeypatch):
    def down(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "add", down)
    before = stream_versions(running.pk)[realtime.HOST]
    assert presence.phone_opened(game=running.pk, application=alpha.pk, channel="c1") is False
    state = selectors.read_state(running, kind="host")
    assert state["version"] == before + 1 and state["state"]["host"]["connected"] == ["Alpha"]


def test_a_refresh_of_a_game_that_is_gone_is_quiet(running, window, caplog):
    game = running.pk
    running.game.delete()
    presence.PRESENCE.run(game)
    assert "failed" not in caplog.text
