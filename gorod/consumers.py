"""GoRoD sockets: public (statistics), organizer and team; each authorises, joins its group and
forwards ``gorod.state`` (see ``core.consumers.GameStateConsumer``)."""

from __future__ import annotations

from channels.db import database_sync_to_async

from core.consumers import GameStateConsumer
from core.roles import is_organizer
from gorod import realtime, selectors
from gorod.models import GorodGame


class _GorodConsumer(GameStateConsumer):
    state_type = realtime.STATE
    kind = "public"
    gorod_state = GameStateConsumer.forward_state

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
        return await self.authorise_team(realtime.team_group)
