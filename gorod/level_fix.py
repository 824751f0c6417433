"""Fixing a level during play (issue 32; ``docs/rules/gorod.md``, "Fixing a level during
play"): the organizer corrects a started level's task, hints and codes. Texts only re-render the
phones of the teams on it. A code change credits every team whose stored wrong attempt on that
level matches the corrected codes (``rules.fix_credit``), written as rulings of the record's
existing events — a ``code`` for a team still on the level, ``bonus`` minutes for the time it
lost — so each shows in the list of rulings and is undone like any other.

Before it is applied, its preview: which teams gain what and how the places move, from the
engine on the record with the credits added (``rulings`` previews the same way), without a
write."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError
from core.text import within
from gorod import changes, reads, rules, selectors
from gorod.codes import (
    CODE_MAX,
    CodeSpecError,
    CodesTextError,
    LevelCodes,
    codes_to_text,
    keep_personal,
    level_codes_from_dict,
    match_attempt,
    parse_codes_text,
)
from gorod.forms import codes_text_message, kind_words
from gorod.guards import (
    KEEP,
    clock_time,
    confirm_after_results,
    require_organizer,
    require_started,
)
from gorod.live import LIVE
from gorod.models import CodeAttempt, GorodGame, Level, Ruling
from gorod.rulings import Preview, preview_of_events, ruling_event
from live.write import Write

TEXT_MAX = 10000
REASON_MAX = 500


@dataclass(frozen=True)
class Credit:
    """One team's compensation for the corrected codes (``rules.FixCredit``) and its attempt."""

    application: int
    team: str
    text: str  # the attempt's text as typed
    credit: rules.FixCredit

    @property
    def bonus_min(self) -> float:
        # [decision] To the whole second: a stored attempt's time has microseconds no one reads.
        return round(self.credit.bonus_s) / 60

    def as_data(self) -> dict:
        return {"team": self.team, "application": self.application, "code": self.text,
                "sent_at": selectors.iso(self.credit.found_at),
                "closes_at": selectors.iso(self.credit.close_at),
                "bonus_min": round(self.bonus_min, 2), "text": self.line}

    @property
    def line(self) -> str:
        parts = []
        if self.credit.close_at is not None:
            parts.append(_("the level closes at %(t)s") % {"t": _hhmm(self.credit.close_at)})
        if self.credit.bonus_s > 0:
            parts.append(_("+%(n)s min bonus") % {"n": _minutes(self.bonus_min)})
        return _("%(team)s: “%(code)s” sent at %(t)s — %(what)s") % {
            "team": self.team, "code": self.text, "t": _hhmm(self.credit.found_at),
            "what": ", ".join(parts)}


