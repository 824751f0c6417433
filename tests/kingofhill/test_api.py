"""The HTTP API: who may call what, the error shape, and that pages' actions reach services."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client
from django.urls import reverse

from kingofhill import rules
from kingofhill.models import Answer, KothGame
from tests.kingofhill.conftest import join_session

pytestmark = pytest.mark.django_db


def url(name, koth):
    return reverse(f"kingofhill:{name}", args=[koth.pk])


@pytest.fixture
def host_client(client, host):
    client.force_login(host)
    return client


@pytest.fixture
def phone(alpha):
    def make(entry=alpha, **kw):
        c = Client(**kw)
        join_session(c, entry)
        return c
    return make


def test_the_public_state_needs_no_login_and_carries_the_version(client, running):
    body = client.get(url("api_state", running)).json()
    assert body["version"] == KothGame.objects.get(pk=running.pk).version
    state = body["state"]
    assert state["game"]["status"] == "running"
    assert [t["name"] for t in state["teams"]] == ["Alpha", "Beta", "Gamma"]
    assert state["question"]["phase"] == "declaring"
    assert "host" not in state and "me" not in state


def test_an_unknown_game_is_a_404(client):
    assert client.get("/koth/api/games/999999/state/").status_code == 404


def test_the_host_state_is_for_hosts_only(client, running, outsider, host):
    assert client.get(url("api_host_state", running)).status_code == 403
    client.force_login(outsider)
    assert client.get(url("api_host_state", running)).status_code == 403
    client.force_login(host)
    assert "host" in client.get(url("api_host_state", running)).json()["state"]


def test_a_host_plays_a_question_through_the_api(host_client, running, phone, alpha):
    r = host_client.post(url("api_announce", running),
                         {"text": "Кто написал «Онегина»?", "answer_key": "Пушкин"},
                         content_type="application/json")
    assert r.status_code == 200, r.content
    team = phone(alpha)
    r = team.post(url("api_answer", running), {"text": "пушкин", "client_id": str(uuid.uuid4())},
                  content_type="application/json")
    assert r.status_code == 200, r.content
    me = r.json()["state"]["me"]
    assert me["answer"]["text"] == "пушкин" and me["answer"]["at"]
    host_state = host_client.get(url("api_host_state", running)).json()["state"]["host"]
    assert host_state["groups"][0]["verdict"] is True  # key match pre-marked
    assert (host_state["answered"], host_state["total"]) == (1, 3)
    r = host_client.post(url("api_close", running), content_type="application/json")
    assert r.status_code == 200
    board = r.json()["state"]["board"]
    assert board["teams"][0] == {"team": "Alpha", "place": 1, "step": 1, "points": 1,
                                 "revolution_right": True}


def test_a_refused_action_answers_400_with_the_reason_and_changes_nothing(host_client, running):
    version = KothGame.objects.get(pk=running.pk).version
    r = host_client.post(url("api_close", running), content_type="application/json")
    assert r.status_code == 400
    assert "Announce" in r.json()["detail"]
    assert KothGame.objects.get(pk=running.pk).version == version


def test_judging_by_a_logged_in_non_host_is_forbidden(client, running, outsider, phone, alpha,
                                                      host_client):
    host_client.post(url("api_announce", running), {}, content_type="application/json")
    phone(alpha).post(url("api_answer", running), {"text": "x", "client_id": str(uuid.uuid4())},
                      content_type="application/json")
    other = Client()
    other.force_login(outsider)
    r = other.post(url("api_judge", running), {"question": 1, "normalized": "x", "verdict": True},
                   content_type="application/json")
    assert r.status_code == 403
    assert Answer.objects.get().verdict is None


def test_a_phone_without_a_team_binding_cannot_answer_or_read_a_team_state(client, running):
    assert client.get(url("api_team_state", running)).status_code == 403
    r = client.post(url("api_answer", running), {"text": "x", "client_id": str(uuid.uuid4())},
                    content_type="application/json")
    assert r.status_code == 403


def test_a_phone_must_send_the_csrf_token(running, alpha, host_client):
    host_client.post(url("api_announce", running), {}, content_type="application/json")
    strict = Client(enforce_csrf_checks=True)
    join_session(strict, alpha)
    r = strict.post(url("api_answer", running), {"text": "x", "client_id": str(uuid.uuid4())},
                    content_type="application/json")
    assert r.status_code == 403
    assert Answer.objects.count() == 0


def test_a_retried_answer_returns_the_same_answer_and_a_second_one_is_refused(
        host_client, running, phone, alpha):
    host_client.post(url("api_announce", running), {}, content_type="application/json")
    team = phone(alpha)
    body = {"text": "Пушкин", "client_id": str(uuid.uuid4())}
    first = team.post(url("api_answer", running), body, content_type="application/json")
    again = team.post(url("api_answer", running), body, content_type="application/json")
    assert first.status_code == again.status_code == 200
    assert first.json()["state"]["me"]["answer"] == again.json()["state"]["me"]["answer"]
    other = team.post(url("api_answer", running), {"text": "Гоголь", "client_id": str(uuid.uuid4())},
                      content_type="application/json")
    assert other.status_code == 400 and "final" in other.json()["detail"]
    assert Answer.objects.count() == 1


def test_a_team_sees_what_it_may_declare_with_the_engines_reasons(running, phone, alpha):
    state = phone(alpha).get(url("api_team_state", running)).json()["state"]
    assert state["me"]["allowed"] == {
        "jump": False, "jump_reason": rules.JUMP_FIRST_QUESTION,
        "revolution": False, "revolution_reason": rules.REV_NO_KING}
    assert state["me"]["projection"]["ordinary"]["correct"]["step"] == 1
    r = phone(alpha).post(url("api_declare", running), {"kind": "jump"},
                          content_type="application/json")
    assert r.status_code == 400


def test_the_team_state_never_holds_another_teams_answer(host_client, running, phone, alpha,
                                                         beta):
    host_client.post(url("api_announce", running), {}, content_type="application/json")
    phone(beta).post(url("api_answer", running), {"text": "секрет беты",
                                                  "client_id": str(uuid.uuid4())},
                     content_type="application/json")
    body = phone(alpha).get(url("api_team_state", running)).content.decode()
    assert "секрет беты" not in body


def test_the_record_is_for_organizers_and_replays_to_the_live_board(client, running, organizer,
                                                                    host):
    client.force_login(host)
    assert client.get(url("api_record", running)).status_code == 403
    client.force_login(organizer)
    r = client.get(url("api_record", running) + "?download=1")
    assert r.status_code == 200
    assert "attachment" in r["Content-Disposition"]
    assert rules.replay(r.json()) == KothGame.objects.get(pk=running.pk).board


def test_an_organizer_attaches_a_board_to_a_game_through_the_api(client, organizer, scheduled,
                                                                 entries):
    client.force_login(organizer)
    r = client.post(reverse("kingofhill:api_create"), {"game": scheduled.pk, "summit": 5},
                    content_type="application/json")
    assert r.status_code == 201, r.content
    assert KothGame.objects.get(pk=scheduled.pk).summit == 5
    again = client.post(reverse("kingofhill:api_create"), {"game": scheduled.pk},
                        content_type="application/json")
    assert again.status_code == 400


def test_the_schema_documents_the_king_of_the_hill_api(client):
    schema = client.get("/api/schema/").content.decode()
    assert "/koth/api/games/{game_id}/answer/" in schema
    assert "/koth/api/games/{game_id}/judge/" in schema
