"""The rules' constants and the game's record (``docs/spec/record-format.md``): teams, moves,
declarations and answers, parsed with "what and where" messages. The parser's speed tricks
(the fast time parse) live here, not in the engine.

Pure, like the whole package (see ``kingofhill.rules``).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from itertools import repeat
from operator import attrgetter
from types import MappingProxyType
from typing import Any, NamedTuple

from core.records import RecordError, check_type, optional, parse_time, require, team_names

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


# --------------------------------------------------------------------------------------------
# The record


# Declarations and answers are most of a record (a 64-team × 500-move game has 32 000
# answers): immutable named tuples, which the parser makes in a quarter of a frozen
# dataclass's time.
class Declaration(NamedTuple):
    kind: str  # JUMP or REVOLUTION
    at: datetime | None = None


class Answer(NamedTuple):
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


class PlayedMove(NamedTuple):
    """One move as the engine plays it: a ``Move`` with its answers as two tuples in
    registration order (no answer: not correct, no time). A 64-team × 500-move replay reads
    32 000 answers, and these tuples are all the engine needs of them: an ``Answer`` for each,
    put back in registration order move by move, was a quarter of that replay's engine time."""

    announced_at: datetime | None
    partner: bool
    declarations: Mapping[str, Declaration]
    correct: tuple[bool, ...]
    at: tuple[datetime | None, ...]


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
    head, raw_moves = _record_head(data)
    known = set(head.teams)
    moves = tuple(parse_move(m, known, f"moves[{i}]") for i, m in enumerate(raw_moves))
    return GameRecord(teams=head.teams, moves=moves, summit=head.summit,
                      main_questions=head.main_questions,
                      reserve_questions=head.reserve_questions)


def _record_head(data: Any) -> tuple[GameRecord, list]:
    """Everything of a record but its moves (a ``GameRecord`` without them), and its moves as
    they are in ``data``, the count checked against main + reserve."""
    if not isinstance(data, dict):
        raise RecordError("the record must be a JSON object")
    fmt = data.get("format")
    if fmt != "kingofhill":
        raise RecordError(f'format: expected "kingofhill", got {describe(fmt)}')

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
    head = GameRecord(teams=teams, summit=summit, main_questions=main, reserve_questions=reserve)
    return head, raw_moves


def read_record(data: Any) -> tuple[GameRecord, list[PlayedMove]] | None:
    """The record as a replay reads it, when all its moves are well formed and every answer
    is stamped (as a live game exports them): the record without its moves, and the moves as
    ``PlayedMove``; None for any other record (``parse_record`` then reads it, with its
    messages). ``compute_played`` replays it as ``compute`` replays ``parse_record(data)``.

    >>> head, moves = read_record({"format": "kingofhill", "teams": ["A", "B"], "moves": [
    ...     {"answers": {"B": {"correct": True, "at": "2026-12-05T19:10:41+03:00"}}}]})
    >>> head.teams, head.moves, moves[0].correct, moves[0].at[0]
    (('A', 'B'), (), (False, True), None)
    >>> read_record({"format": "kingofhill", "teams": ["A", "B"], "moves": [
    ...     {"answers": {"B": {"correct": True}}}]}) is None
    True
    """
    head, raw_moves = _record_head(data)
    index = {name: i for i, name in enumerate(head.teams)}
    in_order = list(range(len(index)))
    moves = []
    for raw in raw_moves:
        move = _played_move(raw, index, in_order)
        if move is None:
            return None
        moves.append(move)
    return head, moves


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

    raw = optional(data, "declarations", dict, where, {})
    declarations = _declarations_at_once(raw, teams)
    if declarations is None:
        declarations = _declarations(raw, teams, where)

    raw = optional(data, "answers", dict, where, {})
    answers = _stamped_answers(raw, teams)
    if answers is None:
        answers = _answers(raw, teams, where)
    # [decision] an answer stamped before announced_at is not refused: the server stamps
    # arrivals, and a clock step on the host's laptop must not make a finished game unreplayable.
    return Move(announced_at=announced_at, partner=partner,
                declarations=MappingProxyType(declarations), answers=MappingProxyType(answers))


def _declarations_at_once(raw: dict, teams: Collection[str]) -> dict[str, Declaration] | None:
    """A move's declarations when every one is well formed, read a field at a time over all of
    them (as ``_stamped_answers``), or None (then ``_declarations`` reads them one by one)."""
    if not all(map(teams.__contains__, raw)):
        return None
    values = raw.values()
    try:
        kinds = list(map(dict.get, values, repeat("kind")))
        if not set(kinds) <= _DECLARABLE:
            return None
        times = list(map(dict.get, values, repeat("at")))
    except TypeError:  # not an object, or a kind no set can hold
        return None
    if times.count(None) == len(times):
        # Declarations without a time (a revolution is declared on the spot) are equal values:
        # one shared tuple a kind, not one each.
        return dict(zip(raw, map(_UNTIMED.__getitem__, kinds), strict=True))
    stamps = list(map(_fast_time, times))  # None for no time and for a time it refuses
    if stamps.count(None) != times.count(None):
        return None
    return dict(zip(raw, map(_tuple, repeat(Declaration), zip(kinds, stamps, strict=True)),
                    strict=True))


