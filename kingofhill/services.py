"""Writes of the live King of the Hill game: one keyword-only ``<entity>_<action>`` per action.

Each runs in one transaction that locks the ``KothGame`` row (``select_for_update``) so writers
of one game are serialised, validates, writes the event, and then ``_publish`` stores ``version + 1`` and, after the
commit, broadcasts the new states through ``kingofhill.realtime``. A write that changes the
closed questions (a close, a verdict or partner mark on a played question, the start) rebuilds
the record from the database and recomputes the board with the pure ``kingofhill.rules``
(``recompute=True``); the others (declarations, the announcement, answers, judging the open
question) cannot change the board and reuse the one computed then, reading only the open
question. Each team's stream is bumped and pushed only when its view changed (``teams``):
an answer goes to the public and host groups and to the answering team alone. A refusal raises a ``DomainError`` before anything is committed.

Authorization of the request is the caller's job (views, API, consumers); host actions also
check ``core.roles.is_host`` here, because judging by the wrong person must never slip through
a new entry point.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import DomainError, NotAllowed
from core.records import RecordError
from core.roles import is_host
from kingofhill import realtime, rules, selectors
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


def _lock(game: KothGame | int) -> KothGame:
    game_id = game if isinstance(game, int) else game.pk
    try:
        return KothGame.objects.select_for_update().select_related("game").get(pk=game_id)
    except KothGame.DoesNotExist:
        raise DomainError(_("No King of the Hill game with id %(id)s.") % {"id": game_id}) from None


def _require_host(actor) -> None:
    if not is_host(actor):
        raise NotAllowed(_("Only a host or an organizer may do this."))


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
    except (Question.DoesNotExist, ValueError, TypeError):
        raise DomainError(_("There is no question %(n)s.") % {"n": number}) from None


def _entry(koth: KothGame, application: Application | int) -> Application:
    app_id = application if isinstance(application, int) else application.pk
    if app_id not in koth.team_order:
        raise DomainError(_("This team does not play in this game."))
    return Application.objects.select_related("team").get(pk=app_id)


def _snapshot(koth: KothGame, **kwargs) -> selectors.Snapshot:
    try:
        return selectors.load_snapshot(koth, **kwargs)
    except RecordError as exc:
        raise DomainError(
            _("This change would make the game impossible: %(why)s") % {"why": exc}
        ) from None


ALL = None  # every team's view changed


def _publish(
    koth: KothGame, *, now: datetime | None = None, recompute: bool = False,
    teams: Sequence[int] | None = ALL, current: Question | None = None,
) -> selectors.Snapshot:
    """Store ``version + 1`` (and the bumped team versions), broadcast after the commit.

    With ``recompute`` the board is recomputed from the record and stored, and the game's
    status follows it: it finishes when the engine says so (and runs again if a changed verdict
    un-finishes it), and a running game always has a next question open. Without it the closed
    questions are untouched, so the stored board stands and only the open question (the
    caller's ``current`` if given) is read. ``teams``: the application ids whose view changed
    (``ALL``: every team).
    """
    if not recompute:
        snap = _snapshot(koth, reuse=True, current=current)
        # When this process had nothing kept, keep what it just read.
        keep = None if snap.reused else koth.board_version
        return _send(koth, snap, teams, keep=keep,
                     update_fields=["version", "team_versions"])
    snap = _snapshot(koth)
    board = snap.board
    if koth.status != KothGame.Status.SETUP and board is not None:
        if board.finished:
            if koth.status != KothGame.Status.FINISHED:
                koth.status = KothGame.Status.FINISHED
                koth.finished_at = now or timezone.now()
            # A question opened before the board finished (after a changed verdict) has no
            # place in the record any more; it must not hold declarations or answers either.
            current = snap.current
            if current is not None and current.closed_at is None:
                current.delete()
                snap.questions.pop()
        else:
            koth.status = KothGame.Status.RUNNING
            koth.finished_at = None
            last = snap.current
            if last is None or last.closed_at is not None:
                number = 1 if last is None else last.number + 1
                opened = Question.objects.create(koth=koth, number=number)
                # Empty, but read once here rather than once per team state.
                prefetch_related_objects([opened], "declarations", "answers")
                snap.questions.append(opened)
    koth.board = snap.board_dict()
    koth.board_version = koth.version + 1
    return _send(koth, snap, teams, keep=koth.board_version, update_fields=[
        "status", "finished_at", "version", "team_versions", "board", "board_version",
        "team_order", "started_at"])


def _send(koth: KothGame, snap: selectors.Snapshot, teams: Sequence[int] | None,
          *, keep: int | None, update_fields: list[str]) -> selectors.Snapshot:
    """Bump and store the versions; after the commit, keep the closed part of ``snap`` under
    board version ``keep`` (if given) and broadcast."""
    ids = [a.pk for a in snap.entries] if teams is ALL else \
        [pk for pk in teams if pk in snap.names]
    koth.version += 1
    versions = dict(koth.team_versions or {})
    for pk in ids:
        versions[str(pk)] = int(versions.get(str(pk), 0)) + 1
    koth.team_versions = versions
    koth.save(update_fields=update_fields)
    game_id, version = koth.pk, koth.version
    public = selectors.public_state(snap)
    host = selectors.host_state(snap, public)
    states = {pk: (versions[str(pk)], selectors.team_state(snap, pk, public)) for pk in ids}

    def after_commit() -> None:
        # Kept only once (and only if) the write is committed.
        if keep is not None:
            selectors.remember_closed(snap, keep)
        realtime.broadcast_states(game_id, version, public=public, host=host, teams=states)

    transaction.on_commit(after_commit)
    return snap


# --- setup ------------------------------------------------------------------------------------


@transaction.atomic
def koth_create(
    *, actor, game: Game, summit: int = 7, main_questions: int = 30, reserve_questions: int = 5
) -> KothGame:
    """Attach the live King of the Hill state to a scheduled ``teams.Game``."""
    _require_host(actor)
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
    _publish(KothGame.objects.select_for_update().select_related("game").get(pk=koth.pk),
             recompute=True)
    koth.refresh_from_db()
    return koth


@transaction.atomic
def game_start(*, actor, game: KothGame | int, now: datetime | None = None) -> KothGame:
    """Freeze the teams (approved applications, registration order) and open question 1."""
    _require_host(actor)
    koth = _lock(game)
    if koth.status != KothGame.Status.SETUP:
        raise DomainError(_("The game has already started."))
    entries = selectors.game_entries(koth)
    if len(entries) < 2:
        raise DomainError(_("At least two approved teams are needed to start."))
    koth.team_order = [a.pk for a in entries]
    koth.status = KothGame.Status.RUNNING
    koth.started_at = now or timezone.now()
    Game.objects.filter(pk=koth.pk, status=Game.Status.SCHEDULED).update(
        status=Game.Status.RUNNING)
    _publish(koth, now=now, recompute=True)
    return koth


# --- team actions -----------------------------------------------------------------------------


@transaction.atomic
def declaration_submit(
    *, game: KothGame | int, application: Application | int, kind: str,
    now: datetime | None = None,
) -> Declaration:
    """Declare a jump or a revolution for the question not yet announced; a second declaration
    replaces the first. Refused when the engine says the team may not make it now."""
    koth = _lock(game)
    _require_running(koth)
    entry = _entry(koth, application)
    if kind not in (rules.JUMP, rules.REVOLUTION):
        raise DomainError(_("Declare a jump or a revolution."))
    question = _current(koth)
    if question.phase != Question.Phase.DECLARING:
        raise DomainError(_("Too late: question %(n)d has been announced.")
                          % {"n": question.number})
    board = _snapshot(koth, reuse=True).board
    if board is None:  # pragma: no cover - a running game has at least two teams
        raise DomainError(_("The game has not started yet."))
    allowed = rules.allowed_declarations(board, entry.team.name)
    reason = allowed.jump_reason if kind == rules.JUMP else allowed.revolution_reason
    if reason is not None:
        raise DomainError(_("Not allowed now: %(why)s.")
                          % {"why": selectors.REASON_LABELS.get(reason, reason)})
    declaration, _created = Declaration.objects.update_or_create(
        question=question, application=entry,
        defaults={"kind": kind, "at": now or timezone.now()})
    _publish(koth, now=now)
    return declaration


@transaction.atomic
def declaration_withdraw(
    *, game: KothGame | int, application: Application | int, now: datetime | None = None
) -> None:
    """Take back the declaration before the question is announced (an ordinary move then)."""
    koth = _lock(game)
    _require_running(koth)
    entry = _entry(koth, application)
    question = _current(koth)
    if question.phase != Question.Phase.DECLARING:
        raise DomainError(_("Too late: question %(n)d has been announced.")
                          % {"n": question.number})
    deleted, _rows = Declaration.objects.filter(question=question, application=entry).delete()
    if not deleted:
        raise DomainError(_("Your team has declared nothing for this question."))
    _publish(koth, now=now)


@transaction.atomic
def answer_submit(
    *, game: KothGame | int, application: Application | int, text: str,
    client_id: uuid.UUID | str, now: datetime | None = None,
) -> Answer:
    """The team's one answer to the open question; the server stamps its arrival.

    A retry carrying the same ``client_id`` returns the stored answer and changes nothing (no
    new version, no broadcast); any other second answer is refused: the first one is final.
    """
    try:
        client_id = uuid.UUID(str(client_id))
    except ValueError:
        raise DomainError(_("The answer's client id must be a UUID.")) from None
    koth = _lock(game)
    _require_running(koth)
    entry = _entry(koth, application)
    question = _current(koth)
    existing = Answer.objects.filter(question=question, application=entry).first()
    if existing is not None:
        if existing.client_id == client_id:
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
    normalized = selectors.normalize_answer(text) or text.casefold()
    moment = now or timezone.now()
    # A key match is pre-marked correct; the host sees it and may flip it.
    verdict = True if normalized in selectors._keys(question) else None
    try:
        with transaction.atomic():
            answer = Answer.objects.create(
                question=question, application=entry, text=text, normalized=normalized,
                at=moment, verdict=verdict, judged_at=moment if verdict else None,
                client_id=client_id)
    except IntegrityError:  # pragma: no cover - the game lock serialises writers
        raise DomainError(_("Your team has already answered this question.")) from None
    if verdict is not None:
        VerdictChange.objects.create(answer=answer, old=None, new=verdict, changed_at=moment)
    # The board stands (the question is open) and only this team's view changed.
    _publish(koth, now=now, teams=[entry.pk], current=question)
    return answer


# --- host actions -----------------------------------------------------------------------------


@transaction.atomic
def question_announce(
    *, actor, game: KothGame | int, text: str = "", answer_key: str = "",
    variants: Sequence[str] = (), now: datetime | None = None,
) -> Question:
    """Announce the open question: from this instant declarations are closed and answers open.
    The text and the answer key (with accepted variants) are optional."""
    _require_host(actor)
    koth = _lock(game)
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
    question.announced_at = now or timezone.now()
    question.save()
    _publish(koth, now=now, current=question)
    return question


def _set_verdicts(answers, verdict: bool, actor, now: datetime) -> int:
    changed = 0
    for answer in answers:
        if answer.verdict is verdict:
            continue
        VerdictChange.objects.create(answer=answer, old=answer.verdict, new=verdict,
                                     changed_by=actor, changed_at=now)
        answer.verdict, answer.judged_by, answer.judged_at = verdict, actor, now
        answer.save(update_fields=["verdict", "judged_by", "judged_at"])
        changed += 1
    return changed


def _publish_verdicts(koth: KothGame, question: Question, *, now: datetime | None) -> None:
    if question.closed_at is not None:  # a played move changed: the board is recomputed
        _publish(koth, now=now, recompute=True)
    else:  # teams see their verdict only once the move is played: the host's news alone
        _publish(koth, now=now, teams=[], current=question)


def _check_verdict(verdict) -> bool:
    if not isinstance(verdict, bool):
        raise DomainError(_("A verdict is true (correct) or false (incorrect)."))
    return verdict


@transaction.atomic
def answers_judge(
    *, actor, game: KothGame | int, question: int, normalized: str, verdict: bool,
    now: datetime | None = None,
) -> int:
    """Judge every answer of ``question`` whose normalised text is ``normalized`` at once;
    returns how many verdicts changed. Works on a closed question too (the board is then
    recomputed)."""
    _require_host(actor)
    verdict = _check_verdict(verdict)
    koth = _lock(game)
    if koth.status == KothGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    q = _question(koth, question)
    answers = list(Answer.objects.filter(question=q, normalized=normalized))
    if not answers:
        raise DomainError(_("No answer «%(text)s» to question %(n)d.")
                          % {"text": normalized, "n": q.number})
    changed = _set_verdicts(answers, verdict, actor, now or timezone.now())
    if changed:
        _publish_verdicts(koth, q, now=now)
    return changed


@transaction.atomic
def verdict_set(
    *, actor, game: KothGame | int, answer: int, verdict: bool, now: datetime | None = None
) -> Answer:
    """Change one answer's verdict, of the open question or any earlier one."""
    _require_host(actor)
    verdict = _check_verdict(verdict)
    koth = _lock(game)
    try:
        row = Answer.objects.select_related("question").get(pk=answer, question__koth=koth)
    except (Answer.DoesNotExist, ValueError, TypeError):
        raise DomainError(_("No such answer in this game.")) from None
    if _set_verdicts([row], verdict, actor, now or timezone.now()):
        _publish_verdicts(koth, row.question, now=now)
    return row


@transaction.atomic
def partner_set(
    *, actor, game: KothGame | int, question: int, partner: bool, now: datetime | None = None
) -> Question:
    """Mark or unmark a partner question, at any time (2.2.6)."""
    _require_host(actor)
    if not isinstance(partner, bool):
        raise DomainError(_("The partner mark is true or false."))
    koth = _lock(game)
    if koth.status == KothGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    q = _question(koth, question)
    if q.partner != partner:
        PartnerChange.objects.create(question=q, old=q.partner, new=partner, changed_by=actor,
                                     changed_at=now or timezone.now())
        q.partner = partner
        q.save(update_fields=["partner"])
        # The open question's mark changes the teams' projections, not the board.
        _publish(koth, now=now, recompute=q.closed_at is not None)
    return q


@transaction.atomic
def question_close(*, actor, game: KothGame | int, now: datetime | None = None) -> Question:
    """Play the move: every answer must be judged; a team that sent nothing answered
    incorrectly. The next question opens unless the game has finished."""
    _require_host(actor)
    koth = _lock(game)
    _require_running(koth)
    question = _current(koth)
    if question.phase == Question.Phase.DECLARING:
        raise DomainError(_("Announce question %(n)d before closing it.")
                          % {"n": question.number})
    unjudged = Answer.objects.filter(question=question, verdict=None).count()
    if unjudged:
        raise DomainError(_("%(count)d answers are not judged yet.") % {"count": unjudged})
    question.closed_at = now or timezone.now()
    question.save(update_fields=["closed_at"])
    _publish(koth, now=now, recompute=True)
    return question


def game_record(game: KothGame | int) -> dict:
    """The game's record in the contract format (``spec/record-format.md``); replaying it
    gives the board the live game shows."""
    koth = game if isinstance(game, KothGame) else selectors.koth_game(game)
    snap = selectors.load_snapshot(koth)
    return snap.record
