"""The Redis channel layer against real servers: an idle socket stays open, and a Redis outage
loses no submission and is followed by working writes and pushes.

Both tests run real daphne processes; the outage test starts its own redis-server on a free
loopback port (the shared one is never stopped) and serves on PostgreSQL.
"""

from __future__ import annotations

import os
import time
import uuid

import pytest

from gorod.models import CodeAttempt
from kingofhill.models import Answer
from live.delta import patch
from tests.conftest import need, need_postgresql_and_redis, settle_server
from tests.gorod.test_concurrency import set_up_night
from tests.kingofhill.test_concurrency import set_up_evening
from tests.servers import (
    RedisServer,
    SocketClosed,
    WebSocket,
    manage,
    redis_server_binary,
    server_env,
    start_workers,
)

pytestmark = pytest.mark.services

# redis-py's old default read timeout was 5 s: sockets died after 5–11 s of silence. The
# worker reads with a 2 s timeout (its idle check at 1 s), so the silence lasts over two read
# timeouts, as 22 s did over the default 20 s, without the wait.
READ_TIMEOUT_S = 2
IDLE_S = 2 * READ_TIMEOUT_S + 1


@pytest.fixture(scope="module")
def redis_worker(django_db_setup):
    need(bool(os.environ.get("REDIS_URL")), "Redis (REDIS_URL)")
    server = start_workers(1, server_env(DEBUG="true", REDIS_SOCKET_TIMEOUT_S=str(READ_TIMEOUT_S)),
                           name="redis-idle")
    yield server
    server.stop()


def test_an_idle_socket_on_the_redis_layer_stays_open_and_still_gets_a_push(redis_worker):
    ws = WebSocket(redis_worker.url(), "/ws/site/")
    try:
        assert ws.recv()["type"] == "site.hello"
        with pytest.raises(TimeoutError):  # silence for IDLE_S, not a close
            ws.recv(timeout=IDLE_S)
        text = f"idle check {uuid.uuid4().hex[:6]}"
        sent = manage("announce", text, env=server_env())
        assert sent.returncode == 0, sent.stderr
        message = ws.recv_until(lambda m: m.get("type") == "site.announce", timeout=10)
        assert message["text"] == text
    finally:
        ws.close()
    assert redis_worker.alive()
    assert "TimeoutError" not in redis_worker.log_text()


