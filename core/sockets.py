"""WebSocket edges: unknown paths and bad frames end with a close code, never a traceback."""

from __future__ import annotations

import logging

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

log = logging.getLogger(__name__)

CLOSE_BAD_FRAME = 4400  # not a JSON text frame
CLOSE_NOT_FOUND = 4404  # no such socket path
CLOSE_TOO_BIG = 4413  # a frame past MAX_FRAME_BYTES
MAX_FRAME_BYTES = 64 * 1024


class NotFoundConsumer(AsyncWebsocketConsumer):
    """The catch-all route: accept, then close with 4404, so the browser learns why (a refused
    handshake reaches JavaScript as a bare 1006, and an unrouted path was a 500)."""

    async def connect(self):
        await self.accept()
        await self.close(code=CLOSE_NOT_FOUND)


class StrictJsonFrames:
    """Mixin for JSON consumers: a binary, oversized or non-JSON frame closes the socket with a
    4400-range code and one log line instead of Channels' 1011 and a traceback."""

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        path = self.scope.get("path", "")
        if text_data is None:
            log.info("socket %s: closed, binary frame (%d bytes)", path, len(bytes_data or b""))
            return await self.close(code=CLOSE_BAD_FRAME)
        if len(text_data.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES:
            log.info("socket %s: closed, frame of %d characters", path, len(text_data))
            return await self.close(code=CLOSE_TOO_BIG)
        try:
            content = await self.decode_json(text_data)
        except (ValueError, RecursionError) as exc:
            log.info("socket %s: closed, not JSON (%s)", path, type(exc).__name__)
            return await self.close(code=CLOSE_BAD_FRAME)
        await self.receive_json(content, **kwargs)


class ThreadFreeDispatch:
    """Mixin for consumers whose every database step runs through ``database_sync_to_async``
    (``core.consumers.in_thread``): dispatch a message without Channels' ``close_old_connections``
    hop.

    Channels runs that hop in the worker's one sync thread before every message a consumer
    handles, a push forwarded to a socket included. A change to 1 000 sockets of a worker was
    then 1 000 turns of the thread that also serves the HTTP views and the sockets' connects,
    each waiting behind them (most of a worker's time in the fan-out, ``make bench``). The
    sweep has nothing to do here: ``database_sync_to_async`` closes stale connections before
    and after each of these consumers' database steps, and a forward touches no database.

    It replaces Channels' ``dispatch``, so it sits behind ``STOCK_INTERNALS``
    (``config.settings``): with it on, Channels' own runs."""

    async def dispatch(self, message):
        if settings.STOCK_INTERNALS:
            return await super().dispatch(message)
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
