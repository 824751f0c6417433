"""Presence: which teams' phones are connected, as the host's console shows it. A phone's
socket is stored without the game's lock (``phone_opened``, ``phone_closed``); the console
learns of them through one coalesced live write (``PRESENCE``, ``presence_refresh``), which
patches only the host's list of connected teams (``kingofhill.builds.presence_states``).

A row is a lease, not a promise: a worker that crashes closes nothing, and its rows would show
its teams connected until they reconnected. So each worker refreshes the rows of the phone
sockets it holds open, all in one statement, every ``PRESENCE_HEARTBEAT_MS`` (``BEATS``), and
a row no worker refreshed for ``PRESENCE_LEASE_MS`` is a socket gone: the same heartbeat of
any worker with a King of the Hill socket open removes it, as a close would, and asks the
console's refresh (``phones_expire``). A host's socket sweeps once when it connects, too.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.coalesce import Coalesced
from core.consumers import in_thread
from kingofhill import changes
from kingofhill.live import LIVE
from kingofhill.models import PhoneSocket
from live.write import Write

log = logging.getLogger(__name__)
CHUNK = 500  # channels per refreshing statement (well under every database's parameter limit)


def heartbeat_s() -> float:
    return max(10, settings.PRESENCE_HEARTBEAT_MS) / 1000


def lease() -> timedelta:
    return timedelta(milliseconds=settings.PRESENCE_LEASE_MS)


def phone_opened(*, game: int, application: int, channel: str) -> bool:
    """A team phone's socket opened (the consumer calls this after authorising it): its row is
    stored without the game's lock and the host's console is refreshed soon (``PRESENCE``).
    True when the caller must schedule that refresh (``core.coalesce``)."""
    now = timezone.now()
    try:
        with transaction.atomic():
            PhoneSocket.objects.get_or_create(
                channel=channel, defaults={"koth_id": game, "application_id": application,
                                           "opened_at": now, "seen_at": now})
    except IntegrityError:  # the game or the team was deleted meanwhile
        return False
    return PRESENCE.ask(game)


def phone_closed(*, game: int, channel: str) -> bool:
    """A team phone's socket closed: the team stays connected while another is open. True
    when the caller must schedule the host's refresh — always after the socket is gone, never
    in its own call (see ``consumers.TeamConsumer.disconnect``)."""
    deleted, _kinds = PhoneSocket.objects.filter(koth_id=game, channel=channel).delete()
    return bool(deleted) and PRESENCE.ask(game, now=False)


@LIVE.write
def presence_refresh(w: Write) -> None:
    """The host's list of connected teams follows the stored phone sockets (one write for
    however many opened or closed since the last)."""
    w.change = changes.PresenceChanged()


PRESENCE = Coalesced("koth-presence", lambda game_id: presence_refresh(game=game_id))


def phones_expire(now: datetime | None = None) -> list[int]:
    """Remove every phone socket whose lease ran out (its worker stopped refreshing it: it
    crashed, or lost the database that long), of any game, as if it had closed. Returns the
    games whose console the caller must schedule a refresh for (``PRESENCE``)."""
    stale = PhoneSocket.objects.filter(seen_at__lt=(now or timezone.now()) - lease())
    games = set(stale.values_list("koth_id", flat=True).distinct())
    if not games:
        return []
    stale.delete()
    return [game for game in sorted(games) if PRESENCE.ask(game, now=False)]


class Beats:
    """The King of the Hill sockets this worker holds open, and the one task that keeps their
    presence alive: every heartbeat it refreshes the phones' rows (one statement for all) and
    expires the rows nobody refreshed (``phones_expire``). It runs while any socket is joined;
    a host's socket joins without a row, to sweep for its console."""

    def __init__(self) -> None:
        self.sockets: dict[str, tuple[int, int] | None] = {}  # channel -> (game, team) or None
        self.task: asyncio.Task | None = None

    def join(self, channel: str, phone: tuple[int, int] | None = None) -> None:
        """From the event loop: a socket is open (``phone``: its game and team's application)."""
        self.sockets[channel] = phone
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self._run())

    def leave(self, channel: str) -> None:
        """From the event loop, before the socket's row is removed: a beat that runs after
        this (beats run in the same database thread as the close) no longer refreshes it."""
        self.sockets.pop(channel, None)
        if not self.sockets and self.task is not None:
            self.task.cancel()
            self.task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(heartbeat_s())
            try:
                games = await in_thread(self.beat)()
            except Exception:  # noqa: BLE001 - the next beat retries; a lease outlasts a few
                log.exception("presence heartbeat failed")
                continue
            for game in games:
                PRESENCE.schedule(game)

    def beat(self, now: datetime | None = None) -> list[int]:
        """Sync, in the database thread: refresh this worker's phones, then expire the others'
        stale rows. Returns the games whose console must be refreshed."""
        now = now or timezone.now()
        # copy() is one step for the event loop's thread, which joins and leaves meanwhile
        phones = {channel: phone for channel, phone in self.sockets.copy().items() if phone}
        channels = list(phones)
        refreshed = sum(PhoneSocket.objects.filter(channel__in=channels[i:i + CHUNK])
                        .update(seen_at=now) for i in range(0, len(channels), CHUNK))
        asks = []
        if refreshed < len(channels):
            # A row expired while this worker could not refresh it, yet its socket is open:
            # the team is connected again.
            have = {c for i in range(0, len(channels), CHUNK) for c in PhoneSocket.objects
                    .filter(channel__in=channels[i:i + CHUNK]).values_list("channel", flat=True)}
            for channel in channels:
                game, application = phones[channel]
                if channel not in have and phone_opened(game=game, application=application,
                                                        channel=channel):
                    asks.append(game)
        return sorted({*asks, *phones_expire(now)})


BEATS = Beats()
