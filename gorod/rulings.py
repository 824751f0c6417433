"""The organizer's rulings (rules: penalty, bonus, fail, force majeure, timeout, average time,
disqualification) and their corrections: each is checked by the engine on the whole record, and
one made after the night's results are published needs the organizer's confirmation. Before a
ruling or an undo, its preview: the teams whose place or total it changes, from the same engine
on the record with it added or taken out, without a write."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _

from core import audit, engine_messages, formats
from core.errors import DomainError
from core.records import RecordError
from core.text import within
from gorod import changes, reads, rules, selectors
from gorod.guards import (
    KEEP,
    clock_time,
    confirm_after_results,
    entry_of,
    require_organizer,
    require_started,
)
from gorod.live import LIVE
from gorod.models import GorodGame, Level, Ruling
from live.write import Write
from teams.models import Application


def _checked(gg: GorodGame, entry: Application, now: datetime, *, type: str,
             minutes: float | None, level: str | None, at: datetime | None
             ) -> tuple[float | None, Level | None, datetime | None]:
    """A new ruling's minutes, level row and moment as it would be stored, or the refusal:
    what ``ruling_add`` stores and ``ruling_preview`` shows the effect of."""
    if type not in Ruling.Type.values:
        raise DomainError(_("Unknown ruling %(type)s.") % {"type": type})
    if type == Ruling.Type.CODE:
        raise DomainError(_("A code is credited by fixing its level's codes (Fix level)."))
    if type in rules.MINUTE_RULINGS:
        if minutes is None:
            raise DomainError(_("Give the minutes."))
    else:
        minutes = None
    level_row = None
    if type in rules.LEVEL_RULINGS:
        if not level:
            if type == "average_time":
                raise DomainError(_("Choose the level."))
            current = selectors.team_snapshot(gg, entry.pk, now).by_name[
                entry.team.name].current_level
            if current is None:
                raise DomainError(_("The team is not on a level now; choose the level."))
            level = current
        level_row = Level.objects.filter(gorod=gg, label=str(level)).first()
        if level_row is None:
            raise DomainError(_("There is no level %(level)s.") % {"level": level})
    at = (at or now) if type in rules.TIMED_RULINGS else None
    if at is not None and at > now:
        raise DomainError(_("A ruling cannot take effect in the future."))
    _refuse_inside_the_pause(gg, at)
    return minutes, level_row, at


@LIVE.write
def ruling_add(w: Write, *, actor, application: Application | int, type: str,
               minutes: float | None = None, level: str | None = None,
               at: datetime | None = None, reason: str = "", confirm: bool = False) -> Ruling:
    """Record an organizer ruling (rules: penalty, bonus, sliv, force majeure, timeout,
    average time, disqualify). Fail, force majeure and timeout take effect at ``at`` (default
    now); a fail or force majeure without a level applies to the team's current level. The
    whole record is replayed through the engine: a ruling it refuses is not stored. After the
    night, once results are published, it needs ``confirm`` (``confirm_after_results``)."""
    require_organizer(actor)
    gg, now = w.game, w.now
    require_started(gg)
    entry = entry_of(gg, application)
    minutes, level_row, at = _checked(gg, entry, now, type=type, minutes=minutes, level=level,
                                      at=at)
    ruling = Ruling.objects.create(
        gorod=gg, application=entry, type=type, minutes=minutes, level=level_row, at=at,
        reason=(reason or "").strip(), by=actor, created_at=now)
    audit.record(game=gg, actor=actor, action="gorod.ruling", at=now, before=None,
                 after={"ruling": ruling.pk, "team": entry.team.name, "type": type,
                        "minutes": minutes, "level": level_row.label if level_row else None,
                        "at": at},
                 reason=ruling.reason)
    # The engine's refusal rolls the ruling back.
    w.change = changes.RulingAdded(team=entry.pk,
                                   snapshot=selectors.snapshot_or_refusal(gg, now))
    confirm_after_results(w, confirm=confirm, what=_("A ruling for %(team)s was added.")
                           % {"team": entry.team.name})
    return ruling


def _refuse_inside_the_pause(gg: GorodGame, at: datetime | None) -> None:
    """A fail, force majeure or timeout takes effect before the open pause or after the resume
    (the engine refuses one inside an ended pause in its own words)."""
    if at is not None and gg.paused_at is not None and at > gg.paused_at:
        raise DomainError(_("The game is paused (since %(t)s): a fail, force majeure or "
                            "timeout cannot take effect during the pause.")
                          % {"t": clock_time(gg.paused_at)})


def _ruling_of(gg: GorodGame, ruling: Ruling | int) -> Ruling:
    ruling_id = ruling if isinstance(ruling, int) else ruling.pk
    found = Ruling.objects.filter(gorod=gg, pk=ruling_id).select_related("level").first()
    if found is None:
        raise DomainError(_("There is no such ruling in this game."))
    if found.undone_at is not None:
        raise DomainError(_("This ruling has been undone already."))
    return found


def _ruling_value(ruling: Ruling) -> dict:
    """What a correction changes, as the history (and the audit log) keeps it."""
    return {"type": ruling.type, "minutes": ruling.minutes,
            "level": ruling.level.label if ruling.level_id else None,
            "at": selectors.iso(ruling.at), "reason": ruling.reason}


def _correction_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise DomainError(_("Say why the ruling is corrected."))
    return within(reason, max_length=500, what=_("Reason"))


def _note_correction(ruling: Ruling, *, action: str, before: dict, reason: str, actor,
                     now: datetime) -> None:
    after = None if action == "undo" else _ruling_value(ruling)
    ruling.history = [*(ruling.history or []), {
        "action": action, "before": before, "after": after,
        "reason": reason, "by": actor.get_username(), "at": selectors.iso(now)}]
    audit.record(game=ruling.gorod_id, actor=actor, action=f"gorod.ruling_{action}", at=now,
                 before={"ruling": ruling.pk, **before},
                 after=None if after is None else {"ruling": ruling.pk, **after}, reason=reason)


@LIVE.write
def ruling_undo(w: Write, *, actor, ruling: Ruling | int, reason: str,
                confirm: bool = False) -> Ruling:
    """Undo a ruling with a reason: it leaves the game's record (the engine replays the game
    without it and refuses an undo that makes the game impossible, e.g. a failed level the team
    has played past), its history keeps what it was, who undid it, when and why. After the
    night, once results are published, it needs ``confirm`` (``confirm_after_results``)."""
    require_organizer(actor)
    gg, now = w.game, w.now
    require_started(gg)
    row = _ruling_of(gg, ruling)
    reason = _correction_reason(reason)
    before = _ruling_value(row)
    row.undone_at = now
    _note_correction(row, action="undo", before=before, reason=reason, actor=actor, now=now)
    row.save(update_fields=["undone_at", "history"])
    w.change = changes.Computed(selectors.snapshot_or_refusal(gg, now))
    confirm_after_results(w, confirm=confirm, what=_("A ruling was undone: %(reason)s")
                           % {"reason": reason})
    return row


def _corrected(gg: GorodGame, row: Ruling, now: datetime, *, minutes, level, at,
               ruling_reason) -> Ruling:
    """``row`` with a correction applied in memory (not saved), or the refusal: what
    ``ruling_edit`` stores and ``edit_preview`` shows the effect of."""
    before = _ruling_value(row)
    if minutes is not KEEP and row.type in rules.MINUTE_RULINGS:
        if minutes is None:
            raise DomainError(_("Give the minutes."))
        row.minutes = minutes
    if level is not KEEP and row.type in rules.LEVEL_RULINGS:
        level_row = Level.objects.filter(gorod=gg, label=str(level or "")).first()
        if level_row is None:
            raise DomainError(_("There is no level %(level)s.") % {"level": level})
        row.level = level_row
    if at is not KEEP and row.type in rules.TIMED_RULINGS and at is not None:
        if at > now:
            raise DomainError(_("A ruling cannot take effect in the future."))
        _refuse_inside_the_pause(gg, at)
        row.at = at
    if ruling_reason is not KEEP:
        row.reason = str(ruling_reason or "").strip()
    if _ruling_value(row) == before:
        raise DomainError(_("Nothing to change: the ruling already says this."))
    return row


@LIVE.write
def ruling_edit(w: Write, *, actor, ruling: Ruling | int, reason: str, minutes=KEEP,
                level=KEEP, at=KEEP, ruling_reason=KEEP, confirm: bool = False) -> Ruling:
    """Correct a ruling's minutes, level, moment or stated reason (its type and team stay: undo
    it and rule anew for another). Checked as a new ruling is: by the engine, on the whole
    record; the history keeps the previous value, who, when and why. After the night, once
    results are published, it needs ``confirm`` (``confirm_after_results``)."""
    require_organizer(actor)
    gg, now = w.game, w.now
    require_started(gg)
    row = _ruling_of(gg, ruling)
    reason = _correction_reason(reason)
    before = _ruling_value(row)
    _corrected(gg, row, now, minutes=minutes, level=level, at=at, ruling_reason=ruling_reason)
    _note_correction(row, action="edit", before=before, reason=reason, actor=actor, now=now)
    row.save(update_fields=["minutes", "level", "at", "reason", "history"])
    w.change = changes.Computed(selectors.snapshot_or_refusal(gg, now))
    confirm_after_results(w, confirm=confirm, what=_("A ruling was corrected: %(reason)s")
                           % {"reason": reason})
    return row


# --- previews: what a ruling, an undo or a correction would change, before it is made ------


@dataclass(frozen=True)
class Preview:
    """The teams whose place or total a ruling (or its undo) would change, from the engine on
    the game's record with it added (or taken out); nothing is stored."""

    changes: tuple[rules.StandingChange, ...]
    results_published: bool

    @property
    def text(self) -> str:
        lines = [_change_text(c) for c in self.changes] or [
            _("No team's place or total changes.")]
        if self.results_published:
            lines.append(_("The published results become out of date: the organizer must "
                           "publish them again."))
        return "; ".join(lines)

    def as_data(self) -> dict:
        return {"text": self.text, "results_published": self.results_published,
                "teams": [{"team": c.team, "place_before": c.place_before,
                           "place_after": c.place_after, "total_before_s": c.total_before_s,
                           "total_after_s": c.total_after_s,
                           "total_before": _totals(c)[0], "total_after": _totals(c)[1]}
                          for c in self.changes]}


