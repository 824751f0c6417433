"""Cross-app reads: the announcement a page shows on load."""

from __future__ import annotations

import json
from datetime import datetime

from django.utils import timezone

from core.announcements import FRESH_FOR
from core.models import Announcement, AuditEntry


def latest_announcement(now: datetime | None = None) -> Announcement | None:
    """The newest announcement made within ``FRESH_FOR`` (pages opened just after it show it)."""
    now = now or timezone.now()
    return Announcement.objects.filter(created_at__gte=now - FRESH_FOR, created_at__lte=now).first()


def recent_announcements(limit: int = 10) -> list[Announcement]:
    return list(Announcement.objects.select_related("created_by")[:limit])


def audit_entries(game_id: int | None, limit: int = 1000) -> list[AuditEntry]:
    """A game's audit log, newest first; ``None``: every entry (bans belong to no game)."""
    entries = AuditEntry.objects.select_related("actor", "game")
    if game_id is not None:
        entries = entries.filter(game_id=game_id)
    return list(entries[:limit])


def audited_game(game_id: int):
    """The game an audit log is about, or None: the model the log's entries point to (core
    stores entries about games but imports no app above it)."""
    game_model = AuditEntry._meta.get_field("game").related_model
    return game_model.objects.filter(pk=game_id).first()


def audit_rows(game_id: int | None) -> list[dict]:
    """A game's audit log as the page shows it: the action's name and compact JSON values."""
    from core.audit import label

    def text(value) -> str:
        return "—" if value is None else json.dumps(value, ensure_ascii=False)

    return [{"entry": e, "label": label(e.action), "before": text(e.before),
             "after": text(e.after)} for e in audit_entries(game_id)]


def audit_entry_data(entry: AuditEntry) -> dict:
    """One entry as the API answers it."""
    return {"id": entry.pk, "app": entry.app, "game": entry.game_id, "action": entry.action,
            "actor": entry.actor.get_username() if entry.actor else None,
            "at": entry.at.isoformat(), "before": entry.before, "after": entry.after,
            "reason": entry.reason}
