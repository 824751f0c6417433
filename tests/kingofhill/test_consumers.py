"""The three sockets against the real router: each group gets its own state, and only that."""

from __future__ import annotations

import uuid

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from kingofhill import selectors, services
from tests.kingofhill.conftest import join_session
from tests.live_checks import Screen

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]


def cookie_headers(client: Client) -> list[tuple[bytes, bytes]]:
    cookie = "; ".join(f"{k}={v.value}" for k, v in client.cookies.items())
    return ORIGIN + [(b"cookie", cookie.encode())]


def host_headers(user):
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
    assert first["type"] == "koth.state"
    return communicator, first


async def test_the_public_socket_sends_the_state_on_connect_and_after_each_write(running, host):
    socket, first = await open_socket(f"/ws/koth/{running.pk}/public/")
    assert first["state"]["question"]["phase"] == "declaring"
    await sync_to_async(services.question_announce)(actor=host, game=running.pk)
    pushed = await socket.receive_json_from(timeout=5)
    assert pushed["version"] == first["version"] + 1
    assert pushed["state"]["question"]["phase"] == "answering"
    assert "host" not in pushed["state"] and "me" not in pushed["state"]
    await socket.disconnect()


async def test_the_host_socket_is_refused_to_an_anonymous_or_non_host_user(running, outsider):
    for headers in (ORIGIN, await sync_to_async(host_headers)(outsider)):
        socket = WebsocketCommunicator(application, f"/ws/koth/{running.pk}/host/",
                                       headers=headers)
        connected, _ = await socket.connect()
        assert connected  # accepted only to say why
        closing = await socket.receive_output(timeout=5)
        assert closing == {"type": "websocket.close", "code": 4403}


async def test_the_team_socket_needs_the_team_binding(running):
    socket = WebsocketCommunicator(application, f"/ws/koth/{running.pk}/team/", headers=ORIGIN)
    await socket.connect()
    assert (await socket.receive_output(timeout=5))["code"] == 4403


async def test_an_unknown_game_closes_the_socket(db):
    socket = WebsocketCommunicator(application, "/ws/koth/987654/public/", headers=ORIGIN)
    await socket.connect()
    assert (await socket.receive_output(timeout=5))["code"] == 4404


async def test_each_group_gets_its_own_state_and_a_team_never_sees_another_teams_answer(
        running, host, alpha, beta):
    host_socket, _ = await open_socket(f"/ws/koth/{running.pk}/host/",
                                       await sync_to_async(host_headers)(host))
    public_socket, _ = await open_socket(f"/ws/koth/{running.pk}/public/")
    alpha_socket, a0 = await open_socket(f"/ws/koth/{running.pk}/team/",
                                         await sync_to_async(team_headers)(alpha))
    beta_socket, b0 = await open_socket(f"/ws/koth/{running.pk}/team/",
                                        await sync_to_async(team_headers)(beta))
    assert a0["state"]["me"]["team"] == "Alpha" and b0["state"]["me"]["team"] == "Beta"
    # Each phone's presence reaches the host, and only the host.
    assert (await host_socket.receive_json_from(timeout=5))["state"]["host"]["connected"] == [
        "Alpha"]
    assert (await host_socket.receive_json_from(timeout=5))["state"]["host"]["connected"] == [
        "Alpha", "Beta"]
    assert await public_socket.receive_nothing(timeout=0.2)

    await sync_to_async(services.question_announce)(actor=host, game=running.pk)
    announced = {}
    for name, socket in (("host", host_socket), ("public", public_socket),
                         ("alpha", alpha_socket), ("beta", beta_socket)):
        announced[name] = await socket.receive_json_from(timeout=5)
    assert announced["alpha"]["version"] == a0["version"] + 1
    await sync_to_async(services.answer_submit)(
        game=running.pk, application=beta, text="секрет беты", client_id=uuid.uuid4())

    # The answer goes to the host, the projector and Beta; Alpha's view did not change.
    to_host = await host_socket.receive_json_from(timeout=5)
    to_public = await public_socket.receive_json_from(timeout=5)
    to_beta = await beta_socket.receive_json_from(timeout=5)
    assert to_host["version"] == announced["host"]["version"] + 1
    assert to_public["version"] == announced["public"]["version"] + 1
    assert to_beta["version"] == announced["beta"]["version"] + 1  # Beta's own stream
    assert to_host["state"]["host"]["groups"][0]["teams"] == ["Beta"]
    assert to_host["state"]["host"]["answered"] == 1
    assert to_public["state"]["question"]["answered"] == 1
    assert to_beta["state"]["me"]["answer"]["text"] == "секрет беты"
    assert "answered" not in to_beta["state"]["question"]
    assert "moves" not in to_public["state"]["board"] and "moves" not in to_beta["state"]["board"]
    assert await alpha_socket.receive_nothing(timeout=0.2)
    for socket in (host_socket, public_socket, alpha_socket, beta_socket):
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()


async def test_a_team_that_heard_nothing_of_others_answers_sees_no_gap_at_the_close(
        running, host, alpha, beta):
    """Alpha's stream skips Beta's answer and the judging, so the close arrives as exactly its
    next version (no needless resync), and a resync then answers that same version."""
    alpha_socket, a0 = await open_socket(f"/ws/koth/{running.pk}/team/",
                                         await sync_to_async(team_headers)(alpha))
    await sync_to_async(services.question_announce)(actor=host, game=running.pk)
    announced = await alpha_socket.receive_json_from(timeout=5)
    await sync_to_async(services.answer_submit)(
        game=running.pk, application=beta, text="Пушкин", client_id=uuid.uuid4())
    await sync_to_async(services.answers_judge)(
        actor=host, game=running.pk, question=1, normalized="пушкин", verdict=True)
    assert await alpha_socket.receive_nothing(timeout=0.2)
    await sync_to_async(services.question_close)(actor=host, game=running.pk)
    closed = await alpha_socket.receive_json_from(timeout=5)
    assert closed["version"] == announced["version"] + 1
    assert closed["state"]["board"]["question"] == 1
    assert closed["state"]["question"]["number"] == 2
    # A reconnect (or an HTTP resync) gets the same stream's version and state.
    again, fresh = await open_socket(f"/ws/koth/{running.pk}/team/",
                                     await sync_to_async(team_headers)(alpha))
    assert (fresh["version"], fresh["state"]) == (closed["version"], closed["state"])
    for socket in (alpha_socket, again):
        await socket.disconnect()