def _totals(change: rules.StandingChange) -> tuple[str, str]:
    """Both totals as ``h:mm``; with seconds when that alone would hide the change."""
    before, after = (rules.clock_text(change.total_before_s),
                     rules.clock_text(change.total_after_s))
    if before == after and change.total_before_s != change.total_after_s:
        return (rules.clock_text(change.total_before_s, with_seconds=True),
                rules.clock_text(change.total_after_s, with_seconds=True))
    return before, after


def _place(place: int | None) -> str:
    return str(place) if place is not None else _("no place")


def _change_text(change: rules.StandingChange) -> str:
    parts = []
    if change.place_before != change.place_after:
        parts.append(_("place %(before)s → %(after)s") % {
            "before": _place(change.place_before), "after": _place(change.place_after)})
    before, after = _totals(change)
    if before != after:
        parts.append(_("total %(before)s → %(after)s") % {"before": before, "after": after})
    return f"{change.team}: {', '.join(parts)}"


def preview_of_events(gg: GorodGame, snap: selectors.Snapshot, events: list[dict]) -> Preview:
    """The standings of the game's record with ``events`` instead of its own, next to the
    current ones; the engine's refusal of that record is the user's."""
    moment = max(snap.now, gg.ended_at or gg.started_at)
    try:
        after = rules.compute(rules.parse_record({**snap.record, "events": events}), moment)
    except RecordError as exc:
        raise DomainError(_("The game engine refuses this: %(why)s")
                          % {"why": engine_messages.translate(exc)}) from None
    published = (gg.status == GorodGame.Status.FINISHED
                 and formats.results_published(gg.pk))
    return Preview(rules.standings_diff(snap.results.teams, after.teams), published)


