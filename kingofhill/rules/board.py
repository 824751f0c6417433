"""The board (``docs/rules/kingofhill.md``): the steps, the King and his holds, jumps and
revolutions, move by move from the record (``compute``, ``advance``), and why a declaration is
ignored.

Pure, like the whole package (see ``kingofhill.rules``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import compress
from operator import not_
from types import MappingProxyType
from typing import Any

from core.records import RecordError
from kingofhill.rules.record import (
    FINISHED,
    JUMP,
    JUMP_AFTER_FAIL,
    JUMP_FIRST_QUESTION,
    JUMP_KING,
    JUMP_PENULTIMATE,
    KING_HELD,
    KING_HOLD_MOVES,
    LATE,
    NO_CHALLENGER,
    QUESTIONS_EXHAUSTED,
    REV_KING,
    REV_NO_KING,
    REV_NO_RIGHT,
    REV_NOT_PENULTIMATE,
    REVOLUTION,
    GameRecord,
    Move,
    PlayedMove,
)

# --------------------------------------------------------------------------------------------
# The board


class MoveAfterEnd(RecordError):
    """A record with a move after the game finished. ``code`` lets the live app show its own
    translated sentence instead of this English one (the replay command prints the latter)."""

    code = "move_after_end"

    def __init__(self, message: str, *, question: int, finish_reason: str | None) -> None:
        super().__init__(message)
        self.question = question  # the last question that counted
        self.finish_reason = finish_reason


@dataclass(frozen=True, slots=True)
class TeamState:
    """One team after some move. ``place`` is 1-based, with no shared places."""

    team: str
    place: int
    step: int
    points: int
    revolution_right: bool  # always False for the King (the contract's meaning)
    is_king: bool
    last_failed: bool  # its previous move failed: no jump on the next question
    registration: int  # 0-based index in record.teams
    # [decision] 0 = never changed, which only a team still on (0, 0) can be, so no tie mixes
    # "never" with a real question.
    changed_question: int  # question that last changed (step, points)
    changed_at: datetime | None  # arrival of this team's answer in that question


@dataclass(frozen=True, slots=True)
class Position:
    """The board after ``question`` moves (0 = before the first question)."""

    summit: int
    question: int
    total_questions: int | None
    teams: tuple[TeamState, ...]  # standings order
    king: str | None
    king_holds: int
    finished: bool
    finish_reason: str | None
    winner: str | None

    def team(self, name: str) -> TeamState:
        for state in self.teams:
            if state.team == name:
                return state
        raise RecordError(f"unknown team {name!r}")

    @property
    def questions_left(self) -> int | None:
        return None if self.total_questions is None else self.total_questions - self.question


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A compact, immutable copy of the board after one move, in registration order.

    The history keeps one per move; ``MoveResult.position`` turns it into a ``Position`` on
    demand, because building 24 ``TeamState`` objects for every past move on every recompute
    would cost more than the rules themselves. For the same reason the standings order is
    sorted when first asked for (``order``): a replay needs it for the last move only.
    """

    summit: int
    question: int
    total_questions: int | None
    names: tuple[str, ...]
    step: tuple[int, ...]
    points: tuple[int, ...]
    right: tuple[bool, ...]
    failed: tuple[bool, ...]
    changed_question: tuple[int, ...]
    changed_at: tuple[datetime | None, ...]
    king: int  # registration index, -1 for none
    king_holds: int
    finish_reason: str | None
    winner: int  # registration index, -1 while the game goes on
    _order: list = field(default_factory=list, repr=False, compare=False)

    @property
    def order(self) -> tuple[int, ...]:
        """Registration indices in standings order (``standings_order``), sorted once."""
        if not self._order:
            self._order.append(standings_order(self.king, self.step, self.points,
                                               self.changed_question, self.changed_at))
        return self._order[0]

    @property
    def king_name(self) -> str | None:
        return None if self.king < 0 else self.names[self.king]

    def team_states(self) -> tuple[TeamState, ...]:
        king = self.king
        return tuple(
            TeamState(team=self.names[i], place=place, step=self.step[i], points=self.points[i],
                      revolution_right=self.right[i] and i != king, is_king=i == king,
                      last_failed=self.failed[i], registration=i,
                      changed_question=self.changed_question[i], changed_at=self.changed_at[i])
            for place, i in enumerate(self.order, start=1))

    def position_fields(self) -> dict:
        return {
            "summit": self.summit, "question": self.question,
            "total_questions": self.total_questions, "teams": self.team_states(),
            "king": self.king_name, "king_holds": self.king_holds,
            "finished": self.finish_reason is not None, "finish_reason": self.finish_reason,
            "winner": None if self.winner < 0 else self.names[self.winner]}


