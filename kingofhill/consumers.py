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
    """The host's console; while one is open its worker's heartbeat also expires the phone
    sockets whose worker crashed (``presence.BEATS``), so the console learns of them."""

    joined_beats = False
    expired: list[int] = []

    def authorise(self) -> str | None:
        allowed = selectors.can_host(self.scope.get("user"), self.game_id)
        return realtime.HOST if allowed else None

    def joined(self) -> None:
        # A console opened after a crash need not wait a heartbeat for the rows it left.
        self.expired = presence.phones_expire()

    async def after_welcome(self) -> None:
        presence.BEATS.join(self.channel_name)
        self.joined_beats = True
        for game in self.expired:
            presence.PRESENCE.schedule(game)

    async def disconnect(self, code):
        if self.joined_beats:
            self.joined_beats = False
            presence.BEATS.leave(self.channel_name)
        await super().disconnect(code)


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
        if self.present:
            # Its row is a lease this worker's heartbeat keeps alive while the socket is open.
            presence.BEATS.join(self.channel_name, (self.game_id, self.application_id))
        if self.refresh_due:
            presence.PRESENCE.schedule(self.game_id)

    async def disconnect(self, code):
        if self.present:
            self.present = False
            presence.BEATS.leave(self.channel_name)  # before the row goes: no beat renews it
            if await in_thread(presence.phone_closed)(game=self.game_id,
                                                      channel=self.channel_name):
                presence.PRESENCE.schedule(self.game_id)
        await super().disconnect(code)
