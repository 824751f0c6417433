"""The questions the screens ask the rules instead of re-implementing them: who may still
depose the King, the challengers, which declarations a team may make now, and what a move would
bring.

Pure, like the whole package (see ``kingofhill.rules``).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.records import RecordError
from kingofhill.rules.board import Position, moves_left, refusal_for
from kingofhill.rules.record import (
    JUMP,
    NOTE_KING_STAYS,
    NOTE_KING_UNLESS_DEPOSED,
    NOTE_MAY_BECOME_KING,
    NOTE_REVOLUTION,
    NOTE_STOPS_PENULTIMATE,
    ORDINARY,
    REVOLUTION,
    describe,
)

# --------------------------------------------------------------------------------------------
# Questions the screens ask


def moves_to_penultimate(step: int, last_failed: bool, summit: int) -> int:
    """The least number of moves, all answered correctly, from ``step`` to S-1.

    ``k = 0`` on S-1; otherwise with ``d = S-1-step``, ``ceil(d/2)`` (jumping every time), or
    ``1 + ceil((d-1)/2)`` after a failed move (no jump at once).

    >>> moves_to_penultimate(2, False, 7), moves_to_penultimate(2, True, 7)
    (2, 3)
    >>> moves_to_penultimate(6, True, 7)
    0
    """
    d = summit - 1 - step
    if d <= 0:
        return 0
    # Integer ceilings: a float division would overflow on an absurd summit from junk input.
    if last_failed:
        return 1 + d // 2
    return (d + 1) // 2


def _reachable(step: int, last_failed: bool, summit: int, left: int) -> bool:
    return moves_to_penultimate(step, last_failed, summit) + 1 <= left


def could_still_depose(board: Position, team: str, *, assume_right: bool = False) -> bool:
    """Whether ``team`` could still depose the King before the game ends.

    It needs a revolution right (unless ``assume_right``) and ``k + 1 <= left`` where ``k`` is
    ``moves_to_penultimate`` and ``left = 3 - king_holds`` (no more than the questions left).

    Example: summit 7, the King has held for 1 move (``left = 2``): a team with a right on
    step 5 after a correct answer needs 1 move to step 6 and 1 to revolt → True; on step 4 it
    would need 1 + 1 + 1 = 3 moves → False. The King itself, or no King, → False.
    """
    if board.king is None or board.finished:
        return False
    state = board.team(team)
    if state.is_king or not (assume_right or state.revolution_right):
        return False
    left = moves_left(board.king_holds, board.questions_left)
    return _reachable(state.step, state.last_failed, board.summit, left)


def challengers(board: Position) -> tuple[str, ...]:
    """The teams (standings order) that hold a right and could still depose the King.

    Empty when there is no King or the game has finished. Right after a re-grant every team in
    reach appears again. Example: King ``A`` has held 2 moves; ``B`` on S-1 with its right is
    the only challenger: ``challengers(board) == ("B",)``.
    """
    return tuple(s.team for s in board.teams if could_still_depose(board, s.team))


@dataclass(frozen=True, slots=True)
class Allowed:
    """What a team may declare for the next question, with the reason when it may not."""

    jump: bool
    jump_reason: str | None
    revolution: bool
    revolution_reason: str | None


def allowed_declarations(board: Position, team: str) -> Allowed:
    """May ``team`` declare a jump / a revolution for the next question? Reasons when not.

    Before question 1 nobody may jump ("jump not allowed on the first question") and nobody may
    revolt ("revolution needs a King"). Later, a team on step 2 whose last answer was correct
    may jump; on S-1 with its right, and a King on the summit, it may revolt but not jump.
    Lateness is not judged here: it depends on when the declaration arrives.
    """
    state = board.team(team)
    jump = refusal_for(JUMP, state, board)
    revolution = refusal_for(REVOLUTION, state, board)
    return Allowed(jump is None, jump, revolution is None, revolution)


@dataclass(frozen=True, slots=True)
class Outcome:
    step: int  # the team's step after the move
    points: int  # points gained in the move
    note: str  # what else may happen (the summit), in plain English; "" when nothing
    code: str = ""  # the note's stable key (one of NOTE_CODES), "" when nothing


@dataclass(frozen=True, slots=True)
class Projection:
    """What a team would get on the next question for a correct and an incorrect answer."""

    kind: str  # the kind that would count: the declared one, or ORDINARY when it is refused
    ignored_reason: str | None  # why the declared kind would be refused
    correct: Outcome
    incorrect: Outcome


def projected_outcome(board: Position, team: str, kind: str = ORDINARY, *,
                      partner: bool = False) -> Projection:
    """What ``team`` would get for a ``kind`` move ("ordinary", "jump", "revolution") on the
    next question, for a correct and an incorrect answer; ``partner`` marks a partner question.

    Example (summit 7, no King, team on step 3 after a correct answer)::

        jump, partner   → correct: step 5, +3 points; incorrect: step 2, +0
        ordinary        → correct: step 4, +1;        incorrect: step 3, +0

    A refused declaration is projected as the ordinary move it would become, with the reason.
    Whether a team arriving on the summit becomes King depends on the others, so it is a note.
    """
    if kind not in (ORDINARY, JUMP, REVOLUTION):
        raise RecordError(f'kind: expected "ordinary", "jump" or "revolution", got {describe(kind)}')
    state = board.team(team)
    reason = None if kind == ORDINARY else refusal_for(kind, state, board)
    if reason is not None:
        kind = ORDINARY
    bonus = 1 if partner else 0
    summit, top, step = board.summit, board.summit - 1, state.step
    if state.is_king:
        return Projection(
            kind, reason, Outcome(step, 1 + bonus, "stays on the summit", NOTE_KING_STAYS),
            Outcome(step, 0, "stays on the summit unless deposed by a correct revolutionary",
                    NOTE_KING_UNLESS_DEPOSED))
    if kind == REVOLUTION:
        return Projection(kind, reason, Outcome(
            top, 1 + bonus,
            "takes the summit if the King answers incorrectly and no other correct "
            "revolutionary has more points (then the earlier answer)", NOTE_REVOLUTION),
            Outcome(top, 0, ""))
    gain = 2 if kind == JUMP else 1
    target = step + gain
    note = code = ""
    if target >= summit:
        if board.king is None:
            target = summit
            note = ("reaches the summit: becomes King unless another arriving team has more "
                    "points (then the earlier answer); otherwise stays on the penultimate step")
            code = NOTE_MAY_BECOME_KING
        else:
            target = top
            note = "stops on the penultimate step: only a revolution takes the summit"
            code = NOTE_STOPS_PENULTIMATE
    wrong = max(0, step - 1) if kind == JUMP else step
    return Projection(kind, reason, Outcome(target, gain + bonus, note, code),
                      Outcome(wrong, 0, ""))


SHOW_ANNOUNCE, SHOW_CLOSE, SHOW_NEVER = "announce", "close", "never"


def question_shown(show: str, *, announced: bool, closed: bool, revealed: bool) -> bool:
    """Whether a screen set to ``show`` (a question's choice for the projector or the phones)
    shows its text and image now. The host's reveal after the close shows it whatever the
    choice: that is what "never" leaves in the host's hands."""
    if revealed:
        return True
    if show == SHOW_ANNOUNCE:
        return announced
    if show == SHOW_CLOSE:
        return closed
    return False
