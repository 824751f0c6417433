"""Every past verdict can be corrected: a change that ends the game earlier takes the later
questions out of the game (kept, with their answers, in the history and the audit log, out of
the record), one that ends it later brings them back or re-opens the game; the host confirms
first, and whatever the engine refuses reaches the host in the interface's language."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from core.errors import NeedsConfirmation
from core.models import AuditEntry
from core.records import RecordError
from kingofhill import rules, selectors, services, states
from kingofhill.models import Answer, KothGame, Question
from tests.kingofhill.play import (
    announce,
    answer,
    answer_of,
    board,
    finish,
    play,
    snapshot_of,
)

pytestmark = pytest.mark.django_db


def no_challenger_after_q3(koth, host, alpha, beta, gamma) -> None:
    """Alpha is King from question 2; Beta's correct q3 keeps it in reach, so q4 is played."""
    play(koth, host, {alpha: True, beta: False, gamma: False})
    play(koth, host, {alpha: True, beta: False, gamma: False}, {alpha: "jump"})
    play(koth, host, {alpha: True, beta: True, gamma: False})
    play(koth, host, {alpha: True, beta: False, gamma: False})


def beta_revolts_on_q3(koth, host, alpha, beta, gamma, played: int) -> None:
    """Alpha jumps onto the summit on q2; Beta deposes it by a revolution on q3 and holds the
    summit from then on (its hold completes after q6); ``played`` questions are closed."""
    plan = [({alpha: True, beta: True, gamma: False}, None),
            ({alpha: True, beta: True, gamma: True}, {alpha: "jump"}),
            ({alpha: False, beta: True, gamma: True}, {beta: "revolution"})]
    plan += [({alpha: True, beta: True, gamma: False}, None)] * 3
    for answers, declarations in plan[:played]:
        play(koth, host, answers, declarations)


def history(koth) -> dict[int, dict]:
    snap = selectors.load_snapshot(koth)
    return {h["number"]: h for h in states.host_state(snap)["host"]["history"]}


def test_a_change_that_ends_the_game_earlier_takes_the_later_questions_out_once_confirmed(
        running, host, alpha, beta, gamma):
    no_challenger_after_q3(running, host, alpha, beta, gamma)
    q4 = {a.pk: a.verdict for a in Answer.objects.filter(question__number=4)}
    beta_q3 = answer_of(running, beta, 3)
    with pytest.raises(NeedsConfirmation) as asked:
        services.verdict_set(actor=host, game=running, answer=beta_q3.pk, verdict=False)
    assert asked.value.extra["change"]["voided"] == [4]
    assert ("Question 4 no longer counts: the game ends after question 3 (no team could "
            "challenge the King)") in asked.value.message

    services.verdict_set(actor=host, game=running, answer=beta_q3.pk, verdict=False, confirm=True)
    now = board(running)
    assert (now["question"], now["finished"], now["finish_reason"]) == (3, True, "no_challenger")
    assert running.status == KothGame.Status.FINISHED
    # Question 4 stays, with its answers and verdicts, in the history and the audit log.
    assert {a.pk: a.verdict for a in Answer.objects.filter(question__number=4)} == q4
    kept = history(running)
    assert kept[4]["counts"] is False and kept[3]["counts"] is True
    assert {a["id"] for a in kept[4]["answers"]} == set(q4)
    logged = [e.after for e in AuditEntry.objects.filter(game_id=running.pk,
                                                           action="kingofhill.verdict")]
    assert {e["answer"] for e in logged if e["question"] == 4} == set(q4)
    # The record holds the moves that count, and replays to the board the game shows.
    record = services.game_record(running)
    assert len(record["moves"]) == 3
    assert rules.replay(record) == now


def test_undoing_that_change_makes_the_voided_questions_count_again_after_confirmation(
        running, host, alpha, beta, gamma):
    no_challenger_after_q3(running, host, alpha, beta, gamma)
    original = board(running)
    beta_q3 = answer_of(running, beta, 3)
    services.verdict_set(actor=host, game=running, answer=beta_q3.pk, verdict=False, confirm=True)
    before = snapshot_of(running)
    with pytest.raises(NeedsConfirmation, match="Question 4 counts again.") as asked:
        services.verdict_set(actor=host, game=running, answer=beta_q3.pk, verdict=True)
    assert asked.value.extra["change"]["revived"] == [4]
    assert snapshot_of(running) == before

    services.verdict_set(actor=host, game=running, answer=beta_q3.pk, verdict=True, confirm=True)
    assert board(running) == original
    assert all(h["counts"] for h in history(running).values())
    assert len(services.game_record(running)["moves"]) == 4


