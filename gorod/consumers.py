"""GoRoD sockets: public (statistics), organizer and team; each authorises its audience and
forwards ``gorod.state`` (see ``core.consumers.GameStateConsumer``)."""

from __future__ import annotations

from channels.db import database_sync_to_async

from core.consumers import GameStateConsumer
from core.live import PUBLIC
from core.roles import is_organizer
from gorod import realtime
from gorod.live import LIVE


class _GorodConsumer(GameStateConsumer):
    live = LIVE
    gorod_state = GameStateConsumer.forward_state


class PublicConsumer(_GorodConsumer):
    async def authorise(self) -> str | None:
        return PUBLIC


class OrganizerConsumer(_GorodConsumer):
    async def authorise(self) -> str | None:
        allowed = await database_sync_to_async(is_organizer)(self.scope.get("user"))
        return realtime.ORGANIZER if allowed else None


class TeamConsumer(_GorodConsumer):
    async def authorise(self) -> str | None:
        return await self.authorise_team()
