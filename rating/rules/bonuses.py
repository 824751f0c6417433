"""The King of the Hill players' personal bonuses (``docs/rules/rating.md``, points per
game): counted from a game's moves, or from its whole record replayed by the King of the Hill
engine.

The engine is loaded lazily through the engines' dispatch by format (``core.replay.engine``),
only by ``koth_bonuses_from_record``, so that the season rules load without it and the rating
imports no game.

Pure, like the whole package (see ``rating.rules``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from core.records import RecordError, check_type, optional, require
from rating.rules.checks import check_name, describe

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def koth_bonuses(moves_summary: Any, team: str) -> int:
    """A team's King of the Hill personal bonus (each of its players gets it).

    ``moves_summary`` is a list of moves ``{"partner": bool, "correct": [teams that answered
    correctly], "effective": {team: "jump" | "revolution"}}`` (effective declarations only;
    ignored ones are ordinary moves). +1 per correct answer, +1 per correct jump, +1 per
    correct partner answer, +3 if all the team's partner answers were correct (at least one
    partner question), +3 for three or more jumps in the game, all correct.

    >>> moves = [{"partner": False, "correct": ["A"], "effective": {}},
    ...          {"partner": True, "correct": ["A"], "effective": {"A": "jump"}},
    ...          {"partner": False, "correct": ["B"], "effective": {"A": "jump"}}]
    >>> koth_bonuses(moves, "A")   # 2 answers, 1 correct jump, 1 partner, all partner +3
    7
    >>> koth_bonuses(moves, "B")   # 1 answer; missed the only partner question
    1
    """
    return koth_bonuses_by_team(moves_summary, [check_name(team, "team")])[team]


def koth_bonuses_by_team(moves_summary: Any, teams: Iterable[str]) -> dict[str, int]:
    """``koth_bonuses`` for several teams at once (validating the moves once).

    >>> koth_bonuses_by_team([{"partner": True, "correct": ["A"]}], ["A", "B"])
    {'A': 5, 'B': 0}
    """
    if isinstance(teams, (str, bytes, Mapping)) or not isinstance(teams, Iterable):
        raise RecordError("teams: expected a list of team names")
    moves = _read_moves(moves_summary)
    result: dict[str, int] = {}
    for index, team in enumerate(teams):
        check_name(team, f"teams[{index}]")
        answers = jumps = correct_jumps = partner_questions = partner_correct = 0
        for partner, correct, effective in moves:
            right = team in correct
            answers += right
            partner_questions += partner
            partner_correct += partner and right
            if effective.get(team) == "jump":
                jumps += 1
                correct_jumps += right
        bonus = answers + correct_jumps + partner_correct
        if partner_questions and partner_correct == partner_questions:
            bonus += 3
        if jumps >= 3 and correct_jumps == jumps:
            bonus += 3
        result[team] = bonus
    return result


def _read_moves(moves_summary: Any) -> list[tuple[bool, frozenset[str], dict[str, str]]]:
    check_type(moves_summary, list, "moves")
    moves = []
    for index, move in enumerate(moves_summary):
        where = f"moves[{index}]"
        check_type(move, dict, where)
        partner = optional(move, "partner", bool, where, False)
        correct = optional(move, "correct", list, where, [])
        for n, team in enumerate(correct):
            check_name(team, f"{where}.correct[{n}]")
        effective = optional(move, "effective", dict, where, {})
        for team, kind in effective.items():
            if kind not in ("jump", "revolution"):
                raise RecordError(f"{where}.effective.{team}: expected jump or revolution, got "
                                  f"{describe(kind)}")
        moves.append((partner, frozenset(correct), effective))
    return moves


def koth_bonuses_from_record(koth_record: Any) -> dict[str, int]:
    """Replay a King of the Hill record with ``kingofhill.rules`` and give each team's bonus.

    Teams are those of the record (``teams``); a team with no correct answer gets 0. Any
    failure of the engine comes out as ``RecordError``.

    >>> koth_bonuses_from_record({"format": "kingofhill", "teams": ["A", "B"], "moves": [
    ...     {"partner": True, "answers": {"A": {"correct": True}}}]})
    {'A': 5, 'B': 0}
    """
    check_type(koth_record, dict, "kingofhill")
    if koth_record.get("format") != "kingofhill":
        raise RecordError(f"kingofhill.format: expected 'kingofhill', got "
                          f"{describe(koth_record.get('format'))}")
    teams = require(koth_record, "teams", list, "kingofhill")
    for index, team in enumerate(teams):
        check_name(team, f"kingofhill.teams[{index}]")
    try:
        # Lazy: the season rules load (and most seasons replay) without the KotH engine.
        from core.replay import engine

        koth_replay = engine("kingofhill").replay
    except ImportError:
        raise RecordError("kingofhill: the King of the Hill rules engine is not available") from None
    try:
        output = koth_replay(koth_record)
    except RecordError:
        raise
    except Exception as exc:
        # The engine promises RecordError for any bad record; should a slip there let another
        # exception out, the season must still report a bad record, never a traceback.
        detail = f": {exc}" if str(exc) else ""
        raise RecordError(f"kingofhill: the King of the Hill engine could not replay this "
                          f"record ({type(exc).__name__}{detail})") from None
    moves = output.get("moves", []) if isinstance(output, dict) else None
    if not isinstance(moves, list):
        raise RecordError("kingofhill: the King of the Hill engine gave no list of moves")
    return koth_bonuses_by_team(moves, list(dict.fromkeys(teams)))
