"""Presence: which teams' phones are connected, as the host's console shows it. A phone's
socket is stored without the game's lock (``phone_opened``, ``phone_closed``); the console
learns of them through one coalesced live write (``PRESENCE``, ``presence_refresh``), which
patches only the host's list of connected teams (``kingofhill.states.presence_states``).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.coalesce import Coalesced
from kingofhill import changes
from kingofhill.live import LIVE
from kingofhill.models import PhoneSocket
from live.write import Write


def phone_opened(*, game: int, application: int, channel: str) -> bool:
    """A team phone's socket opened (the consumer calls this after authorising it): its row is
    stored without the game's lock and the host's console is refreshed soon (``PRESENCE``).
    True when the caller must schedule that refresh (``core.coalesce``)."""
    try:
        with transaction.atomic():
            PhoneSocket.objects.get_or_create(
                channel=channel, defaults={"koth_id": game, "application_id": application,
                                           "opened_at": timezone.now()})
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
