"""The GoRoD API: permissions, every action, bad input → 400 and nothing stored."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from gorod.live import LIVE
from gorod.models import CodeAttempt, GorodGame, Ruling
from live.messages import PUBLIC
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import LEVELS, join_session
from tests.live_checks import public_read_checked, unknown_public_read_checked

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def phone(entry) -> Client:
    client = Client()
    join_session(client, entry)
    return client


def url(game, action):
    return f"/gorod/api/games/{game.pk}/{action}/"


def test_create_start_and_end_through_the_api(scheduled, entries, organizer):
    client = logged_in(organizer)
    levels = [{k: v for k, v in level.items()} for level in LEVELS]
    created = client.post("/gorod/api/games/", {"game": scheduled.pk, "levels": levels},
                          content_type="application/json")
    assert created.status_code == 201, created.json()
    gg = GorodGame.objects.get(pk=scheduled.pk)
    assert gg.levels.count() == 3
    started = client.post(url(gg, "start"))
    assert started.status_code == 200
    assert started.json()["state"]["game"]["status"] == "running"
    again = client.post(url(gg, "start"))
    assert again.status_code == 400 and "already started" in again.json()["detail"]
    ended = client.post(url(gg, "end"))
    assert ended.json()["state"]["game"]["status"] == "finished"


def test_organizer_actions_are_refused_to_others(live, outsider, alpha):
    for client in (Client(), logged_in(outsider), phone(alpha)):
        for action in ("start", "end", "rulings"):
            assert client.post(url(live, action), {}).status_code == 403
        assert client.get(url(live, "organizer/state")).status_code == 403
        assert client.get(url(live, "record")).status_code == 403


def test_a_phone_enters_codes_and_gets_clear_answers(live, alpha):
    client = phone(alpha)
    wrong = client.post(url(live, "code"), {"text": "nope"}, content_type="application/json")
    assert wrong.status_code == 200 and wrong.json()["verdict"] == "wrong"
    assert wrong.json()["message"] == "Wrong code."
    right = client.post(url(live, "code"), {"text": "g1r1d"}, content_type="application/json")
    body = right.json()
    assert body["closed"] and body["message"] == "Code accepted: the level is closed."
    assert body["state"]["me"]["level"]["label"] == "2"


def test_a_retried_code_with_the_same_client_id_counts_once(live, alpha):
    client = phone(alpha)
    cid = str(uuid.uuid4())
    for _ in range(2):
        response = client.post(url(live, "code"), {"text": "nope", "client_id": cid},
                               content_type="application/json")
    assert response.json()["duplicate"] is True
    assert CodeAttempt.objects.count() == 1


def test_brute_force_answers_wait(live, alpha):
    client = phone(alpha)
    for i in range(10):
        client.post(url(live, "code"), {"text": f"x{i}"}, content_type="application/json")
    refused = client.post(url(live, "code"), {"text": "x"}, content_type="application/json")
    body = refused.json()
    assert refused.status_code == 400 and "wait" in body["detail"]
    assert body["verdict"] == "limited" and 1 <= body["wait_s"] <= 60
    # The refusal is committed (the organizer's log shows it), not rolled back.
    assert CodeAttempt.objects.filter(verdict="limited").count() == 1


def test_a_closed_level_code_answers_200_closed_level_with_a_message(live, alpha):
    client = phone(alpha)
    client.post(url(live, "code"), {"text": "G1R1D"}, content_type="application/json")
    again = client.post(url(live, "code"), {"text": "G1R1D"}, content_type="application/json")
    assert again.status_code == 200
    body = again.json()
    assert body["verdict"] == "closed_level" and not body["closed"]
    assert body["message"].startswith("Level 1 is already closed")
    assert body["state"]["me"]["level"]["label"] == "2"


def test_a_code_needs_a_joined_phone_and_a_running_game(gorod, alpha):
    assert Client().post(url(gorod, "code"), {"text": "x"}).status_code == 403
    refused = phone(alpha).post(url(gorod, "code"), {"text": "G1R1D"},
                                content_type="application/json")
    assert refused.status_code == 400 and "not started" in refused.json()["detail"]


def test_a_phone_must_send_the_csrf_token(live, alpha):
    client = Client(enforce_csrf_checks=True)
    join_session(client, alpha)
    assert client.post(url(live, "code"), {"text": "x"}).status_code == 403


def test_rulings_through_the_api(live, organizer, alpha):
    client = logged_in(organizer)
    ok = client.post(url(live, "rulings"), {"application": alpha.pk, "type": "penalty",
                                            "minutes": 10, "reason": "speeding"},
                     content_type="application/json")
    assert ok.status_code == 200
    assert ok.json()["state"]["rulings"][0]["reason"] == "speeding"
    refused = client.post(url(live, "rulings"), {"application": alpha.pk, "type": "sliv",
                                                 "level": "3"},
                          content_type="application/json")
    assert refused.status_code == 400 and "before the team received" in refused.json()["detail"]
    bad = client.post(url(live, "rulings"), {"application": alpha.pk, "type": "timeout",
                                             "minutes": 45}, content_type="application/json")
    assert bad.status_code == 400 and "outside" in bad.json()["detail"]
    assert Ruling.objects.count() == 1


def test_the_record_downloads_and_replays(live, organizer, alpha):
    phone(alpha).post(url(live, "code"), {"text": "G1R1D"}, content_type="application/json")
    response = logged_in(organizer).get(url(live, "record") + "?download=1")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    record = response.json()
    assert record["format"] == "gorod" and record["events"][0]["type"] == "code"


def test_states_for_each_audience(live, alpha, beta, organizer):
    phone(alpha).post(url(live, "code"), {"text": "alpha-secret"}, content_type="application/json")
    public = Client().get(url(live, "state")).json()
    assert public["state"]["statistics"] is None  # live statistics are for organizers
    beta_state = phone(beta).get(url(live, "team/state")).json()
    assert "alpha-secret" not in str(beta_state)
    org = logged_in(organizer).get(url(live, "organizer/state")).json()
    assert org["state"]["attempts"][0]["text"] == "alpha-secret"
    assert len(org["state"]["statistics"]["rows"]) == 3


def test_the_public_state_is_the_stored_text_in_one_query_without_drf_negotiation(
        live, monkeypatch, django_assert_num_queries):
    stored = LIVE.read(live.pk, PUBLIC)
    public_read_checked(Client(), url(live, "state"), stored, monkeypatch=monkeypatch,
                        assert_num_queries=django_assert_num_queries)


def test_an_unknown_games_public_state_is_drfs_404_detail_in_one_query(
        django_assert_num_queries):
    assert unknown_public_read_checked(
        Client(), "/gorod/api/games/999999/state/",
        assert_num_queries=django_assert_num_queries) == {"detail": "No GoRoD game here."}


def test_routes_generate(gorod, organizer):
    response = logged_in(organizer).post(url(gorod, "routes"), {"seed": "7"},
                                         content_type="application/json")
    assert response.status_code == 200 and len(response.json()) == 3


def test_the_schema_documents_the_gorod_api(admin_client):
    schema = admin_client.get("/api/schema/?format=json").json()
    assert "/gorod/api/games/{game_id}/code/" in schema["paths"]


# --- hostile input: a 400 with a detail, nothing stored --------------------------------------

BIG = 2**63


@pytest.mark.parametrize(
    ("codes", "says"),
    [
        pytest.param("G1R12345D", "must be an object", id="a string where an object belongs"),
        pytest.param({"sectors": [{"name": "north", "codes": "G1R11D"}]},
                     '"codes" must be a list of strings', id="codes as a string, not split"),
        pytest.param({"sectors": [{"name": "n", "kind": "personal", "codes": ["R7D"],
                                   "personal": "G1A"}]},
                     '"personal" must map each team name', id="personal as a string"),
        pytest.param({"sectors": [{"name": "n", "kind": "personal", "codes": ["R7D"],
                                   "personal": {"Alpha": ["G1A"]}}]},
                     '"personal" must map each team name', id="a personal part as a list"),
        pytest.param({"code": None}, '"code" must be a non-empty string', id="a null code"),
        pytest.param({"sectors": "north"}, '"sectors" (a list)', id="sectors as a string"),
        pytest.param({"sectors": [["n"]]}, "sector 1 must be an object", id="a sector as a list"),
    ],
)
def test_malformed_codes_are_a_400_detail_and_nothing_is_created(scheduled, organizer, codes, says):
    level = {**LEVELS[0], "codes": codes}
    response = logged_in(organizer).post("/gorod/api/games/", {"game": scheduled.pk,
                                                               "levels": [level]},
                                         content_type="application/json")
    assert response.status_code == 400
    assert says in response.json()["detail"]
    assert not GorodGame.objects.filter(pk=scheduled.pk).exists()


def test_ids_past_the_column_range_in_bodies_are_a_400_detail(running, organizer):
    client = logged_in(organizer)
    response = client.post("/gorod/api/games/", {"game": BIG}, content_type="application/json")
    assert response.status_code == 400 and "game:" in response.json()["detail"]
    response = client.post(url(running, "rulings"), {"application": BIG, "type": "bonus"},
                           content_type="application/json")
    assert response.status_code == 400 and "application:" in response.json()["detail"]
    assert not Ruling.objects.exists()


def test_a_ruling_dated_in_year_1_is_a_400(running, organizer, alpha):
    response = logged_in(organizer).post(
        url(running, "rulings"),
        {"application": alpha.pk, "type": "bonus", "minutes": 5, "at": "0001-01-01T00:00:00+03:00"},
        content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"] == "at: Datetime value out of range."
    assert not Ruling.objects.exists()


def test_a_nul_in_a_code_is_a_400_and_no_attempt_is_stored(live, alpha):
    response = phone(alpha).post(url(live, "code"), '{"text": "G1\\u0000R"}',
                                 content_type="application/json")
    assert response.status_code == 400 and "NUL" in response.json()["detail"]
    assert not CodeAttempt.objects.exists()


# --- timeouts, corrections, photos --------------------------------------------------------------


def test_a_phone_asks_for_a_timeout_and_the_organizer_confirms_it(live, organizer, alpha):
    from gorod.models import TimeoutRequest

    bad = phone(alpha).post(url(live, "timeout"), {"minutes": 40, "reason": "rain"},
                            content_type="application/json")
    assert bad.status_code == 400 and "1 to 30 minutes" in bad.json()["detail"]
    asked = phone(alpha).post(url(live, "timeout"), {"minutes": 10, "reason": "rain"},
                              content_type="application/json")
    assert asked.status_code == 200
    assert asked.json()["state"]["me"]["timeout_request"]["status"] == "pending"
    request = TimeoutRequest.objects.get()
    refused = phone(alpha).post(url(live, f"timeouts/{request.pk}"), {"accept": True},
                                content_type="application/json")
    assert refused.status_code == 403
    confirmed = logged_in(organizer).post(url(live, f"timeouts/{request.pk}"), {"accept": True},
                                          content_type="application/json")
    assert confirmed.status_code == 200, confirmed.json()
    assert confirmed.json()["state"]["timeout_requests"][0]["status"] == "confirmed"
    again = logged_in(organizer).post(url(live, f"timeouts/{request.pk}"), {"accept": False},
                                      content_type="application/json")
    assert again.status_code == 400 and "answered already" in again.json()["detail"]


def test_rulings_are_undone_and_edited_through_the_api(live, organizer, alpha):
    client = logged_in(organizer)
    client.post(url(live, "rulings"), {"application": alpha.pk, "type": "penalty", "minutes": 5},
                content_type="application/json")
    ruling = Ruling.objects.get()
    edited = client.post(url(live, f"rulings/{ruling.pk}"), {"minutes": 7, "reason": "typo"},
                         content_type="application/json")
    assert edited.status_code == 200, edited.json()
    assert edited.json()["state"]["rulings"][0]["minutes"] == 7
    no_reason = client.post(url(live, f"rulings/{ruling.pk}/undo"), {"reason": ""},
                            content_type="application/json")
    assert no_reason.status_code == 400 and "Say why" in no_reason.json()["detail"]
    undone = client.post(url(live, f"rulings/{ruling.pk}/undo"), {"reason": "wrong team"},
                         content_type="application/json")
    assert undone.status_code == 200
    assert undone.json()["state"]["rulings"][0]["undone_at"]
    missing = client.post(url(live, "rulings/999999/undo"), {"reason": "x"},
                          content_type="application/json")
    assert missing.status_code == 400 and "no such ruling" in missing.json()["detail"]


def test_a_photo_is_uploaded_judged_and_shown_only_to_organizers(live, organizer, alpha):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from gorod.models import Level, PhotoProof
    from tests.images import PNG as png

    Level.objects.filter(gorod=live, label="1").update(photo_proof=True)
    not_image = phone(alpha).post(url(live, "photo"),
                                  {"photo": SimpleUploadedFile("x.png", b"hello")})
    assert not_image.status_code == 400 and "not a PNG" in not_image.json()["detail"]
    missing = phone(alpha).post(url(live, "photo"), {})
    assert missing.status_code == 400 and "photo" in missing.json()["detail"]
    sent = phone(alpha).post(url(live, "photo"), {"photo": SimpleUploadedFile("x.png", png)})
    assert sent.status_code == 200, sent.json()
    proof = PhotoProof.objects.get()
    assert phone(alpha).get(f"/gorod/{live.pk}/photos/{proof.pk}").status_code in (302, 403)
    shown = logged_in(organizer).get(f"/gorod/{live.pk}/photos/{proof.pk}")
    assert shown.status_code == 200 and shown.content == bytes(proof.data)
    accepted = logged_in(organizer).post(url(live, f"photos/{proof.pk}"), {"accept": True},
                                         content_type="application/json")
    assert accepted.status_code == 200, accepted.json()
    assert phone(alpha).get(url(live, "team/state")).json()["state"]["me"]["level"]["label"] == "2"


def test_a_phone_sees_the_task_images_of_its_levels_only_once_it_received_them(live, alpha):
    from gorod.models import Level, TaskImage

    png = b"\x89PNG\r\n\x1a\n" + b"\1" * 16
    TaskImage.objects.create(gorod=live, name="map.png", content_type="image/png", data=png,
                             size=len(png))
    Level.objects.filter(gorod=live, label__in=["1", "2"]).update(images=["map.png"], danger=3)
    services_refresh(live)
    state = phone(alpha).get(url(live, "team/state")).json()["state"]["me"]["level"]
    assert state["danger"] == 3 and "extremely careful" in state["danger_text"]
    assert phone(alpha).get(state["images"][0]).content == png
    assert phone(alpha).get(f"/gorod/{live.pk}/play/images/2/map.png").status_code == 404
    assert Client().get(state["images"][0]).status_code == 403  # not a team phone


def services_refresh(game):
    from gorod.live import LIVE

    LIVE.refresh(game=game.pk)


def test_the_organizer_switches_the_leaderboard_through_the_api(live, organizer, alpha):
    on = logged_in(organizer).post(url(live, "leaderboard"), {"public": True},
                                   content_type="application/json")
    assert on.status_code == 200 and on.json()["state"]["leaderboard"]
    assert Client().get(url(live, "state")).json()["state"]["leaderboard"][0]["levels_closed"] == 0
    assert phone(alpha).post(url(live, "leaderboard"), {"public": False},
                             content_type="application/json").status_code == 403
    bad = logged_in(organizer).post(url(live, "leaderboard"), {"public": "maybe"},
                                    content_type="application/json")
    assert bad.status_code == 400


def test_a_code_for_a_game_with_no_gorod_set_up_yet_is_a_404_with_its_detail(scheduled, alpha):
    response = phone(alpha).post(f"/gorod/api/games/{scheduled.pk}/code/",
                                 {"text": "G1R1D", "client_id": str(uuid.uuid4())},
                                 content_type="application/json")
    assert response.status_code == 404, response.content
    assert "No GoRoD game" in response.json()["detail"]
    assert not CodeAttempt.objects.exists()
