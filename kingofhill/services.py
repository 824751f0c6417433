"""Writes of the live King of the Hill game: one keyword-only ``<entity>_<action>`` per action.

Every write goes through the live core (``kingofhill.live.LIVE.write``, see ``core.live``): one
transaction that locks the ``KothGame`` row first and takes ``now`` after the lock, the action
below, then ``kingofhill.selectors.build_states`` builds every audience's state; the core
stores the changed ones with their versions and pushes them after the commit. An action that
changes the closed questions (a close, a verdict or partner mark on a played question, the
start) sets ``w.memo["recompute"]``: the board is then recomputed from the record with the pure
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

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from core import audit, rights
from core.errors import DomainError, NotAllowed
from core.live import Write
from core.roles import is_host, is_organizer
from kingofhill import rules, selectors
from kingofhill.live import LIVE
from kingofhill.models import (
    Answer,
    Declaration,
    KothGame,
    PartnerChange,
    Question,
    VerdictChange,
)
from teams.models import Application, Game

ANSWER_MAX = 300


# --- plumbing ---------------------------------------------------------------------------------


def _require_host(actor, koth: KothGame) -> None:
    if not selectors.can_host(actor, koth):
        raise NotAllowed(_("Only a host of this game or an organizer may do this."))


def _require_running(koth: KothGame) -> None:
    if koth.status == KothGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    if koth.status == KothGame.Status.FINISHED:
        raise DomainError(_("The game has finished."))


def _current(koth: KothGame) -> Question:
    question = Question.objects.filter(koth=koth).order_by("-number").first()
    if question is None:
        raise DomainError(_("The game has not started yet."))
    return question


def _question(koth: KothGame, number: int) -> Question:
    try:
        return Question.objects.get(koth=koth, number=number)
    except (Question.DoesNotExist, ValueError, TypeError, OverflowError):
        raise DomainError(_("There is no question %(n)s.") % {"n": number}) from None


def _entry(koth: KothGame, application: Application | int) -> Application:
    app_id = application if isinstance(application, int) else application.pk
    if app_id not in koth.team_order:
        raise DomainError(_("This team does not play in this game."))
    return Application.objects.select_related("team").get(pk=app_id)


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
    w.memo["recompute"] = True
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


@LIVE.write
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
    question = _current(koth)
    existing = Answer.objects.filter(question=question, application=entry).first()
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
    try:
        with transaction.atomic():
            answer = Answer.objects.create(
                question=question, application=entry, text=text, normalized=normalized,
                at=w.now, verdict=verdict, judged_at=w.now if verdict else None,
                client_id=client_id)
    except IntegrityError:  # pragma: no cover - the game lock serialises writers
        raise DomainError(_("Your team has already answered this question.")) from None
    if verdict is not None:
        VerdictChange.objects.create(answer=answer, old=None, new=verdict, changed_at=w.now)
    w.memo["current"] = question
    # Nothing on the board moves until the close: the host's view, the projector's count and
    # this team's own view are all an answer changes.
    w.memo["team"] = entry.pk
    return answer


# --- host actions -----------------------------------------------------------------------------


@LIVE.write
def question_announce(w: Write, *, actor, text: str = "", answer_key: str = "",
                      variants: Sequence[str] = ()) -> Question:
    """Announce the open question: from this instant declarations are closed and answers open.
    The text and the answer key (with accepted variants) are optional."""
    _require_host(actor, w.game)
    koth = w.game
    _require_running(koth)
    question = _current(koth)
    if question.phase != Question.Phase.DECLARING:
        raise DomainError(_("Question %(n)d has already been announced.")
                          % {"n": question.number})
    if not isinstance(variants, (list, tuple)) or not all(isinstance(v, str) for v in variants):
        raise DomainError(_("Accepted variants must be a list of texts."))
    question.text = (text or "").strip()[:5000]
    question.answer_key = (answer_key or "").strip()[:ANSWER_MAX]
    question.variants = [v.strip()[:ANSWER_MAX] for v in variants if v.strip()]
    question.announced_at = w.now
    question.save()
    w.memo["current"] = question
    return question


def _verdict_value(question: Question, answer: Answer, verdict: bool | None) -> dict:
    return {"question": question.number, "answer": answer.pk, "text": answer.text,
            "verdict": verdict}


def _set_verdicts(w: Write, question: Question, answers, verdict: bool, actor) -> int:
    changed = 0
    for answer in answers:
        if answer.verdict is verdict:
            continue
        VerdictChange.objects.create(answer=answer, old=answer.verdict, new=verdict,
                                     changed_by=actor, changed_at=w.now)
        audit.record(game=w.game, actor=actor, action="kingofhill.verdict", at=w.now,
                     before=_verdict_value(question, answer, answer.verdict),
                     after=_verdict_value(question, answer, verdict))
        answer.verdict, answer.judged_by, answer.judged_at = verdict, actor, w.now
        answer.save(update_fields=["verdict", "judged_by", "judged_at"])
        changed += 1
    if not changed:
        w.unchanged = True
    elif question.closed_at is not None:  # a played move changed: the board is recomputed
        w.memo["recompute"] = True
    return changed


def _check_verdict(verdict) -> bool:
    if not isinstance(verdict, bool):
        raise DomainError(_("A verdict is true (correct) or false (incorrect)."))
    return verdict


@LIVE.write
def answers_judge(w: Write, *, actor, question: int, normalized: str, verdict: bool) -> int:
    """Judge every answer of ``question`` whose normalised text is ``normalized`` at once;
    returns how many verdicts changed. Works on a closed question too (the board is then
    recomputed)."""
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
    return _set_verdicts(w, q, answers, verdict, actor)


@LIVE.write
def verdict_set(w: Write, *, actor, answer: int, verdict: bool) -> Answer:
    """Change one answer's verdict, of the open question or any earlier one."""
    _require_host(actor, w.game)
    verdict = _check_verdict(verdict)
    try:
        row = Answer.objects.select_related("question").get(pk=answer, question__koth=w.game)
    except (Answer.DoesNotExist, ValueError, TypeError, OverflowError):
        raise DomainError(_("No such answer in this game.")) from None
    _set_verdicts(w, row.question, [row], verdict, actor)
    return row


@LIVE.write
def partner_set(w: Write, *, actor, question: int, partner: bool) -> Question:
    """Mark or unmark a partner question, at any time (2.2.6)."""
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
    PartnerChange.objects.create(question=q, old=q.partner, new=partner, changed_by=actor,
                                 changed_at=w.now)
    audit.record(game=koth, actor=actor, action="kingofhill.partner", at=w.now,
                 before={"question": q.number, "partner": q.partner},
                 after={"question": q.number, "partner": partner})
    q.partner = partner
    q.save(update_fields=["partner"])
    # The open question's mark changes the teams' projections, not the board.
    w.memo["recompute"] = q.closed_at is not None
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
    w.memo["recompute"] = True
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
