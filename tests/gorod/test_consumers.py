"""The three GoRoD sockets against the real router, and the clock pushing at a deadline."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from config.asgi import application
from gorod import clock, services
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import join_session
from tests.live_checks import Screen

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]


def cookie_headers(client: Client) -> list[tuple[bytes, bytes]]:
    cookie = "; ".join(f"{k}={v.value}" for k, v in client.cookies.items())
    return ORIGIN + [(b"cookie", cookie.encode())]


def login_headers(user):
    client = Client()
    client.force_login(user)
    return cookie_headers(client)


def team_headers(entry):
    client = Client()
    join_session(client, entry)
    return cookie_headers(client)


async def open_socket(path, headers=ORIGIN):
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    communicator = Screen(communicator)  # follows the deltas as the page does
    first = await communicator.receive_json_from(timeout=5)
    assert first["type"] == "gorod.state"
    return communicator, first


async def test_an_unknown_game_closes_the_socket(db):
    socket = WebsocketCommunicator(application, "/ws/gorod/987654/public/", headers=ORIGIN)
    await socket.connect()
    assert (await socket.receive_output(timeout=5))["code"] == 4404


async def test_the_organizer_socket_is_refused_to_others(live, outsider):
    for headers in (ORIGIN, await sync_to_async(login_headers)(outsider)):
        socket = WebsocketCommunicator(application, f"/ws/gorod/{live.pk}/organizer/",
                                       headers=headers)
        await socket.connect()
        assert (await socket.receive_output(timeout=5))["code"] == 4403


async def test_the_team_socket_needs_the_team_binding(live):
    socket = WebsocketCommunicator(application, f"/ws/gorod/{live.pk}/team/", headers=ORIGIN)
    await socket.connect()
    assert (await socket.receive_output(timeout=5))["code"] == 4403


async def test_a_code_goes_to_its_team_and_the_organizer_only(live, organizer, alpha, beta):
    org, _ = await open_socket(f"/ws/gorod/{live.pk}/organizer/",
                               await sync_to_async(login_headers)(organizer))
    mine, first = await open_socket(f"/ws/gorod/{live.pk}/team/",
                                    await sync_to_async(team_headers)(alpha))
    other, _ = await open_socket(f"/ws/gorod/{live.pk}/team/",
                                 await sync_to_async(team_headers)(beta))
    assert first["state"]["me"]["level"]["label"] == "1"
    await sync_to_async(services.code_submit)(game=live.pk, application=alpha, text="G1R1D")
    pushed = await mine.receive_json_from(timeout=5)
    assert pushed["version"] == first["version"] + 1
    assert pushed["state"]["me"]["level"]["label"] == "2"
    seen = await org.receive_json_from(timeout=5)
    assert seen["state"]["attempts"][0]["text"] == "G1R1D"
    assert await other.receive_nothing(timeout=0.3)
    for socket in (org, mine, other):
        await socket.disconnect()


async def test_the_clock_pushes_the_hint_at_its_deadline_and_only_to_whom_it_changed(
        gorod, organizer, alpha):
    # The time is injected: the game started 25 min before the clock's round, so hint 1 is
    # due exactly then; nothing waits on the real clock.
    start = timezone.now() - timedelta(minutes=30)
    await sync_to_async(services.game_start)(actor=organizer, game=gorod, now=start)
    mine, first = await open_socket(f"/ws/gorod/{gorod.pk}/team/",
                                     await sync_to_async(team_headers)(alpha))
    public, _ = await open_socket(f"/ws/gorod/{gorod.pk}/public/")
    assert first["state"]["me"]["level"]["hints"] == []
    assert await sync_to_async(clock.run_due)(start + timedelta(minutes=25)) == [gorod.pk]
    pushed = await mine.receive_json_from(timeout=5)
    assert pushed["version"] == first["version"] + 1
    assert [h["text"] for h in pushed["state"]["me"]["level"]["hints"]] == ["Near water"]
    assert await public.receive_nothing(timeout=0.3)  # a hint is not the public's news
    await mine.disconnect()
    await public.disconnect()


async def test_the_gorod_clock_command_applies_a_deadline_it_missed_at_once(
        gorod, organizer, alpha):
    """A clock started (or restarted) after a deadline pushes it in its first round."""
    start = timezone.now() - timedelta(minutes=26)
    await sync_to_async(services.game_start)(actor=organizer, game=gorod, now=start)
    mine, first = await open_socket(f"/ws/gorod/{gorod.pk}/team/",
                                     await sync_to_async(team_headers)(alpha))
    await sync_to_async(call_command)("gorod_clock", "--once")
    pushed = await mine.receive_json_from(timeout=5)
    assert [h["text"] for h in pushed["state"]["me"]["level"]["hints"]] == ["Near water"]
    await mine.disconnect()
