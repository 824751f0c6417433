"""The replay contract's output (``docs/spec/record-format.md``): the board as a dict, and
``replay`` for ``manage.py replay``.

Pure, like the whole package (see ``kingofhill.rules``).
"""

from __future__ import annotations

from typing import Any

from kingofhill.rules.board import Board, compute, compute_played
from kingofhill.rules.record import parse_record, read_record

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
    read = read_record(data)
    if read is None:  # answers without a time, or a record with something to say about it
        return board_to_dict(compute(parse_record(data)))
    return board_to_dict(compute_played(*read))
