"""The King of the Hill («Царь Горы») rules engine: a pure function from a game record to a board.

The rules are ``docs/rules/kingofhill.md``; the record and the replay output are
``docs/spec/record-format.md``. The live app, the replay command and the season rating all call this
module, so every rule lives here and nowhere else: templates and JavaScript ask the helper
functions below (``allowed_declarations``, ``projected_outcome``, ``challengers``…) instead of
re-implementing a rule.

What this module must not do:

* import Django (or anything that needs settings) — it must run and be tested without them;
* read the clock, the database, files or the network — the board depends on the record only, so
  a changed verdict or partner mark is simply a different record, recomputed from scratch;
* raise anything but ``core.records.RecordError`` for a bad record, whatever the input;
* mutate its input or hand out mutable state — records and boards are frozen dataclasses.

Decisions taken here where the rules page is silent are marked ``[decision]`` in comments.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from core.records import RecordError, check_type, optional, parse_time, require, team_names

__all__ = [
    "JUMP", "REVOLUTION", "ORDINARY", "KING_HOLD_MOVES",
    "KING_HELD", "QUESTIONS_EXHAUSTED", "NO_CHALLENGER",
    "Declaration", "Answer", "Move", "GameRecord",
    "TeamState", "Position", "Snapshot", "MoveResult", "Board",
    "Allowed", "Outcome", "Projection", "NOTE_CODES",
    "parse_record", "parse_move", "compute", "advance", "initial_board", "replay", "board_to_dict",
    "allowed_declarations", "projected_outcome", "moves_to_penultimate",
    "could_still_depose", "challengers",
    "record_with", "PlaceChange", "ChangeEffect", "change_effect", "MoveAfterEnd",
]

JUMP = "jump"
REVOLUTION = "revolution"
ORDINARY = "ordinary"
DECLARABLE = (JUMP, REVOLUTION)
KING_HOLD_MOVES = 3  # 2.5.1: the King wins after holding the summit this many moves
# A new game's settings unless the host chooses others (1.3, 2.1).
DEFAULT_SUMMIT = 7
DEFAULT_MAIN_QUESTIONS = 30
DEFAULT_RESERVE_QUESTIONS = 5

KING_HELD = "king_held"
QUESTIONS_EXHAUSTED = "questions_exhausted"
NO_CHALLENGER = "no_challenger"

# Reasons a declaration is ignored; the live app shows them as they are.
LATE = "declared after the question was announced"
FINISHED = "the game has finished"
JUMP_FIRST_QUESTION = "jump not allowed on the first question"
JUMP_KING = "the King cannot jump"
JUMP_PENULTIMATE = "jump not allowed on the penultimate step"
JUMP_AFTER_FAIL = "jump not allowed after a failed move"
REV_KING = "the King cannot declare a revolution"
REV_NO_KING = "revolution needs a King"
REV_NOT_PENULTIMATE = "revolution only from the penultimate step"
REV_NO_RIGHT = "no revolution right left"

# What else a projected move may bring (``Outcome.code``): stable keys the pages translate,
# while ``Outcome.note`` keeps the English sentence for the replay command and logs.
NOTE_KING_STAYS = "king_stays"
NOTE_KING_UNLESS_DEPOSED = "king_unless_deposed"
NOTE_REVOLUTION = "revolution_may_take_summit"
NOTE_MAY_BECOME_KING = "may_become_king"
NOTE_STOPS_PENULTIMATE = "stops_on_penultimate"
NOTE_CODES = (NOTE_KING_STAYS, NOTE_KING_UNLESS_DEPOSED, NOTE_REVOLUTION, NOTE_MAY_BECOME_KING,
              NOTE_STOPS_PENULTIMATE)

_EMPTY: Mapping[str, Any] = MappingProxyType({})


class MoveAfterEnd(RecordError):
    """A record with a move after the game finished. ``code`` lets the live app show its own
    translated sentence instead of this English one (the replay command prints the latter)."""

    code = "move_after_end"

    def __init__(self, message: str, *, question: int, finish_reason: str | None) -> None:
        super().__init__(message)
        self.question = question  # the last question that counted
        self.finish_reason = finish_reason


# --------------------------------------------------------------------------------------------
# The record


@dataclass(frozen=True, slots=True)
class Declaration:
    kind: str  # JUMP or REVOLUTION
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    correct: bool
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Move:
    """One question. ``declarations`` and ``answers`` are keyed by team name (read-only)."""

    announced_at: datetime | None = None
    partner: bool = False
    declarations: Mapping[str, Declaration] = field(default_factory=lambda: _EMPTY)
    answers: Mapping[str, Answer] = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True, slots=True)
class GameRecord:
    teams: tuple[str, ...]
    moves: tuple[Move, ...] = ()
    summit: int = DEFAULT_SUMMIT
    main_questions: int | None = None
    reserve_questions: int = 0

    @property
    def total_questions(self) -> int | None:
        """main + reserve, or None when the game never ends by running out of questions."""
        if self.main_questions is None:
            return None
        return self.main_questions + self.reserve_questions


def parse_record(data: Any) -> GameRecord:
    """Validate a record (``docs/spec/record-format.md``) and return it as a frozen ``GameRecord``.

    >>> rec = parse_record({"format": "kingofhill", "summit": 3, "teams": ["A", "B"],
    ...     "moves": [{"answers": {"A": {"correct": True}}}]})
    >>> rec.summit, rec.teams, rec.moves[0].answers["A"].correct
    (3, ('A', 'B'), True)

    Every problem raises ``RecordError`` naming the place, e.g.
    ``moves[0].declarations.A.kind: expected "jump" or "revolution", got "hop"``.
    A move after the game finished is found by ``compute``; a move beyond main+reserve
    questions is refused here already.
    """
    if not isinstance(data, dict):
        raise RecordError("the record must be a JSON object")
    fmt = data.get("format")
    if fmt != "kingofhill":
        raise RecordError(f'format: expected "kingofhill", got {_show(fmt)}')

    summit = _top(data, "summit", int, 7)
    if summit < 2:
        raise RecordError(f"summit: must be at least 2, got {summit}")
    main = _top(data, "main_questions", int, None)
    if main is not None and main < 1:
        raise RecordError(f"main_questions: must be at least 1, got {main}")
    reserve = _top(data, "reserve_questions", int, 0)
    if reserve < 0:
        raise RecordError(f"reserve_questions: must not be negative, got {reserve}")

    if "teams" not in data:
        raise RecordError("teams: missing")
    teams = team_names(data["teams"], minimum=2)

    raw_moves = _top(data, "moves", list, [])
    # [decision] reserve_questions alone sets no limit: the spec says the game runs out only
    # when the numbers of questions are given, and the main count is the one that is required.
    total = None if main is None else main + reserve
    if total is not None and len(raw_moves) > total:
        raise RecordError(
            f"moves[{total}]: only {total} questions (main + reserve) exist, "
            f"but the record has {len(raw_moves)} moves")
    known = set(teams)
    moves = tuple(parse_move(m, known, f"moves[{i}]") for i, m in enumerate(raw_moves))
    return GameRecord(teams=teams, moves=moves, summit=summit,
                      main_questions=main, reserve_questions=reserve)


def parse_move(data: Any, teams: set[str] | tuple[str, ...], where: str = "move") -> Move:
    """Validate one move object against the given team names (``where`` prefixes errors).

    >>> move = parse_move({"partner": True, "declarations": {"A": {"kind": "jump"}},
    ...                    "answers": {"A": {"correct": False}}}, {"A", "B"})
    >>> move.partner, move.declarations["A"].kind, move.answers["A"].correct
    (True, 'jump', False)
    >>> parse_move({"answers": {"Z": {"correct": True}}}, {"A", "B"}, "moves[3]")
    Traceback (most recent call last):
    core.records.RecordError: moves[3].answers.Z: unknown team 'Z'
    """
    if not isinstance(data, dict):
        raise RecordError(f"{where}: expected an object, got {_kind(data)}")
    announced = data.get("announced_at")
    announced_at = None if announced is None else parse_time(announced, f"{where}.announced_at")
    partner = optional(data, "partner", bool, where, False)

    declarations: dict[str, Declaration] = {}
    raw = optional(data, "declarations", dict, where, {})
    for team, value in raw.items():
        here = f"{where}.declarations.{team}"
        _known(team, teams, here)
        kind = require(value, "kind", str, here)
        if kind not in DECLARABLE:
            raise RecordError(f'{here}.kind: expected "jump" or "revolution", got {_show(kind)}')
        at = value.get("at")
        declarations[team] = Declaration(kind, None if at is None else parse_time(at, f"{here}.at"))

    answers: dict[str, Answer] = {}
    raw = optional(data, "answers", dict, where, {})
    for team, value in raw.items():
        # Answers are most of a record: the well-formed case avoids building "where" strings
        # and helper calls (the live app re-parses the record on every write); anything else
        # takes the checked path below for its error message.
        if team in teams and type(value) is dict:
            correct = value.get("correct")
            at = value.get("at")
            stamp = _fast_time(at)
            if type(correct) is bool and (at is None or stamp is not None):
                answers[team] = Answer(correct, stamp)
                continue
        here = f"{where}.answers.{team}"
        _known(team, teams, here)
        correct = require(value, "correct", bool, here)
        at = value.get("at")
        answers[team] = Answer(correct, None if at is None else parse_time(at, f"{here}.at"))
    # [decision] an answer stamped before announced_at is not refused: the server stamps
    # arrivals, and a clock step on the host's laptop must not make a finished game unreplayable.
    return Move(announced_at=announced_at, partner=partner,
                declarations=MappingProxyType(declarations), answers=MappingProxyType(answers))


def _fast_time(value: Any) -> datetime | None:
    """``parse_time`` without the error message: None for anything it would refuse."""
    if type(value) is not str:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return None if parsed.utcoffset() is None else parsed


def _top(data: dict, key: str, kind: type, default: Any) -> Any:
    # Top-level fields are named bare ("summit: ...") rather than "record.summit: ...".
    value = data.get(key)
    return default if value is None else check_type(value, kind, key)


def _known(team: str, teams, where: str) -> None:
    if team not in teams:
        raise RecordError(f"{where}: unknown team {team!r}")


def _show(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    return _kind(value)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "true or false",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


# --------------------------------------------------------------------------------------------
# The board


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
    would cost more than the rules themselves.
    """

    summit: int
    question: int
    total_questions: int | None
    names: tuple[str, ...]
    order: tuple[int, ...]  # registration indices in standings order
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
    game = _Game.start(record)
    results = []
    for i, move in enumerate(record.moves):
        if game.finish_reason is not None:
            if until_end:
                break
            raise MoveAfterEnd(
                f"moves[{i}]: the game already finished after question {game.question} "
                f"({game.finish_reason}); no move may follow",
                question=game.question, finish_reason=game.finish_reason)
        results.append(game.play(move))
    return game.board(tuple(results))


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
                 "failed", "changed_q", "changed_at", "changed_key", "king", "holds",
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
        game.changed_key = [_NO_TIME] * n
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
        game.changed_key = [_arrival_key(s.changed_at) for s in states]
        game.king = -1 if board.king is None else game.index[board.king]
        game.holds = board.king_holds
        game.finish_reason = board.finish_reason
        game.winner = -1 if board.winner is None else game.index[board.winner]
        return game

    def play(self, move: Move) -> MoveResult:
        names, index = self.names, self.index
        q = self.question + 1
        for name in (*move.declarations, *move.answers):
            if name not in index:
                raise RecordError(f"question {q}: unknown team {name!r}")
        n = len(names)
        summit = self.summit
        top = summit - 1
        step, points, right = self.step, self.points, self.right
        before = list(zip(step, points, strict=True))
        king = self.king
        had_king = king >= 0
        bonus = 1 if move.partner else 0

        correct = [False] * n
        at: list[datetime | None] = [None] * n
        for name, answer in move.answers.items():
            i = index[name]
            correct[i] = answer.correct
            at[i] = answer.at

        kinds: dict[int, str] = {}
        effective: dict[str, str] = {}
        ignored: dict[str, str] = {}
        for name, declared in move.declarations.items():
            i = index[name]
            reason = _refusal(declared.kind, False, self.question, i == king, step[i], top,
                              self.failed[i], had_king, right[i])
            if reason is None and _late(declared, move):
                reason = LATE
            if reason is None:
                kinds[i] = declared.kind
                effective[name] = declared.kind
            else:
                # [decision] an ignored declaration costs nothing: a late revolution keeps the
                # right, and the team simply plays an ordinary move (2.2.5).
                ignored[name] = reason

        arriving: list[int] = []
        revolutionaries: list[int] = []
        for i in range(n):
            ok = correct[i]
            if i == king:
                if ok:
                    points[i] += 1 + bonus
                continue  # the King never moves down because of a wrong answer
            kind = kinds.get(i, ORDINARY)
            if kind == REVOLUTION:
                right[i] = False  # declaring uses the right up, whatever happens
                revolutionaries.append(i)
                if ok:
                    points[i] += 1 + bonus
                continue
            if kind == JUMP:
                if ok:
                    target = step[i] + 2
                    points[i] += 2 + bonus
                else:
                    target = max(0, step[i] - 1)
            elif ok:
                target = step[i] + 1
                points[i] += 1 + bonus
            else:
                continue
            if target >= summit:
                # [decision] on the page: with a King only a revolution reaches the summit; the
                # move stops on S-1 and keeps its points. Without one, the arriving team that
                # wins the contest below is lifted onto the summit, the others stay on S-1.
                if not had_king:
                    arriving.append(i)
                target = top
            step[i] = target

        def contest(i: int) -> tuple:
            # 2.4.7: more points (this move's included), the earliest correct answer, then
            # registration order.
            return (-points[i], _arrival_key(at[i]), i)

        new_king = -1
        if arriving:
            new_king = min(arriving, key=contest)
        elif had_king and not correct[king]:
            winners = [i for i in revolutionaries if correct[i]]
            if winners:
                new_king = min(winners, key=contest)
                step[king] = top  # [decision] on the page: the deposed King goes to S-1

        if new_king >= 0:
            step[new_king] = summit
            king = self.king = new_king
            self.holds = 0
            # When the King changes every right is restored (2.4.5).
            right[:] = [True] * n
        elif had_king:
            self.holds += 1

        for i in range(n):
            if (step[i], points[i]) != before[i]:
                self.changed_q[i] = q
                self.changed_at[i] = at[i]
                self.changed_key[i] = _arrival_key(at[i])
        # [decision] a move "failed" when the team's answer was not correct (or it sent none),
        # whatever it declared; a correct move stopped on S-1 below a King did not fail.
        self.failed = [not c for c in correct]
        self.question = q
        self._check_end()
        snapshot = self.snapshot()
        return MoveResult(question=q, partner=move.partner,
                          effective=MappingProxyType(effective),
                          ignored=MappingProxyType(ignored),
                          correct=tuple(names[i] for i in range(n) if correct[i]),
                          snapshot=snapshot)

    def _check_end(self) -> None:
        """The three end conditions of 2.5 in their order, with the re-grant before the third."""
        king, total, q = self.king, self.total, self.question
        if king >= 0 and self.holds >= KING_HOLD_MOVES:
            self.finish_reason = KING_HELD
        elif total is not None and q >= total:
            self.finish_reason = QUESTIONS_EXHAUSTED
        elif king >= 0:
            left = _moves_left(self.holds, None if total is None else total - q)
            top = self.summit - 1
            right = self.right
            # moves_to_penultimate(...) + 1 <= left, inlined: it runs for every team every move.
            reach = [i != king and (
                top <= p or (1 + (top - p) // 2 if f else (top - p + 1) // 2) < left)
                for i, (p, f) in enumerate(zip(self.step, self.failed, strict=True))]
            if not any(r and right[i] for i, r in enumerate(reach)):
                # Re-grant (2.4.5): nobody who still holds a right can make it in time, so
                # every team that used its right gets it back; then rule 3 looks again.
                right[:] = [True] * len(right)
                if not any(reach):
                    self.finish_reason = NO_CHALLENGER
        if self.finish_reason is not None:
            self.winner = king if king >= 0 else self._order()[0]

    def _order(self) -> list[int]:
        # King first; then step, points, and [decision on the page] whoever reached its
        # (step, points) first: question, then answer arrival in it, then registration.
        king, step, points = self.king, self.step, self.points
        changed_q, changed_key = self.changed_q, self.changed_key
        return sorted(range(len(step)), key=lambda i: (
            i != king, -step[i], -points[i], changed_q[i], changed_key[i], i))

    def snapshot(self) -> Snapshot:
        return Snapshot(
            summit=self.summit, question=self.question, total_questions=self.total,
            names=self.names, order=tuple(self._order()), step=tuple(self.step),
            points=tuple(self.points), failed=tuple(self.failed),
            # The King holds no right (contract); normalised so equal boards compare equal.
            right=tuple(r and i != self.king for i, r in enumerate(self.right)),
            changed_question=tuple(self.changed_q), changed_at=tuple(self.changed_at),
            king=self.king, king_holds=self.holds, finish_reason=self.finish_reason,
            winner=self.winner)

    def board(self, moves: tuple[MoveResult, ...]) -> Board:
        snapshot = moves[-1].snapshot if moves else self.snapshot()
        return Board(**snapshot.position_fields(), moves=moves)


def _late(declared: Declaration, move: Move) -> bool:
    # A declaration without a time, or in a move without an announcement time, is on time.
    return (declared.at is not None and move.announced_at is not None
            and declared.at >= move.announced_at)


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


def _refusal_for(kind: str, state: TeamState, board: Position) -> str | None:
    return _refusal(kind, board.finished, board.question, state.is_king, state.step,
                    board.summit - 1, state.last_failed, board.king is not None,
                    state.revolution_right)


_NO_TIME = (1, 0.0)


def _arrival_key(at: datetime | None) -> tuple[int, float]:
    # Answers without a time rank after every answer with one (spec).
    return _NO_TIME if at is None else (0, at.timestamp())


# --------------------------------------------------------------------------------------------
# Questions the screens ask


def _moves_left(king_holds: int, questions_left: int | None) -> int:
    left = KING_HOLD_MOVES - king_holds
    return left if questions_left is None else min(left, questions_left)


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
    left = _moves_left(board.king_holds, board.questions_left)
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
    jump = _refusal_for(JUMP, state, board)
    revolution = _refusal_for(REVOLUTION, state, board)
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
        raise RecordError(f'kind: expected "ordinary", "jump" or "revolution", got {_show(kind)}')
    state = board.team(team)
    reason = None if kind == ORDINARY else _refusal_for(kind, state, board)
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


# --------------------------------------------------------------------------------------------
# Changing the past


def record_with(record: GameRecord, question: int, *, verdicts: Mapping[str, bool] | None = None,
                partner: bool | None = None) -> GameRecord:
    """The record with question ``question`` (1-based, a played move) changed: the given teams'
    verdicts and/or the partner mark. Arrival times stay; an unknown team or question raises.

    >>> rec = parse_record({"format": "kingofhill", "teams": ["A", "B"],
    ...     "moves": [{"answers": {"A": {"correct": True}}}]})
    >>> changed = record_with(rec, 1, verdicts={"A": False}, partner=True)
    >>> changed.moves[0].answers["A"].correct, changed.moves[0].partner, rec.moves[0].partner
    (False, True, False)
    """
    if not 1 <= question <= len(record.moves):
        raise RecordError(f"question {question}: not a played move")
    move = record.moves[question - 1]
    answers = dict(move.answers)
    for team, correct in (verdicts or {}).items():
        _known(team, record.teams, f"moves[{question - 1}].answers.{team}")
        old = answers.get(team)
        answers[team] = Answer(correct, old.at if old is not None else None)
    changed = Move(announced_at=move.announced_at,
                   partner=move.partner if partner is None else partner,
                   declarations=move.declarations, answers=MappingProxyType(answers))
    moves = (*record.moves[:question - 1], changed, *record.moves[question:])
    return GameRecord(teams=record.teams, moves=moves, summit=record.summit,
                      main_questions=record.main_questions,
                      reserve_questions=record.reserve_questions)


@dataclass(frozen=True, slots=True)
class PlaceChange:
    team: str
    place_before: int
    place_after: int
    step_before: int
    step_after: int
    points_before: int
    points_after: int


@dataclass(frozen=True, slots=True)
class ChangeEffect:
    """What a change of the past does to the outcome: the winner, the King, whether a finished
    game re-opens, and every team whose place, step or points move."""

    winner_before: str | None
    winner_after: str | None
    king_before: str | None
    king_after: str | None
    finished_before: bool
    finished_after: bool
    finish_reason_before: str | None
    finish_reason_after: str | None
    teams: tuple[PlaceChange, ...]  # only the teams that change, in the new standings order

    @property
    def changes_winner(self) -> bool:
        return self.winner_before != self.winner_after

    @property
    def reopens(self) -> bool:
        return self.finished_before and not self.finished_after

    @property
    def changes_results(self) -> bool:
        """Would the results published from the board differ (places, figures, the end)?"""
        return bool(self.teams) or self.changes_winner or self.reopens \
            or self.finish_reason_before != self.finish_reason_after

    @property
    def needs_confirmation(self) -> bool:
        """A change the host must confirm: it changes the winner or re-opens a finished game."""
        return self.changes_winner or self.reopens


def change_effect(before: Position, after: Position) -> ChangeEffect:
    """Compare two boards of the same game: the board as it stands and the board a changed
    verdict or partner mark would give.

    Worked example (summit 2, two questions): Alpha took the summit on question 2 and won
    when the questions ran out. Had Alpha been wrong and Beta right on question 2, Beta would
    win: the host must confirm that. A partner mark on question 1 only adds a point to both.

    >>> rec = parse_record({"format": "kingofhill", "summit": 2, "main_questions": 2,
    ...     "teams": ["Alpha", "Beta"],
    ...     "moves": [{"answers": {"Alpha": {"correct": True}, "Beta": {"correct": True}}},
    ...               {"answers": {"Alpha": {"correct": True}, "Beta": {"correct": False}}}]})
    >>> now = compute(rec)
    >>> effect = change_effect(now, compute(record_with(
    ...     rec, 2, verdicts={"Alpha": False, "Beta": True})))
    >>> effect.winner_before, effect.winner_after, effect.needs_confirmation
    ('Alpha', 'Beta', True)
    >>> [(t.team, t.place_before, t.place_after) for t in effect.teams]
    [('Beta', 2, 1), ('Alpha', 1, 2)]
    >>> effect = change_effect(now, compute(record_with(rec, 1, partner=True)))
    >>> effect.needs_confirmation, effect.changes_results
    (False, True)
    >>> [(t.team, t.points_before, t.points_after) for t in effect.teams]
    [('Alpha', 2, 3), ('Beta', 1, 2)]
    """
    old = {t.team: t for t in before.teams}
    moved = tuple(
        PlaceChange(t.team, old[t.team].place, t.place, old[t.team].step, t.step,
                    old[t.team].points, t.points)
        for t in after.teams
        if t.team in old and (old[t.team].place, old[t.team].step, old[t.team].points)
        != (t.place, t.step, t.points))
    return ChangeEffect(
        winner_before=before.winner, winner_after=after.winner, king_before=before.king,
        king_after=after.king, finished_before=before.finished, finished_after=after.finished,
        finish_reason_before=before.finish_reason, finish_reason_after=after.finish_reason,
        teams=moved)


# --------------------------------------------------------------------------------------------
# The replay contract


def board_to_dict(board: Board) -> dict:
    """The contract output of ``docs/spec/record-format.md`` (plus ``summit``, ``question`` and,
    per move, ``partner``, ``effective`` and ``correct`` for the season rating).

    >>> out = board_to_dict(compute(parse_record({"format": "kingofhill", "teams": ["A", "B"],
    ...     "moves": [{"partner": True, "answers": {"B": {"correct": True}}}]})))
    >>> out["teams"][0], out["moves"][0]["correct"]
    ({'team': 'B', 'place': 1, 'step': 1, 'points': 2, 'revolution_right': True}, ['B'])
    """
    return {
        "format": "kingofhill",
        "summit": board.summit,
        "question": board.question,
        "finished": board.finished,
        "finish_reason": board.finish_reason,
        "winner": board.winner,
        "king": board.king,
        "king_holds": board.king_holds,
        "teams": [
            {"team": s.team, "place": s.place, "step": s.step, "points": s.points,
             "revolution_right": s.revolution_right}
            for s in board.teams],
        "moves": [
            {"question": m.question, "partner": m.partner, "effective": dict(m.effective),
             "ignored": dict(m.ignored), "correct": list(m.correct), "king": m.king}
            for m in board.moves],
    }


def replay(data: Any) -> dict:
    """Recompute a ``"format": "kingofhill"`` record and return the contract's output.

    >>> out = replay({"format": "kingofhill", "summit": 2, "teams": ["A", "B"], "moves": [
    ...     {"answers": {"A": {"correct": True}}},
    ...     {"answers": {"A": {"correct": True, "at": "2026-12-05T19:10:41+03:00"}}}]})
    >>> out["king"], out["king_holds"], [t["team"] for t in out["teams"]]
    ('A', 0, ['A', 'B'])
    """
    return board_to_dict(compute(parse_record(data)))



# --- answers ----------------------------------------------------------------------------------


def normalize_answer(text: str) -> str:
    """The form in which two answers are "the same": NFKC, case-folded, ё → е, punctuation
    dropped, spaces collapsed. Hosts judge groups of equal forms at once, and an answer whose
    form equals the key's (or a variant's) is pre-marked correct.

    >>> normalize_answer("  Ёжик,  в ТУМАНЕ! ")
    'ежик в тумане'
    """
    text = unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")
    kept = "".join(c if unicodedata.category(c)[0] in "LN" else " " for c in text)
    return " ".join(kept.split())


def answer_keys(answer_key: str, variants: Iterable[Any] = ()) -> set[str]:
    """The normalised forms that count as the right answer (the key and every text variant).

    >>> sorted(answer_keys("Пушкин", ["А. С. Пушкин", 7]))
    ['а с пушкин', 'пушкин']
    """
    keys = {normalize_answer(answer_key)} if answer_key else set()
    keys |= {normalize_answer(v) for v in variants or () if isinstance(v, str)}
    keys.discard("")
    return keys


def matches_key(normalized: str, answer_key: str, variants: Iterable[Any] = ()) -> bool:
    """Whether an answer's normalised form is the key or a variant.

    >>> matches_key("пушкин", "ПУШКИН!", [])
    True
    """
    return normalized in answer_keys(answer_key, variants)
