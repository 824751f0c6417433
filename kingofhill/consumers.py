"""King of the Hill sockets: they authorise, join their group and forward ``koth.state``.

On connect each sends the current state at once, so a client is never blank while the HTTP
resync runs. Handlers never write (a group handler runs once per listener).
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from core.roles import is_host
from kingofhill import realtime, selectors
from kingofhill.models import KothGame
from teams.selectors import team_entry_for_session

CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404


class _KothConsumer(AsyncJsonWebsocketConsumer):
    kind = "public"

    async def connect(self):
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.group = None
        self.application_id = None
        # Accept first and then close with a code, so the browser learns why (a refused
        # handshake reaches JavaScript as a bare 1006).
        if not await self.game_exists():
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.group = await self.authorise()
        if self.group is None:
            await self.accept()
            await self.close(code=CLOSE_FORBIDDEN)
            return
        # Join before reading the state: an update between the two then arrives as a push.
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": realtime.STATE, **await self.current_state()})

    async def disconnect(self, code):
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def koth_state(self, event):
        await self.send(text_data=event["text"])

    async def receive_json(self, content, **kwargs):
        # Actions go through the HTTP API (CSRF, one code path); the socket is read-only.
        pass

    async def authorise(self) -> str | None:
        return realtime.public_group(self.game_id)

    @database_sync_to_async
    def game_exists(self) -> bool:
        return KothGame.objects.filter(pk=self.game_id).exists()

    @database_sync_to_async
    def current_state(self) -> dict:
        koth = selectors.koth_game(self.game_id)
        return selectors.read_state(koth, kind=self.kind, application_id=self.application_id)


class PublicConsumer(_KothConsumer):
    kind = "public"


class HostConsumer(_KothConsumer):
    kind = "host"

    async def authorise(self) -> str | None:
        allowed = await database_sync_to_async(is_host)(self.scope.get("user"))
        return realtime.host_group(self.game_id) if allowed else None


class TeamConsumer(_KothConsumer):
    kind = "team"

    async def authorise(self) -> str | None:
        entry = await database_sync_to_async(team_entry_for_session)(
            self.scope.get("session"), self.game_id)
        if entry is None:
            return None
        self.application_id = entry.pk
        return realtime.team_group(self.game_id, entry.pk)
