"""Timeouts (rules, 3.10): asked by a team from its phone, confirmed or refused by the
organizer; a confirmed one is the team's TIMEOUT ruling."""

from __future__ import annotations

from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError
from core.text import within
from gorod import changes, rules, selectors
from gorod.guards import (
    answering,
    clock_time,
    entry_of,
    require_not_paused,
    require_organizer,
    require_running,
)
from gorod.live import LIVE
from gorod.models import GorodGame, Ruling, TimeoutRequest
from live.write import Write
from teams.models import Application


def _timeout_taken(gg: GorodGame, entry: Application) -> bool:
    return Ruling.objects.filter(gorod=gg, application=entry, type=Ruling.Type.TIMEOUT,
                                 undone_at__isnull=True).exists()


TIMEOUT_REFUSALS = {
    "not_on_level": lambda: _("A timeout is taken during a level: your team is not playing one."),
    "taken": lambda: _("Your team has had its timeout: one per game (rules, 3.10)."),
    "pending": lambda: _("Your team's request for a timeout waits for the organizer already."),
    "length": lambda: _("A timeout lasts from 1 to 30 minutes (rules, 3.10)."),
}


@LIVE.write
def timeout_request(w: Write, *, application: Application | int, minutes: float,
                    reason: str) -> TimeoutRequest:
    """A team asks for its timeout from a phone, with a reason and a length; the clock runs on
    until the organizer confirms it (``timeout_decide``)."""
    gg, now = w.game, w.now
    require_running(gg)
    require_not_paused(gg)
    entry = entry_of(gg, application)
    reason = (reason or "").strip()
    if not reason:
        raise DomainError(_("Say why your team needs a timeout."))
    snap = selectors.snapshot_or_refusal(gg, now)
    pending = TimeoutRequest.objects.filter(
        gorod=gg, application=entry, status=TimeoutRequest.Status.PENDING).exists()
    refusal = rules.timeout_request_refusal(
        snap.by_name[entry.team.name], minutes=minutes, taken=_timeout_taken(gg, entry),
        pending=pending)
    if refusal is not None:
        raise DomainError(TIMEOUT_REFUSALS[refusal]())
    w.change = changes.Computed(snap)  # a request changes no result
    return TimeoutRequest.objects.create(gorod=gg, application=entry, minutes=float(minutes),
                                         reason=within(reason, max_length=500, what=_("Reason")),
                                         asked_at=now)


@LIVE.write
def timeout_decide(w: Write, *, actor, request: TimeoutRequest | int, confirm: bool,
                   answer: str = "") -> TimeoutRequest:
    """The organizer confirms a team's timeout request (the TIMEOUT ruling starts now, checked
    by the engine) or refuses it (with an answer the team reads)."""
    require_organizer(actor)
    gg, now = w.game, w.now
    require_running(gg)
    row = answering(TimeoutRequest, gg, request, actor=actor, now=now, answer=answer,
                    related=("application__team",),
                    missing=_("There is no such timeout request in this game."),
                    answered=_("This timeout request has been answered already."))
    if confirm:
        if gg.paused_at is not None:
            # The team's clock already stands; a timeout may not overlap the game's pause.
            raise DomainError(_("The game is paused (since %(t)s): confirm the timeout after "
                                "the resume.") % {"t": clock_time(gg.paused_at)})
        if _timeout_taken(gg, row.application):
            raise DomainError(_("This team has had its timeout: one per game (rules, 3.10)."))
        row.ruling = Ruling.objects.create(
            gorod=gg, application=row.application, type=Ruling.Type.TIMEOUT,
            minutes=row.minutes, at=now, reason=row.reason, by=actor, created_at=now)
        row.status = TimeoutRequest.Status.CONFIRMED
        w.change = changes.Computed(selectors.snapshot_or_refusal(gg, now))
    else:
        row.status = TimeoutRequest.Status.REFUSED
    row.save(update_fields=["decided_at", "decided_by", "answer", "ruling", "status"])
    audit.record(game=gg, actor=actor, action="gorod.timeout", at=now,
                 before={"request": row.pk, "team": row.application.team.name,
                         "minutes": row.minutes, "status": TimeoutRequest.Status.PENDING},
                 after={"request": row.pk, "status": row.status,
                        "ruling": row.ruling_id}, reason=row.answer)
    return row
