"""The ASGI handler lends each request a pooled thread: one thread for all of a request's sync
work, threads kept across requests (with their database connection), two requests at once on
two threads, and no more idle threads kept than the pool's bound. A write's pushes leave after
its response."""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer
from django.core.signals import request_finished
from django.db import connection
from django.http import JsonResponse, StreamingHttpResponse
from django.test import override_settings
from django.urls import path

from config.asgi import application
from core import realtime
from core.handlers import PooledASGIHandler

# The pooled handler's own effects: not what Django's handler does (STOCK_INTERNALS).
pytestmark = pytest.mark.fast_internals

seen: list[dict] = []
events: list[str] = []
barrier: dict[str, threading.Barrier] = {}


def where(request):
    connection.ensure_connection()
    seen.append({"thread": threading.get_ident(), "connection": id(connection.connection)})
    return JsonResponse({"ok": True})


def meet(request):
    # Both requests must be in their views at once: on one shared thread this times out.
    barrier["both"].wait(timeout=5)
    return JsonResponse({"thread": threading.get_ident()})


def write(request):
    # A write's commit hands its pushes over, then the view still works a while (its response
    # being rendered): the pushes must not overtake the response meanwhile.
    realtime.send_to_groups([("koth.1.public", {"type": "koth.state", "version": 2,
                                                 "text": "{}"})])
    threading.Event().wait(0.1)
    return JsonResponse({"ok": True})


urlpatterns = [path("where", where), path("meet", meet), path("write", write)]


async def get(app, url: str) -> tuple[int, bytes]:
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
             "scheme": "http", "path": url, "raw_path": url.encode(), "query_string": b"",
             "root_path": "", "headers": [(b"host", b"testserver")],
             "client": ("127.0.0.1", 5000), "server": ("testserver", 80)}
    sent = []
    requested = False

    async def receive():
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(3600)  # no disconnect while the response is on its way

    async def send(message):
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            events.append("response")

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], body


@pytest.fixture
def handler():
    with override_settings(ROOT_URLCONF="tests.core.test_handlers", ALLOWED_HOSTS=["testserver"]):
        yield PooledASGIHandler(idle=2)
    seen.clear()
    events.clear()


def test_the_served_application_is_the_pooled_handler():
    # ``config.asgi`` routes HTTP to the pooled handler (what uvicorn and daphne serve).
    assert isinstance(application.app.application_mapping["http"], PooledASGIHandler)


@pytest.mark.django_db(transaction=True)
async def test_requests_one_after_another_reuse_one_thread_and_its_connection(handler):
    finished: list[int] = []

    def on_finished(**kwargs):
        finished.append(threading.get_ident())

    request_finished.connect(on_finished)
    try:
        for _ in range(3):
            assert (await get(handler, "/where"))[0] == 200
    finally:
        request_finished.disconnect(on_finished)
    threads = {s["thread"] for s in seen}
    assert len(threads) == 1  # Django's own handler starts a new thread for every request
    assert threading.get_ident() not in threads  # never the event loop's thread
    # The end of each request (where Django closes old connections) ran in that thread too.
    assert set(finished) == threads
    if connection.vendor == "sqlite":  # persistent there; PostgreSQL lends from its pool
        assert len({s["connection"] for s in seen}) == 1


@pytest.mark.django_db(transaction=True)
async def test_two_requests_at_once_each_have_a_thread_of_their_own(handler):
    barrier["both"] = threading.Barrier(2)
    first, second = await asyncio.gather(get(handler, "/meet"), get(handler, "/meet"))
    assert first[0] == second[0] == 200
    assert first[1] != second[1]


@pytest.mark.django_db(transaction=True)
async def test_a_burst_leaves_no_more_idle_threads_than_the_bound(handler):
    barrier["both"] = threading.Barrier(4)
    answers = await asyncio.gather(*(get(handler, "/meet") for _ in range(4)))
    assert [status for status, _ in answers] == [200] * 4
    assert len(handler.pool.free) == 2
    # The kept ones serve the next requests.
    await get(handler, "/where")
    await get(handler, "/where")
    assert len(handler.pool.free) == 2