@dataclass(frozen=True, slots=True)
class MoveResult:
    """What one question did: the declarations that counted, those ignored (with why), who
    answered correctly, and (``position``) the board after it, for history and prefix checks."""

    question: int
    partner: bool
    effective: Mapping[str, str]  # team -> JUMP | REVOLUTION
    ignored: Mapping[str, str]  # team -> reason
    correct: tuple[str, ...]  # registration order
    snapshot: Snapshot = field(repr=False)
    _position: list = field(default_factory=list, repr=False, compare=False)

    @property
    def position(self) -> Position:
        if not self._position:  # built once, on first use (see Snapshot)
            self._position.append(Position(**self.snapshot.position_fields()))
        return self._position[0]

    @property
    def king(self) -> str | None:
        return self.snapshot.king_name


@dataclass(frozen=True, slots=True)
class Board(Position):
    """The current position plus the history of every move that led to it."""

    moves: tuple[MoveResult, ...] = ()


def initial_board(record: GameRecord) -> Board:
    """The board before question 1: every team on step 0 with 0 points and a right.

    >>> board = initial_board(parse_record({"format": "kingofhill", "teams": ["A", "B"]}))
    >>> [(t.team, t.place, t.step, t.points, t.revolution_right) for t in board.teams]
    [('A', 1, 0, 0, True), ('B', 2, 0, 0, True)]
    >>> board.king, board.finished, board.question
    (None, False, 0)
    """
    return _Game.start(record).board(())


def compute(record: GameRecord, *, until_end: bool = False) -> Board:
    """Replay every move of the record and return the final board with its history.

    Worked example (summit 3, so step 2 is the penultimate step): on question 1 both teams
    answer correctly (1 step, 1 point each); on question 2 Alpha jumps from step 1 straight onto
    the summit and becomes King with 3 points, while Beta's ordinary correct answer takes it to
    step 2 (its jump is refused: it declared after the announcement).

    >>> rec = parse_record({"format": "kingofhill", "summit": 3, "teams": ["Alpha", "Beta"],
    ...   "moves": [
    ...     {"answers": {"Alpha": {"correct": True}, "Beta": {"correct": True}}},
    ...     {"announced_at": "2026-12-05T19:05:00+03:00",
    ...      "declarations": {"Alpha": {"kind": "jump"},
    ...                       "Beta": {"kind": "jump", "at": "2026-12-05T19:05:01+03:00"}},
    ...      "answers": {"Alpha": {"correct": True}, "Beta": {"correct": True}}}]})
    >>> board = compute(rec)
    >>> board.king, [(t.team, t.step, t.points) for t in board.teams]
    ('Alpha', [('Alpha', 3, 3), ('Beta', 2, 2)])
    >>> dict(board.moves[1].ignored)
    {'Beta': 'declared after the question was announced'}

    A move after the game finished raises ``MoveAfterEnd``; with ``until_end`` such moves do
    not count instead (a changed verdict that ends the live game earlier: ``board.question``
    says how many moves counted).
    """
    return _Game.start(record).replay(record.moves, _Game.play, until_end)


def compute_played(record: GameRecord, moves: Sequence[PlayedMove], *,
                   until_end: bool = False) -> Board:
    """``compute`` of a record read by ``read_record``: ``record`` without its moves, and the
    moves as ``PlayedMove``. The same board as ``compute(parse_record(data))``.

    Both teams reach the summit of 2 with 2 points on question 2; B answered first, so B is King:

    >>> def both(a, b):
    ...     return {"answers": {"A": {"correct": True, "at": f"2026-12-05T19:10:{a}+03:00"},
    ...                         "B": {"correct": True, "at": f"2026-12-05T19:10:{b}+03:00"}}}
    >>> data = {"format": "kingofhill", "summit": 2, "teams": ["A", "B"],
    ...         "moves": [both(10, 20), both(41, 40)]}
    >>> board = compute_played(*read_record(data))
    >>> board.king, [(t.team, t.step, t.points) for t in board.teams]
    ('B', [('B', 2, 2), ('A', 1, 2)])
    >>> board == compute(parse_record(data))
    True
    """
    return _Game.start(record).replay(moves, _Game.play_read, until_end)


