"""King of the Hill sockets: public (projector), host and team; each authorises its audience
and forwards ``koth.state`` (see ``core.consumers.GameStateConsumer``)."""

from __future__ import annotations

from channels.db import database_sync_to_async

from core.consumers import GameStateConsumer
from core.live import PUBLIC
from kingofhill import realtime, selectors, services
from kingofhill.live import LIVE


class _KothConsumer(GameStateConsumer):
    live = LIVE
    koth_state = GameStateConsumer.forward_state


class PublicConsumer(_KothConsumer):
    async def authorise(self) -> str | None:
        return PUBLIC


class HostConsumer(_KothConsumer):
    async def authorise(self) -> str | None:
        allowed = await database_sync_to_async(selectors.can_host)(self.scope.get("user"),
                                                                   self.game_id)
        return realtime.HOST if allowed else None


class TeamConsumer(_KothConsumer):
    """A team phone; its open sockets are the team's presence on the host console."""

    async def authorise(self) -> str | None:
        return await self.authorise_team()

    async def connect(self):
        self.present = False
        await super().connect()
        if self.application_id is not None and self.groups_joined:
            await database_sync_to_async(services.presence_open)(
                game=self.game_id, application=self.application_id, channel=self.channel_name)
            self.present = True

    async def disconnect(self, code):
        if getattr(self, "present", False):
            self.present = False
            await database_sync_to_async(services.presence_close)(
                game=self.game_id, channel=self.channel_name)
        await super().disconnect(code)
