"""Settling a King of the Hill game: the live pipeline's step after a write's action and
before its states are built (``live.write.LiveGame.settle``).

``settle`` picks the snapshot the write needs by its change (``kingofhill.changes``), reads it
(``kingofhill.selectors``) and, when the board was recomputed, makes the stored game follow it
at the write's moment (``follow_board``: it finishes, opens its next question, stores the board
under a new generation); it hands the snapshot to ``kingofhill.builds.build_states``, which
only renders. Besides the action's, these are the only writes a King of the Hill write makes to
the game's own rows (the live core then stores the states).
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import prefetch_related_objects

from core.records import RecordError
from kingofhill import builds, changes, realtime, rules, selectors, states
from kingofhill.models import KothGame, Question
from live.write import Write
from teams.models import Game


def settle(w: Write) -> selectors.Snapshot | builds.StoredHost:
    """The live core's settle for King of the Hill: the snapshot of the locked game at
    ``w.now``, the game made to follow it when its closed questions may have changed.

    The board is recomputed from the record when the action says the closed questions changed
    (``BoardChanged``), or when this process keeps no board for the game's
    ``board_generation``; otherwise only the open question is read. The game settles only in
    the first case: a board recomputed because this process kept none is the stored one.
    A presence refresh or a change of the bank whose host state is stored settles nothing
    (``StoredHost``): only the host's view of them changes.
    """
    koth = w.game
    full, closed, current, current_read = False, None, None, False
    match w.change:
        case changes.PresenceChanged() | changes.BankChanged():
            host = w.read_values({realtime.HOST: ["host"]}).get(realtime.HOST, {}).get("host")
            if host is not None:
                return builds.StoredHost(host)
            # Never stored: the whole game is built, as a refresh.
        case changes.BoardChanged(closed=closed):
            full = True
        case changes.AppealChanged():
            full = True
        case changes.QuestionChanged(current=current) | changes.GroupsChanged(current=current):
            pass
        case changes.AnswerAdded(current=current) | changes.AnswersAdded(current=current):
            # Not its answers: the build adds the new ones to the host's stored groups, and
            # reads the rest (``selectors.read_open``) only when it builds the states whole.
            current_read = True
    try:
        snap = None if closed is None else closed_snapshot(koth, closed)
        if snap is None:
            snap = selectors.load_snapshot(koth, reuse=not full, current=current,
                                           current_read=current_read)
    except RecordError as exc:
        raise selectors.record_refusal(exc) from None
    if snap.reused:
        return snap
    # A board computed only because this process kept none (another worker moved the game on)
    # is the stored one: every write that changes the closed questions recomputes and settles.
    # Settling it again would store a new generation and make the other worker, and then this
    # one, recompute on every write in turn.
    cold = not full and selectors.closed_key(koth) is not None
    if not cold:
        follow_board(koth, snap, w.now)
    generation = koth.board_generation
    # After the build: what it memoised of the closed questions is kept with them.
    transaction.on_commit(lambda: selectors.remember_closed(snap, generation))
    return snap


def closed_snapshot(koth: KothGame, question: Question) -> selectors.Snapshot | None:
    """The snapshot after ``question`` (the open one, just closed) from the closed part this
    process kept: its one move played on the kept board (``rules.advance``, equal to replaying
    the whole record: tests/kingofhill/test_rules.py), reading that question alone. A close
    otherwise read every played question's answers as models and replayed them all: at 64
    teams, half of the close's time and a sixth of a hall's server time (``make bench``).

    None when the kept part is not the game's (another worker closed a question, a verdict
    changed: ``board_generation`` moved) or does not end right before ``question``, or the
    engine refuses the move: then ``load_snapshot`` recomputes (and refuses) as ever."""
    kept = selectors.kept_closed(koth)
    if kept is None or kept.board is None or question.closed_at is None:
        return None
    if len(kept.questions) != question.number - 1 or kept.board.question != question.number - 1:
        return None
    selectors.read_open(question)
    move = selectors.record_move(question, kept.names)
    try:
        board = rules.advance(kept.board, rules.parse_move(
            move, set(kept.record["teams"]), f"moves[{question.number - 1}]"))
    except RecordError:
        return None
    record = {**kept.record, "moves": [*kept.record["moves"], move]}
    snap = selectors.Snapshot(koth=koth, entries=kept.entries,
                              questions=[*kept.questions, question], record=record,
                              board=board, names=kept.names)
    # What is built once per board grows by the one question too (the kept lists stay as
    # they are: other snapshots share them).
    derived = kept.derived
    # A just closed question has no appeals yet.
    snap.derived.appeals = derived.appeals
    if derived.history is not None:
        snap.derived.history = [states.history_entry(snap, question), *derived.history]
    if derived.team_moves is not None:
        before = kept.board.moves[-1].snapshot if kept.board.moves else None
        new = states.move_played(snap, board.moves[-1], before, question)
        moves = {name: list(played) for name, played in derived.team_moves.items()}
        for name, played in new:
            moves.setdefault(name, []).append(played)
        snap.derived.team_moves = moves
    return snap


def follow_board(koth: KothGame, snap: selectors.Snapshot, now: datetime) -> None:
    """Make the stored game follow its freshly computed board: it finishes when the engine says
    so (and runs again if a changed verdict un-finishes it), a running game always has its next
    question open, and the board is stored under a new generation."""
    board = snap.board
    if koth.status != KothGame.Status.SETUP and board is not None:
        if board.finished:
            if koth.status != KothGame.Status.FINISHED:
                koth.status = KothGame.Status.FINISHED
                koth.finished_at = now
                # The club's game lists read ``teams.Game``: it finishes with its board.
                Game.objects.filter(pk=koth.pk, status=Game.Status.RUNNING).update(
                    status=Game.Status.FINISHED)
            # A question opened before the board finished (after a changed verdict) has no
            # place in the record any more: an empty one goes, one the teams already declared
            # for or that was announced is closed as voided (its answers stay in the history).
            current = snap.current
            if current is not None and current.closed_at is None:
                snap.questions.pop()
                if current.announced_at is None and not current.declarations.all():
                    current.delete()
                else:
                    current.closed_at = now
                    current.save(update_fields=["closed_at"])
                    snap.voided.append(current)
        else:
            if koth.status == KothGame.Status.FINISHED:  # a changed verdict re-opened it
                Game.objects.filter(pk=koth.pk, status=Game.Status.FINISHED).update(
                    status=Game.Status.RUNNING)
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
    koth.board_generation += 1
    koth.save(update_fields=["status", "finished_at", "board", "board_generation",
                             "team_order", "started_at"])
