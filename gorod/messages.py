"""Messages and bonus hints (rules, 2.15.1, 4.1.4): the organizer writes to all teams, to the
teams on one level, or to one team; a bonus hint is attached to a level and shown under its
hints. They change no time (no event of the record): only the organizer's list and the phones
of the teams they reach change. The phones say when they showed one (``message_seen``)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError
from core.text import within
from gorod import changes, selectors, signals
from gorod.guards import entry_of, require_organizer, require_started
from gorod.live import LIVE
from gorod.models import GorodGame, Level, Message, MessageReceipt
from live.messages import team_audience
from live.write import Write
from teams.models import Application

TEXT_MAX = 1000


def _text(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise DomainError(_("Write the text of the message."))
    return within(text, max_length=TEXT_MAX, what=_("The message"))


def _receivers(w: Write, *, audience: str, level: str | None,
               application: Application | int | None, later: bool
               ) -> tuple[Level | None, Application | None, list[int], selectors.Snapshot | None]:
    """The level, the team and the application ids of the teams a message reaches now (the
    level's: the game computed now, returned for the build)."""
    gg = w.game
    if audience == Message.Audience.TEAM:
        if application in (None, ""):
            raise DomainError(_("Choose the team."))
        entry = entry_of(gg, application)
        return None, entry, [entry.pk], None
    if audience == Message.Audience.ALL:
        return None, None, list(gg.team_order), None
    if level in (None, ""):
        raise DomainError(_("Choose the level."))
    row = Level.objects.filter(gorod=gg, label=str(level)).first()
    if row is None:
        raise DomainError(_("There is no level %(level)s in this game.") % {"level": level})
    snap = selectors.snapshot_or_refusal(gg, w.now)
    teams = [pk for pk, name in snap.names.items()
             if (result := snap.by_name.get(name)) is not None and result.status == "playing"
             and result.current_level == row.label]
    if not teams and not later:
        raise DomainError(_("No team is on level %(level)s now.") % {"level": row.label})
    return row, None, teams, snap


@LIVE.write
def message_send(w: Write, *, actor, text: str, kind: str = Message.Kind.MESSAGE,
                 audience: str = Message.Audience.ALL, level: str | None = None,
                 application: Application | int | None = None, later: bool = False) -> Message:
    """The organizer sends a message to all teams, to the teams on a level now, or to one
    team; or a bonus hint to the teams on its level now (``later``: and to those that reach
    it afterwards). [decision] Refused before the start (the teams are not fixed yet); after
    the end a message to all teams or to one team is still sent (where the results are
    announced, a thank-you), but nothing to a level: no team plays one any more."""
    require_organizer(actor)
    gg, now = w.game, w.now
    require_started(gg)
    text = _text(text)
    if kind not in Message.Kind.values:
        raise DomainError(_("Send a message or a bonus hint."))
    if audience not in Message.Audience.values:
        raise DomainError(_("Send it to all teams, to the teams on a level or to one team."))
    bonus = kind == Message.Kind.BONUS_HINT
    if bonus and audience != Message.Audience.LEVEL:
        raise DomainError(_("A bonus hint goes to the teams on its level: choose the level."))
    if later and not bonus:
        raise DomainError(_("Only a bonus hint reaches the teams that get its level later."))
    if gg.status == GorodGame.Status.FINISHED and audience == Message.Audience.LEVEL:
        raise DomainError(_("The game has ended: no team is on a level. Write to all teams "
                            "or to one team."))
    row, entry, teams, snap = _receivers(w, audience=audience, level=level,
                                         application=application, later=later)
    message = Message.objects.create(gorod=gg, kind=kind, audience=audience, text=text,
                                     level=row, application=entry, later=bool(later),
                                     sent_at=now, sent_by=actor)
    MessageReceipt.objects.bulk_create([MessageReceipt(message=message, application_id=pk)
                                        for pk in teams])
    if bonus:
        # The phones show a level's bonus hints from the set-up cache (a code reads nothing
        # more): it is read again under the new number.
        signals.bump([gg.pk])
        gg.setup_version += 1
    audit.record(game=gg, actor=actor, action="gorod.message", at=now, before=None,
                 after={"message": message.pk, "kind": kind, "audience": audience,
                        "level": row.label if row else None,
                        "team": entry.team.name if entry else None, "later": bool(later),
                        "text": text, "teams": len(teams)})
    w.change = changes.MessageSent(message.pk, tuple(teams), snap if bonus else None)
    return message


@LIVE.write
def message_seen(w: Write, *, application: Application | int, messages: list[int]) -> int:
    """A team's phone showed these messages or bonus hints: each one's first moment is kept
    (a repeated call changes nothing, and writes no version). A bonus hint for the teams that
    reach its level later is counted as reaching the team when its phone shows it. Answers
    how many were new."""
    gg, now = w.game, w.now
    require_started(gg)
    entry = entry_of(gg, application)
    wanted = set(messages)
    receipts = {r.message_id: r for r in MessageReceipt.objects.filter(
        message__gorod=gg, application=entry, message_id__in=wanted)}
    missing = wanted - receipts.keys()
    if missing:
        # Only what the team's phones are shown: a later bonus hint of the level it is on.
        audience = team_audience(entry.pk)
        me = w.read_values({audience: ["me"]}).get(audience, {}).get("me") or {}
        shown = {hint["id"] for hint in (me.get("level") or {}).get("bonus_hints") or []}
        if missing - shown:
            raise DomainError(_("No such message reached your team."))
    fresh = [r.pk for r in receipts.values() if r.seen_at is None]
    MessageReceipt.objects.filter(pk__in=fresh).update(seen_at=now)
    MessageReceipt.objects.bulk_create([MessageReceipt(message_id=pk, application=entry,
                                                       seen_at=now) for pk in sorted(missing)])
    new = len(fresh) + len(missing)
    if not new:
        w.unchanged = True
        return 0
    w.change = changes.MessagesSeen(entry.pk)
    return new
