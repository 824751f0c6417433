"""Cross-app reads: the announcement a page shows on load."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from core.announcements import FRESH_FOR
from core.models import Announcement


def latest_announcement(now: datetime | None = None) -> Announcement | None:
    """The newest announcement made within ``FRESH_FOR`` (pages opened just after it show it)."""
    now = now or timezone.now()
    return Announcement.objects.filter(created_at__gte=now - FRESH_FOR, created_at__lte=now).first()


def recent_announcements(limit: int = 10) -> list[Announcement]:
    return list(Announcement.objects.select_related("created_by")[:limit])
