"""The questions the screens ask the King of the Hill rules (``kingofhill.rules.screens``): who
may declare what, what a move would do, who can still depose the King.

The records use the notation of ``test_rules`` (``tests.kingofhill.rules_cases``).
"""

from __future__ import annotations

import pytest

from core.records import RecordError
from kingofhill import rules
from kingofhill.rules import (
    JUMP,
    ORDINARY,
    REVOLUTION,
    Board,
    allowed_declarations,
    challengers,
    compute,
    could_still_depose,
    moves_to_penultimate,
    parse_record,
    projected_outcome,
)
from tests.kingofhill.rules_cases import (
    KING,
    mv,
    rec,
)

# --------------------------------------------------------------------------------------------
# The questions the screens ask


def board_of(*moves, **options) -> Board:
    return compute(parse_record(rec(*moves, **options)))


def test_before_the_first_question_nobody_may_jump_or_revolt():
    allowed = allowed_declarations(board_of(), "A")
    assert (allowed.jump, allowed.jump_reason) == (False, "jump not allowed on the first question")
    assert (allowed.revolution, allowed.revolution_reason) == (False, "revolution needs a King")


def test_a_team_waiting_below_the_king_may_revolt_but_not_jump():
    allowed = allowed_declarations(board_of(*KING), "B")
    assert allowed.revolution and allowed.revolution_reason is None
    assert (allowed.jump, allowed.jump_reason) == (False, "jump not allowed on the penultimate step")


def test_the_king_may_declare_nothing():
    allowed = allowed_declarations(board_of(*KING), "A")
    assert allowed.jump_reason == "the King cannot jump"
    assert allowed.revolution_reason == "the King cannot declare a revolution"


def test_a_team_whose_last_answer_was_wrong_may_not_jump():
    allowed = allowed_declarations(board_of(mv(ok="A"), mv(ok="B")), "A")
    assert (allowed.jump, allowed.jump_reason) == (False, "jump not allowed after a failed move")
    assert allowed_declarations(board_of(mv(ok="A"), mv(ok="B")), "B").jump


def test_after_the_game_has_finished_nothing_may_be_declared():
    board = board_of(*KING, mv(ok="A"), mv(ok="A"), mv(ok="A"))
    assert allowed_declarations(board, "B").revolution_reason == "the game has finished"


def test_a_jump_on_a_partner_question_is_projected_with_three_points_or_a_step_down():
    board = board_of(mv(ok="A"), mv(ok="A", jump="A"), summit=7)
    projection = projected_outcome(board, "A", JUMP, partner=True)
    assert projection.kind == JUMP and projection.ignored_reason is None
    assert (projection.correct.step, projection.correct.points) == (5, 3)
    assert (projection.incorrect.step, projection.incorrect.points) == (2, 0)


def test_a_refused_declaration_is_projected_as_the_ordinary_move_it_becomes():
    projection = projected_outcome(board_of(mv(ok="B")), "A", JUMP)
    assert projection.kind == ORDINARY
    assert projection.ignored_reason == "jump not allowed after a failed move"
    assert (projection.correct.step, projection.correct.points) == (1, 1)


def test_the_projection_says_when_a_move_reaches_an_empty_summit_or_stops_below_the_king():
    empty = projected_outcome(board_of(mv(ok="A"), mv(ok="A", jump="A")), "A")
    assert empty.correct.step == 4 and "summit" in empty.correct.note
    below = projected_outcome(board_of(*KING), "B")
    assert (below.correct.step, below.correct.points) == (3, 1)
    assert "penultimate" in below.correct.note


@pytest.mark.parametrize(("moves", "team", "kind", "correct_code", "incorrect_code"), [
    ((), "A", ORDINARY, "", ""),
    ((mv(ok="A"), mv(ok="A", jump="A")), "A", ORDINARY, rules.NOTE_MAY_BECOME_KING, ""),
    (KING, "B", ORDINARY, rules.NOTE_STOPS_PENULTIMATE, ""),
    (KING, "D", JUMP, rules.NOTE_STOPS_PENULTIMATE, ""),
    (KING, "B", REVOLUTION, rules.NOTE_REVOLUTION, ""),
    (KING, "A", ORDINARY, rules.NOTE_KING_STAYS, rules.NOTE_KING_UNLESS_DEPOSED),
])
def test_every_projection_note_carries_a_stable_code_the_pages_translate(
        moves, team, kind, correct_code, incorrect_code):
    projection = projected_outcome(board_of(*moves), team, kind)
    assert (projection.correct.code, projection.incorrect.code) == (correct_code, incorrect_code)
    for outcome in (projection.correct, projection.incorrect):
        # A code exactly when there is an English note, and always a known one.
        assert bool(outcome.code) == bool(outcome.note)
        assert outcome.code in (*rules.NOTE_CODES, "")


