"""Site-wide real-time channel: group names and broadcasts for the ``site`` group.

Every app keeps its own ``realtime.py`` that owns its group names; nobody else builds a group
name by hand. Messages carry a prefixed ``type`` (``site.*``) and a documented shape:

- ``site.hello``    sent to one socket on connect: ``{"type", "server_time"}``
- ``site.announce`` broadcast to everyone: ``{"type", "text", "sent_at"}``
"""

from __future__ import annotations

import asyncio
import json

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import timezone

SITE_GROUP = "site"


def announce_message(text: str) -> dict:
    return {"type": "site.announce", "text": text, "sent_at": timezone.now().isoformat()}


def broadcast_announcement(text: str) -> dict:
    """Send an announcement to every connected page (all workers, when the layer is Redis)."""
    message = announce_message(text)
    async_to_sync(get_channel_layer().group_send)(SITE_GROUP, message)
    return message


def state_group_message(state_type: str, version: int, state: dict) -> dict:
    """A versioned state as it travels through the channel layer: the client message
    ``{"type", "version", "state"}`` already encoded as JSON.

    Encoding once here rather than in every consumer matters with 64 phones: the in-memory
    layer deep-copies each message per listener and Redis packs it, and a string is cheap for
    both, while consumers just forward the text (``core.consumers.GameStateConsumer``).
    """
    text = json.dumps({"type": state_type, "version": version, "state": state},
                      ensure_ascii=False, separators=(",", ":"))
    return {"type": state_type, "version": version, "text": text}


def send_to_groups(messages: list[tuple[str, dict]]) -> int:
    """Send ``(group, message)`` pairs through the layer; returns how many were sent.

    Callers run it from ``transaction.on_commit`` so nobody sees a state that was rolled back.
    """
    layer = get_channel_layer()
    if layer is None:
        return 0

    async def send_all() -> None:
        for group, message in messages:
            await layer.group_send(group, message)

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        # One event-loop hop for all groups rather than one per group.
        async_to_sync(send_all)()
    else:
        # A sync write called inside a running loop (a browser-driving test harness) cannot
        # block on it; hand the sends to that loop instead.
        loop.create_task(send_all())
    return len(messages)
