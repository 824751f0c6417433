"""Writes of the live King of the Hill game: one keyword-only ``<entity>_<action>`` per action.

Every write goes through the live core (``kingofhill.live.LIVE.write``, see ``live``): one
transaction that locks the ``KothGame`` row first and takes ``now`` after the lock, the action
below, then ``kingofhill.selectors.build_states`` builds every audience's state; the core
stores the changed ones with their versions and pushes them after the commit. An action that
changes the closed questions (a close, a verdict or partner mark on a played question, the
start) sets ``changes.BoardChanged``: the board is then recomputed from the record with the pure
``kingofhill.rules`` and the game settles (finishes, or opens its next question); the others
(declarations, the announcement, answers, judging the open question) cannot change the board.
A refusal raises a ``DomainError`` before anything is committed.

Authorization of the request is the caller's job (views, API, consumers); host actions also
check ``kingofhill.selectors.can_host`` here (an organizer, or a host assigned to this game),
because judging by the wrong person must never slip through a new entry point. Verdicts,
partner marks and host assignments are recorded in the audit log (``core.audit``).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core import audit, formats, rights, sql
from core.coalesce import Coalesced
from core.errors import DomainError, NeedsConfirmation, NotAllowed
from core.formats import finish_label
from core.records import RecordError
from core.roles import is_host, is_organizer
from kingofhill import bank, changes, rules, selectors
from kingofhill.live import LIVE
from kingofhill.models import (
    Answer,
    Declaration,
    KothGame,
    PartnerChange,
    PhoneSocket,
    PreparedQuestion,
    Question,
    VerdictChange,
)
from live.write import Write
from teams.models import Application, Game
from teams.selectors import playing_entry

ANSWER_MAX = 300
# Every answer is stored with constant SQL (``sql.Inserter``), and a key match's verdict.
NEW_ANSWER = sql.Inserter(Answer)
NEW_VERDICT_CHANGE = sql.Inserter(VerdictChange)


# --- plumbing ---------------------------------------------------------------------------------


def _require_host(actor, koth: KothGame) -> None:
    if not selectors.can_host(actor, koth):
        raise NotAllowed(_("Only a host of this game or an organizer may do this."))


def _require_running(koth: KothGame) -> None:
    if koth.status == KothGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    if koth.status == KothGame.Status.FINISHED:
        raise DomainError(_("The game has finished."))


_QUESTIONS = sql.Loader(Question)
# Constant SQL: every answer, declaration and judgement starts here.
_CURRENT = (f"t.{sql.column(Question, 'koth')} = %s",
            f"t.{sql.column(Question, 'number')} DESC LIMIT 1")


def _current(koth: KothGame) -> Question:
    found = _QUESTIONS.load(_CURRENT[0], [koth.pk], _CURRENT[1])
    if not found:
        raise DomainError(_("The game has not started yet."))
    question = found[0]
    question.koth = koth
    return question


def _question(koth: KothGame, number: int) -> Question:
    try:
        return Question.objects.get(koth=koth, number=number)
    except (Question.DoesNotExist, ValueError, TypeError, OverflowError):
        raise DomainError(_("There is no question %(n)s.") % {"n": number}) from None


def _entry(koth, application: Application | int) -> Application:
    return playing_entry(koth.team_order, application)


def _board(koth: KothGame) -> rules.Board | None:
    """The board as it stands (the closed questions), for an action that must ask the engine."""
    return selectors.load_snapshot(koth, reuse=True).board


# --- setup ------------------------------------------------------------------------------------


@transaction.atomic
def koth_create(
    *, actor, game: Game, summit: int = rules.DEFAULT_SUMMIT,
    main_questions: int = rules.DEFAULT_MAIN_QUESTIONS,
    reserve_questions: int = rules.DEFAULT_RESERVE_QUESTIONS,
) -> KothGame:
    """Attach the live King of the Hill state to a scheduled ``teams.Game``; a host (not an
    organizer) who does it hosts the game."""
    if not is_host(actor):
        raise NotAllowed(_("Only a host or an organizer may do this."))
    if game.format != Game.Format.KINGOFHILL:
        raise DomainError(_("This game is not a King of the Hill game."))
    for value, low, what in ((summit, 2, _("Summit")), (main_questions, 1, _("Main questions")),
                             (reserve_questions, 0, _("Reserve questions"))):
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= 200:
            raise DomainError(
                _("%(what)s must be a whole number from %(low)d to 200.")
                % {"what": what, "low": low})
    if KothGame.objects.filter(pk=game.pk).exists():
        raise DomainError(_("This game already has a King of the Hill board."))
    koth = KothGame.objects.create(game=game, summit=summit, main_questions=main_questions,
                                   reserve_questions=reserve_questions)
    if not is_organizer(actor):
        koth.hosts.add(actor)
    LIVE.refresh(game=koth.pk)
    koth.refresh_from_db()
    return koth


@LIVE.write
def game_start(w: Write, *, actor) -> KothGame:
    """Freeze the teams (approved applications, registration order) and open question 1."""
    _require_host(actor, w.game)
    koth = w.game
    if koth.status != KothGame.Status.SETUP:
        raise DomainError(_("The game has already started."))
    entries = selectors.game_entries(koth)
    if len(entries) < 2:
        raise DomainError(_("At least two approved teams are needed to start."))
    koth.team_order = [a.pk for a in entries]
    koth.status = KothGame.Status.RUNNING
    koth.started_at = w.now
    Game.objects.filter(pk=koth.pk, status=Game.Status.SCHEDULED).update(
        status=Game.Status.RUNNING)
    w.change = changes.BoardChanged()
    return koth


# --- team actions -----------------------------------------------------------------------------


def _declaring(koth: KothGame) -> Question:
    _require_running(koth)
    question = _current(koth)
    if question.phase != Question.Phase.DECLARING:
        raise DomainError(_("Too late: question %(n)d has been announced.")
                          % {"n": question.number})
    return question


@LIVE.write
def declaration_submit(w: Write, *, application: Application | int, kind: str) -> Declaration:
    """Declare a jump or a revolution for the question not yet announced; a second declaration
    replaces the first. Refused when the engine says the team may not make it now."""
    koth = w.game
    _require_running(koth)
    entry = _entry(koth, application)
    if kind not in (rules.JUMP, rules.REVOLUTION):
        raise DomainError(_("Declare a jump or a revolution."))
    question = _declaring(koth)
    board = _board(koth)
    if board is None:  # pragma: no cover - a running game has at least two teams
        raise DomainError(_("The game has not started yet."))
    allowed = rules.allowed_declarations(board, entry.team.name)
    reason = allowed.jump_reason if kind == rules.JUMP else allowed.revolution_reason
    if reason is not None:
        raise DomainError(_("Not allowed now: %(why)s.")
                          % {"why": selectors.REASON_LABELS.get(reason, reason)})
    declaration, _created = Declaration.objects.update_or_create(
        question=question, application=entry, defaults={"kind": kind, "at": w.now})
    return declaration


@LIVE.write
def declaration_withdraw(w: Write, *, application: Application | int) -> None:
    """Take back the declaration before the question is announced (an ordinary move then)."""
    koth = w.game
    _require_running(koth)
    entry = _entry(koth, application)
    question = _declaring(koth)
    deleted, _rows = Declaration.objects.filter(question=question, application=entry).delete()
    if not deleted:
        raise DomainError(_("Your team has declared nothing for this question."))


@LIVE.write(batch=True)
def answer_submit(w: Write, *, application: Application | int, text: str,
                  client_id: uuid.UUID | str) -> Answer:
    """The team's one answer to the open question; the server stamps its arrival.

    A retry carrying the same ``client_id`` returns the stored answer and changes nothing (no
    new version, no broadcast); any other second answer is refused: the first one is final.
    """
    try:
        client_id = uuid.UUID(str(client_id))
    except ValueError:
        raise DomainError(_("The answer's client id must be a UUID.")) from None
    koth = w.game
    _require_running(koth)
    entry = _entry(koth, application)
    # The open question's answers are read once, here, for the check and for the build
    # (``changes.AnswerAdded``), which sees the new one appended; in a batch, once for all
    # its answers: the previous answer's read, with that answer appended, is the same rows
    # (nothing but answers runs under the batch's lock; 64 answers built as models were a
    # fifth of an answer's time).
    earlier = w.earlier.change if w.earlier is not None else None
    question = earlier.current if isinstance(earlier, changes.AnswerAdded) else None
    if question is None:
        question = _current(koth)
        selectors.read_open(question)
    else:
        question.koth = koth  # the game row as locked again after a refused answer
    answers = question.answers.all()
    existing = next((a for a in answers if a.application_id == entry.pk), None)
    if existing is not None:
        if existing.client_id == client_id:
            w.unchanged = True
            return existing
        raise DomainError(_("Your team has already answered question %(n)d; the first answer "
                            "is final.") % {"n": question.number})
    if question.phase != Question.Phase.ANSWERING:
        if question.phase == Question.Phase.DECLARING:
            raise DomainError(_("Question %(n)d has not been announced yet.")
                              % {"n": question.number})
        raise DomainError(_("Question %(n)d is closed.") % {"n": question.number})
    if not isinstance(text, str) or not text.strip():
        raise DomainError(_("The answer is empty."))
    text = " ".join(text.split())
    if len(text) > ANSWER_MAX:
        raise DomainError(_("The answer is too long: at most %(max)d characters.")
                          % {"max": ANSWER_MAX})
    normalized = rules.normalize_answer(text) or text.casefold()
    # Checked after normalising, not cut: NFKC and case folding can lengthen a text ("ß" is
    # "ss", one ligature is 18 letters), and a cut form would group unequal answers.
    if len(normalized) > ANSWER_MAX:
        raise DomainError(_("The answer is too long once its letters are spelled out: at most "
                            "%(max)d characters, this one is %(length)d.")
                          % {"max": ANSWER_MAX, "length": len(normalized)})
    # A key match is pre-marked correct; the host sees it and may flip it.
    verdict = True if rules.matches_key(normalized, question.answer_key,
                                        question.variants) else None
    # No savepoint: the game's lock serialises a team's answers and ``existing`` was read under
    # it, so the one-answer constraint cannot fail here.
    answer = NEW_ANSWER.insert(
        question=question, application=entry, text=text, normalized=normalized,
        at=w.now, verdict=verdict, judged_at=w.now if verdict else None, client_id=client_id)
    if verdict is not None:
        NEW_VERDICT_CHANGE.insert(answer=answer, old=None, new=verdict, changed_at=w.now)
    # The newest answer (its moment was taken under the lock) goes last, as the models order.
    sql.prefetched(question, "answers", [*answers, answer])
    # Nothing on the board moves until the close: the host's view, the projector's count and
    # this team's own view are all an answer changes.
    w.change = changes.AnswerAdded(team=entry.pk, current=question)
    return answer


# --- host actions -----------------------------------------------------------------------------


@LIVE.write
def question_announce(w: Write, *, actor, text: str = "", answer_key: str = "",
                      variants: Sequence[str] = ()) -> Question:
    """Announce the open question: from this instant declarations are closed and answers open.
    The text and the answer key (with accepted variants) are optional; when none is given and
    the question bank holds an unused question, the next one is announced (with its partner
    mark and its note for the host)."""
    _require_host(actor, w.game)
    koth = w.game
    _require_running(koth)
    question = _current(koth)
    if question.phase != Question.Phase.DECLARING:
        raise DomainError(_("Question %(n)d has already been announced.")
                          % {"n": question.number})
    if not isinstance(variants, (list, tuple)) or not all(isinstance(v, str) for v in variants):
        raise DomainError(_("Accepted variants must be a list of texts."))
    typed = any(((text or "").strip(), (answer_key or "").strip(), *variants))
    prepared = None if typed else selectors.next_prepared(koth, lock=True)
    if prepared is not None:
        text, answer_key, variants = prepared.text, prepared.answer_key, prepared.variants
        question.note = prepared.note
        if prepared.partner and not question.partner:
            PartnerChange.objects.create(question=question, old=False, new=True,
                                         changed_by=actor, changed_at=w.now)
            question.partner = True
    question.text = (text or "").strip()[:bank.TEXT_MAX]
    question.answer_key = (answer_key or "").strip()[:ANSWER_MAX]
    question.variants = [v.strip()[:ANSWER_MAX] for v in variants if v.strip()]
    question.announced_at = w.now
    question.save()
    if prepared is not None:
        prepared.question = question
        prepared.save(update_fields=["question"])
    w.change = changes.QuestionChanged(current=question)
    return question


def _verdict_value(question: Question, answer: Answer, verdict: bool | None) -> dict:
    return {"question": question.number, "answer": answer.pk, "text": answer.text,
            "verdict": verdict}


COUNTDOWN_MAX = 600


@LIVE.write
def countdown_set(w: Write, *, actor, seconds: int) -> Question:
    """Start (or restart) a countdown of ``seconds`` for the answers to the announced question;
    0 stops it. Screens count down to its end; nothing is refused when it runs out (the host
    closes the question)."""
    _require_host(actor, w.game)
    koth = w.game
    _require_running(koth)
    if not isinstance(seconds, int) or isinstance(seconds, bool) \
            or not 0 <= seconds <= COUNTDOWN_MAX:
        raise DomainError(_("A countdown is a whole number of seconds from 1 to %(max)d "
                            "(0 stops it).") % {"max": COUNTDOWN_MAX})
    question = _current(koth)
    if question.phase != Question.Phase.ANSWERING:
        raise DomainError(_("Announce question %(n)d before starting its countdown.")
                          % {"n": question.number})
    if not seconds and question.countdown_ends_at is None:
        w.unchanged = True
        return question
    question.countdown_seconds = seconds or None
    question.countdown_ends_at = w.now + timedelta(seconds=seconds) if seconds else None
    question.save(update_fields=["countdown_seconds", "countdown_ends_at"])
    w.change = changes.QuestionChanged(current=question)
    return question


@LIVE.write
def question_reveal(w: Write, *, actor, reveal: bool = True) -> Question:
    """Show (or hide) the last closed question's text and answer on the projector and the
    phones, until the next question is announced."""
    _require_host(actor, w.game)
    koth = w.game
    if not isinstance(reveal, bool):
        raise DomainError(_("Reveal is true or false."))
    question = (Question.objects.filter(koth=koth, closed_at__isnull=False)
                .order_by("-number").first())
    if question is None:
        raise DomainError(_("No question has been closed yet."))
    if (question.revealed_at is not None) == reveal:
        w.unchanged = True
        return question
    question.revealed_at = w.now if reveal else None
    question.save(update_fields=["revealed_at"])
    # A closed question's row is kept with the board: read it afresh.
    w.change = changes.BoardChanged()
    return question


# --- the question bank ------------------------------------------------------------------------


def _bank_add(koth: KothGame, items: Sequence[bank.Item]) -> list[PreparedQuestion]:
    have = PreparedQuestion.objects.filter(koth=koth).count()
    if have + len(items) > bank.MAX_QUESTIONS:
        raise DomainError(_("The bank holds at most %(max)d questions; it has %(have)d.")
                          % {"max": bank.MAX_QUESTIONS, "have": have})
    last = (PreparedQuestion.objects.filter(koth=koth).order_by("-position")
            .values_list("position", flat=True).first()) or 0
    return PreparedQuestion.objects.bulk_create(
        PreparedQuestion(koth=koth, position=last + i, text=item.text,
                         answer_key=item.answer_key, variants=list(item.variants),
                         partner=item.partner, note=item.note)
        for i, item in enumerate(items, start=1))


def _check_bank_open(koth: KothGame) -> None:
    if koth.status == KothGame.Status.FINISHED:
        raise DomainError(_("The game has finished."))


@LIVE.write
def bank_question_add(w: Write, *, actor, text: str, answer_key: str = "",
                      variants: Sequence[str] = (), partner: bool = False,
                      note: str = "") -> PreparedQuestion:
    """Add one prepared question at the end of the bank."""
    _require_host(actor, w.game)
    _check_bank_open(w.game)
    item, problems = bank.check_item(text, answer_key, variants, partner, note)
    if problems:
        raise DomainError(_("The question is not added: %(why)s.") % {"why": "; ".join(problems)})
    return _bank_add(w.game, [item])[0]


@LIVE.write
def bank_import(w: Write, *, actor, name: str, data: bytes) -> int:
    """Append every question of a CSV/XLSX/plain-text file (``kingofhill.bank``), all or none;
    returns how many. A bad file raises ``bank.BankError`` with every problem."""
    _require_host(actor, w.game)
    _check_bank_open(w.game)
    items = bank.parse_file(name, data)
    return len(_bank_add(w.game, items))


@LIVE.write
def bank_question_delete(w: Write, *, actor, prepared: int) -> None:
    """Remove a prepared question not yet announced."""
    _require_host(actor, w.game)
    row = PreparedQuestion.objects.filter(koth=w.game, pk=prepared).first()
    if row is None:
        raise DomainError(_("No such prepared question in this game."))
    if row.question_id is not None:
        raise DomainError(_("This question has been announced; it stays in the bank."))
    row.delete()


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


def _change_past(w: Write, question: Question, *, verdicts: dict | None = None,
                 partner: bool | None = None, confirm: bool) -> None:
    """Before a verdict or partner mark of a played question changes: the engine projects the
    new outcome from every played question, the voided ones too; one that changes the winner,
    re-opens a finished game, ends it earlier (later questions no longer count: they stay
    stored, out of the record) or later (voided questions count again), or alters published
    results is refused until confirmed, and once applied marks the published results out of
    date. A change the engine cannot replay is left to the recompute, which refuses it."""
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
    if published:
        formats.board_changed(
            game_id=koth.pk, now=w.now,
            reason=_("Question %(n)d changed. %(what)s") % {"n": question.number, "what": text})


def _moved(snap: selectors.Snapshot, after: rules.Board) -> _Moved:
    counted = snap.board.question
    voided = list(range(after.question + 1, counted + 1))
    current = snap.current
    # The open question goes with an earlier end: kept (and listed) once it was announced or
    # declared for, as ``selectors.settle`` keeps it.
    if after.finished and current is not None and current.closed_at is None and (
            current.announced_at is not None or current.declarations.all()):
        voided.append(current.number)
    return _Moved(tuple(voided), tuple(range(counted + 1, after.question + 1)))


def _set_verdicts(w: Write, question: Question, answers, verdict: bool, actor, *,
                  confirm: bool = False) -> int:
    judged = [answer for answer in answers if answer.verdict is not verdict]
    if not judged:
        w.unchanged = True
        return 0
    if question.closed_at is not None:
        _change_past(w, question, verdicts={a.application_id: verdict for a in judged},
                     confirm=confirm)
    # A group of answers is judged in three statements, whatever its size: the verdict
    # changes, their audit entries, the answers.
    NEW_VERDICT_CHANGE.insert_many([
        VerdictChange(answer=answer, old=answer.verdict, new=verdict, changed_by=actor,
                      changed_at=w.now) for answer in judged])
    audit.record_many(game=w.game, actor=actor, action="kingofhill.verdict", at=w.now,
                      changes=[(_verdict_value(question, answer, answer.verdict),
                                _verdict_value(question, answer, verdict))
                               for answer in judged])
    Answer.objects.filter(pk__in=[answer.pk for answer in judged]).update(
        verdict=verdict, judged_by=actor, judged_at=w.now)
    for answer in judged:
        answer.verdict, answer.judged_by, answer.judged_at = verdict, actor, w.now
    if question.closed_at is not None:  # a played move changed: the board is recomputed
        w.change = changes.BoardChanged()
    return len(judged)


def _check_verdict(verdict) -> bool:
    if not isinstance(verdict, bool):
        raise DomainError(_("A verdict is true (correct) or false (incorrect)."))
    return verdict


@LIVE.write
def answers_judge(w: Write, *, actor, question: int, normalized: str, verdict: bool,
                  confirm: bool = False) -> int:
    """Judge every answer of ``question`` whose normalised text is ``normalized`` at once;
    returns how many verdicts changed. Works on a closed question too (the board is then
    recomputed; a change of the outcome needs ``confirm``, see ``_change_past``)."""
    _require_host(actor, w.game)
    verdict = _check_verdict(verdict)
    koth = w.game
    if koth.status == KothGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    q = _question(koth, question)
    answers = list(Answer.objects.filter(question=q, normalized=normalized))
    if not answers:
        raise DomainError(_("No answer «%(text)s» to question %(n)d.")
                          % {"text": normalized, "n": q.number})
    return _set_verdicts(w, q, answers, verdict, actor, confirm=confirm)


@LIVE.write
def verdict_set(w: Write, *, actor, answer: int, verdict: bool, confirm: bool = False) -> Answer:
    """Change one answer's verdict, of the open question or any earlier one (a change of the
    outcome needs ``confirm``, see ``_change_past``)."""
    _require_host(actor, w.game)
    verdict = _check_verdict(verdict)
    try:
        row = Answer.objects.select_related("question").get(pk=answer, question__koth=w.game)
    except (Answer.DoesNotExist, ValueError, TypeError, OverflowError):
        raise DomainError(_("No such answer in this game.")) from None
    _set_verdicts(w, row.question, [row], verdict, actor, confirm=confirm)
    return row


@LIVE.write
def partner_set(w: Write, *, actor, question: int, partner: bool,
                confirm: bool = False) -> Question:
    """Mark or unmark a partner question, at any time (2.2.6); on a played question a change
    of the outcome needs ``confirm`` (see ``_change_past``)."""
    _require_host(actor, w.game)
    if not isinstance(partner, bool):
        raise DomainError(_("The partner mark is true or false."))
    koth = w.game
    if koth.status == KothGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    q = _question(koth, question)
    if q.partner == partner:
        w.unchanged = True
        return q
    if q.closed_at is not None:
        _change_past(w, q, partner=partner, confirm=confirm)
    PartnerChange.objects.create(question=q, old=q.partner, new=partner, changed_by=actor,
                                 changed_at=w.now)
    audit.record(game=koth, actor=actor, action="kingofhill.partner", at=w.now,
                 before={"question": q.number, "partner": q.partner},
                 after={"question": q.number, "partner": partner})
    q.partner = partner
    q.save(update_fields=["partner"])
    # The open question's mark changes the teams' projections, not the board.
    if q.closed_at is not None:
        w.change = changes.BoardChanged()
    return q


@LIVE.write
def question_close(w: Write, *, actor) -> Question:
    """Play the move: every answer must be judged; a team that sent nothing answered
    incorrectly. The next question opens unless the game has finished."""
    _require_host(actor, w.game)
    koth = w.game
    _require_running(koth)
    question = _current(koth)
    if question.phase == Question.Phase.DECLARING:
        raise DomainError(_("Announce question %(n)d before closing it.")
                          % {"n": question.number})
    unjudged = Answer.objects.filter(question=question, verdict=None).count()
    if unjudged:
        raise DomainError(_("%(count)d answers are not judged yet.") % {"count": unjudged})
    question.closed_at = w.now
    question.save(update_fields=["closed_at"])
    # Its move is played on the kept board (selectors).
    w.change = changes.BoardChanged(closed=question)
    return question


# --- hosts per game ----------------------------------------------------------------------------


@transaction.atomic
def host_assign(*, actor, game: KothGame | int, user, assigned: bool = True) -> bool:
    """An organizer assigns a host to the game (``assigned``) or takes the game from them.
    Returns whether anything changed. A host taken off the game loses its console, its socket
    (checked again after the commit) and its answers at once."""
    if not is_organizer(actor):
        raise NotAllowed(_("Only organizers may do this."))
    if not isinstance(assigned, bool):
        raise DomainError(_("“assigned” is true or false."))
    koth = LIVE.lock(game)
    if assigned and not is_host(user):
        raise DomainError(_("%(user)s does not have the host role; grant it on the roles page "
                            "first.") % {"user": user.get_username()})
    has = koth.hosts.filter(pk=user.pk).exists()
    if has == assigned:
        return False
    if assigned:
        koth.hosts.add(user)
    else:
        koth.hosts.remove(user)
        rights.recheck_user(user.pk)
    audit.record(game=koth, actor=actor, action="kingofhill.host",
                 before={"host": user.get_username(), "assigned": has},
                 after={"host": user.get_username(), "assigned": assigned})
    return True


# --- presence ---------------------------------------------------------------------------------


def phone_opened(*, game: int, application: int, channel: str) -> bool:
    """A team phone's socket opened (the consumer calls this after authorising it): its row is
    stored without the game's lock and the host's console is refreshed soon (``PRESENCE``).
    True when the caller must schedule that refresh (``core.coalesce``)."""
    try:
        with transaction.atomic():
            PhoneSocket.objects.get_or_create(
                channel=channel, defaults={"koth_id": game, "application_id": application,
                                           "opened_at": timezone.now()})
    except IntegrityError:  # the game or the team was deleted meanwhile
        return False
    return PRESENCE.ask(game)


def phone_closed(*, game: int, channel: str) -> bool:
    """A team phone's socket closed: the team stays connected while another is open. True
    when the caller must schedule the host's refresh — always after the socket is gone, never
    in its own call (see ``consumers.TeamConsumer.disconnect``)."""
    deleted, _kinds = PhoneSocket.objects.filter(koth_id=game, channel=channel).delete()
    return bool(deleted) and PRESENCE.ask(game, now=False)


@LIVE.write
def presence_refresh(w: Write) -> None:
    """The host's list of connected teams follows the stored phone sockets (one write for
    however many opened or closed since the last)."""
    w.change = changes.PresenceChanged()


PRESENCE = Coalesced("koth-presence", lambda game_id: presence_refresh(game=game_id))


def game_record(game: KothGame | int) -> dict:
    """The game's record in the contract format (``docs/spec/record-format.md``); replaying it
    gives the board the live game shows."""
    koth = game if isinstance(game, KothGame) else selectors.koth_game(game)
    snap = selectors.load_snapshot(koth)
    return snap.record
