"""The site-wide socket: proves the ASGI and channel-layer wiring on every page."""

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils import timezone

from core.realtime import SITE_GROUP


class SiteConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        await self.channel_layer.group_add(SITE_GROUP, self.channel_name)
        await self.accept()
        await self.send_json({"type": "site.hello", "server_time": timezone.now().isoformat()})

    async def disconnect(self, code):
        await self.channel_layer.group_discard(SITE_GROUP, self.channel_name)

    async def site_announce(self, event):
        # Group handlers only forward; they never write (they run once per listener).
        await self.send_json(event)