def ruling_event(snap: selectors.Snapshot, row: reads.RulingRow) -> dict:
    return selectors.ruling_event(row, snap.names, {lv.pk: lv.label for lv in snap.levels})


def ruling_preview(*, actor, game: GorodGame | int, application: Application | int, type: str,
                   minutes: float | None = None, level: str | None = None,
                   at: datetime | None = None, reason: str = "",
                   now: datetime | None = None) -> Preview:
    """What ``ruling_add`` with these arguments would change in the standings, checked and
    refused as it would be, without a write."""
    require_organizer(actor)
    gg = selectors.gorod_game(game if isinstance(game, int) else game.pk)
    now = now or timezone.now()
    require_started(gg)
    entry = entry_of(gg, application)
    minutes, level_row, at = _checked(gg, entry, now, type=type, minutes=minutes, level=level,
                                      at=at)
    snap = selectors.snapshot_or_refusal(gg, now)
    added = ruling_event(snap, reads.RulingRow(entry.pk, type, at, level_row.pk if level_row else None,
                                         minutes, (reason or "").strip(),
                                         actor.get_username()))
    return preview_of_events(gg, snap, [*snap.record["events"], added])


def _stored_event(snap: selectors.Snapshot, row: Ruling) -> dict:
    """A stored ruling's event as the record holds it (``selectors.build_record``)."""
    return ruling_event(snap, reads.RulingRow(
        row.application_id, row.type, row.at, row.level_id, row.minutes, row.reason,
        row.by.get_username() if row.by_id else None))


def undo_preview(*, actor, game: GorodGame | int, ruling: Ruling | int,
                 now: datetime | None = None) -> Preview:
    """What ``ruling_undo`` of this ruling would change in the standings, without a write."""
    require_organizer(actor)
    gg = selectors.gorod_game(game if isinstance(game, int) else game.pk)
    now = now or timezone.now()
    require_started(gg)
    row = _ruling_of(gg, ruling)
    snap = selectors.snapshot_or_refusal(gg, now)
    events = list(snap.record["events"])
    if row.application_id in snap.names:
        # Equal rulings make equal events: taking out any one of them is taking out this one.
        events.remove(_stored_event(snap, row))
    return preview_of_events(gg, snap, events)


def edit_preview(*, actor, game: GorodGame | int, ruling: Ruling | int, minutes=KEEP,
                 level=KEEP, at=KEEP, ruling_reason=KEEP, now: datetime | None = None
                 ) -> Preview:
    """What ``ruling_edit`` with these corrections would change in the standings, checked
    and refused as it would be, without a write."""
    require_organizer(actor)
    gg = selectors.gorod_game(game if isinstance(game, int) else game.pk)
    now = now or timezone.now()
    require_started(gg)
    row = _ruling_of(gg, ruling)
    snap = selectors.snapshot_or_refusal(gg, now)
    events = list(snap.record["events"])
    stored = _stored_event(snap, row)  # before the correction changes the row in memory
    row = _corrected(gg, row, now, minutes=minutes, level=level, at=at,
                     ruling_reason=ruling_reason)
    if row.application_id in snap.names:
        events[events.index(stored)] = _stored_event(snap, row)
    return preview_of_events(gg, snap, events)
