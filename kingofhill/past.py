"""Changing the past of a live King of the Hill game: before a played question's verdict or
partner mark changes (``services.answers_judge``, ``verdict_set``, ``partner_set``), what the
change would do to the game, in the host's words, and whether it needs the host's
confirmation (``change_past``). The engine computes the effect (``kingofhill.rules.past``);
this says it and guards it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core import formats
from core.errors import NeedsConfirmation
from core.formats import finish_label
from core.records import RecordError
from kingofhill import rules, selectors
from kingofhill.models import Question
from live.write import Write


def _nobody(name: str | None) -> str:
    return name if name is not None else _("nobody yet")


@dataclass(frozen=True)
class _Moved:
    """Which played questions a change of the past takes out of the game or brings back."""

    voided: tuple[int, ...]  # played (or open and announced), no longer counted
    revived: tuple[int, ...]  # voided before, counted again


def _numbers(numbers: Sequence[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def _moved_text(moved: _Moved, after: rules.Board) -> list[str]:
    parts = []
    if moved.voided:
        parts.append(ngettext(
            "Question %(list)s no longer counts: the game ends after question %(n)d "
            "(%(reason)s); its answers and verdicts stay in the history and the audit log.",
            "Questions %(list)s no longer count: the game ends after question %(n)d "
            "(%(reason)s); their answers and verdicts stay in the history and the audit log.",
            len(moved.voided)) % {"list": _numbers(moved.voided), "n": after.question,
                                  "reason": finish_label(after.finish_reason or "")})
    if moved.revived:
        parts.append(ngettext("Question %(list)s counts again.", "Questions %(list)s count again.",
                              len(moved.revived)) % {"list": _numbers(moved.revived)})
    return parts


def _effect_text(effect: rules.ChangeEffect, after: rules.Board, published: bool,
                 moved: _Moved = _Moved((), ())) -> str:
    """What a change of the past will change, in the host's words."""
    parts = _moved_text(moved, after)
    if effect.changes_winner:
        parts.append(_("The winner changes: %(before)s → %(after)s.") % {
            "before": _nobody(effect.winner_before), "after": _nobody(effect.winner_after)})
    if effect.reopens:
        parts.append(_("The finished game re-opens: play goes on with question %(n)d.")
                     % {"n": after.question + 1})
    elif effect.king_before != effect.king_after:
        parts.append(_("The King changes: %(before)s → %(after)s.") % {
            "before": _nobody(effect.king_before), "after": _nobody(effect.king_after)})
    if effect.teams:
        parts.append(_("Places: %(list)s.") % {"list": ", ".join(
            f"{t.team} {t.place_before} → {t.place_after}" for t in effect.teams)})
    if published:
        parts.append(_("The published results become out of date: the organizer must "
                       "publish them again."))
    return " ".join(parts)


def _effect_data(effect: rules.ChangeEffect, published: bool, moved: _Moved) -> dict:
    return {
        "winner_before": effect.winner_before, "winner_after": effect.winner_after,
        "king_before": effect.king_before, "king_after": effect.king_after,
        "reopens": effect.reopens, "results_published": published,
        "voided": list(moved.voided), "revived": list(moved.revived),
        "teams": [{"team": t.team, "place_before": t.place_before,
                   "place_after": t.place_after, "step_before": t.step_before,
                   "step_after": t.step_after, "points_before": t.points_before,
                   "points_after": t.points_after} for t in effect.teams],
    }


def change_past(w: Write, question: Question, *, verdicts: dict | None = None,
                 partner: bool | None = None, confirm: bool, ask: str = "") -> None:
    """Before a verdict or partner mark of a played question changes: the engine projects the
    new outcome from every played question, the voided ones too; one that changes the winner,
    re-opens a finished game, ends it earlier (later questions no longer count: they stay
    stored, out of the record) or later (voided questions count again), or alters published
    results is refused until confirmed, and once applied marks the published results out of
    date. A change the engine cannot replay is left to the recompute, which refuses it.
    With ``ask`` (an accepted appeal), the change is previewed under that sentence even when
    it moves nothing the host must confirm: the host sees what the flip does first."""
    koth = w.game
    snap = selectors.load_snapshot(koth, reuse=True)
    if snap.board is None or question.closed_at is None:
        return
    try:
        record = rules.parse_record(selectors.played_record(snap))
        named = {snap.names[app]: v for app, v in (verdicts or {}).items() if app in snap.names}
        after = rules.compute(rules.record_with(record, question.number, verdicts=named,
                                                partner=partner), until_end=True)
    except RecordError:
        return
    moved = _moved(snap, after)
    effect = rules.change_effect(snap.board, after)
    published = effect.changes_results and formats.results_published(koth.pk)
    text = _effect_text(effect, after, published, moved)
    if (effect.needs_confirmation or published or moved.voided or moved.revived) \
            and not confirm:
        raise NeedsConfirmation(
            _("This changes the outcome of the game. %(what)s Confirm to apply it.")
            % {"what": text}, change=_effect_data(effect, published, moved))
    if ask and not confirm:
        raise NeedsConfirmation(
            " ".join(part for part in (ask, text or _("The outcome of the game stays the same."),
                                       _("Confirm to apply it.")) if part),
            change=_effect_data(effect, published, moved))
    if published:
        formats.board_changed(
            game_id=koth.pk, now=w.now,
            reason=_("Question %(n)d changed. %(what)s") % {"n": question.number, "what": text})


def _moved(snap: selectors.Snapshot, after: rules.Board) -> _Moved:
    counted = snap.board.question
    voided = list(range(after.question + 1, counted + 1))
    current = snap.current
    # The open question goes with an earlier end: kept (and listed) once it was announced or
    # declared for, as ``settle.follow_board`` keeps it.
    if after.finished and current is not None and current.closed_at is None and (
            current.announced_at is not None or current.declarations.all()):
        voided.append(current.number)
    return _Moved(tuple(voided), tuple(range(counted + 1, after.question + 1)))
