"""GoRoD sockets: they authorise, join their group and forward ``gorod.state``.

On connect each sends the current state at once. Handlers never write; actions go through the
HTTP API.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from core.roles import is_organizer
from gorod import realtime, selectors
from gorod.models import GorodGame
from teams.selectors import team_entry_for_session

CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404


class _GorodConsumer(AsyncJsonWebsocketConsumer):
    kind = "public"

    async def connect(self):
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.group = None
        self.application_id = None
        if not await self.game_exists():
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.group = await self.authorise()
        if self.group is None:
            await self.accept()
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": realtime.STATE, **await self.current_state()})

    async def disconnect(self, code):
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def gorod_state(self, event):
        await self.send(text_data=event["text"])

    async def receive_json(self, content, **kwargs):
        pass

    async def authorise(self) -> str | None:
        return realtime.public_group(self.game_id)

    @database_sync_to_async
    def game_exists(self) -> bool:
        return GorodGame.objects.filter(pk=self.game_id).exists()

    @database_sync_to_async
    def current_state(self) -> dict:
        gg = selectors.gorod_game(self.game_id)
        return selectors.read_state(gg, kind=self.kind, application_id=self.application_id)


class PublicConsumer(_GorodConsumer):
    kind = "public"


class OrganizerConsumer(_GorodConsumer):
    kind = "organizer"

    async def authorise(self) -> str | None:
        allowed = await database_sync_to_async(is_organizer)(self.scope.get("user"))
        return realtime.organizer_group(self.game_id) if allowed else None


class TeamConsumer(_GorodConsumer):
    kind = "team"

    async def authorise(self) -> str | None:
        entry = await database_sync_to_async(team_entry_for_session)(
            self.scope.get("session"), self.game_id)
        if entry is None:
            return None
        self.application_id = entry.pk
        return realtime.team_group(self.game_id, entry.pk)