class RecordingLayer(InMemoryChannelLayer):
    async def group_send(self, group, message):
        events.append(f"push {message['version']}")
        await super().group_send(group, message)


@pytest.mark.django_db(transaction=True)
async def test_a_writes_pushes_leave_only_after_its_response_has_gone_out(handler, monkeypatch):
    layer = RecordingLayer()
    monkeypatch.setattr(realtime, "get_channel_layer", lambda: layer)
    assert (await get(handler, "/write"))[0] == 200
    await realtime.flush()
    # Before, the loop's sender delivered while the view was still on its way back.
    assert events == ["response", "push 2"]


@pytest.mark.django_db(transaction=True)
async def test_pushes_of_a_response_that_never_finishes_leave_after_a_bounded_wait(
        handler, monkeypatch):
    layer = RecordingLayer()
    monkeypatch.setattr(realtime, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(realtime, "RESPONSE_FIRST_S", 0.05)
    gate = asyncio.Event()  # a response still being sent (a slow client)
    token = realtime.RESPONSE_SENT.set(gate)
    try:
        await asyncio.wait_for(sync_to_async(realtime.send_to_groups)(
            [("koth.1.public", {"type": "koth.state", "version": 3, "text": "{}"})]), 5)
    finally:
        realtime.RESPONSE_SENT.reset(token)
    await asyncio.wait_for(realtime.flush(), 5)
    assert events == ["push 3"] and not gate.is_set()


class CountingPool:
    """The handler's pool, counting the calls each request makes into its thread."""

    def __init__(self, pool):
        self.pool, self.calls = pool, 0

    def take(self):
        executor = self.pool.take()
        submit = executor.submit

        def counted(*args, **kwargs):
            self.calls += 1
            return submit(*args, **kwargs)

        executor.submit = counted
        return executor

    def give(self, executor):
        del executor.submit
        self.pool.give(executor)


@pytest.mark.django_db(transaction=True)
async def test_a_request_calls_into_its_thread_once_with_the_signals_chain_and_close(handler):
    handler.pool = CountingPool(handler.pool)
    finished: list[int] = []

    def on_finished(**kwargs):
        finished.append(threading.get_ident())

    request_finished.connect(on_finished)
    try:
        assert (await get(handler, "/where"))[0] == 200
    finally:
        request_finished.disconnect(on_finished)
    # Django's handle makes three: request_started, the chain, response.close().
    assert handler.pool.calls == 1
    assert finished == [seen[0]["thread"]]


def stream(request):
    # Async, as Django serves a stream under ASGI (a sync one it warns about and wraps).
    async def parts():
        yield b"one,"
        events.append("produced")
        yield b"two"

    response = StreamingHttpResponse(parts())
    response._resource_closers.append(lambda: events.append("closed"))
    return response


urlpatterns.append(path("stream", stream))


@pytest.mark.django_db(transaction=True)
async def test_a_streamed_response_is_closed_only_after_its_content_has_gone_out(handler):
    assert await get(handler, "/stream") == (200, b"one,two")
    assert events == ["produced", "response", "closed"]


@pytest.mark.django_db(transaction=True)
async def test_with_one_call_off_djangos_own_chain_still_serves_in_the_pooled_thread():
    # REQUEST_CHAIN_IN_ONE_CALL=false: Django's handle and async chain, in pooled threads.
    finished: list[int] = []

    def on_finished(**kwargs):
        finished.append(threading.get_ident())

    request_finished.connect(on_finished)
    try:
        with override_settings(ROOT_URLCONF="tests.core.test_handlers",
                               ALLOWED_HOSTS=["testserver"]):
            handler = PooledASGIHandler(idle=2, one_call=False)
            handler.pool = CountingPool(handler.pool)
            assert (await get(handler, "/where"))[0] == 200
            assert await get(handler, "/stream") == (200, b"one,two")
    finally:
        request_finished.disconnect(on_finished)
        seen.clear()
        events.clear()
    assert handler.pool.calls > 2  # Django's hops, not the one call
    assert len(finished) == 2 and threading.get_ident() not in finished
