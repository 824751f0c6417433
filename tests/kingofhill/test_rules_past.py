"""Changing the past (``kingofhill.rules.past``): a changed verdict or partner mark, projected
against the board.

The records use the notation of ``test_rules`` (``tests.kingofhill.rules_cases``).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given

from core.records import RecordError
from kingofhill import rules
from kingofhill.rules import (
    compute,
    parse_record,
)
from tests.kingofhill.rules_cases import (
    LONE_KING,
    PROPERTY,
    mv,
    rec,
    records,
    seeds,
)

# --- changing the past ----------------------------------------------------------------------

# Summit 2, two questions: B answers question 1, A takes the summit on question 2 and wins when
# the questions run out (A: 2 steps; B: 1 step).
PAST = rec(mv(ok="AB"), mv(ok="A", bad="B"), teams="AB", summit=2, main=2)


@pytest.mark.parametrize(("question", "verdicts", "partner", "expected"), [
    # A wrong and B right on question 2: B is King and winner instead of A.
    (2, {"A": False, "B": True}, None,
     {"winner": ("A", "B"), "reopens": False, "confirm": True, "moved": "B2→1 A1→2"}),
    # A partner mark on question 1: a point more for both, nobody moves.
    (1, {}, True, {"winner": ("A", "A"), "reopens": False, "confirm": False,
                   "moved": "A1→1 B2→2"}),
    # The same verdict again: nothing changes at all.
    (2, {"A": True}, None, {"winner": ("A", "A"), "reopens": False, "confirm": False,
                            "moved": ""}),
])
def test_a_changed_verdict_or_mark_is_projected_against_the_board(question, verdicts, partner,
                                                                  expected):
    record = parse_record(PAST)
    effect = rules.change_effect(compute(record), compute(
        rules.record_with(record, question, verdicts=verdicts, partner=partner)))
    assert (effect.winner_before, effect.winner_after) == expected["winner"]
    assert effect.reopens == expected["reopens"]
    assert effect.needs_confirmation == expected["confirm"]
    assert " ".join(f"{t.team}{t.place_before}→{t.place_after}" for t in effect.teams) \
        == expected["moved"]
    assert effect.changes_results == bool(expected["moved"])


def test_a_change_that_takes_the_kings_crown_away_re_opens_the_finished_game():
    record = parse_record(rec(*LONE_KING, mv(ok="A"), teams="AB"))
    before = compute(record)
    assert before.finished and before.winner == "A"
    effect = rules.change_effect(before, compute(rules.record_with(record, 2, verdicts={"A": False})))
    assert effect.reopens and effect.changes_winner and effect.needs_confirmation
    assert (effect.winner_after, effect.finished_after) == (None, False)


def test_changing_the_record_keeps_the_arrival_times_and_refuses_an_unplayed_question():
    record = parse_record(rec(mv(ok="A", at={"A": 5})))
    changed = rules.record_with(record, 1, verdicts={"A": False})
    assert changed.moves[0].answers["A"] == rules.Answer(False, record.moves[0].answers["A"].at)
    with pytest.raises(RecordError):
        rules.record_with(record, 2, verdicts={"A": False})
    with pytest.raises(RecordError):
        rules.record_with(record, 1, verdicts={"Z": False})


@PROPERTY
@given(records, seeds)
def test_a_projected_change_is_exactly_the_difference_of_the_two_boards(record, seed):
    parsed = parse_record(record)
    if not parsed.moves:
        return
    rnd = random.Random(seed)
    question = rnd.randrange(len(parsed.moves)) + 1
    team = rnd.choice(parsed.teams)
    try:
        after = compute(rules.record_with(parsed, question, verdicts={team: rnd.random() < 0.5},
                                          partner=rnd.random() < 0.5))
    except RecordError:
        return  # the change would end the game before a played move: the app refuses it
    before = compute(parsed)
    effect = rules.change_effect(before, after)
    old = {s.team: (s.place, s.step, s.points) for s in before.teams}
    new = {s.team: (s.place, s.step, s.points) for s in after.teams}
    assert {t.team for t in effect.teams} == {n for n in new if new[n] != old[n]}
    assert effect.needs_confirmation == (before.winner != after.winner
                                         or (before.finished and not after.finished))
    if not effect.changes_results:
        assert before.winner == after.winner and old == new
