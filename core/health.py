"""What ``/healthz`` reports: the database and the channel layer, each on its own."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
import weakref

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection

TIMEOUT_SECONDS = 3


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - any failure is "down", reported by its type
        return f"error: {type(exc).__name__}"
    return "ok"


class _Probe:
    """A server answers every probe on its one event loop through one channel of the layer,
    one probe at a time: subscribing a new channel for each probe and dropping it after
    (pub/sub) cut the rate /healthz is answered at by a quarter (``make bench``)."""

    def __init__(self, layer):
        self.layer, self.channel, self.lock = layer, None, asyncio.Lock()


_PROBES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # event loop → _Probe


async def _round_trip() -> None:
    layer = get_channel_layer()
    loop = asyncio.get_running_loop()
    probe = _PROBES.get(loop)
    if probe is None or probe.layer is not layer:
        probe = _PROBES[loop] = _Probe(layer)
    async with probe.lock:
        token = uuid.uuid4().hex
        try:
            if probe.channel is None:
                probe.channel = await layer.new_channel("healthz.")
            await layer.send(probe.channel, {"type": "healthz", "token": token})
            while (await layer.receive(probe.channel)).get("token") != token:
                pass  # the reply to an earlier probe that gave up waiting
        except BaseException:
            # Cut short (the timeout, the layer down): the next probe starts on a new channel.
            if _PROBES.get(loop) is probe:
                del _PROBES[loop]
            if probe.channel is not None:
                loop.create_task(_forget(layer, probe.channel))
            raise


async def _forget(layer, channel: str) -> None:
    delete = getattr(layer, "delete_channel", None)  # both layers of config.layers have it
    if delete is not None:
        with contextlib.suppress(Exception):
            await delete(channel)


def _channel_layer() -> str:
    async def probe():
        await asyncio.wait_for(_round_trip(), timeout=TIMEOUT_SECONDS)

    try:
        async_to_sync(probe)()
    except Exception as exc:  # noqa: BLE001
        return f"error: {type(exc).__name__}"
    return "ok"


def check() -> dict:
    """``{"ok", "database", "channel_layer"}``: each ``"ok"`` or ``"error: <kind>"``."""
    database, layer = _database(), _channel_layer()
    return {"ok": database == "ok" and layer == "ok", "database": database, "channel_layer": layer}