def test_a_change_that_ends_the_game_later_re_opens_it_with_the_question_after_the_last_played(
        running, host, alpha, beta, gamma):
    finish(running, host, alpha, beta, gamma)
    played = board(running)["question"]
    # Without Alpha's jump on q2 nobody holds the summit long enough: the game goes on.
    jump = answer_of(running, alpha, 2)
    with pytest.raises(NeedsConfirmation,
                       match=f"play goes on with question {played + 1}"):
        services.verdict_set(actor=host, game=running, answer=jump.pk, verdict=False)

    services.verdict_set(actor=host, game=running, answer=jump.pk, verdict=False, confirm=True)
    running.refresh_from_db()
    assert running.status == KothGame.Status.RUNNING
    assert running.board["question"] == played and not running.board["finished"]
    assert Question.objects.get(koth=running, number=played + 1).phase == \
        Question.Phase.DECLARING
    assert rules.replay(services.game_record(running)) == running.board


def test_an_earlier_end_keeps_the_announced_open_question_with_its_answers_out_of_the_game(
        running, host, alpha, beta, gamma):
    beta_revolts_on_q3(running, host, alpha, beta, gamma, played=5)
    announce(running, host)
    sent = answer(running, alpha, "Пушкин")
    revolution = answer_of(running, beta, 3)
    # Had Beta's revolution failed, Alpha's hold completes after question 5.
    with pytest.raises(NeedsConfirmation) as asked:
        services.verdict_set(actor=host, game=running, answer=revolution.pk, verdict=False)
    assert asked.value.extra["change"]["voided"] == [6]
    assert "Question 6 no longer counts: the game ends after question 5" in asked.value.message

    services.verdict_set(actor=host, game=running, answer=revolution.pk, verdict=False,
                         confirm=True)
    now = board(running)
    assert (now["winner"], now["finish_reason"], now["question"]) == ("Alpha", "king_held", 5)
    sixth = Question.objects.get(koth=running, number=6)
    assert sixth.closed_at is not None
    assert list(sixth.answers.values_list("pk", "text")) == [(sent.pk, "Пушкин")]
    assert history(running)[6]["counts"] is False
    assert rules.replay(services.game_record(running)) == now


def test_an_earlier_end_drops_an_open_question_nobody_declared_for_and_does_not_list_it(
        running, host, alpha, beta, gamma):
    beta_revolts_on_q3(running, host, alpha, beta, gamma, played=5)
    revolution = answer_of(running, beta, 3)
    with pytest.raises(NeedsConfirmation) as asked:
        services.verdict_set(actor=host, game=running, answer=revolution.pk, verdict=False)
    assert asked.value.extra["change"]["voided"] == []
    services.verdict_set(actor=host, game=running, answer=revolution.pk, verdict=False,
                         confirm=True)
    assert not Question.objects.filter(koth=running, number=6).exists()
    assert board(running)["winner"] == "Alpha"


def latin_words(text: str, names=("Alpha", "Beta", "Gamma")) -> list[str]:
    for name in names:
        text = text.replace(name, "")
    return re.findall(r"[A-Za-z]+", text)


def test_a_confirmation_of_an_earlier_end_reads_fully_in_russian(running, host, alpha, beta,
                                                                 gamma):
    no_challenger_after_q3(running, host, alpha, beta, gamma)
    with translation.override("ru"), pytest.raises(NeedsConfirmation) as asked:
        services.verdict_set(actor=host, game=running, answer=answer_of(running, beta, 3).pk,
                             verdict=False)
    assert "Вопрос 4 больше не засчитывается" in asked.value.message
    assert latin_words(asked.value.message) == []


@pytest.mark.parametrize("error", [
    rules.MoveAfterEnd("moves[7]: the game already finished after question 7 (king_held); "
                       "no move may follow", question=7, finish_reason=rules.KING_HELD),
    RecordError("moves[2].answers.Z: unknown team 'Z'"),
])
def test_a_change_the_engine_refuses_is_told_in_russian_without_the_engines_english(error):
    with translation.override("ru"):
        message = selectors.record_refusal(error).message
    assert message.startswith("После такого изменения игра станет невозможной: ")
    assert latin_words(message) == []
    if isinstance(error, rules.MoveAfterEnd):
        assert "вопросом 8" in message


def test_in_russian_the_api_asks_about_an_earlier_end_in_russian_and_names_the_voided_questions(
        client, settings, running, host, alpha, beta, gamma):
    settings.LANGUAGE_CODE = "ru"
    no_challenger_after_q3(running, host, alpha, beta, gamma)
    client.force_login(host)
    asked = client.post(reverse("kingofhill:api_verdict", args=[running.pk]),
                        {"answer": answer_of(running, beta, 3).pk, "verdict": False},
                        content_type="application/json")
    assert asked.status_code == 409
    data = asked.json()
    assert data["change"]["voided"] == [4] and data["change"]["revived"] == []
    assert "Вопрос 4 больше не засчитывается" in data["detail"]
    assert latin_words(data["detail"]) == []
