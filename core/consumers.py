"""The site-wide socket (proves the ASGI and channel-layer wiring on every page), and what every
socket of the site shares (database work in its thread, the announcement still news)."""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils import timezone

from core.realtime import SITE_GROUP, announce_message
from core.sockets import StrictJsonFrames, ThreadFreeDispatch


def latest_announcement_message() -> dict | None:
    """The announcement still news, as its socket message (None when there is none)."""
    from core.selectors import latest_announcement

    latest = latest_announcement()
    if latest is None or latest.delivered_at is None:
        return None
    return {**announce_message(latest.text), "sent_at": latest.created_at.isoformat()}


def in_thread(func):
    """Run ``func`` (database work) in Channels' database thread. A connect is two such steps
    (``admit`` and ``welcome``), not nine: every socket's every step queues on that one thread
    of the worker, so 1 000 phones connecting at once waited behind 9 000 of them. (Spread
    over the loop's thread pool instead, with ``thread_sensitive=False``, each pool thread kept
    a pooled database connection that an ending event loop never gave back: the tests ran the
    pool dry.)"""
    return database_sync_to_async(func)


async def send_latest_announcement(consumer) -> None:
    """A socket that (re)connects gets the announcement still news, so a page that was
    reconnecting when it was sent does not miss it (the client shows one text once)."""
    message = await in_thread(latest_announcement_message)()
    if message is not None:
        await consumer.send_json(message)


class SiteConsumer(ThreadFreeDispatch, StrictJsonFrames, AsyncJsonWebsocketConsumer):
    async def connect(self):
        await self.channel_layer.group_add(SITE_GROUP, self.channel_name)
        await self.accept()
        await self.send_json({"type": "site.hello", "server_time": timezone.now().isoformat()})
        await send_latest_announcement(self)

    async def disconnect(self, code):
        await self.channel_layer.group_discard(SITE_GROUP, self.channel_name)

    async def site_announce(self, event):
        # Group handlers only forward; they never write (they run once per listener).
        await self.send_json(event)

    async def layer_reconnected(self, event):
        # Redis was unreachable: an announcement sent meanwhile is sent now.
        await send_latest_announcement(self)