def api_post(client: Client, koth, action: str, body: dict) -> dict:
    response = client.post(f"/koth/api/games/{koth.pk}/{action}/", body,
                           content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()


async def test_an_earlier_verdict_or_partner_mark_changed_through_the_api_updates_every_screen(
        running, host, alpha, beta):
    """Question 1 is played (Beta wrong) and question 2 announced; the host then flips Beta's
    old verdict and marks question 1 a partner question through the HTTP API: the board is
    recomputed and the host, the projector and both phones each get it as their next version."""
    await sync_to_async(services.question_announce)(actor=host, game=running.pk)
    await sync_to_async(services.answer_submit)(
        game=running.pk, application=alpha, text="Пушкин", client_id=uuid.uuid4())
    beta_answer = await sync_to_async(services.answer_submit)(
        game=running.pk, application=beta, text="Гоголь", client_id=uuid.uuid4())
    for text, verdict in (("пушкин", True), ("гоголь", False)):
        await sync_to_async(services.answers_judge)(
            actor=host, game=running.pk, question=1, normalized=text, verdict=verdict)
    await sync_to_async(services.question_close)(actor=host, game=running.pk)
    await sync_to_async(services.question_announce)(actor=host, game=running.pk)

    sockets = {
        "host": await open_socket(f"/ws/koth/{running.pk}/host/",
                                  await sync_to_async(host_headers)(host)),
        "public": await open_socket(f"/ws/koth/{running.pk}/public/"),
        "alpha": await open_socket(f"/ws/koth/{running.pk}/team/",
                                   await sync_to_async(team_headers)(alpha)),
        "beta": await open_socket(f"/ws/koth/{running.pk}/team/",
                                  await sync_to_async(team_headers)(beta)),
    }
    versions = {name: first["version"] for name, (_socket, first) in sockets.items()}
    for _phone in ("alpha", "beta"):  # the phones' presence, told to the host
        versions["host"] = (await sockets["host"][0].receive_json_from(timeout=5))["version"]
    host_client = Client()
    await sync_to_async(host_client.force_login)(host)

    async def everyone_gets_the_next_version() -> dict:
        pushed = {}
        for name, (socket, _first) in sockets.items():
            pushed[name] = await socket.receive_json_from(timeout=5)
            assert pushed[name]["version"] == versions[name] + 1, name
            versions[name] = pushed[name]["version"]
            assert await socket.receive_nothing(timeout=0.1)  # one message per change
        return pushed

    def beta_on(state) -> tuple:
        row = next(t for t in state["board"]["teams"] if t["team"] == "Beta")
        return row["step"], row["points"]

    assert beta_on(sockets["public"][1]["state"]) == (0, 0)
    await sync_to_async(api_post)(host_client, running, "verdict",
                                  {"answer": beta_answer.pk, "verdict": True})
    pushed = await everyone_gets_the_next_version()
    for name in ("host", "public", "alpha", "beta"):
        assert beta_on(pushed[name]["state"]) == (1, 1), name
        assert pushed[name]["state"]["question"]["number"] == 2  # the open question stays
    assert pushed["beta"]["state"]["me"]["step"] == 1
    history = pushed["host"]["state"]["host"]["history"]
    assert {a["team"]: a["verdict"] for a in history[0]["answers"]} == {"Alpha": True,
                                                                         "Beta": True}

    await sync_to_async(api_post)(host_client, running, "partner",
                                  {"question": 1, "partner": True})
    pushed = await everyone_gets_the_next_version()
    for name in ("host", "public", "alpha", "beta"):
        assert beta_on(pushed[name]["state"]) == (1, 2), name
    assert pushed["alpha"]["state"]["me"]["points"] == 2
    assert "host" not in pushed["alpha"]["state"] and "me" not in pushed["public"]["state"]
    for socket, _first in sockets.values():
        await socket.disconnect()


async def test_a_team_is_connected_while_one_of_its_phones_has_its_socket_open(
        running, host, alpha, beta):
    host_socket, first = await open_socket(f"/ws/koth/{running.pk}/host/",
                                           await sync_to_async(host_headers)(host))
    assert first["state"]["host"]["connected"] == []
    headers = await sync_to_async(team_headers)(alpha)
    phone1, _ = await open_socket(f"/ws/koth/{running.pk}/team/", headers)
    assert (await host_socket.receive_json_from(timeout=5))["state"]["host"]["connected"] == [
        "Alpha"]
    # A second phone of the same team, then the first one leaving: still connected, no news.
    phone2, _ = await open_socket(f"/ws/koth/{running.pk}/team/", headers)
    await phone1.disconnect()
    assert await host_socket.receive_nothing(timeout=0.3)
    assert await sync_to_async(lambda: selectors.read_state(
        running, kind="host")["state"]["host"]["connected"])() == ["Alpha"]
    await phone2.disconnect()
    assert (await host_socket.receive_json_from(timeout=5))["state"]["host"]["connected"] == []
    await host_socket.disconnect()
