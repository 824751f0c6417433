"""Changing the past: a played question's verdicts or partner mark changed (``record_with``) and
what that changes on the board (``change_effect``: the winner, the King, places, a re-opened
game).

Pure, like the whole package (see ``kingofhill.rules``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from core.records import RecordError
from kingofhill.rules.board import Position
from kingofhill.rules.record import Answer, GameRecord, Move, known_team

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
        known_team(team, record.teams, f"moves[{question - 1}].answers.{team}")
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
