"""What the phones and the host's console show after a close: each team's verdict and move,
the history, the engine's reasons and projection notes."""

from __future__ import annotations

import pytest

from kingofhill import rules, selectors, services, states
from kingofhill.models import Answer
from tests.kingofhill.play import announce, answer, crown_alpha, judge_all, play

pytestmark = pytest.mark.django_db


# --- what the phone shows after a close ---------------------------------------------------------


def me(koth, entry) -> dict:
    return states.team_state(selectors.load_snapshot(koth), entry.pk)["me"]


def test_after_a_close_each_team_sees_its_own_verdict_and_move(running, host, alpha, beta):
    play(running, host, {alpha: True, beta: False})
    last = me(running, alpha)["last_move"]
    assert (last["number"], last["answer"], last["correct"], last["kind"]) == (
        1, "right", True, rules.ORDINARY)
    assert (last["before"], last["after"]) == ({"step": 0, "points": 0, "king": False},
                                               {"step": 1, "points": 1, "king": False})
    wrong = me(running, beta)["last_move"]
    assert (wrong["answer"], wrong["correct"], wrong["after"]["step"]) == (
        f"wrong {beta.pk}", False, 0)


def test_a_team_that_sent_nothing_is_told_its_silence_counted_as_incorrect(running, host, alpha,
                                                                           gamma):
    play(running, host, {alpha: True})
    last = me(running, gamma)["last_move"]
    assert (last["answer"], last["correct"]) == (None, False)


def test_a_jump_ignored_after_a_changed_verdict_comes_back_with_the_engines_reason(
        running, host, alpha, beta):
    play(running, host, {alpha: True, beta: True})
    play(running, host, {alpha: True, beta: True}, {alpha: rules.JUMP})
    assert me(running, alpha)["last_move"]["kind"] == rules.JUMP
    first = Answer.objects.get(question__number=1, application=alpha)
    services.verdict_set(actor=host, game=running, answer=first.pk, verdict=False)
    last = me(running, alpha)["last_move"]
    assert (last["declared"], last["kind"], last["ignored_reason"]) == (
        rules.JUMP, rules.ORDINARY, rules.JUMP_AFTER_FAIL)
    assert (last["before"]["step"], last["after"]["step"]) == (0, 1)
    assert rules.JUMP_AFTER_FAIL in selectors.reason_labels()


def test_a_deposed_king_is_told_so_and_the_new_king_that_it_was_crowned(running, host, alpha,
                                                                        beta, gamma):
    crown_alpha(running, host, alpha, beta, gamma)
    assert me(running, alpha)["last_move"]["crowned"] is True
    play(running, host, {alpha: False, beta: True, gamma: True}, {beta: "revolution"})
    fallen = me(running, alpha)["last_move"]
    assert (fallen["deposed"], fallen["before"]["king"], fallen["after"]) == (
        True, True, {"step": 2, "points": 3, "king": False})
    risen = me(running, beta)["last_move"]
    assert (risen["kind"], risen["crowned"], risen["after"]["king"]) == (
        rules.REVOLUTION, True, True)


def test_the_history_lists_every_closed_question_of_the_team_newest_first(running, host, alpha,
                                                                          beta, gamma):
    crown_alpha(running, host, alpha, beta, gamma)
    play(running, host, {alpha: False, beta: True, gamma: True}, {beta: "revolution"})
    history = me(running, alpha)["history"]
    assert [(h["number"], h["correct"], h["kind"], h["step"], h["king"]) for h in history] == [
        (3, False, rules.ORDINARY, 2, False), (2, True, rules.JUMP, 3, True),
        (1, True, rules.ORDINARY, 1, False)]
    assert me(running, gamma)["history"][-1]["answer"] == f"wrong {gamma.pk}"


def test_a_changed_verdict_rewrites_the_teams_last_move(running, host, alpha, beta):
    play(running, host, {alpha: True, beta: False})
    first = Answer.objects.get(question__number=1, application=alpha)
    services.verdict_set(actor=host, game=running, answer=first.pk, verdict=False)
    last = me(running, alpha)["last_move"]
    assert (last["correct"], last["after"]["step"]) == (False, 0)


def test_projection_notes_are_codes_the_page_shows_in_russian(running, host, alpha, beta, gamma):
    from django.utils import translation

    crown_alpha(running, host, alpha, beta, gamma)
    projection = me(running, beta)["projection"]
    assert projection[rules.REVOLUTION]["correct"]["note"] == rules.NOTE_REVOLUTION
    assert me(running, alpha)["projection"][rules.ORDINARY]["incorrect"]["note"] == \
        rules.NOTE_KING_UNLESS_DEPOSED
    with translation.override("ru"):
        labels = selectors.reason_labels()
    for code in rules.NOTE_CODES:
        # Russian words, not the English source left untranslated.
        assert any("а" <= ch <= "я" for ch in labels[code]), labels[code]


def test_the_host_state_counts_the_unjudged_answers_that_keep_close_disabled(running, host, alpha,
                                                                            beta, gamma):
    announce(running, host, answer_key="Пушкин")
    answer(running, alpha, "Пушкин")
    answer(running, beta, "Гоголь")
    state = states.host_state(selectors.load_snapshot(running))["host"]
    assert (state["unjudged"], state["can"]["close"], state["unanswered"]) == (1, False, ["Gamma"])
    judge_all(running, host, 1, {"гоголь": False})
    state = states.host_state(selectors.load_snapshot(running))["host"]
    assert (state["unjudged"], state["can"]["close"]) == (0, True)
