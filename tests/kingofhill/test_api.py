"""The HTTP API: who may call what, the error shape, and that pages' actions reach services."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client
from django.urls import reverse

from kingofhill import rules, services
from kingofhill.live import LIVE
from kingofhill.models import Answer, Declaration, KothGame
from live.messages import PUBLIC
from live.store import stream_versions
from tests.kingofhill.conftest import join_session
from tests.live_checks import public_read_checked, unknown_public_read_checked

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
    assert body["version"] == stream_versions(running.pk)["public"]
    state = body["state"]
    assert state["game"]["status"] == "running"
    assert [t["name"] for t in state["teams"]] == ["Alpha", "Beta", "Gamma"]
    assert state["question"]["phase"] == "declaring"
    assert "host" not in state and "me" not in state


def test_an_unknown_game_is_a_404(client):
    assert client.get("/koth/api/games/999999/state/").status_code == 404


def test_the_public_state_is_the_stored_text_in_one_query_without_drf_negotiation(
        client, running, monkeypatch, django_assert_num_queries):
    stored = LIVE.read(running.pk, PUBLIC)
    public_read_checked(client, url("api_state", running), stored, monkeypatch=monkeypatch,
                        assert_num_queries=django_assert_num_queries)


def test_an_unknown_games_public_state_is_drfs_404_detail_in_one_query(
        client, django_assert_num_queries):
    assert unknown_public_read_checked(
        client, "/koth/api/games/999999/state/",
        assert_num_queries=django_assert_num_queries) == {
            "detail": "No King of the Hill game here."}


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
    versions = stream_versions(running.pk)
    r = host_client.post(url("api_close", running), content_type="application/json")
    assert r.status_code == 400
    assert "Announce" in r.json()["detail"]
    assert stream_versions(running.pk) == versions


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
    from kingofhill.urls import api_urls

    schema = client.get("/api/schema/").content.decode()
    for pattern in api_urls:  # every action the pages perform is documented
        path = "/koth/" + str(pattern.pattern).replace("<id:game_id>", "{game_id}")
        assert f"{path}:" in schema, path


# --- bad input through the API: a clear 4xx and nothing changes --------------------------------


def post(c, name, koth, body=None):
    return c.post(url(name, koth), body or {}, content_type="application/json")


def stored(koth) -> tuple:
    """Everything a refused request must leave alone: versions, board, answers, declarations."""
    koth = KothGame.objects.get(pk=koth.pk)
    answers = sorted(Answer.objects.filter(question__koth=koth)
                     .values_list("application_id", "text", "verdict"))
    declarations = sorted(Declaration.objects.filter(question__koth=koth)
                          .values_list("application_id", "kind"))
    return stream_versions(koth.pk), koth.board, answers, declarations


def answer_body(text="Пушкин"):
    return {"text": text, "client_id": str(uuid.uuid4())}


def test_an_answer_after_the_close_is_refused_through_the_api_and_changes_nothing(
        host_client, running, phone, alpha, beta):
    post(host_client, "api_announce", running, {"answer_key": "Пушкин"})
    assert post(phone(alpha), "api_answer", running, answer_body()).status_code == 200
    assert post(host_client, "api_close", running).status_code == 200
    # Question 1 is closed and question 2 not announced: Beta's late answer has nowhere to go.
    before = stored(running)
    r = post(phone(beta), "api_answer", running, answer_body())
    assert r.status_code == 400
    assert "not been announced" in r.json()["detail"]
    assert stored(running) == before


def test_a_declaration_after_the_announcement_is_refused_through_the_api_and_changes_nothing(
        host_client, running, phone, alpha):
    post(host_client, "api_announce", running)
    before = stored(running)
    r = post(phone(alpha), "api_declare", running, {"kind": "revolution"})
    assert r.status_code == 400
    assert "Too late" in r.json()["detail"]
    r = post(phone(alpha), "api_declare", running, {"kind": "none"})
    assert r.status_code == 400 and "Too late" in r.json()["detail"]
    assert stored(running) == before


def test_a_phone_of_a_team_from_another_game_is_refused_and_changes_nothing(
        host_client, running, phone, organizer):
    from datetime import timedelta

    from django.utils import timezone

    from teams.models import Game
    from tests.kingofhill.conftest import make_teams

    other = Game.objects.create(title="другая", format="kingofhill",
                                starts_at=timezone.now() + timedelta(days=3))
    stranger = make_teams(other, ["Stranger"], organizer)[0]
    post(host_client, "api_announce", running)
    before = stored(running)
    intruder = phone(stranger)
    for name, body in (("api_answer", answer_body()), ("api_declare", {"kind": "jump"})):
        r = post(intruder, name, running, body)
        assert r.status_code == 403
        assert "Join your team" in r.json()["detail"]
    assert intruder.get(url("api_team_state", running)).status_code == 403
    assert stored(running) == before


def test_a_second_different_answer_is_refused_through_the_api_and_changes_nothing(
        host_client, running, phone, alpha):
    post(host_client, "api_announce", running)
    team = phone(alpha)
    assert post(team, "api_answer", running, answer_body("Пушкин")).status_code == 200
    before = stored(running)
    r = post(team, "api_answer", running, answer_body("Гоголь"))
    assert r.status_code == 400 and "final" in r.json()["detail"]
    assert stored(running) == before


@pytest.mark.parametrize("name,body", [
    ("api_judge", {"question": 1, "normalized": "пушкин", "verdict": True}),
    ("api_verdict", {"answer": 0, "verdict": True}),
    ("api_partner", {"question": 1, "partner": True}),
    ("api_close", {}),
    ("api_announce", {}),
], ids=["judge a group", "flip one verdict", "mark a partner question", "close", "announce"])
def test_a_team_phone_or_an_outsider_cannot_take_a_host_action_and_nothing_changes(
        host_client, running, phone, alpha, outsider, name, body):
    post(host_client, "api_announce", running)
    post(phone(alpha), "api_answer", running, answer_body())
    if name == "api_verdict":
        body = {**body, "answer": Answer.objects.get().pk}
    before = stored(running)
    other = Client()
    other.force_login(outsider)
    for stranger in (phone(alpha), other):
        r = post(stranger, name, running, body)
        assert r.status_code == 403
        assert r.json()["detail"]
    assert stored(running) == before


@pytest.mark.parametrize("body,message", [
    ({"question": 1, "normalized": "пушкин", "verdict": "maybe"}, "verdict"),
    ({"question": 7, "normalized": "пушкин", "verdict": True}, "no question 7"),
    ({"question": 1, "normalized": "гоголь", "verdict": True}, "No answer"),
], ids=["a verdict that is not a boolean", "a question that does not exist",
        "a group nobody answered"])
def test_judging_nonsense_answers_400_with_a_message_and_changes_nothing(
        host_client, running, phone, alpha, body, message):
    post(host_client, "api_announce", running)
    post(phone(alpha), "api_answer", running, answer_body())
    before = stored(running)
    r = post(host_client, "api_judge", running, body)
    assert r.status_code == 400
    assert message.casefold() in str(r.json()).casefold()
    assert stored(running) == before


def test_an_earlier_verdict_and_partner_mark_changed_later_through_the_api_recompute_the_board(
        host_client, running, phone, alpha, beta):
    post(host_client, "api_announce", running, {"answer_key": "Пушкин"})
    post(phone(alpha), "api_answer", running, answer_body("Пушкин"))
    post(phone(beta), "api_answer", running, answer_body("Гоголь"))
    post(host_client, "api_judge", running, {"question": 1, "normalized": "гоголь",
                                             "verdict": False})
    post(host_client, "api_close", running)
    post(host_client, "api_announce", running)  # question 2 is under way meanwhile

    beta_q1 = Answer.objects.get(application=beta, question__number=1)
    r = post(host_client, "api_verdict", running, {"answer": beta_q1.pk, "verdict": True})
    assert r.status_code == 200, r.content
    teams = {t["team"]: t for t in r.json()["state"]["board"]["teams"]}
    assert (teams["Beta"]["step"], teams["Beta"]["points"]) == (1, 1)
    r = post(host_client, "api_partner", running, {"question": 1, "partner": True})
    teams = {t["team"]: t for t in r.json()["state"]["board"]["teams"]}
    assert (teams["Alpha"]["points"], teams["Beta"]["points"], teams["Gamma"]["points"]) == (
        2, 2, 0)
    # The phones read the same recomputed board, and question 2 is still the open one.
    state = phone(beta).get(url("api_team_state", running)).json()["state"]
    assert (state["me"]["step"], state["me"]["points"]) == (1, 2)
    assert state["question"] == {**state["question"], "number": 2, "phase": "answering"}
    assert rules.replay(services.game_record(running)) == KothGame.objects.get(
        pk=running.pk).board


def test_the_host_and_the_team_see_why_a_declaration_no_longer_counts_after_a_verdict_change(
        host_client, running, phone, alpha, beta):
    """Alpha's jump was allowed when declared; flipping its first answer to incorrect makes its
    previous move a failed one, so the jump is ignored, and both screens say why."""
    post(host_client, "api_announce", running)
    post(phone(alpha), "api_answer", running, answer_body("Пушкин"))
    post(host_client, "api_judge", running, {"question": 1, "normalized": "пушкин",
                                             "verdict": True})
    post(host_client, "api_close", running)
    assert post(phone(alpha), "api_declare", running, {"kind": "jump"}).status_code == 200

    first = Answer.objects.get(application=alpha, question__number=1)
    r = post(host_client, "api_verdict", running, {"answer": first.pk, "verdict": False})
    [declaration] = r.json()["state"]["host"]["declarations"]
    assert declaration == {**declaration, "team": "Alpha", "kind": "jump", "counts": False,
                           "reason": rules.JUMP_AFTER_FAIL}
    me = phone(alpha).get(url("api_team_state", running)).json()["state"]["me"]
    assert (me["declaration"]["counts"], me["declaration"]["reason"]) == (
        False, rules.JUMP_AFTER_FAIL)

    # Once the move is played the host's history keeps the reason.
    post(host_client, "api_announce", running)
    r = post(host_client, "api_close", running)
    history = {h["number"]: h for h in r.json()["state"]["host"]["history"]}
    assert history[2]["ignored"] == {"Alpha": rules.JUMP_AFTER_FAIL}


# --- hostile input at the edges: ids and counts past their columns, nesting, text -------------


def test_ids_and_counts_past_their_columns_are_a_400_detail(client, organizer, scheduled, host_client, running):
    client.force_login(organizer)
    for body, field in [({"game": 2**63}, "game:"),
                        ({"game": scheduled.pk, "summit": 40000}, "summit:"),
                        ({"game": scheduled.pk, "main_questions": -1}, "main_questions:")]:
        response = client.post(reverse("kingofhill:api_create"), body,
                               content_type="application/json")
        assert response.status_code == 400 and field in response.json()["detail"], body
    response = post(host_client, "api_verdict", running, {"answer": 2**64, "verdict": "correct"})
    assert response.status_code == 400 and "answer:" in response.json()["detail"]


def test_deep_json_to_the_host_api_is_a_400_detail(host_client, running):
    response = host_client.post(url("api_judge", running), "[" * 50000 + "]" * 50000,
                                content_type="application/json")
    assert response.status_code == 400 and "nested deeper" in response.json()["detail"]


def test_a_lone_surrogate_in_an_answer_is_a_400_and_nothing_is_stored(running, phone, alpha):
    before = stored(running)
    response = phone().post(url("api_answer", running), '{"text": "\\ud83d"}',
                            content_type="application/json")
    assert response.status_code == 400 and "surrogate" in response.json()["detail"]
    assert stored(running) == before


# --- hosts per game -----------------------------------------------------------------------------


def test_a_host_not_assigned_to_the_game_gets_403_on_its_state_actions_console_and_socket_page(
        running):
    from tests.kingofhill.conftest import make_user

    client = Client()
    client.force_login(make_user("stranger-host", "host"))
    assert client.get(url("api_host_state", running)).status_code == 403
    refused = client.post(url("api_announce", running), {}, content_type="application/json")
    assert refused.status_code == 403 and "host of this game" in refused.json()["detail"]
    assert client.get(url("host", running)).status_code == 403
    listing = client.get(reverse("kingofhill:index")).content.decode()
    assert url("projector", running) in listing and url("host", running) not in listing


def test_the_assigned_host_sees_the_console_in_the_list(host_client, running):
    listing = host_client.get(reverse("kingofhill:index")).content.decode()
    assert url("host", running) in listing


def test_an_organizer_assigns_and_takes_off_hosts_through_the_api(client, organizer, running,
                                                                  host):
    from tests.kingofhill.conftest import make_user

    second = make_user("second-host", "host")
    client.force_login(organizer)
    assert client.get(url("api_hosts", running)).json() == {
        "hosts": [{"id": host.pk, "username": "host"}]}
    body = client.post(url("api_hosts", running), {"user": second.pk, "assigned": True},
                       content_type="application/json").json()
    assert [h["username"] for h in body["hosts"]] == ["host", "second-host"]
    body = client.post(url("api_hosts", running), {"user": host.pk, "assigned": False},
                       content_type="application/json").json()
    assert [h["username"] for h in body["hosts"]] == ["second-host"]
    missing = client.post(url("api_hosts", running), {"user": 10**9, "assigned": True},
                          content_type="application/json")
    assert missing.status_code == 400 and missing.json()["detail"]


def test_a_host_cannot_assign_hosts(host_client, running, host):
    refused = host_client.post(url("api_hosts", running), {"user": host.pk, "assigned": False},
                               content_type="application/json")
    assert refused.status_code == 403


def test_the_console_shows_the_organizer_the_hosts_section_and_its_form_assigns(
        client, organizer, running, host):
    from tests.kingofhill.conftest import make_user

    second = make_user("second-host", "host")
    client.force_login(organizer)
    page = client.get(url("host", running)).content.decode()
    assert 'id="game-hosts"' in page and "second-host" in page
    client.post(url("hosts", running), {"user": second.pk, "assigned": "1"})
    assert running.hosts.filter(pk=second.pk).exists()
    client.post(url("hosts", running), {"user": "x", "assigned": "1"})  # a message, no 500
    client.post(url("hosts", running), {"user": host.pk, "assigned": "0"})
    assert not running.hosts.filter(pk=host.pk).exists()


def test_the_host_console_has_no_hosts_section_for_a_host(host_client, running):
    assert 'id="game-hosts"' not in host_client.get(url("host", running)).content.decode()


@pytest.mark.parametrize("text", ["ß" * 200, "\ufdfa" * 20], ids=["eszett", "ligature"])
def test_an_answer_longer_than_its_column_once_normalised_is_a_400_and_stores_nothing(
        host_client, running, phone, alpha, text):
    """Within 300 characters as typed, past them once NFKC and case folding spell it out."""
    services.question_announce(actor=running.hosts.get(), game=running)
    response = phone(alpha).post(url("api_answer", running),
                                 {"text": text, "client_id": str(uuid.uuid4())},
                                 content_type="application/json")
    assert response.status_code == 400
    assert "too long once its letters are spelled out" in response.json()["detail"]
    assert not Answer.objects.filter(application=alpha).exists()


def test_a_past_verdict_that_changes_the_winner_is_a_409_with_the_projection_until_confirmed(
        host_client, running, host, alpha, beta, gamma):
    from tests.kingofhill.play import finish

    finish(running, host, alpha, beta, gamma)
    answer = Answer.objects.get(question__koth=running, question__number=2, application=alpha)
    body = {"question": 2, "normalized": answer.normalized, "verdict": False}
    refused = host_client.post(url("api_judge", running), body, content_type="application/json")
    assert refused.status_code == 409
    data = refused.json()
    assert "Alpha → nobody yet" in data["detail"]
    assert data["change"]["reopens"] is True
    assert {t["team"] for t in data["change"]["teams"]} >= {"Alpha"}
    running.refresh_from_db()
    assert running.status == KothGame.Status.FINISHED

    done = host_client.post(url("api_judge", running), {**body, "confirm": True},
                            content_type="application/json")
    assert done.status_code == 200
    assert done.json()["state"]["game"]["status"] == "running"


def test_the_countdown_and_the_reveal_are_host_actions_with_clear_refusals(
        client, host_client, running, phone):
    assert phone().post(url("api_countdown", running), {"seconds": 60},
                        content_type="application/json").status_code == 403
    early = host_client.post(url("api_countdown", running), {"seconds": 60},
                             content_type="application/json")
    assert early.status_code == 400 and "before starting its countdown" in early.json()["detail"]
    host_client.post(url("api_announce", running), {}, content_type="application/json")
    for bad in (-5, 601, "soon"):
        refused = host_client.post(url("api_countdown", running), {"seconds": bad},
                                   content_type="application/json")
        assert refused.status_code == 400 and refused.json()["detail"], bad
    started = host_client.post(url("api_countdown", running), {"seconds": 30},
                               content_type="application/json").json()
    assert started["state"]["question"]["countdown"]["seconds"] == 30
    nothing = host_client.post(url("api_reveal", running), {}, content_type="application/json")
    assert nothing.status_code == 400 and "No question has been closed" in nothing.json()["detail"]