def _hhmm(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%H:%M")


def _minutes(value: float) -> str:
    """Whole minutes as such, else to a tenth in the reader's numbers (15,2 in Russian)."""
    if abs(value - round(value)) < 0.05:
        return f"{value:.0f}"
    return number_format(round(value, 1), decimal_pos=1, use_l10n=True)


@dataclass(frozen=True)
class Fix:
    """A checked fix, not stored: the level with the corrections applied in memory, what it
    said before, and the credits its codes give."""

    level: Level
    before: dict
    codes_changed: bool
    credits: tuple[Credit, ...]
    moment: datetime


@dataclass(frozen=True)
class FixPreview:
    """What a fix would credit and change in the standings (``rulings.Preview``)."""

    fix: Fix
    standings: Preview

    @property
    def text(self) -> str:
        if not self.fix.codes_changed:
            head = [_("Only the texts change: the phones of the teams on the level show them.")]
        else:
            head = [c.line for c in self.fix.credits] or [
                _("No stored attempt matches the corrected codes: nobody is credited.")]
        return "; ".join([*head, self.standings.text])

    def as_data(self) -> dict:
        return {**self.standings.as_data(), "text": self.text,
                "level": self.fix.level.label, "codes_changed": self.fix.codes_changed,
                "credits": [c.as_data() for c in self.fix.credits]}


def _fields(level: Level) -> dict:
    return {"task": level.task, "hint1": level.hint1, "hint2": level.hint2,
            "codes": level.codes}


def level_of(gg: GorodGame, label) -> Level:
    label = str(label or "").strip()
    if not label:
        raise DomainError(_("Choose the level."))
    found = Level.objects.filter(gorod=gg, label=label).first()
    if found is None:
        raise DomainError(_("There is no level %(level)s in this game.") % {"level": label})
    return found


def _codes(value, old: dict) -> dict:
    """The corrected codes: a codes text (one per line, as on the set-up page; the teams'
    personal parts are kept) or the stored form."""
    if isinstance(value, str):
        try:
            spec = keep_personal(parse_codes_text(value), old)
        except CodesTextError as exc:
            raise DomainError(codes_text_message(exc)) from None
    elif isinstance(value, dict):
        spec = value
    else:
        raise DomainError(_("Type at least one code."))
    try:
        parsed = level_codes_from_dict(spec)
    except (CodeSpecError, TypeError) as exc:
        raise DomainError(str(exc)) from None
    # A phone sends at most CODE_MAX characters: a longer code could never be entered.
    if any(len(code) > CODE_MAX for sector in parsed.sectors for code in sector.codes):
        raise DomainError(_("A code is at most %(n)d characters.") % {"n": CODE_MAX})
    return spec


def _text(value, what: str) -> str:
    return within(str(value or "").strip(), max_length=TEXT_MAX, what=what)


def _checked(gg: GorodGame, snap: selectors.Snapshot, *, level, task, hint1, hint2,
             codes) -> Fix:
    """The fix as it would be stored, with its credits, or the refusal: what ``level_fix``
    applies and ``fix_preview`` shows the effect of."""
    row = level_of(gg, level)
    before = _fields(row)
    if task is not KEEP:
        row.task = _text(task, _("Task"))
    if hint1 is not KEEP:
        row.hint1 = _text(hint1, _("Hint 1"))
    if hint2 is not KEEP:
        row.hint2 = _text(hint2, _("Hint 2"))
    if codes is not KEEP:
        row.codes = _codes(codes, before["codes"])
    spec = level_codes_from_dict(row.codes)
    codes_changed = spec != level_codes_from_dict(before["codes"])
    if not codes_changed:
        row.codes = before["codes"]  # the same codes written another way stay as they were
    if _fields(row) == before:
        raise DomainError(_("Nothing to change: the level already says this."))
    missing = spec.missing_for(snap.names.values())
    if missing:
        raise DomainError(_("Level %(level)s has no personal code for: %(teams)s.")
                          % {"level": row.label, "teams": ", ".join(missing)})
    moment = (gg.ended_at if gg.status == GorodGame.Status.FINISHED
              else selectors.engine_moment(gg, snap.now))
    credits = _credits(gg, snap, row, spec, moment) if codes_changed else ()
    return Fix(row, before, codes_changed, credits, moment)


def _credits(gg: GorodGame, snap: selectors.Snapshot, row: Level, spec: LevelCodes,
             moment: datetime) -> tuple[Credit, ...]:
    """Every team's credit for the corrected codes, in the game's team order."""
    attempts = defaultdict(list)
    for a in CodeAttempt.objects.filter(
            gorod=gg, level=row, verdict__in=(CodeAttempt.Verdict.ACCEPTED,
                                              CodeAttempt.Verdict.WRONG)).order_by("at", "pk"):
        attempts[a.application_id].append(a)
    record = rules.parse_record(snap.record)
    # The bonus earlier fixes of this level gave (their rows name the level; the record's
    # bonus events do not), so a second fix credits only what is new.
    credited = defaultdict(float)
    for app, minutes in Ruling.objects.filter(
            gorod=gg, level=row, type=Ruling.Type.BONUS, undone_at__isnull=True
            ).values_list("application_id", "minutes"):
        credited[app] += (minutes or 0) * 60
    names = set(spec_sector.name for spec_sector in spec.sectors)
    found_credits = []
    for pk, team in snap.names.items():
        result = snap.by_name.get(team)
        level = next((lv for lv in result.levels if lv.level == row.label), None) if result else None
        if level is None:
            continue
        still_on = level.closed_at is None
        if still_on:
            kept = {a.sector for a in attempts[pk] if a.verdict == CodeAttempt.Verdict.ACCEPTED}
            lost = sorted(kept - names - {""})
            if lost:
                raise DomainError(_("%(team)s has already found the sector “%(sector)s” of "
                                    "level %(level)s: keep that sector in the codes.")
                                  % {"team": team, "sector": lost[0], "level": row.label})
        hit = _first_closing(spec, team, attempts[pk], names, before=level.closed_at)
        if hit is None:
            continue
        credit = rules.fix_credit(record, team, level, hit.at, moment, credited[pk])
        if credit is None:
            continue
        if still_on and (until := rules.timeout_until(result, moment)) is not None:
            raise DomainError(_("%(team)s is on its timeout until %(t)s: a level cannot close "
                                "during it. Fix the codes when it ends (the texts can be fixed "
                                "now).") % {"team": team, "t": clock_time(until)})
        found_credits.append(Credit(pk, team, hit.text, credit))
    return tuple(found_credits)


def _first_closing(spec: LevelCodes, team: str, attempts: list[CodeAttempt], names: set[str],
                   *, before: datetime | None) -> CodeAttempt | None:
    """The team's attempt at which, read against the corrected codes, it had found every
    sector (its accepted sectors that the codes keep, and its wrong attempts that now match),
    if one came before ``before`` (when the team left the level; None: it is still on it)."""
    found: frozenset[str] = frozenset()
    for a in attempts:
        if before is not None and a.at >= before:
            break
        if a.verdict == CodeAttempt.Verdict.ACCEPTED:
            if a.sector in names:
                found = found | {a.sector}
        else:
            try:
                found = match_attempt(spec, team, a.text, found).found
            except CodeSpecError:  # a personal part is missing: refused by the caller
                return None
        if found >= names:
            return a
    return None


def _events(snap: selectors.Snapshot, fix: Fix, actor, reason: str) -> list[dict]:
    """The credits as the record's events (``selectors.ruling_event``)."""
    events = []
    for row in _ruling_rows(fix, reason):
        events.append(ruling_event(snap, reads.RulingRow(
            row.application_id, row.type, row.at, fix.level.pk, row.minutes, row.reason,
            actor.get_username())))
    return events


def _ruling_rows(fix: Fix, reason: str) -> list[Ruling]:
    """The credits as ruling rows, not saved: a ``code`` for a team still on the level, a
    ``bonus`` for the time lost; each says why."""
    rows = []
    for c in fix.credits:
        why = _("Level %(level)s fixed: “%(code)s” sent at %(t)s is accepted.") % {
            "level": fix.level.label, "code": c.text, "t": _hhmm(c.credit.found_at)}
        why = f"{why} {reason}".strip()[:REASON_MAX]
        if c.credit.close_at is not None:
            rows.append(Ruling(application_id=c.application, type=Ruling.Type.CODE,
                               level=fix.level, at=c.credit.close_at, reason=why))
        if c.credit.bonus_s > 0:
            # The level is kept on the row (not in the record's bonus event): a later fix of
            # the level reads what this one credited.
            rows.append(Ruling(application_id=c.application, type=Ruling.Type.BONUS,
                               level=fix.level, minutes=c.bonus_min, reason=why))
    return rows


def _reason(reason: str) -> str:
    return within((reason or "").strip(), max_length=200, what=_("Reason"))


def fix_preview(*, actor, game: GorodGame | int, level, task=KEEP, hint1=KEEP, hint2=KEEP,
                codes=KEEP, reason: str = "", now: datetime | None = None) -> FixPreview:
    """What ``level_fix`` with these corrections would credit and change in the standings,
    checked and refused as it would be, without a write."""
    require_organizer(actor)
    gg = selectors.gorod_game(game if isinstance(game, int) else game.pk)
    require_started(gg)
    snap = selectors.snapshot_or_refusal(gg, now or timezone.now())
    fix = _checked(gg, snap, level=level, task=task, hint1=hint1, hint2=hint2, codes=codes)
    events = [*snap.record["events"], *_events(snap, fix, actor, _reason(reason))]
    return FixPreview(fix, preview_of_events(gg, snap, events))


@LIVE.write
def level_fix(w: Write, *, actor, level, task=KEEP, hint1=KEEP, hint2=KEEP, codes=KEEP,
              reason: str = "", confirm: bool = False) -> Fix:
    """Correct a started level's task, hints and codes (only the fields given). The credits
    of corrected codes are stored as rulings (a ``code``, a ``bonus``) the engine checks on
    the whole record; a removed code takes no credit back. [decision] Allowed after the end
    too, where a team stopped on the level closes it at the end; once the night's results are
    published it needs ``confirm`` (``confirm_after_results``), as a ruling does."""
    require_organizer(actor)
    gg, now = w.game, w.now
    require_started(gg)
    reason = _reason(reason)
    snap = selectors.snapshot_or_refusal(gg, now)
    fix = _checked(gg, snap, level=level, task=task, hint1=hint1, hint2=hint2, codes=codes)
    row = fix.level
    row.save(update_fields=["task", "hint1", "hint2", "codes"])
    # The phones read a level's texts and codes from the set-up cache: the save's signal
    # moved its number on in the database, and the locked row follows.
    gg.setup_version += 1
    made = _ruling_rows(fix, reason)
    for ruling in made:
        ruling.gorod, ruling.by, ruling.created_at = gg, actor, now
    Ruling.objects.bulk_create(made)
    audit.record(game=gg, actor=actor, action="gorod.level_fix", at=now,
                 before={"level": row.label, **_shown(fix.before)},
                 after={"level": row.label, **_shown(_fields(row)),
                        "credits": [c.as_data() for c in fix.credits]},
                 reason=reason)
    # The engine's refusal of the credits rolls the fix back.
    w.change = changes.LevelFixed(level=row.label,
                                  snapshot=selectors.snapshot_or_refusal(gg, now))
    confirm_after_results(w, confirm=confirm, what=_("Level %(level)s was fixed.")
                          % {"level": row.label})
    return fix


def _shown(fields: dict) -> dict:
    """A level's fields as the audit log keeps them (codes as the organizer types them)."""
    return {**fields, "codes": codes_to_text(fields["codes"], kind_words())}


def fix_form(*, actor, game: GorodGame | int, level) -> dict:
    """The level's texts and codes as the fix form starts from (codes as they are typed)."""
    require_organizer(actor)
    gg = selectors.gorod_game(game if isinstance(game, int) else game.pk)
    require_started(gg)
    row = level_of(gg, level)
    return {"level": row.label, "task": row.task, "hint1": row.hint1, "hint2": row.hint2,
            "codes": codes_to_text(row.codes, kind_words())}
