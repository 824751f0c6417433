"""Safety check-ins on dangerous levels (issue 32; the danger grade of rules 8.8): on a level of
grade 3–4 the team's phone confirms "all fine" every N minutes (``GorodGame.checkin_every_min``);
a missed check-in is an alarm on the organizer's screen (``settle.safety_watch``) until the team
checks in or the organizer acknowledges it. When one is due is ``rules.checkin_due``."""

from __future__ import annotations

from datetime import timedelta

from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError
from gorod import changes, rules, selectors
from gorod.guards import entry_of, require_organizer, require_running
from gorod.live import LIVE
from gorod.models import CheckIn, GorodGame
from live.write import Write
from teams.models import Application

#: A second "all fine" this soon after the last one is the same check-in (a double tap, a
#: retried request): no new row.
SAME_CHECKIN = timedelta(minutes=1)


def _dangerous_level(gg: GorodGame, entry: Application, now, refusal: str):
    """The grade 3–4 level the team plays at ``now`` and when it received it, or ``refusal``."""
    if not gg.checkin_every_min:
        raise DomainError(_("This game asks for no safety check-ins."))
    snap = selectors.team_snapshot(gg, entry.pk, now)
    result = snap.by_name.get(snap.names.get(entry.pk))
    level = snap.level(result.current_level) if result and result.status == "playing" else None
    if level is None or level.danger not in rules.CHECKIN_GRADES:
        raise DomainError(refusal)
    return level, result.levels[-1].received_at


@LIVE.write
def checkin(w: Write, *, application: Application | int) -> CheckIn:
    """The team's "all fine" on its grade 3–4 level: the next check-in is due N minutes from
    now, and its alarm, if one stood, clears. Idempotent within a minute."""
    gg, now = w.game, w.now
    require_running(gg)
    entry = entry_of(gg, application)
    level, received = _dangerous_level(
        gg, entry, now, _("Check-ins are asked only on a level of danger grade 3 or 4."))
    last = (CheckIn.objects.filter(gorod=gg, application=entry, level=level, by__isnull=True,
                                   at__gte=max(received, now - SAME_CHECKIN))
            .order_by("-at").first())
    w.change = changes.SafetyChanged(team=entry.pk)
    if last is not None:
        return last
    return CheckIn.objects.create(gorod=gg, application=entry, level=level, at=now)


@LIVE.write
def alarm_acknowledge(w: Write, *, actor, application: Application | int) -> CheckIn:
    """The organizer acknowledges a team's missed check-in (reached it by phone, sent someone):
    the alarm clears and the next check-in is due N minutes from now. Audited."""
    require_organizer(actor)
    gg, now = w.game, w.now
    require_running(gg)
    entry = entry_of(gg, application)
    refusal = _("%(team)s has no safety alarm to acknowledge.") % {"team": entry.team.name}
    level, received = _dangerous_level(gg, entry, now, refusal)
    last = (CheckIn.objects.filter(gorod=gg, application=entry, level=level)
            .order_by("-at").values_list("at", flat=True).first())
    due = rules.checkin_due(every_min=gg.checkin_every_min, danger=level.danger,
                            received_at=received, last_checkin=last)
    if not rules.checkin_overdue(due, selectors.engine_moment(gg, now)):
        raise DomainError(refusal)
    row = CheckIn.objects.create(gorod=gg, application=entry, level=level, at=now, by=actor)
    audit.record(game=gg, actor=actor, action="gorod.alarm_acknowledge", at=now,
                 before={"team": entry.team.name, "level": level.label,
                         "due_at": selectors.iso(due)},
                 after={"checkin": row.pk})
    w.change = changes.SafetyChanged(team=entry.pk)
    return row