def test_a_revolution_and_the_king_are_projected_in_place():
    board = board_of(*KING)
    revolt = projected_outcome(board, "B", REVOLUTION, partner=True)
    assert (revolt.kind, revolt.correct.step, revolt.correct.points) == (REVOLUTION, 3, 2)
    king = projected_outcome(board, "A")
    assert (king.correct.step, king.correct.points, king.incorrect.step) == (4, 1, 4)


def test_an_unknown_kind_or_team_is_a_record_error():
    with pytest.raises(RecordError):
        projected_outcome(board_of(), "A", "hop")
    with pytest.raises(RecordError):
        allowed_declarations(board_of(), "Z")


def test_the_challengers_are_the_right_holders_that_can_still_arrive_in_time():
    board = board_of(*KING, mv(rev="BC"))
    assert challengers(board) == ("D",)
    assert could_still_depose(board, "B", assume_right=True)
    assert not could_still_depose(board, "B")
    assert not could_still_depose(board, "A")
    assert challengers(board_of(mv(ok="A"))) == ()


def test_a_team_below_the_penultimate_step_or_without_its_right_is_told_why_it_may_not_revolt():
    board = board_of(*KING, mv(ok="A", rev="B"))
    assert allowed_declarations(board, "D").revolution_reason == "revolution only from the penultimate step"
    assert allowed_declarations(board, "B").revolution_reason == "no revolution right left"
    assert allowed_declarations(board, "C").revolution


def test_the_deposed_king_may_revolt_on_the_next_question_but_not_jump():
    allowed = allowed_declarations(board_of(*KING, mv(ok="B", rev="B")), "A")
    assert allowed.revolution and allowed.revolution_reason is None
    assert allowed.jump_reason == "jump not allowed on the penultimate step"


def test_only_a_wrong_answer_marks_a_move_as_failed_not_a_correct_one_stopped_below_the_king():
    board = board_of(*KING, mv(ok="AD", jump="D"))
    assert (board.team("D").step, board.team("D").last_failed) == (3, False)
    assert board.team("B").last_failed and board.team("C").last_failed


def test_a_jump_below_the_king_is_projected_to_stop_on_the_penultimate_step_with_both_points():
    projection = projected_outcome(board_of(*KING), "D", JUMP)
    assert projection.kind == JUMP and projection.ignored_reason is None
    assert (projection.correct.step, projection.correct.points) == (3, 2)
    assert "penultimate" in projection.correct.note
    assert (projection.incorrect.step, projection.incorrect.points) == (1, 0)


def test_a_team_that_could_arrive_before_three_holds_but_not_before_the_last_question_is_no_challenger():
    # D (step 2, last answer wrong) needs one move to the penultimate step and one to revolt.
    board = board_of(*KING, mv(ok="A", rev="BC"), main=6)
    assert challengers(board) == ("D",)
    # One question left: D cannot make it, so B and C get their used rights back (re-grant).
    short = board_of(*KING, mv(ok="A", rev="BC"), main=5)
    assert not could_still_depose(short, "D")
    assert challengers(short) == ("B", "C") and not short.finished


def test_without_a_king_nobody_is_a_challenger_and_nobody_could_depose():
    board = board_of(mv(ok="AB"), mv(ok="AB", jump="A"))
    assert board.king is None
    assert challengers(board) == ()
    assert not could_still_depose(board, "A", assume_right=True)


@pytest.mark.parametrize(("step", "failed", "summit", "moves"), [
    pytest.param(6, False, 7, 0, id="no move is needed on the penultimate step"),
    pytest.param(5, True, 7, 1, id="one ordinary move from just below even after a failure"),
    pytest.param(2, False, 7, 2, id="four steps take two jumps"),
    pytest.param(2, True, 7, 3, id="after a failure the first of them must be ordinary"),
    pytest.param(0, False, 2, 1, id="on the smallest hill one move reaches the penultimate step"),
])
def test_moves_to_penultimate(step, failed, summit, moves):
    assert moves_to_penultimate(step, failed, summit) == moves
