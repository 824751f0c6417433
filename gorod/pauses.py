"""Pauses of the whole game (force majeure, rules 3.5 and 9.1: weather, police, a closed
district): the organizer presses Pause and every team's clock stops — no code, photo or timeout
is taken, the clock fires nothing — and Resume, when the pause's length is known, moves every
open level's remaining hints and fail time later by it (the record's ``pause`` event,
``docs/spec/record-format.md``).

While a pause is open the game is computed at its start (``selectors.engine_moment``): what
every screen shows stands still, and the exported record stops there too. [decision] A pause
cannot be undone (see ``models.Pause``); a pause that should not have been is simply resumed.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError
from core.text import within
from gorod import changes, rules, selectors
from gorod.guards import clock_time, require_organizer, require_running
from gorod.live import LIVE
from gorod.models import Pause
from live.write import Write

_MINUTE = timedelta(minutes=1)


@LIVE.write
def game_pause(w: Write, *, actor, reason: str = "") -> Pause:
    """Pause the whole game now. Refused while a team's timeout runs: the rules' pause and a
    team's timeout never overlap (the team's clock is already stopped; pause when it ends)."""
    require_organizer(actor)
    gg, now = w.game, w.now
    require_running(gg)
    if gg.paused_at is not None:
        raise DomainError(_("The game is paused already (since %(t)s).")
                          % {"t": clock_time(gg.paused_at)})
    reason = within((reason or "").strip(), max_length=500, what=_("Reason"))
    snap = selectors.snapshot_or_refusal(gg, now)
    if snap.results.game_over:
        raise DomainError(_("The game has ended."))
    for result in snap.results.teams:
        until = rules.timeout_until(result, now)
        if until is not None:
            raise DomainError(_("%(team)s is on its timeout until %(t)s: a pause of the game "
                                "may not overlap a team's timeout; pause when it ends.")
                              % {"team": result.team, "t": clock_time(until)})
    gg.paused_at = now
    gg.save(update_fields=["paused_at"])
    pause = Pause.objects.create(gorod=gg, started_at=now, reason=reason, started_by=actor)
    audit.record(game=gg, actor=actor, action="gorod.pause", at=now, before=None,
                 after={"pause": pause.pk, "paused_at": selectors.iso(now)}, reason=reason)
    w.change = changes.PauseChanged(selectors.snapshot_or_refusal(gg, now))
    return pause


@LIVE.write
def game_resume(w: Write, *, actor) -> Pause:
    """Resume the paused game now: the pause's length is known and every team's open level
    moves by it; the clock's next deadline is stored again."""
    require_organizer(actor)
    gg, now = w.game, w.now
    require_running(gg)
    pause = close_pause(w, actor)
    if pause is None:
        raise DomainError(_("The game is not paused."))
    w.change = changes.PauseChanged(selectors.snapshot_or_refusal(gg, now))
    return pause


def close_pause(w: Write, actor) -> Pause | None:
    """End the game's open pause at ``w.now`` inside the caller's write (a resume, or the end
    of the game during a pause): its length joins the game's pauses. None: none was open."""
    gg, now = w.game, w.now
    if gg.paused_at is None:
        return None
    start = gg.paused_at
    if now <= start:
        raise DomainError(_("The pause has only just begun: try again in a moment."))
    minutes = (now - start) / _MINUTE
    gg.pauses = [*gg.pauses, {"at": selectors.iso(start), "minutes": minutes}]
    gg.paused_at = None
    gg.save(update_fields=["pauses", "paused_at"])
    pause = Pause.objects.filter(gorod=gg, ended_at__isnull=True).first()
    if pause is not None:
        pause.ended_at, pause.ended_by = now, actor
        pause.save(update_fields=["ended_at", "ended_by"])
    audit.record(game=gg, actor=actor, action="gorod.resume", at=now,
                 before={"paused_at": selectors.iso(start)},
                 after={"pause": None if pause is None else pause.pk,
                        "minutes": round(minutes, 3)})
    return pause

