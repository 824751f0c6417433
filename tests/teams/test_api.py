"""The teams API: shapes, domain errors as 400 {"detail"}, the phone join flow."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from teams import services
from teams.models import Application, Game
from tests.teams.conftest import api_login

pytestmark = pytest.mark.django_db


def test_captain_creates_team_and_members(alpha):
    client = api_login(alpha)
    response = client.post("/teams/api/teams/", {"name": " Гамма "}, format="json")
    assert response.status_code == 201, response.content
    team_id = response.json()["id"]
    assert response.json()["name"] == "Гамма"
    response = client.post(
        f"/teams/api/teams/{team_id}/members/",
        {"nickname": "Zoe", "full_name": "Зоя", "phone": "+7 1", "email": "z@example.org"},
        format="json",
    )
    assert response.status_code == 201
    member_id = response.json()["id"]
    response = client.patch(
        f"/teams/api/teams/{team_id}/members/{member_id}/", {"phone": "+7 2"}, format="json"
    )
    assert response.json()["phone"] == "+7 2"
    assert client.get(f"/teams/api/teams/{team_id}/").json()["members"][0]["full_name"] == "Зоя"
    assert client.delete(f"/teams/api/teams/{team_id}/members/{member_id}/").status_code == 204


@pytest.mark.parametrize(
    "name", ["", "   ", "x" * 1000], ids=["empty", "whitespace", "1000 characters"]
)
def test_bad_name_is_a_400_with_detail(alpha, name):
    response = api_login(alpha).post("/teams/api/teams/", {"name": name}, format="json")
    assert response.status_code == 400
    assert "detail" in response.json()


def test_duplicate_name_is_a_400(alpha, team_beta):
    response = api_login(alpha).post("/teams/api/teams/", {"name": "бета"}, format="json")
    assert response.status_code == 400
    assert "already exists" in response.json()["detail"] or "уже" in response.json()["detail"]


def test_organizer_publishes_game_with_warning(organizer):
    from django.utils import timezone

    response = api_login(organizer).post(
        "/teams/api/games/",
        {
            "title": "Скорая игра",
            "format": "kingofhill",
            "starts_at": (timezone.now() + timedelta(days=1)).isoformat(),
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["game"]["fee"] == 400 and body["game"]["rated"] is True
    assert body["publication_warning"]
    assert body["few_applications"] is True


def test_game_list_is_public(game):
    response = APIClient().get("/teams/api/games/")
    assert response.status_code == 200
    assert response.json()[0]["title"] == "Ночной ГоРоД"


def test_apply_approve_pay_flow(game, team_alpha, organizer, alpha):
    members = list(team_alpha.members.values_list("pk", flat=True))
    response = api_login(alpha).post(
        f"/teams/api/games/{game.pk}/applications/",
        {"team": team_alpha.pk, "members": members},
        format="json",
    )
    assert response.status_code == 201, response.content
    application_id = response.json()["id"]
    assert response.json()["join_url"] is None
    org = api_login(organizer)
    response = org.post(f"/teams/api/applications/{application_id}/approve/")
    assert response.status_code == 200
    assert response.json()["status"] == "approved"
    assert "/teams/j/" in response.json()["join_url"]
    assert len(response.json()["join_pin"]) == 6
    response = org.post(f"/teams/api/applications/{application_id}/paid/", {"paid": True})
    assert response.json()["paid"] is True
    detail = api_login(alpha).get(f"/teams/api/applications/{application_id}/").json()
    assert detail["amount_due"] == 400
    ledger = api_login(alpha).get(f"/teams/api/teams/{team_alpha.pk}/ledger/").json()
    assert ledger["lines"][0]["due"] == 400 and ledger["total_due"] == 0


def test_roster_too_small_is_a_400(koth_game, team_alpha, alpha):
    member = team_alpha.members.first()
    response = api_login(alpha).post(
        f"/teams/api/games/{koth_game.pk}/applications/",
        {"team": team_alpha.pk, "members": [member.pk]},
        format="json",
    )
    assert response.status_code == 400
    assert "detail" in response.json()


def test_other_teams_member_in_roster_is_a_400(game, team_alpha, team_beta, alpha):
    ids = [*team_alpha.members.values_list("pk", flat=True)[:2], team_beta.members.first().pk]
    response = api_login(alpha).post(
        f"/teams/api/games/{game.pk}/applications/",
        {"team": team_alpha.pk, "members": ids},
        format="json",
    )
    assert response.status_code == 400


def test_approve_twice_is_a_400(approved_alpha, organizer):
    response = api_login(organizer).post(f"/teams/api/applications/{approved_alpha.pk}/approve/")
    assert response.status_code == 400
    assert response.json()["detail"]


def test_cancel_and_notices(game, approved_alpha, organizer, alpha):
    response = api_login(organizer).post(
        f"/teams/api/games/{game.pk}/cancel/", {"reason": "мало"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["game"]["status"] == "cancelled"
    notices = api_login(alpha).get(f"/teams/api/teams/{approved_alpha.team_id}/notices/").json()
    assert notices[0]["kind"] == "game_cancelled" and notices[0]["text"] == "мало"


def test_bans_api(team_alpha, organizer, game, alpha):
    org = api_login(organizer)
    response = org.post(
        f"/teams/api/teams/{team_alpha.pk}/bans/",
        {"reason": "11.3.9", "until": (game.starts_at + timedelta(days=30)).isoformat()},
        format="json",
    )
    assert response.status_code == 201
    members = list(team_alpha.members.values_list("pk", flat=True))
    response = api_login(alpha).post(
        f"/teams/api/games/{game.pk}/applications/",
        {"team": team_alpha.pk, "members": members},
        format="json",
    )
    assert response.status_code == 400
    assert (
        org.delete(f"/teams/api/bans/{team_alpha.bans.first().pk}/").status_code == 204
    )


def test_phone_joins_by_token_and_pin_and_reads_its_entry(approved_alpha):
    phone = APIClient()
    response = phone.post("/teams/api/join/", {"token": approved_alpha.join_token}, format="json")
    assert response.status_code == 200
    assert response.json()["team_name"] == "Альфа"
    entry = phone.get(f"/teams/api/games/{approved_alpha.game_id}/entry/")
    assert entry.status_code == 200 and entry.json()["team"] == approved_alpha.team_id
    assert phone.delete(f"/teams/api/games/{approved_alpha.game_id}/entry/").status_code == 204
    assert phone.get(f"/teams/api/games/{approved_alpha.game_id}/entry/").status_code == 403
    response = phone.post(
        f"/teams/api/games/{approved_alpha.game_id}/join/",
        {"pin": approved_alpha.join_pin},
        format="json",
    )
    assert response.status_code == 200


def test_wrong_pin_is_a_400_and_then_limited(approved_alpha):
    phone = APIClient()
    wrong = "000000" if approved_alpha.join_pin != "000000" else "111111"
    url = f"/teams/api/games/{approved_alpha.game_id}/join/"
    for _ in range(10):
        assert phone.post(url, {"pin": wrong}, format="json").status_code == 400
    response = phone.post(url, {"pin": approved_alpha.join_pin}, format="json")
    assert response.status_code == 429
    assert "Too many" in response.json()["detail"] or "много" in response.json()["detail"]


def test_a_script_dropping_its_cookie_is_still_limited_by_its_address(approved_alpha):
    wrong = "000000" if approved_alpha.join_pin != "000000" else "111111"
    url = f"/teams/api/games/{approved_alpha.game_id}/join/"
    for _ in range(services.PIN_MAX_FAILURES_PER_ADDRESS):
        response = APIClient(REMOTE_ADDR="203.0.113.9").post(url, {"pin": wrong}, format="json")
        assert response.status_code == 400
    response = APIClient(REMOTE_ADDR="203.0.113.9").post(
        url, {"pin": approved_alpha.join_pin}, format="json"
    )
    assert response.status_code == 429
    assert response.json()["detail"].startswith("Too many wrong PINs. Try again in 10 min")
    other = APIClient(REMOTE_ADDR="198.51.100.3")
    assert other.post(url, {"pin": approved_alpha.join_pin}, format="json").status_code == 200


def test_join_api_enforces_csrf_for_browsers(approved_alpha):
    phone = APIClient(enforce_csrf_checks=True)
    response = phone.post("/teams/api/join/", {"token": approved_alpha.join_token}, format="json")
    assert response.status_code == 403


def test_unknown_objects_are_404(organizer):
    client = api_login(organizer)
    assert client.get("/teams/api/teams/999/").status_code == 404
    assert client.get("/teams/api/applications/999/").status_code == 404
    assert client.post("/teams/api/games/999/cancel/").status_code == 404
    assert APIClient().get("/teams/api/games/999/entry/").status_code == 404


def test_the_schema_documents_every_teams_endpoint_and_method(organizer):
    from teams.urls import api_urls

    response = api_login(organizer).get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    paths = response.json()["paths"]
    routes = {
        "/teams/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(p.pattern)).replace("{pk}", "{id}")
        for p in api_urls
    }
    assert routes and routes <= set(paths), routes - set(paths)
    for route in routes:
        for method, operation in paths[route].items():
            assert operation.get("summary"), (route, method)
    # the phone's endpoints say how the browser is recognised
    assert {"teamPhoneCookieAuth": []} in paths["/teams/api/join/"]["post"]["security"]
    assert {"teamPhoneCookieAuth": []} in paths["/teams/api/games/{game_id}/entry/"]["get"][
        "security"
    ]


def test_withdraw_via_api(approved_alpha, alpha):
    response = api_login(alpha).post(f"/teams/api/applications/{approved_alpha.pk}/withdraw/")
    assert response.status_code == 200
    assert Application.objects.get(pk=approved_alpha.pk).status == "withdrawn"
    assert Game.objects.count() == 1


# --- forwarded addresses cannot dodge the PIN limit ------------------------------------------


def _spend_address_limit(url, wrong, **headers):
    for i in range(services.PIN_MAX_FAILURES_PER_ADDRESS):
        response = APIClient().post(
            url, {"pin": wrong}, format="json", **{k: v.format(i=i) for k, v in headers.items()}
        )
        assert response.status_code == 400, response.content


def test_rotating_x_forwarded_for_does_not_help_without_trusted_proxies(approved_alpha, settings):
    settings.TRUSTED_PROXIES = 0
    wrong = "000000" if approved_alpha.join_pin != "000000" else "111111"
    url = f"/teams/api/games/{approved_alpha.game_id}/join/"
    _spend_address_limit(url, wrong, REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="10.9.{i}.1")
    response = APIClient().post(url, {"pin": approved_alpha.join_pin}, format="json",
                                REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="10.0.0.99")
    assert response.status_code == 429 and "Too many wrong PINs" in response.json()["detail"]


def test_behind_one_proxy_a_forged_leftmost_address_does_not_help(approved_alpha, settings):
    settings.TRUSTED_PROXIES = 1
    wrong = "000000" if approved_alpha.join_pin != "000000" else "111111"
    url = f"/teams/api/games/{approved_alpha.game_id}/join/"
    # the proxy (127.0.0.1) appends the real client; the client prepends whatever it likes
    _spend_address_limit(url, wrong, REMOTE_ADDR="127.0.0.1",
                         HTTP_X_FORWARDED_FOR="10.9.{i}.1, 203.0.113.9")
    response = APIClient().post(url, {"pin": approved_alpha.join_pin}, format="json",
                                REMOTE_ADDR="127.0.0.1",
                                HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.9")
    assert response.status_code == 429
    # another client behind the same proxy is someone else
    response = APIClient().post(url, {"pin": approved_alpha.join_pin}, format="json",
                                REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert response.status_code == 200


@pytest.mark.parametrize("header", ["unknown", "", "not an address, , ;;", "999.1.1.1"])
def test_a_bad_forwarded_header_never_switches_the_limit_off(approved_alpha, settings, header):
    settings.TRUSTED_PROXIES = 1
    wrong = "000000" if approved_alpha.join_pin != "000000" else "111111"
    url = f"/teams/api/games/{approved_alpha.game_id}/join/"
    _spend_address_limit(url, wrong, REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=header)
    response = APIClient().post(url, {"pin": approved_alpha.join_pin}, format="json",
                                REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=header)
    assert response.status_code == 429


def test_a_spent_game_budget_is_a_429_with_a_detail_naming_the_way_in(approved_alpha, settings):
    settings.PIN_GAME_BUDGET_PER_HOUR = 2
    wrong = "000000" if approved_alpha.join_pin != "000000" else "111111"
    url = f"/teams/api/games/{approved_alpha.game_id}/join/"
    for i in range(2):
        APIClient(REMOTE_ADDR=f"198.51.100.{i + 1}").post(url, {"pin": wrong}, format="json")
    response = APIClient(REMOTE_ADDR="192.0.2.9").post(
        url, {"pin": approved_alpha.join_pin}, format="json")
    assert response.status_code == 429
    assert "QR code" in response.json()["detail"]


# --- hostile input: ids, fees and dates past their columns, text no column holds ------------


def test_a_game_dated_in_year_1_is_a_400_detail_and_not_created(organizer):
    client = api_login(organizer)
    for starts_at in ["0001-01-01T00:00:00Z", "0001-01-01T00:30:00+03:00", "9999-12-31T23:59:59Z"]:
        response = client.post("/teams/api/games/", {"title": "x", "format": "gorod",
                                                     "starts_at": starts_at}, format="json")
        assert response.status_code == 400, starts_at
        detail = response.json()["detail"]
        assert "between the years 2000 and 2100" in detail or "value out of range" in detail
    assert not Game.objects.exists()


def test_a_fee_or_ids_past_their_columns_are_a_400_detail(organizer, alpha, game):
    response = api_login(organizer).post("/teams/api/games/", {
        "title": "x", "format": "gorod", "starts_at": "2030-01-01T10:00:00Z", "fee": 2**40},
        format="json")
    assert response.status_code == 400 and "fee:" in response.json()["detail"]
    response = api_login(alpha).post(f"/teams/api/games/{game.pk}/applications/",
                                     {"team": 2**63, "members": [2**70]}, format="json")
    assert response.status_code == 400 and "team:" in response.json()["detail"]


def test_a_nul_in_a_team_name_is_a_400_detail(alpha):
    response = api_login(alpha).post("/teams/api/teams/", '{"name": "A\\u0000B"}',
                                     content_type="application/json")
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


def test_the_api_join_url_carries_public_url_when_set(approved_alpha, organizer, settings):
    settings.PUBLIC_URL = "http://192.0.2.7:8000"  # the address phones reach (hall mode, a proxy)
    detail = api_login(organizer).get(f"/teams/api/applications/{approved_alpha.pk}/").json()
    assert detail["join_url"] == f"http://192.0.2.7:8000/teams/j/{approved_alpha.join_token}/"
