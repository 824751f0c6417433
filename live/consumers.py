"""The base of the live games' read-only state sockets (King of the Hill, GoRoD)."""

from importlib import import_module
from types import SimpleNamespace

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.contrib import auth

from core import rights
from core.consumers import in_thread, latest_announcement_message, send_latest_announcement
from core.realtime import SITE_GROUP
from core.sockets import StrictJsonFrames, ThreadFreeDispatch
from live.messages import PUBLIC, Stored, team_audience
from teams.selectors import team_entry_for_session

CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404


class GameStateConsumer(ThreadFreeDispatch, StrictJsonFrames, AsyncJsonWebsocketConsumer):
    """Base of a live game's read-only sockets (King of the Hill, GoRoD).

    A subclass names its game's adapter (``live``, a ``live.write.LiveGame``) and defines
    ``authorise()`` (sync, run in a thread: the audience the connecting user may watch, or
    None), and routes its push type to ``forward_state``. The base checks the game, authorises,
    joins the audience's group and the site group (announcements reach every page through its
    one socket), and sends the audience's stored state as the first message — so a
    reconnecting client needs no HTTP read — then forwards the group's pushes. Handlers never
    write: a group handler runs once per listener, and actions go through the HTTP API.

    A connect is two steps in a thread (``in_thread``): ``admit`` before the join, ``welcome``
    after it (the check again, the state, the announcement and the subclass's ``joined``).

    Rights are not only checked at the handshake (``core.rights``): a team socket also joins
    its application's control group and a staff socket its user's; once joined, the socket
    checks its right again (a revoke committed between the first check and the join sent its
    message before the socket listened), and on every ``control.recheck`` it re-reads its
    session and user, authorises again and closes with 4403 when the right is gone.
    """

    live = None  # the app's live.write.LiveGame

    async def connect(self):
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.groups_joined: list[str] = []
        self.application_id = None
        self.audience = None
        # Accept first and then close with a code, so the browser learns why (a refused
        # handshake reaches JavaScript as a bare 1006).
        exists, audience = await in_thread(self.admit)()
        if not exists or audience is None:
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND if not exists else CLOSE_FORBIDDEN)
            return
        # Join before reading the state: an update between the two then arrives as a push
        # (and a push not newer than the first message is ignored by the client).
        for group in (self.live.group(self.game_id, audience), SITE_GROUP,
                      *self.control_groups(audience)):
            await self.channel_layer.group_add(group, self.channel_name)
            self.groups_joined.append(group)
        await self.accept()
        self.audience = audience
        allowed, stored, announcement = await in_thread(self.welcome)()
        if not allowed:
            await self.shut()
            return
        if stored is None:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self.send(text_data=self.live.first_message(stored))
        if announcement is not None:
            await self.send_json(announcement)
        await self.after_welcome()

    def admit(self) -> tuple[bool, str | None]:
        """Sync: whether the game exists, and the audience this user may watch."""
        if not self.live.model.objects.filter(pk=self.game_id).exists():
            return False, None
        return True, self.authorise()

    def welcome(self) -> tuple[bool, Stored | None, dict | None]:
        """Sync, once joined: the right checked again, the stored state, the announcement."""
        if not self.still_allowed():
            return False, None, None
        stored = self.live.read(self.game_id, self.audience)
        if stored is not None:
            self.joined()
        return True, stored, latest_announcement_message()

    def joined(self) -> None:
        """Sync hook, in ``welcome``'s thread: the socket is joined and about to get its state."""

    async def after_welcome(self) -> None:
        """Async hook: the first message is sent."""

    async def disconnect(self, code):
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        self.groups_joined = []

    def control_groups(self, audience: str) -> list[str]:
        """The control groups whose messages make this socket check its right again."""
        if audience == PUBLIC:
            return []
        if self.application_id is not None:
            return [rights.application_group(self.application_id)]
        user = self.scope.get("user")
        return [rights.user_group(user.pk)] if getattr(user, "pk", None) else []

    def still_allowed(self) -> bool:
        """Sync: authorise again from the session and the user as they are stored now."""
        session = self.scope.get("session")
        self.scope["session"] = _stored_session(getattr(session, "session_key", None))
        self.scope["user"] = auth.get_user(SimpleNamespace(session=self.scope["session"]))
        return self.authorise() == self.audience

    async def shut(self) -> None:
        """Stop forwarding at once, leave every group, and tell the client why."""
        self.audience = None
        await self.disconnect(CLOSE_FORBIDDEN)
        await self.close(code=CLOSE_FORBIDDEN)

    async def control_recheck(self, event):
        if self.audience is None:
            return
        logged_out = event.get("session")
        own = getattr(self.scope.get("session"), "session_key", None)
        if (logged_out and logged_out == own) or not await in_thread(self.still_allowed)():
            await self.shut()

    async def forward_state(self, event):
        if self.audience is None:  # the right is gone; the close is on its way
            return
        # The live core encoded the message once per group, not once per socket.
        await self.send(text_data=event["text"])

    async def site_announce(self, event):
        await self.send_json(event)

    async def layer_reconnected(self, event):
        """Redis was unreachable and the pushes published meanwhile are lost (``config.layers``):
        send the page the stored state again, as on a connect (the page takes it, or reads
        over HTTP when it does not follow the version it holds)."""
        if self.audience is None:
            return
        stored = await in_thread(self.live.read)(self.game_id, self.audience)
        if stored is not None and self.audience is not None:
            await self.send(text_data=self.live.first_message(stored))
        await send_latest_announcement(self)

    async def receive_json(self, content, **kwargs):
        pass  # read-only: actions go through the HTTP API (CSRF, one code path)

    def authorise(self) -> str | None:
        """Sync: the audience this socket may watch, or None (refused with 4403). Each game's
        consumers say it; the base refuses, so a socket without a rule never gets a state."""
        return None

    def authorise_team(self) -> str | None:
        """Sync: the audience of the team this browser session is joined to for the game, or
        None."""
        entry = team_entry_for_session(self.scope.get("session"), self.game_id)
        if entry is None:
            return None
        self.application_id = entry.pk
        return team_audience(entry.pk)


def _stored_session(key: str | None):
    """The session as the store holds it now (loaded here, in sync code)."""
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
    store.keys()  # loads it: a lazy load later would be a query from async code
    return store