def advance(board: Board, move: Move) -> Board:
    """Play one more question on ``board`` and return the new board (the live app's step).

    >>> rec = parse_record({"format": "kingofhill", "summit": 2, "teams": ["A", "B"]})
    >>> b = advance(initial_board(rec), parse_move({"answers": {"B": {"correct": True}}}, {"A", "B"}))
    >>> [(t.team, t.step, t.points, t.last_failed) for t in b.teams]
    [('B', 1, 1, False), ('A', 0, 0, True)]
    """
    if board.finished:
        raise MoveAfterEnd(f"question {board.question + 1}: the game has already finished",
                           question=board.question, finish_reason=board.finish_reason)
    game = _Game.resume(board)
    result = game.play(move)
    return game.board((*board.moves, result))


class _Game:
    """The mutable working state of one replay, every list in registration order."""

    __slots__ = ("names", "index", "summit", "total", "question", "step", "points", "right",
                 "failed", "changed_q", "changed_at", "king", "holds",
                 "finish_reason", "winner")

    @classmethod
    def start(cls, record: GameRecord) -> _Game:
        game = cls()
        n = len(record.teams)
        game.names = record.teams
        game.index = {name: i for i, name in enumerate(record.teams)}
        game.summit = record.summit
        game.total = record.total_questions
        game.question = 0
        game.step = [0] * n
        game.points = [0] * n
        game.right = [True] * n
        game.failed = [False] * n
        game.changed_q = [0] * n
        game.changed_at = [None] * n
        game.king = -1
        game.holds = 0
        game.finish_reason = None
        game.winner = -1
        return game

    @classmethod
    def resume(cls, board: Position) -> _Game:
        states = sorted(board.teams, key=lambda s: s.registration)
        game = cls()
        game.names = tuple(s.team for s in states)
        game.index = {name: i for i, name in enumerate(game.names)}
        game.summit = board.summit
        game.total = board.total_questions
        game.question = board.question
        game.step = [s.step for s in states]
        game.points = [s.points for s in states]
        game.right = [s.revolution_right for s in states]
        game.failed = [s.last_failed for s in states]
        game.changed_q = [s.changed_question for s in states]
        game.changed_at = [s.changed_at for s in states]
        game.king = -1 if board.king is None else game.index[board.king]
        game.holds = board.king_holds
        game.finish_reason = board.finish_reason
        game.winner = -1 if board.winner is None else game.index[board.winner]
        return game

    def replay(self, moves: Iterable[Move | PlayedMove],
               play: Callable[[_Game, Any], MoveResult], until_end: bool) -> Board:
        results = []
        for i, move in enumerate(moves):
            if self.finish_reason is not None:
                if until_end:
                    break
                raise MoveAfterEnd(
                    f"moves[{i}]: the game already finished after question {self.question} "
                    f"({self.finish_reason}); no move may follow",
                    question=self.question, finish_reason=self.finish_reason)
            results.append(play(self, move))
        return self.board(tuple(results))

    def play(self, move: Move) -> MoveResult:
        return self.play_read(self.read(move))

    def read(self, move: Move) -> PlayedMove:
        """The move as ``play_read`` takes it, its teams checked against this game's."""
        index = self.index
        # A containment test, not a set of the unknown: nothing to build for a valid move.
        if not (index.keys() >= move.answers.keys() and index.keys() >= move.declarations.keys()):
            name = next(n for n in (*move.declarations, *move.answers) if n not in index)
            raise RecordError(f"question {self.question + 1}: unknown team {name!r}")
        n = len(self.names)
        correct = [False] * n
        at: list[datetime | None] = [None] * n
        for name, answer in move.answers.items():
            i = index[name]
            correct[i] = answer.correct
            at[i] = answer.at
        return PlayedMove(move.announced_at, move.partner, move.declarations, tuple(correct),
                          tuple(at))

    def play_read(self, move: PlayedMove) -> MoveResult:
        names, index = self.names, self.index
        q = self.question + 1
        n = len(names)
        summit = self.summit
        top = summit - 1
        step, points, right = self.step, self.points, self.right
        king = self.king
        had_king = king >= 0
        bonus = 1 if move.partner else 0
        correct, at = move.correct, move.at

        kinds: dict[int, str] = {}
        effective: dict[str, str] = {}
        ignored: dict[str, str] = {}
        played, failed, announced = self.question, self.failed, move.announced_at
        for name, (kind, declared_at) in move.declarations.items():
            i = index[name]
            reason = _refusal(kind, False, played, i == king, step[i], top, failed[i], had_king,
                              right[i])
            # A declaration without a time, or in a move without an announcement time, is on
            # time.
            if (reason is None and declared_at is not None and announced is not None
                    and declared_at >= announced):
                reason = LATE
            if reason is None:
                kinds[i] = kind
                effective[name] = kind
            else:
                # [decision] an ignored declaration costs nothing: a late revolution keeps the
                # right, and the team simply plays an ordinary move (2.2.5).
                ignored[name] = reason

        # Only a correct answer or a declaration that counts moves a team: a wrong ordinary
        # answer (or none) changes nothing, and the King never moves down.
        scored = list(compress(range(n), correct))  # every correct answer scores
        moved = scored[:]  # whose step or points change (for the standings' tie-break)
        gain = 1 + bonus
        reaching: list[int] = []  # whose move would take it onto the summit
        revolutionaries: list[int] = []
        for i, kind in kinds.items():
            if kind == REVOLUTION:
                right[i] = False  # declaring uses the right up, whatever happens
                revolutionaries.append(i)
                if correct[i]:
                    points[i] += gain
            elif correct[i]:  # a jump
                points[i] += gain + 1
                if step[i] + 2 < summit:
                    step[i] += 2
                else:
                    reaching.append(i)
            elif step[i] > 0:  # a failed jump goes a step down (never below 0)
                step[i] -= 1
                moved.append(i)
        for i in scored:
            if i not in kinds:  # an ordinary move, or the King's answer
                points[i] += gain
                if i != king:
                    if step[i] + 1 < summit:
                        step[i] += 1
                    else:
                        reaching.append(i)
        # [decision] on the page: with a King only a revolution reaches the summit; the move
        # stops on S-1 and keeps its points. Without one, the arriving team that wins the
        # contest below is lifted onto the summit, the others stay on S-1.
        for i in reaching:
            step[i] = top
        arriving = [] if had_king else reaching

        def contest(teams: list[int]) -> int:
            # 2.4.7: more points (this move's included), the earliest correct answer, then
            # registration order. Arrival times are read only among those tied on points.
            most = max(map(points.__getitem__, teams))
            tied = [i for i in teams if points[i] == most]
            if len(tied) == 1:
                return tied[0]
            return min(tied, key=lambda i: (_arrival_key(at[i]), i))

        new_king = -1
        if arriving:
            new_king = contest(arriving)
        elif had_king and not correct[king]:
            winners = [i for i in revolutionaries if correct[i]]
            if winners:
                new_king = contest(winners)
                step[king] = top  # [decision] on the page: the deposed King goes to S-1
                moved.append(king)

        if new_king >= 0:
            step[new_king] = summit
            king = self.king = new_king
            self.holds = 0
            # When the King changes every right is restored (2.4.5).
            right[:] = [True] * n
        elif had_king:
            self.holds += 1

        changed_q, changed_at = self.changed_q, self.changed_at
        for i in moved:
            changed_q[i] = q
            changed_at[i] = at[i]
        # [decision] a move "failed" when the team's answer was not correct (or it sent none),
        # whatever it declared; a correct move stopped on S-1 below a King did not fail.
        self.failed = list(map(not_, correct))
        self.question = q
        self._check_end()
        snapshot = self.snapshot()
        return MoveResult(question=q, partner=move.partner,
                          effective=MappingProxyType(effective),
                          ignored=MappingProxyType(ignored),
                          correct=tuple(compress(names, correct)),
                          snapshot=snapshot)

    def _check_end(self) -> None:
        """The three end conditions of 2.5 in their order, with the re-grant before the third."""
        king, total, q = self.king, self.total, self.question
        if king >= 0 and self.holds >= KING_HOLD_MOVES:
            self.finish_reason = KING_HELD
        elif total is not None and q >= total:
            self.finish_reason = QUESTIONS_EXHAUSTED
        elif king >= 0:
            left = moves_left(self.holds, None if total is None else total - q)
            # moves_to_penultimate(...) + 1 <= left, solved for the step once per move (it
            # holds for every team every move): k = ceil(d / 2) moves from d steps below S-1,
            # so k < left from d <= 2 (left - 1); after a failed move k = 1 + floor(d / 2),
            # so from d <= 2 left - 3; and from S-1 itself (k = 0) always.
            top = self.summit - 1
            lowest = (top - 2 * (left - 1), min(top, top - 2 * left + 3))  # by last_failed
            step, failed, right = self.step, self.failed, self.right

            def reaches(i: int) -> bool:
                return i != king and step[i] >= lowest[failed[i]]

            if not any(reaches(i) for i in compress(range(len(right)), right)):
                # Re-grant (2.4.5): nobody who still holds a right can make it in time, so
                # every team that used its right gets it back; then rule 3 looks again.
                right[:] = [True] * len(right)
                if not any(map(reaches, range(len(right)))):
                    self.finish_reason = NO_CHALLENGER
        if self.finish_reason is not None:
            self.winner = king if king >= 0 else standings_order(
                king, self.step, self.points, self.changed_q, self.changed_at)[0]

    def snapshot(self) -> Snapshot:
        return Snapshot(
            summit=self.summit, question=self.question, total_questions=self.total,
            names=self.names, step=tuple(self.step),
            points=tuple(self.points), failed=tuple(self.failed),
            right=self._rights(),
            changed_question=tuple(self.changed_q), changed_at=tuple(self.changed_at),
            king=self.king, king_holds=self.holds, finish_reason=self.finish_reason,
            winner=self.winner)

    def _rights(self) -> tuple[bool, ...]:
        # The King holds no right (contract); normalised so equal boards compare equal.
        right = self.right
        if self.king >= 0 and right[self.king]:
            right = right[:]
            right[self.king] = False
        return tuple(right)

    def board(self, moves: tuple[MoveResult, ...]) -> Board:
        snapshot = moves[-1].snapshot if moves else self.snapshot()
        return Board(**snapshot.position_fields(), moves=moves)