def _declarations(raw: dict, teams: set[str] | tuple[str, ...], where: str
                  ) -> dict[str, Declaration]:
    declarations: dict[str, Declaration] = {}
    for team, value in raw.items():
        # The well-formed case without "where" strings, as for answers below.
        if team in teams and type(value) is dict:
            kind = value.get("kind")
            at = value.get("at")
            if type(kind) is str and kind in DECLARABLE:
                stamp = None if at is None else _fast_time(at)
                if at is None or stamp is not None:
                    declarations[team] = _tuple(Declaration, (kind, stamp))
                    continue
        here = f"{where}.declarations.{team}"
        known_team(team, teams, here)
        kind = require(value, "kind", str, here)
        if kind not in DECLARABLE:
            raise RecordError(f'{here}.kind: expected "jump" or "revolution", got {describe(kind)}')
        at = value.get("at")
        declarations[team] = Declaration(kind, None if at is None else parse_time(at, f"{here}.at"))
    return declarations


def _stamped_answers(raw: dict, teams: set[str] | tuple[str, ...]) -> dict[str, Answer] | None:
    """A move's answers when every one is well formed and stamped (as a live game exports
    them), or None (then ``_answers`` reads them one by one, with its messages).

    Answers are most of a record — a 64-team × 500-move game has 32 000 — so this reads a
    move's answers a field at a time over all of them, in C (``map``), rather than answer by
    answer in Python: a third of the time."""
    if not all(map(teams.__contains__, raw)):
        return None
    values = raw.values()
    try:
        correct = list(map(dict.get, values, repeat("correct")))
        stamps = list(map(_fromisoformat, map(dict.get, values, repeat("at"))))
    except (TypeError, ValueError):  # not an object, no time or not a time string
        return None
    if not set(map(type, correct)) <= _BOOL or None in map(_tzinfo, stamps):
        return None
    return dict(zip(raw, map(_tuple, repeat(Answer), zip(correct, stamps, strict=True)),
                    strict=True))


def _played_move(data: Any, index: dict[str, int], in_order: list[int]) -> PlayedMove | None:
    """``parse_move`` of a well-formed move with stamped answers as a ``PlayedMove``, or None
    for anything else (``parse_move`` then says what is wrong, or reads what it allows)."""
    if type(data) is not dict:
        return None
    announced = data.get("announced_at")
    announced_at = None if announced is None else _fast_time(announced)
    partner = data.get("partner")
    declarations = data.get("declarations")
    answers = data.get("answers")
    if ((announced is not None and announced_at is None)
            or (partner is not None and type(partner) is not bool)
            or (declarations is not None and type(declarations) is not dict)
            or (answers is not None and type(answers) is not dict)):
        return None
    declared = _declarations_at_once(declarations, index) if declarations else {}
    if declared is None:
        return None
    declared = MappingProxyType(declared)
    if not answers:
        n = len(in_order)
        return PlayedMove(announced_at, partner is True, declared, (False,) * n, (None,) * n)
    values = answers.values()
    try:
        places = list(map(index.__getitem__, answers))
        correct = tuple(map(dict.get, values, repeat("correct")))
        stamps = tuple(map(_fromisoformat, map(dict.get, values, repeat("at"))))
    except (KeyError, TypeError, ValueError):  # an unknown team, not an object, no time...
        return None
    if not set(map(type, correct)) <= _BOOL or None in map(_tzinfo, stamps):
        return None
    if places != in_order:  # not every team, or not in registration order
        n = len(in_order)
        correct_of, at_of = [False] * n, [None] * n
        for i, ok, stamp in zip(places, correct, stamps, strict=True):
            correct_of[i] = ok
            at_of[i] = stamp
        correct, stamps = tuple(correct_of), tuple(at_of)
    return PlayedMove(announced_at, partner is True, declared, correct, stamps)


def _answers(raw: dict, teams: set[str] | tuple[str, ...], where: str) -> dict[str, Answer]:
    answers: dict[str, Answer] = {}
    for team, value in raw.items():
        # The well-formed case avoids building "where" strings and helper calls, the time
        # parse inlined (``_fast_time``); anything else takes the checked path below for its
        # error message.
        if team in teams and type(value) is dict:
            correct = value.get("correct")
            at = value.get("at")
            if type(correct) is bool:
                if at is None:
                    answers[team] = _tuple(Answer, (correct, None))
                    continue
                if type(at) is str:
                    try:
                        stamp = _fromisoformat(at)
                    except ValueError:
                        stamp = None
                    if stamp is not None and stamp.tzinfo is not None:
                        answers[team] = _tuple(Answer, (correct, stamp))
                        continue
        here = f"{where}.answers.{team}"
        known_team(team, teams, here)
        correct = require(value, "correct", bool, here)
        at = value.get("at")
        answers[team] = Answer(correct, None if at is None else parse_time(at, f"{here}.at"))
    return answers


def _fast_time(value: Any) -> datetime | None:
    """``parse_time`` without the error message: None for anything it would refuse."""
    if type(value) is not str:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    # What fromisoformat reads with an offset has a fixed-offset tzinfo (whose utcoffset is
    # never None), and without one none: the attribute says what utcoffset() would, in a
    # fifth of its time.
    return None if parsed.tzinfo is None else parsed


_fromisoformat = datetime.fromisoformat
# ``Answer(correct, at)`` without the named tuple's Python-level ``__new__``.
_tuple = tuple.__new__
_tzinfo = attrgetter("tzinfo")
_BOOL = {bool}
_DECLARABLE = set(DECLARABLE)
_UNTIMED = {kind: Declaration(kind) for kind in DECLARABLE}


def _top(data: dict, key: str, kind: type, default: Any) -> Any:
    # Top-level fields are named bare ("summit: ...") rather than "record.summit: ...".
    value = data.get(key)
    return default if value is None else check_type(value, kind, key)


def known_team(team: str, teams, where: str) -> None:
    if team not in teams:
        raise RecordError(f"{where}: unknown team {team!r}")


def describe(value: Any) -> str:
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
