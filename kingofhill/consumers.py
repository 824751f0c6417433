"""King of the Hill sockets: public (projector), host and team; each authorises, joins its group
and forwards ``koth.state`` (see ``core.consumers.GameStateConsumer``)."""

from __future__ import annotations

from channels.db import database_sync_to_async

from core.consumers import GameStateConsumer
from core.roles import is_host
from kingofhill import realtime, selectors
from kingofhill.models import KothGame


class _KothConsumer(GameStateConsumer):
    state_type = realtime.STATE
    kind = "public"
    koth_state = GameStateConsumer.forward_state

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
        return await self.authorise_team(realtime.team_group)
