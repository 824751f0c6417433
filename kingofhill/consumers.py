"""King of the Hill sockets: public (projector), host and team; each authorises its audience
and forwards ``koth.state`` (see ``live.consumers.GameStateConsumer``)."""

from __future__ import annotations

from core.consumers import in_thread
from kingofhill import presence, realtime, selectors
from kingofhill.live import LIVE
from live.consumers import GameStateConsumer
from live.messages import PUBLIC


class _KothConsumer(GameStateConsumer):
    live = LIVE
    koth_state = GameStateConsumer.forward_state


class PublicConsumer(_KothConsumer):
    def authorise(self) -> str | None:
        return PUBLIC


class HostConsumer(_KothConsumer):
    def authorise(self) -> str | None:
        allowed = selectors.can_host(self.scope.get("user"), self.game_id)
        return realtime.HOST if allowed else None


class TeamConsumer(_KothConsumer):
    """A team phone; its open sockets are the team's presence on the host console, which
    learns of them through one coalesced refresh (``presence.PRESENCE``), not a write each."""

    present = False
    refresh_due = False

    def authorise(self) -> str | None:
        return self.authorise_team()

    def joined(self) -> None:
        self.refresh_due = presence.phone_opened(
            game=self.game_id, application=self.application_id, channel=self.channel_name)
        self.present = True

    async def after_welcome(self) -> None:
        if self.refresh_due:
            presence.PRESENCE.schedule(self.game_id)

    async def disconnect(self, code):
        if self.present:
            self.present = False
            if await in_thread(presence.phone_closed)(game=self.game_id,
                                                      channel=self.channel_name):
                presence.PRESENCE.schedule(self.game_id)
        await super().disconnect(code)
