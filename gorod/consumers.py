"""GoRoD sockets: public (statistics), organizer and team; each authorises its audience and
forwards ``gorod.state`` (see ``live.consumers.GameStateConsumer``)."""

from __future__ import annotations

from core.roles import is_organizer
from gorod import realtime
from gorod.live import LIVE
from live.consumers import GameStateConsumer
from live.messages import PUBLIC


class _GorodConsumer(GameStateConsumer):
    live = LIVE
    gorod_state = GameStateConsumer.forward_state


class PublicConsumer(_GorodConsumer):
    def authorise(self) -> str | None:
        return PUBLIC


class OrganizerConsumer(_GorodConsumer):
    def authorise(self) -> str | None:
        return realtime.ORGANIZER if is_organizer(self.scope.get("user")) else None


class TeamConsumer(_GorodConsumer):
    def authorise(self) -> str | None:
        return self.authorise_team()
