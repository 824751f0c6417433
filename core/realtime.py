"""Site-wide real-time channel: group names and broadcasts for the ``site`` group.

Every app keeps its own ``realtime.py`` that owns its group names; nobody else builds a group
name by hand. Messages carry a prefixed ``type`` (``site.*``) and a documented shape:

- ``site.hello``    sent to one socket on connect: ``{"type", "server_time"}``
- ``site.announce`` broadcast to everyone: ``{"type", "text", "sent_at"}``
"""

from __future__ import annotations

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
