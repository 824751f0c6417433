"""Appeals of a verdict (kingofhill.appeals): a team files one from its phone on the last closed
question; the host accepts it (the same change of the past as the flip, previewed first) or
rejects it with an answer; the phone, the console's history and the audit log show them."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from core import audit
from core.errors import DomainError, NeedsConfirmation, NotAllowed
from core.models import AuditEntry
from kingofhill import appeals, selectors, services
from kingofhill.models import Appeal, KothGame
from rating import services as rating_services
from tests.kingofhill.conftest import join_session
from tests.kingofhill.play import answer_of, finish, play, snapshot_of, team

pytestmark = pytest.mark.django_db


def file(koth, entry, number=1, text="Пушкин тоже верно"):
    return appeals.appeal_file(game=koth, application=entry, question=number, text=text)


@pytest.fixture
def played(running, host, alpha, beta, gamma):
    """Question 1 closed: Alpha and Beta wrong, Gamma right."""
    play(running, host, {alpha: False, beta: False, gamma: True})
    return running


def me(koth, entry) -> dict:
    return selectors.read_state(koth, kind="team", application_id=entry.pk)["state"]["me"]


def host_view(koth) -> dict:
    return selectors.read_state(koth, kind="host")["state"]["host"]


# --- filing -------------------------------------------------------------------------------------


def test_a_team_appeals_its_verdict_and_its_phone_and_the_console_show_it(played, alpha):
    appeal = file(played, alpha)
    assert (appeal.status, appeal.verdict, appeal.question.number) == ("open", False, 1)
    assert me(played, alpha)["appeals"] == {"1": {"status": "open", "text": "Пушкин тоже верно",
                                                  "answer": ""}}
    host = host_view(played)
    assert [(a["team"], a["number"], a["text"]) for a in host["appeals"]] == [
        ("Alpha", 1, "Пушкин тоже верно")]
    question_1 = next(h for h in host["history"] if h["number"] == 1)
    assert [a["status"] for a in question_1["appeals"]] == ["open"]
    entry = AuditEntry.objects.get(action="kingofhill.appeal")
    assert entry.after["team"] == "Alpha" and entry.after["status"] == "open"
    with translation.override("ru"):
        assert audit.label(entry.action) == "апелляция на вердикт"  # the audit page's name


def test_the_phone_is_told_which_question_it_may_appeal(played, alpha):
    assert me(played, alpha)["appeal_question"] == 1


@pytest.mark.parametrize("text", ["", "   ", "x" * 501])
def test_an_appeal_needs_a_short_text(played, alpha, text):
    with pytest.raises(DomainError):
        file(played, alpha, text=text)
    assert not Appeal.objects.exists()


def test_only_the_last_closed_question_can_be_appealed(played, host, alpha, beta, gamma):
    with pytest.raises(DomainError, match="last closed question"):
        file(played, alpha, number=2)  # open, not closed yet
    play(played, host, {alpha: True, beta: True, gamma: True})
    with pytest.raises(DomainError, match="last closed question"):
        file(played, alpha, number=1)  # the host closed the next question
    assert me(played, alpha)["appeal_question"] == 2


def test_a_team_without_an_answer_has_no_verdict_to_appeal(running, host, alpha, beta, gamma):
    play(running, host, {alpha: True, beta: True})
    with pytest.raises(DomainError, match="no answer"):
        file(running, gamma)


def test_a_team_appeals_a_question_once(played, host, alpha):
    file(played, alpha)
    with pytest.raises(DomainError, match="already appealed"):
        file(played, alpha, text="ещё раз")
    appeal = Appeal.objects.get()
    appeals.appeal_reject(actor=host, game=played, appeal=appeal.pk, answer="Нет.")
    with pytest.raises(DomainError, match="already appealed"):
        file(played, alpha, text="ещё раз")


def test_a_finished_game_takes_no_appeal(running, host, alpha, beta, gamma):
    finish(running, host, alpha, beta, gamma)
    last = running.board["question"]
    with pytest.raises(DomainError, match="while the game runs"):
        file(running, beta, number=last)
    assert me(running, beta)["appeal_question"] is None


# --- deciding -----------------------------------------------------------------------------------


def test_accepting_shows_the_preview_first_and_changes_nothing(played, host, alpha):
    appeal = file(played, alpha)
    before = snapshot_of(played)
    with pytest.raises(NeedsConfirmation) as asked:
        appeals.appeal_accept(actor=host, game=played, appeal=appeal.pk)
    assert "Alpha" in asked.value.message and "correct" in asked.value.message
    places = {t["team"]: t for t in asked.value.extra["change"]["teams"]}
    assert places["Alpha"]["step_after"] == 1
    assert snapshot_of(played) == before
    assert Appeal.objects.get().status == "open"


def test_an_accepted_appeal_flips_the_verdict_exactly_as_the_hosts_flip(
        played, host, alpha, beta):
    appeal = file(played, alpha)
    verdicts = AuditEntry.objects.filter(action="kingofhill.verdict").count()
    appeals.appeal_accept(actor=host, game=played, appeal=appeal.pk, confirm=True)
    # Beta's same wrong verdict flipped by the console's control: the same move on the board.
    services.verdict_set(actor=host, game=played, answer=answer_of(played, beta, 1).pk,
                         verdict=True, confirm=True)
    assert answer_of(played, alpha, 1).verdict is True
    assert team(played, "Alpha")["step"] == team(played, "Beta")["step"] == 1
    decided = Appeal.objects.get()
    assert (decided.status, decided.decided_by) == ("accepted", host)
    assert me(played, alpha)["appeals"]["1"]["status"] == "accepted"
    assert host_view(played)["appeals"] == []
    assert AuditEntry.objects.filter(action="kingofhill.verdict").count() == verdicts + 2
    assert AuditEntry.objects.filter(action="kingofhill.appeal").order_by("pk").last().after["status"] == \
        "accepted"


def test_a_rejected_appeal_keeps_the_verdict_and_the_phone_shows_the_answer(
        played, host, alpha):
    appeal = file(played, alpha)
    appeals.appeal_reject(actor=host, game=played, appeal=appeal.pk,
                          answer="В вопросе просили фамилию.")
    assert answer_of(played, alpha, 1).verdict is False
    assert me(played, alpha)["appeals"]["1"] == {
        "status": "rejected", "text": "Пушкин тоже верно", "answer": "В вопросе просили фамилию."}


def test_a_rejection_needs_an_answer_and_a_decision_is_made_once(played, host, alpha):
    appeal = file(played, alpha)
    with pytest.raises(DomainError, match="why"):
        appeals.appeal_reject(actor=host, game=played, appeal=appeal.pk, answer=" ")
    appeals.appeal_reject(actor=host, game=played, appeal=appeal.pk, answer="Нет.")
    with pytest.raises(DomainError, match="already been decided"):
        appeals.appeal_accept(actor=host, game=played, appeal=appeal.pk, confirm=True)


def test_only_a_host_of_the_game_decides_an_appeal_of_this_game(played, host, outsider, alpha):
    appeal = file(played, alpha)
    with pytest.raises(NotAllowed):
        appeals.appeal_reject(actor=outsider, game=played, appeal=appeal.pk, answer="Нет.")
    with pytest.raises(DomainError, match="No such appeal"):
        appeals.appeal_reject(actor=host, game=played, appeal=10**6, answer="Нет.")


def test_an_appeal_still_open_when_the_game_ends_can_be_decided(
        running, host, alpha, beta, gamma):
    play(running, host, {alpha: True, beta: True, gamma: False})
    appeal = file(running, gamma)
    while running.status == KothGame.Status.RUNNING:
        play(running, host, {alpha: True, beta: False, gamma: False})
    assert running.status == KothGame.Status.FINISHED
    appeals.appeal_reject(actor=host, game=running, appeal=appeal.pk, answer="Нет.")
    assert Appeal.objects.get().status == "rejected"


# --- the API ------------------------------------------------------------------------------------


def url(name, koth):
    return reverse(f"kingofhill:{name}", args=[koth.pk])


def post(client, name, koth, body):
    return client.post(url(name, koth), json.dumps(body), content_type="application/json")


def test_the_phone_appeals_and_the_host_accepts_after_the_preview_through_the_api(
        played, host, alpha, client):
    phone = Client()
    join_session(phone, alpha)
    r = post(phone, "api_appeal", played, {"question": 1, "text": "Пушкин тоже верно"})
    assert r.status_code == 200
    assert r.json()["state"]["me"]["appeals"]["1"]["status"] == "open"
    refused = post(phone, "api_appeal", played, {"question": 1, "text": "ещё"})
    assert refused.status_code == 400 and "already appealed" in refused.json()["detail"]

    client.force_login(host)
    appeal = host_view(played)["appeals"][0]["id"]
    preview = post(client, "api_appeal_accept", played, {"appeal": appeal})
    assert preview.status_code == 409 and preview.json()["change"]["teams"]
    applied = post(client, "api_appeal_accept", played, {"appeal": appeal, "confirm": True})
    assert applied.status_code == 200 and applied.json()["state"]["host"]["appeals"] == []
    assert phone.get(url("api_team_state", played)).json()["state"]["me"]["appeals"]["1"][
        "status"] == "accepted"


def test_a_rejection_without_an_answer_is_a_400_with_the_reason(played, host, alpha, client):
    appeal = file(played, alpha)
    client.force_login(host)
    r = post(client, "api_appeal_reject", played, {"appeal": appeal.pk, "answer": ""})
    assert r.status_code == 400 and "why" in r.json()["detail"]


def test_the_results_page_lists_the_appeals_and_their_outcomes(
        running, host, organizer, alpha, beta, gamma, client):
    play(running, host, {alpha: True, beta: True, gamma: False})
    appeal = file(running, gamma, text="Тверь тоже подходит")
    appeals.appeal_reject(actor=host, game=running, appeal=appeal.pk, answer="Нет, только Торжок.")
    while running.status == KothGame.Status.RUNNING:
        play(running, host, {alpha: True, beta: False, gamma: False})
    rating_services.results_publish(actor=organizer, game=running.game)
    page = client.get(reverse("rating:results", args=[running.pk]), HTTP_ACCEPT_LANGUAGE="ru")
    text = page.content.decode()
    assert "Апелляции во время игры" in text
    assert "Gamma: «Тверь тоже подходит» — <strong>отклонена</strong>: Нет, только Торжок." \
        in text


def test_the_organizer_sees_the_appeals_on_the_results_page_before_publishing_the_public_after(
        running, host, organizer, alpha, beta, gamma):
    play(running, host, {alpha: True, beta: True, gamma: False})
    rejected = file(running, gamma, text="Тверь тоже подходит")
    appeals.appeal_reject(actor=host, game=running, appeal=rejected.pk,
                          answer="Нет, только Торжок.")
    play(running, host, {alpha: True, beta: False, gamma: False})
    file(running, beta, number=2, text="Мы написали «Торжок» с ошибкой")
    url = reverse("rating:results", args=[running.pk])
    staff, public = Client(), Client()
    staff.force_login(organizer)

    before = staff.get(url, HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Результаты этой игры ещё не опубликованы." in before
    assert "Апелляции во время игры" in before
    assert "Gamma: «Тверь тоже подходит» — <strong>отклонена</strong>: Нет, только Торжок." \
        in before
    assert "Beta: «Мы написали «Торжок» с ошибкой» — <strong>" in before  # still open
    assert "Апелляции во время игры" not in public.get(url, HTTP_ACCEPT_LANGUAGE="ru").content.decode()

    while running.status == KothGame.Status.RUNNING:
        play(running, host, {alpha: True, beta: False, gamma: False})
    rating_services.results_publish(actor=organizer, game=running.game)
    after = public.get(url, HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Gamma: «Тверь тоже подходит» — <strong>отклонена</strong>: Нет, только Торжок." in after
