"""Writes of the live King of the Hill game: one keyword-only ``<entity>_<action>`` per action.

Every write goes through the live core (``kingofhill.live.LIVE.write``, see ``live``): one
transaction that locks the ``KothGame`` row first and takes ``now`` after the lock, the action
below, then ``kingofhill.settle.settle`` settles the game and ``kingofhill.builds.build_states``
renders every audience's state; the core stores the changed ones with their versions and pushes
them after the commit. An action that changes the closed questions (a close, a verdict or
partner mark on a played question, the start) sets ``changes.BoardChanged``: the board is then
recomputed from the record with the pure ``kingofhill.rules`` and the game settles (finishes,
or opens its next question); the others (declarations, the announcement, answers, judging the
open question) cannot change the board. A change of a played question is checked first
(``kingofhill.past``).
A refusal raises a ``DomainError`` before anything is committed.

Authorization of the request is the caller's job (views, API, consumers); host actions also
check ``kingofhill.selectors.can_host`` here (an organizer, or a host assigned to this game),
because judging by the wrong person must never slip through a new entry point. Verdicts,
partner marks and host assignments are recorded in the audit log (``core.audit``).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.db import transaction
from django.utils.translation import gettext as _

from core import audit, rights, sql
from core.errors import DomainError, NotAllowed
from core.roles import is_host, is_organizer
from kingofhill import bank, changes, past, rules, selectors
from kingofhill.guards import current as _current
from kingofhill.guards import entry as _entry
from kingofhill.guards import require_bank_open
from kingofhill.guards import require_host as _require_host
from kingofhill.guards import require_running as _require_running
from kingofhill.live import LIVE
from kingofhill.models import (
    Answer,
    Declaration,
    KothGame,
    PartnerChange,
    PreparedQuestion,
    Question,
    QuestionImage,
    Shown,
    VerdictChange,
)
from kingofhill.timer import (  # noqa: F401 - callers name every write here
    COUNTDOWN_MAX,
    answers_after_zero_set,
    countdown_adjust,
    countdown_pause,
    countdown_resume,
    countdown_set,
    refuse_after_zero,
)
from live.write import Write
from teams.models import Application, Game

ANSWER_MAX = 300
# Every answer is stored with constant SQL (``sql.Inserter``), and a key match's verdict.
NEW_ANSWER = sql.Inserter(Answer)
NEW_VERDICT_CHANGE = sql.Inserter(VerdictChange)


# --- plumbing ---------------------------------------------------------------------------------


def _question(koth: KothGame, number: int) -> Question:
    try:
        return Question.objects.get(koth=koth, number=number)
    except (Question.DoesNotExist, ValueError, TypeError, OverflowError):
        raise DomainError(_("There is no question %(n)s.") % {"n": number}) from None


def _board(koth: KothGame) -> rules.Board | None:
    """The board as it stands (the closed questions), for an action that must ask the engine."""
    return selectors.load_snapshot(koth, reuse=True).board


# --- setup ------------------------------------------------------------------------------------


@transaction.atomic
def koth_create(
    *, actor, game: Game, summit: int = rules.DEFAULT_SUMMIT,
    main_questions: int = rules.DEFAULT_MAIN_QUESTIONS,
    reserve_questions: int = rules.DEFAULT_RESERVE_QUESTIONS, answers_after_zero: bool = False,
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
    if not isinstance(answers_after_zero, bool):
        raise DomainError(_("“Answers after zero” is true or false."))
    if KothGame.objects.filter(pk=game.pk).exists():
        raise DomainError(_("This game already has a King of the Hill board."))
    koth = KothGame.objects.create(game=game, summit=summit, main_questions=main_questions,
                                   reserve_questions=reserve_questions,
                                   answers_after_zero=answers_after_zero)
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
    # In a batch the open question was read by the answer before (nothing but answers runs
    # under the batch's lock). Only this team's own answer is read for the check: the build
    # adds the new answer to the host's stored groups (``builds.answers_states``) rather than
    # regrouping the question's every answer (64 answers read as models were a fifth of an
    # answer's time).
    earlier = w.earlier.change if w.earlier is not None else None
    question = earlier.current if isinstance(earlier, changes.AnswerAdded) else None
    if question is None:
        question = _current(koth)
    else:
        question.koth = koth  # the game row as locked again after a refused answer
    existing = selectors.team_answer(question, entry.pk)
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
    # The question row holds its countdown: no query more on the hot path.
    refuse_after_zero(koth, question, w.now)
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
    # Nothing on the board moves until the close: the host's view, the projector's count and
    # this team's own view are all an answer changes.
    w.change = changes.AnswerAdded(team=entry.pk, current=question, answers=(answer,))
    return answer


# --- host actions -----------------------------------------------------------------------------


@LIVE.write
def question_announce(w: Write, *, actor, text: str = "", answer_key: str = "",
                      variants: Sequence[str] = (), show_projector: str | None = None,
                      show_phones: str | None = None,
                      image: tuple[str, bytes] | None = None) -> Question:
    """Announce the open question: from this instant declarations are closed and answers open.
    The text and the answer key (with accepted variants) are optional; when none is given and
    the question bank holds an unused question, the next one is announced (with its partner
    mark, its note for the host and its image). When the screens show it is the game's
    default unless ``show_projector``/``show_phones`` say otherwise; ``image`` is one cleaned
    by ``kingofhill.screens.checked_image``."""
    _require_host(actor, w.game)
    koth = w.game
    _require_running(koth)
    question = _current(koth)
    if question.phase != Question.Phase.DECLARING:
        raise DomainError(_("Question %(n)d has already been announced.")
                          % {"n": question.number})
    if not isinstance(variants, (list, tuple)) or not all(isinstance(v, str) for v in variants):
        raise DomainError(_("Accepted variants must be a list of texts."))
    shows = [_shown(show, default) for show, default in
             ((show_projector, koth.show_projector), (show_phones, koth.show_phones))]
    typed = any(((text or "").strip(), (answer_key or "").strip(), *variants))
    prepared = None if typed else selectors.next_prepared(koth, lock=True)
    if prepared is not None:
        text, answer_key, variants = prepared.text, prepared.answer_key, prepared.variants
        question.note = prepared.note
        question.image_id = prepared.image_id
        if prepared.partner and not question.partner:
            PartnerChange.objects.create(question=question, old=False, new=True,
                                         changed_by=actor, changed_at=w.now)
            question.partner = True
    question.text = (text or "").strip()[:bank.TEXT_MAX]
    question.answer_key = (answer_key or "").strip()[:ANSWER_MAX]
    question.variants = [v.strip()[:ANSWER_MAX] for v in variants if v.strip()]
    question.show_projector, question.show_phones = shows
    if image is not None:
        question.image = QuestionImage.objects.create(koth=koth, content_type=image[0],
                                                      data=image[1], size=len(image[1]))
    question.announced_at = w.now
    question.save()
    if prepared is not None:
        prepared.question = question
        prepared.save(update_fields=["question"])
    w.change = changes.QuestionChanged(current=question)
    return question


def _shown(show: str | None, default: str) -> str:
    if show is None or show == "":
        return default
    if show not in Shown.values:
        raise DomainError(_("Show the question on announce, after the close or never."))
    return show


def _verdict_value(question: Question, answer: Answer, verdict: bool | None) -> dict:
    return {"question": question.number, "answer": answer.pk, "text": answer.text,
            "verdict": verdict}


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


@LIVE.write
def bank_question_add(w: Write, *, actor, text: str, answer_key: str = "",
                      variants: Sequence[str] = (), partner: bool = False,
                      note: str = "") -> PreparedQuestion:
    """Add one prepared question at the end of the bank."""
    _require_host(actor, w.game)
    require_bank_open(w.game)
    item, problems = bank.check_item(text, answer_key, variants, partner, note)
    if problems:
        raise DomainError(_("The question is not added: %(why)s.") % {"why": "; ".join(problems)})
    return _bank_add(w.game, [item])[0]


@LIVE.write
def bank_import(w: Write, *, actor, name: str, data: bytes) -> int:
    """Append every question of a CSV/XLSX/plain-text file (``kingofhill.bank``), all or none;
    returns how many. A bad file raises ``bank.BankError`` with every problem."""
    _require_host(actor, w.game)
    require_bank_open(w.game)
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


def set_verdicts(w: Write, question: Question, answers, verdict: bool, actor, *,
                 confirm: bool = False) -> int:
    """Give ``answers`` of ``question`` the host's ``verdict`` (audited, board recomputed when
    the question is closed); returns how many changed. The one way a verdict changes, shared
    by the console's judging and an accepted appeal (``kingofhill.appeals``)."""
    judged = [answer for answer in answers if answer.verdict is not verdict]
    if not judged:
        w.unchanged = True
        return 0
    if question.closed_at is not None:
        past.change_past(w, question, verdicts={a.application_id: verdict for a in judged},
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
    else:  # the open question's verdicts are the host's until the close: no team sees them
        w.change = changes.GroupsChanged(current=question)
    return len(judged)


def _check_verdict(verdict) -> bool:
    if not isinstance(verdict, bool):
        raise DomainError(_("A verdict is true (correct) or false (incorrect)."))
    return verdict


@LIVE.write
def answers_judge(w: Write, *, actor, question: int, normalized: str, verdict: bool,
                  confirm: bool = False) -> int:
    """Judge every answer of ``question`` in the group ``normalized`` at once (its normalised
    text, and the texts the host merged into it); returns how many verdicts changed. Works on a closed question too (the board is then
    recomputed; a change of the outcome needs ``confirm``, see ``past.change_past``)."""
    _require_host(actor, w.game)
    verdict = _check_verdict(verdict)
    koth = w.game
    if koth.status == KothGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    q = _question(koth, question)
    answers = list(Answer.objects.filter(
        question=q, normalized__in=sorted(rules.group_forms(q.merged or {}, normalized))))
    if not answers:
        raise DomainError(_("No answer «%(text)s» to question %(n)d.")
                          % {"text": normalized, "n": q.number})
    return set_verdicts(w, q, answers, verdict, actor, confirm=confirm)


@LIVE.write
def verdict_set(w: Write, *, actor, answer: int, verdict: bool, confirm: bool = False) -> Answer:
    """Change one answer's verdict, of the open question or any earlier one (a change of the
    outcome needs ``confirm``, see ``past.change_past``)."""
    _require_host(actor, w.game)
    verdict = _check_verdict(verdict)
    try:
        row = Answer.objects.select_related("question").get(pk=answer, question__koth=w.game)
    except (Answer.DoesNotExist, ValueError, TypeError, OverflowError):
        raise DomainError(_("No such answer in this game.")) from None
    set_verdicts(w, row.question, [row], verdict, actor, confirm=confirm)
    return row


@LIVE.write
def partner_set(w: Write, *, actor, question: int, partner: bool,
                confirm: bool = False) -> Question:
    """Mark or unmark a partner question, at any time (2.2.6); on a played question a change
    of the outcome needs ``confirm`` (see ``past.change_past``)."""
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
        past.change_past(w, q, partner=partner, confirm=confirm)
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


def game_record(game: KothGame | int) -> dict:
    """The game's record in the contract format (``docs/spec/record-format.md``); replaying it
    gives the board the live game shows."""
    koth = game if isinstance(game, KothGame) else selectors.koth_game(game)
    snap = selectors.load_snapshot(koth)
    return snap.record
