"""Django's ASGI handler with the request threads kept and lent out again, and each request's
middleware and view run in one call into its thread.

Django runs a request's sync code in one thread of its own: for each request ``ASGIHandler``
opens a ``ThreadSensitiveContext`` that starts a new thread, and at its end a second thread to
join the first. Starting and joining two threads per request took the event loop more time
than a health check's own work (``make bench``: ``/healthz`` spent ~20 % of the server's time
in ``Thread.start`` and the join), and a thread that lives for one request cannot keep a
database connection, so each SQLite request also opened the file and set it up again.

Here a request borrows an idle single-thread executor from a pool and gives it back when it
ends (asgiref's ``ThreadSensitiveContext(executor=…)``, made for this: the caller owns the
executor). A request still has one thread to itself for all its sync work, as Django needs for
its connection and transaction; only the thread outlives it. At most ``IDLE`` executors wait in
the pool; a burst beyond that gets new ones, shut down (off the event loop) when it ends.

Every view and middleware of the app is sync, so with ``REQUEST_CHAIN_IN_ONE_CALL`` (the
default) the chain is loaded sync and a request enters its thread once: for
``request_started``, the whole chain and view, and the response's close (``request_finished``).
Django's async chain goes in and out of the thread for each middleware, each hop a wake-up of
two threads and a copy of the context: on the embedded default one call for the chain doubled
the rate of /healthz and the reads. Django's ``handle`` still made three calls around it (the
two signals, the chain), a quarter of a GoRoD code's interpreter time (py-spy ``--gil``,
docs/performance.md). Beside PostgreSQL the one call for the chain alone once lowered one
game's code and answer rate with two workers, so PostgreSQL ran Django's chain; with the
signals and the close in the same call it is faster there too (``make bench``, two runs each
way), and it is the default everywhere.

It calls Django's internals (``BaseHandler.__init__`` instead of ``ASGIHandler``'s, and
``load_middleware`` itself), so it sits behind ``STOCK_INTERNALS`` (``config.settings``): with
it on, ``config.asgi`` serves Django's own ``ASGIHandler`` and none of this runs.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import FileResponse
from django.urls import set_script_prefix

from core.realtime import RESPONSE_SENT

IDLE = 64


class _Pool:
    def __init__(self, idle: int):
        self.idle = idle
        self.free: list[ThreadPoolExecutor] = []
        self.lock = threading.Lock()

    def take(self) -> ThreadPoolExecutor:
        with self.lock:
            if self.free:
                return self.free.pop()
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="request")

    def give(self, executor: ThreadPoolExecutor) -> None:
        with self.lock:
            if len(self.free) < self.idle:
                self.free.append(executor)
                return
        # ``shutdown(wait=False)`` lets the thread end once its queue is done, without
        # blocking the event loop on a join.
        executor.shutdown(wait=False)


class PooledASGIHandler(ASGIHandler):
    """``ASGIHandler`` whose requests run their sync code in pooled threads (``one_call``: the
    whole chain in one call; by default ``REQUEST_CHAIN_IN_ONE_CALL``)."""

    def __init__(self, idle: int = IDLE, *, one_call: bool | None = None):
        self.one_call = (settings.REQUEST_CHAIN_IN_ONE_CALL if one_call is None
                         else one_call)
        BaseHandler.__init__(self)  # not ASGIHandler's: it always loads the chain async
        self.load_middleware(is_async=not self.one_call)
        self.pool = _Pool(idle)

    async def handle(self, scope, receive, send):
        if not self.one_call:
            return await super().handle(scope, receive, send)
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            set_script_prefix(get_script_prefix(scope))
            response = await sync_to_async(self.served, thread_sensitive=True)(scope, body_file)
            await self.send_response(response, send)
            if response.streaming:
                # Its content is produced while it is sent: it can close only after.
                await sync_to_async(response.close, thread_sensitive=True)()
        finally:
            body_file.close()

    def served(self, scope, body_file):
        """A request's whole sync part in one call into its thread: what Django's ``handle``
        does in three (``request_started``, the chain and the view, ``response.close()`` with
        ``request_finished``), each a hand-off between the event loop and the thread. A
        response that is not streamed is whole here, so it closes before it is sent; a
        streamed one closes after (``handle``).

        Nothing waits for a disconnect meanwhile: Django listens for one to cancel an async
        view, and a sync view runs to its end in its thread whatever the task does."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size  # as Django's ``run_get_response``
        if not response.streaming:
            response.close()
        return response

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self.pool.take()
        # A write's broadcasts wait until its response has gone out (core.realtime).
        sent = asyncio.Event()
        token = RESPONSE_SENT.set(sent)

        async def send_marking(message):
            try:
                await send(message)
            finally:
                if message["type"] == "http.response.body" and not message.get("more_body"):
                    sent.set()

        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send_marking)
        finally:
            sent.set()
            RESPONSE_SENT.reset(token)
            # A request cut short may leave sync work queued on its thread: the next borrower
            # runs after it, in the same thread, as one request after another would.
            self.pool.give(executor)


def get_asgi_application() -> PooledASGIHandler:
    """``django.core.asgi.get_asgi_application`` with the pooled handler."""
    django.setup(set_prefix=False)
    return PooledASGIHandler()
