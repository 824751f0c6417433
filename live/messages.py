"""Who watches (audiences), where a push goes (group names), what travels (the envelopes of
a push, a socket's first message and a resync) and the push itself, after the commit."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.http import HttpResponse
from django.utils import timezone

from core.realtime import send_to_groups
from live.codec import decode, encode

log = logging.getLogger(__name__)

PUBLIC = "public"
# No socket message carries a state past this: a larger one travels over HTTP (a socket's first
# message says only its version; ``tests/gorod/test_push_sizes.py`` holds the pushes to it).
PUSH_LIMIT = 16 * 1024


def team_audience(application_id: int) -> str:
    """The audience of one team's phones."""
    return f"team:{application_id}"


def group_name(app_name: str, game_id: int, audience: str) -> str:
    """``koth.7.public``, ``gorod.7.team.12``: the channel-layer group of one audience (group
    names allow no colon)."""
    return f"{app_name}.{game_id}.{audience.replace(':', '.')}"


@dataclass(frozen=True)
class Stored:
    """A stream's stored state: its version and the state's JSON text."""

    audience: str
    version: int
    text: str

    def data(self) -> dict:
        return {"version": self.version, "state": decode(self.text)}

    def response(self, status: int = 200, **extra: Any) -> HttpResponse:
        """The API's answer ``{"version", "state", "server_time", **extra}`` with the stored
        text spliced in as it is: a read never parses and re-encodes a state (the organizer's
        is hundreds of KiB at 200 teams)."""
        head = encode({"version": self.version, "server_time": timezone.now().isoformat(),
                       **extra})
        return HttpResponse(f'{head[:-1]},"state":{self.text}}}',
                            content_type="application/json", status=status)



def broadcast(messages: list[tuple[str, dict]]) -> int:
    """Send after a commit; a failure is logged, never raised (the write is stored and every
    screen catches up on its next push or resync)."""
    try:
        return send_to_groups(messages)
    except Exception:  # noqa: BLE001 - any layer failure (Redis down, full channel) is the same
        log.exception("live broadcast of %d messages failed; screens resync", len(messages))
        return 0


