"""The site-wide socket (proves the ASGI and channel-layer wiring on every page) and the base of
the live games' sockets."""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils import timezone

from core.realtime import SITE_GROUP
from core.sockets import StrictJsonFrames


class SiteConsumer(StrictJsonFrames, AsyncJsonWebsocketConsumer):
    async def connect(self):
        await self.channel_layer.group_add(SITE_GROUP, self.channel_name)
        await self.accept()
        await self.send_json({"type": "site.hello", "server_time": timezone.now().isoformat()})

    async def disconnect(self, code):
        await self.channel_layer.group_discard(SITE_GROUP, self.channel_name)

    async def site_announce(self, event):
        # Group handlers only forward; they never write (they run once per listener).
        await self.send_json(event)


CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404


class GameStateConsumer(StrictJsonFrames, AsyncJsonWebsocketConsumer):
    """Base of a live game's read-only sockets (King of the Hill, GoRoD).

    A subclass defines ``game_exists()``, ``authorise()`` (the group the connecting user may
    join, or None) and ``current_state()`` (``{"version", "state"}``), all async, and routes its
    push type to ``forward_state``; the base authorises, joins, sends the current state at once (so a client
    is never blank while its HTTP resync runs) and then forwards the group's pushes. Handlers
    never write: a group handler runs once per listener, and actions go through the HTTP API.
    """

    state_type = ""  # e.g. "koth.state"; the app's realtime module owns the name

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
        await self.send_json({"type": self.state_type, **await self.current_state()})

    async def disconnect(self, code):
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def forward_state(self, event):
        # The realtime module encoded the message once per group, not once per socket.
        await self.send(text_data=event["text"])

    async def receive_json(self, content, **kwargs):
        pass  # read-only: actions go through the HTTP API (CSRF, one code path)

    async def authorise_team(self, group_for) -> str | None:
        """The group of the team this browser session is joined to for the game, or None."""
        from teams.selectors import team_entry_for_session

        entry = await database_sync_to_async(team_entry_for_session)(
            self.scope.get("session"), self.game_id)
        if entry is None:
            return None
        self.application_id = entry.pk
        return group_for(self.game_id, entry.pk)