def connect(url: str, path: str, browser=None, *, timeout: float = 15) -> tuple[WebSocket, dict]:
    """Open a live socket the way a page does after a drop: retry until the server accepts it
    and sends the current state."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            ws = WebSocket(url, path, browser=browser)
            return ws, ws.recv(timeout=5)
        except (OSError, SocketClosed, TimeoutError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def still_open(ws: WebSocket, wait: float = 4) -> bool:
    """Whether the socket survives ``wait`` seconds of the outage (pushes are drained)."""
    deadline = time.monotonic() + wait
    try:
        while time.monotonic() < deadline:
            try:
                ws.recv(timeout=max(0.01, deadline - time.monotonic()))
            except TimeoutError:
                return True
    except (SocketClosed, OSError):
        return False
    return True


def shown(ws: WebSocket, first: dict, resync, until, timeout: float = 10) -> dict:
    """The state the page shows once ``until(state)`` holds, following the stream from its
    message ``first`` as the page does: a delta that follows the state held is applied; a
    whole state is taken; after a gap (pushes lost in the outage) the page reads the state
    once over HTTP (``resync``). Fails when no push leads there within ``timeout``."""
    version, state = first["version"], first["state"]
    deadline = time.monotonic() + timeout
    while not until(state):
        message = ws.recv_until(
            lambda m, held=version: isinstance(m.get("version"), int) and m["version"] > held,
            timeout=max(0.01, deadline - time.monotonic()))
        if "delta" in message:
            state = (patch(state, message["delta"]) if message["version"] == version + 1
                     else resync())
        else:
            state = message["state"]
        version = message["version"]
    return state


@pytest.fixture(scope="module")
def own_redis(django_db_setup):
    need_postgresql_and_redis()
    need(redis_server_binary() is not None, "redis-server")
    redis = RedisServer()
    redis.start()
    try:
        workers = start_workers(2, server_env(DEBUG="true", REDIS_URL=redis.url,
                                              SCHEDULER_IN_PROCESS="false",
                                              CHANNELS_PREFIX=f"outage{os.getpid()}"),
                                name="redis-outage")
        yield redis, workers
        workers.stop()
    finally:
        redis.stop()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_redis_outage_loses_no_submission_and_the_first_writes_after_it_push_again(
        own_redis):
    redis, workers = own_redis
    night = set_up_night(workers, 3)
    evening = set_up_evening(workers, 3)
    code, answer = night.url("code"), evening.url("answer")

    phone_ws, phone_state = connect(workers.url(1), f"/ws/gorod/{night.id}/team/",
                                    night.phones[2])
    host_ws, host_state = connect(workers.url(0), f"/ws/koth/{evening.id}/host/",
                                  evening.hosts[0])

    redis.stop()
    during = [
        night.phones[0].post(code, {"text": "G1R1D"}, worker=0),
        night.phones[1].post(code, {"text": "G1R1D"}, worker=1),
        evening.phones[0].post(answer, {"text": "Гоголь", "client_id": str(uuid.uuid4())},
                               worker=1),
    ]
    assert [(r.status, r.detail) for r in during] == [(200, "")] * 3, [r.body for r in during]
    assert CodeAttempt.objects.filter(gorod_id=night.id, verdict="accepted").count() == 2
    assert Answer.objects.filter(question__koth_id=evening.id).count() == 1
    phone_open, host_open = still_open(phone_ws), still_open(host_ws)

    redis.start()  # the same port, empty: group memberships are gone with the old process
    # A page whose socket dropped reconnects and reads the state again; the writes made
    # during the outage are in it.
    if not phone_open:
        phone_ws, phone_state = connect(workers.url(1), f"/ws/gorod/{night.id}/team/",
                                        night.phones[2])
    if not host_open:
        host_ws, host_state = connect(workers.url(0), f"/ws/koth/{evening.id}/host/",
                                      evening.hosts[0])
        assert host_state["state"]["host"]["answered"] == 1
    try:
        organizer = night.live()
        assert [t["current_level"] for t in organizer["teams"]] == ["2", "2", "1"]

        after = [
            night.phones[2].post(code, {"text": "G1R1D"}, worker=0),
            evening.phones[1].post(answer, {"text": "Пушкин", "client_id": str(uuid.uuid4())},
                                   worker=1),
        ]
        assert [(r.status, r.detail) for r in after] == [(200, "")] * 2, [r.body for r in after]
        # Each push went through the other worker's Redis connection to the socket (after
        # the state each socket sent again once its worker's subscriptions were back).
        shown(phone_ws, phone_state, lambda: night.phones[2].ok(
            "GET", night.url("team/state"))["state"],
            until=lambda state: state["me"]["level"]["label"] == "2")
        shown(host_ws, host_state, lambda: evening.hosts[0].ok(
            "GET", evening.url("host/state"))["state"],
            until=lambda state: state["host"]["answered"] == 2)
    finally:
        phone_ws.close()
        host_ws.close()
    assert workers.alive()


@pytest.mark.django_db(transaction=True)
def test_revoking_a_binding_in_another_process_closes_the_phones_socket_over_redis(
        redis_worker):
    """The revoke runs here, the phone's socket lives in the daphne worker: the close order
    travels through the Redis layer (core.rights) and the socket ends with 4403."""
    from datetime import timedelta

    from django.utils import timezone

    from kingofhill import services as koth_services
    from teams.models import Application, Game
    from teams.services import application_revoke_join
    from tests.kingofhill.conftest import make_teams, make_user
    from tests.servers import Browser

    organizer = make_user(f"org-{uuid.uuid4().hex[:6]}", "organizer")
    game = Game.objects.create(title="Царь Горы", format="kingofhill",
                               starts_at=timezone.now() + timedelta(days=2))
    alpha, _beta = make_teams(game, [f"A-{uuid.uuid4().hex[:4]}", f"B-{uuid.uuid4().hex[:4]}"],
                              organizer)
    koth_services.koth_create(actor=organizer, game=game)
    phone = Browser(redis_worker)
    phone.join_team(alpha.join_token)
    ws, first = connect(redis_worker.url(), f"/ws/koth/{game.pk}/team/", phone)
    try:
        assert first["type"] == "koth.state"
        application_revoke_join(application=Application.objects.get(pk=alpha.pk))
        with pytest.raises(SocketClosed):
            while True:
                ws.recv(timeout=10)
        assert ws.close_code == 4403
    finally:
        ws.close()
        settle_server()  # the worker's presence write must not meet the test's flush


def test_after_redis_comes_back_every_socket_of_the_worker_is_told_to_resend_its_state(caplog):
    """Pushes published while Redis was away are lost to pub/sub: once the worker's
    subscriptions are back, each of its channels gets ``layer.reconnected`` (the consumers
    then send their page the stored state), with a warning and no traceback."""
    import asyncio

    from config.env import channel_layers_config
    from config.layers import RECONNECTED, RedisChannelLayer

    need(redis_server_binary() is not None, "redis-server")
    redis = RedisServer()
    redis.start()
    try:
        layer = RedisChannelLayer(**channel_layers_config({"REDIS_URL": redis.url})[
            "default"]["CONFIG"])

        async def outage():
            channels = [await layer.new_channel() for _ in range(3)]
            await layer.group_add("g", channels[0])
            redis.stop()
            await asyncio.sleep(1)
            redis.start()
            told = [await asyncio.wait_for(layer.receive(c), 10) for c in channels]
            await layer.group_send("g", {"type": "push", "n": 1})  # subscribed again
            pushed = await asyncio.wait_for(layer.receive(channels[0]), 10)
            await layer.flush()
            return told, pushed

        told, pushed = asyncio.run(outage())
    finally:
        redis.stop()
    assert told == [RECONNECTED] * 3 and pushed == {"type": "push", "n": 1}
    assert "Redis is back" in caplog.text
    assert not [r for r in caplog.records if r.exc_info]
