"""The audit log of every host and organizer change: who, when, the value before and after.

Services call ``record`` once per change, inside their transaction (so the change and its
entry commit together). Organizers read a game's entries on ``/audit/games/<id>/`` and at
``/api/audit/games/<id>/`` (``core.selectors.audit_entries``).

Actions are ``<app>.<what>``: ``kingofhill.verdict``, ``kingofhill.partner``,
``kingofhill.host``, ``gorod.ruling``, ``rating.row``, ``rating.publish``, ``rating.vote``,
``teams.ban``… Values are JSON (``None`` for "nothing": a new ruling has no ``before``).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core import sql
from core.models import AuditEntry

# What the audit page calls each action (the API gives the action itself).
ACTION_LABELS = {
    "kingofhill.verdict": _("answer verdict"),
    "kingofhill.partner": _("partner mark"),
    "kingofhill.host": _("host assignment"),
    "kingofhill.merge": _("answer groups merged"),
    "kingofhill.split": _("answer group split"),
    "kingofhill.apart": _("answer groups kept apart"),
    "kingofhill.bank_edit": _("prepared question edited"),
    "kingofhill.bank_move": _("prepared question moved"),
    "kingofhill.appeal": _("verdict appeal"),
    "gorod.ruling": _("ruling"),
    "gorod.ruling_undo": _("ruling undone"),
    "gorod.ruling_edit": _("ruling corrected"),
    "gorod.timeout": _("timeout request answered"),
    "gorod.photo": _("photo proof answered"),
    "gorod.leaderboard": _("public leaderboard switched"),
    "rating.publish": _("results published"),
    "rating.row": _("results row"),
    "rating.finalize": _("results made final"),
    "rating.early_final": _("results made final early"),
    "rating.reopen": _("results re-opened"),
    "rating.organizer": _("organizing team"),
    "rating.vote": _("vote on the organizers"),
    "rating.protest": _("protest answered"),
    "teams.ban": _("ban"),
    "teams.profile_link": _("player's profile linked"),
    "teams.profile_unlink": _("player's profile unlinked"),
    "teams.member_merge": _("roster entries merged"),
}


def label(action: str) -> str:
    return str(ACTION_LABELS.get(action, action))


def _json(value: Any) -> Any:
    """Values as JSON keeps them: dates as ISO text, tuples as lists."""
    return None if value is None else json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def record(*, game, actor, action: str, before: Any, after: Any, reason: str = "",
           at: datetime | None = None) -> AuditEntry:
    """Store one change. ``game`` is a ``teams.Game``, a game app's row whose key is the
    ``teams.Game`` id (``KothGame``, ``GorodGame``), an id, or None; ``action`` is
    ``"<app>.<what>"``.

    Example: ``record(game=koth, actor=host, action="kingofhill.verdict",
    before={"answer": 7, "verdict": None}, after={"answer": 7, "verdict": True})``.
    """
    return record_many(game=game, actor=actor, action=action, changes=[(before, after)],
                       reason=reason, at=at)[0]


_ENTRIES = sql.Inserter(AuditEntry)


def record_many(*, game, actor, action: str, changes: list[tuple[Any, Any]],
                reason: str = "", at: datetime | None = None) -> list[AuditEntry]:
    """Store several changes of one action at once (one statement): ``changes`` are their
    ``(before, after)``. A host judging a group of 64 answers writes 64 entries; several
    entries come back without their ids (nothing reads them)."""
    app, _, what = action.partition(".")
    if not app or not what:
        raise ValueError(f"an audit action is '<app>.<what>', not {action!r}")
    game_id = game if isinstance(game, int) or game is None else game.pk
    user = actor if getattr(actor, "pk", None) is not None else None
    at = at or timezone.now()
    rows = [AuditEntry(app=app, game_id=game_id, actor=user, action=action,
                       before=_json(before), after=_json(after), reason=(reason or "").strip(),
                       at=at) for before, after in changes]
    if len(rows) == 1:
        rows[0].save(force_insert=True)
        return rows
    _ENTRIES.insert_many(rows)
    return rows
