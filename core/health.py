"""What ``/healthz`` reports: the database and the channel layer, each on its own."""

from __future__ import annotations

import asyncio
import uuid

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


async def _round_trip() -> None:
    layer = get_channel_layer()
    channel = await layer.new_channel("healthz.")
    token = uuid.uuid4().hex
    try:
        await layer.send(channel, {"type": "healthz", "token": token})
        message = await layer.receive(channel)
    finally:
        # Both layers (config.layers) keep a channel until told otherwise.
        delete = getattr(layer, "delete_channel", None)
        if delete is not None:
            await delete(channel)
    if message.get("token") != token:
        raise RuntimeError("the layer returned another message")


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