def _refusal(kind: str, finished: bool, played: int, is_king: bool, step: int, top: int,
             last_failed: bool, has_king: bool, has_right: bool) -> str | None:
    """Why a team may not make a ``kind`` declaration on the next question, or None.

    ``played`` is the number of questions played so far. [decision] a declaration the team
    could not make anyway reports that rule, not its lateness.
    """
    if finished:
        return FINISHED
    if kind == JUMP:
        if played == 0:
            return JUMP_FIRST_QUESTION
        if is_king:
            return JUMP_KING
        if step == top:
            return JUMP_PENULTIMATE
        if last_failed:
            return JUMP_AFTER_FAIL
        return None
    if is_king:
        return REV_KING
    if not has_king:
        return REV_NO_KING
    if step != top:
        return REV_NOT_PENULTIMATE
    if not has_right:
        return REV_NO_RIGHT
    return None


def refusal_for(kind: str, state: TeamState, board: Position) -> str | None:
    return _refusal(kind, board.finished, board.question, state.is_king, state.step,
                    board.summit - 1, state.last_failed, board.king is not None,
                    state.revolution_right)


def standings_order(king: int, step, points, changed_question, changed_at) -> tuple[int, ...]:
    """Registration indices in standings order: the King first; then step, points, and
    [decision on the page] whoever reached its (step, points) first: question, then answer
    arrival in it, then registration."""
    return tuple(sorted(range(len(step)), key=lambda i: (
        i != king, -step[i], -points[i], changed_question[i], _arrival_key(changed_at[i]), i)))


_NO_TIME = (1, 0.0)


def _arrival_key(at: datetime | None) -> tuple[int, float]:
    # Answers without a time rank after every answer with one (spec).
    return _NO_TIME if at is None else (0, at.timestamp())


def moves_left(king_holds: int, questions_left: int | None) -> int:
    left = KING_HOLD_MOVES - king_holds
    return left if questions_left is None else min(left, questions_left)
