"""Delivering announcements: the one place that broadcasts a stored ``core.models.Announcement``.

An announcement is claimed with a conditional UPDATE (``delivered_at IS NULL`` → now) before it
is sent, so two processes — the request that stored it and a scheduler round of
``deliver_pending``, or two workers' schedulers — never send one twice. A broadcast that fails
is logged and releases the claim, so the next round tries again; it never raises.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import DomainError
from core.realtime import broadcast_announcement

log = logging.getLogger(__name__)

#: the longest announcement; a longer one is refused, not cut
MAX_LENGTH = 500
#: how long an announcement stays news: pages opened within this time after it show it on
#: load, and an undelivered one older than this is not broadcast any more
FRESH_FOR = timedelta(minutes=10)


def clean_text(text: str) -> str:
    """The announcement's text as stored, or a ``DomainError`` saying what is wrong.

    >>> clean_text("  Перерыв 10 минут ")
    'Перерыв 10 минут'
    """
    text = (text or "").strip()
    if not text:
        raise DomainError(_("The announcement is empty: write what to show."))
    if len(text) > MAX_LENGTH:
        raise DomainError(_("The announcement is too long: %(length)d characters, at most %(max)d.")
                          % {"length": len(text), "max": MAX_LENGTH})
    return text


def layer_reaches_the_server() -> bool:
    """Whether a broadcast from THIS process reaches the running server's pages: only a shared
    (Redis) channel layer crosses processes; the in-memory layer lives inside one process."""
    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
    return bool(backend) and not backend.endswith("InMemoryChannelLayer")


def deliver(announcement_id: int, text: str, now: datetime | None = None) -> bool:
    """Claim one undelivered announcement and broadcast it; True if this call sent it."""
    from core.models import Announcement

    now = now or timezone.now()
    if not Announcement.objects.filter(pk=announcement_id, delivered_at__isnull=True).update(delivered_at=now):
        return False  # somebody else sent it
    try:
        broadcast_announcement(text)
    except Exception:
        log.exception("announcement %s: the broadcast failed; it stays pending", announcement_id)
        Announcement.objects.filter(pk=announcement_id, delivered_at=now).update(delivered_at=None)
        return False
    return True


def deliver_pending(now: datetime | None = None) -> int:
    """Broadcast every undelivered announcement still fresh (oldest first); returns how many
    this call sent. The server's scheduler calls it every second, so an announcement stored by
    a process that cannot reach the pages (``manage.py announce`` on the in-memory layer)
    appears within a second."""
    from core.models import Announcement

    now = now or timezone.now()
    pending = (Announcement.objects.filter(delivered_at__isnull=True, created_at__gte=now - FRESH_FOR)
               .order_by("created_at", "pk").values_list("pk", "text"))
    return sum(deliver(pk, text, now) for pk, text in list(pending))
