"""The rating API: organizer-only writes (403 and nothing changes for others), public reads,
refusals as ``{"detail"}``, and the season record that replays to the table it serves."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from rating import rules
from rating.models import GameResult, Season
from teams.models import Benefit
from tests.rating.helpers import get_teams, gorod_game, koth_game, make_organizer, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return make_organizer()


@pytest.fixture
def api(organizer):
    client = APIClient()
    client.force_login(organizer)
    return client


@pytest.fixture
def outsider_api():
    client = APIClient()
    client.force_login(make_user("outsider"))
    return client


def url(name, *args):
    return reverse(f"rating:{name}", args=args)


def test_publish_finalize_reopen_through_the_api(api, organizer):
    game = gorod_game(organizer)
    response = api.post(url("api_publish", game.pk))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "preliminary"
    assert [(r["team_name"], r["place"], r["disqualified"]) for r in body["rows"]] == [
        ("Alpha", 1, False), ("Beta", 2, False), ("Gamma", None, True)]
    response = api.post(url("api_finalize", game.pk))
    assert response.status_code == 400 and "early" in response.json()["detail"]
    assert api.post(url("api_finalize", game.pk), {"early": True, "reason": "all agreed"},
                    format="json").json()["status"] == "final"
    assert Benefit.objects.filter(game=game).count() == 2
    assert api.post(url("api_reopen", game.pk), {}, format="json").status_code == 400
    response = api.post(url("api_reopen", game.pk), {"reason": "protest"}, format="json")
    assert response.json()["status"] == "preliminary"
    assert APIClient().get(url("api_results", game.pk)).json()["reopen_reason"] == "protest"


def test_an_unfinished_game_is_refused_with_a_detail(api, organizer):
    game = koth_game(organizer, finish=False)
    response = api.post(url("api_publish", game.pk))
    assert response.status_code == 400 and "not finished" in response.json()["detail"]
    assert APIClient().get(url("api_results", game.pk)).status_code == 404


def test_rows_organizer_and_votes(api, organizer):
    game = gorod_game(organizer)
    alpha, beta, _gamma = get_teams(organizer)
    omega = get_teams(organizer, ["Omega"])[0]
    api.post(url("api_publish", game.pk))
    rows = [{"team": alpha.pk, "place": 1}, {"team": beta.pk, "place": 2, "deduction": 4,
                                             "reason": "late start"},
            {"team": _gamma.pk, "disqualified": True}]
    body = api.post(url("api_table", game.pk), {"rows": rows}, format="json").json()
    assert next(r for r in body["rows"] if r["team_name"] == "Beta")["deduction"] == 4
    rows[1]["reason"] = ""
    rows[1]["deduction"] = 5
    response = api.post(url("api_table", game.pk), {"rows": rows}, format="json")
    assert response.status_code == 400 and "why" in response.json()["detail"]
    response = api.post(url("api_organizer", game.pk), {"team": omega.pk}, format="json")
    assert response.json()["organizing_team"] == omega.pk
    response = api.post(url("api_vote", game.pk, alpha.pk), {"value": 75}, format="json")
    assert response.status_code == 200, response.content
    [vote] = response.json()["votes"]  # the organizer (Alpha's captain here) sees who voted
    assert (vote["team"], vote["value"], vote["voted_by"]) == (alpha.pk, 75, "organizer")
    assert APIClient().get(url("api_results", game.pk)).json()["votes"] == []
    assert api.post(url("api_vote", game.pk, alpha.pk), {"value": 60},
                    format="json").status_code == 400


def test_non_organizers_get_403_and_nothing_changes(outsider_api, organizer):
    game = gorod_game(organizer)
    alpha = get_teams(organizer)[0]
    anonymous = APIClient()
    for client in (outsider_api, anonymous):
        assert client.post(url("api_publish", game.pk)).status_code == 403
        assert client.post(url("api_finalize", game.pk)).status_code == 403
        assert client.post(url("api_table", game.pk), {"rows": [{"team": alpha.pk}]},
                           format="json").status_code == 403
        assert client.post(url("api_seasons"), {"title": "S", "format": "gorod"},
                           format="json").status_code == 403
    assert not GameResult.objects.exists() and not Season.objects.exists()
    season = Season.objects.create(title="S", format="gorod", scale=[100, 96])
    assert outsider_api.get(url("api_season_record", season.pk)).status_code == 403
    assert outsider_api.post(url("api_season_games", season.pk), {"game": game.pk},
                             format="json").status_code == 403
    assert not season.games.exists()


def test_seasons_and_the_record_replaying_to_the_table(api, organizer):
    teams = get_teams(organizer)
    first, second = gorod_game(organizer, teams=teams), gorod_game(organizer, title="2", days=3,
                                                                    teams=teams)
    response = api.post(url("api_seasons"), {"title": "Зима", "format": "gorod"}, format="json")
    assert response.status_code == 201
    season_id = response.json()["id"]
    for game in (first, second):
        assert api.post(url("api_season_games", season_id), {"game": game.pk},
                        format="json").status_code == 200
        api.post(url("api_publish", game.pk))
    api.post(url("api_finalize", first.pk), {"early": True, "reason": "r"}, format="json")
    assert [s["id"] for s in APIClient().get(url("api_seasons")).json()] == [season_id]
    table = APIClient().get(url("api_season", season_id)).json()
    record = api.get(url("api_season_record", season_id)).json()
    assert len(record["games"]) == 1
    assert rules.replay(record)["teams"] == table["teams"]
    assert [(t["team"], t["points"]) for t in table["teams"]] == [
        ("Alpha", 100), ("Beta", 96), ("Gamma", 0)]
    response = api.delete(url("api_season_game_remove", season_id, first.pk))
    assert response.status_code == 200 and response.json()["games"] == [second.pk]
    assert APIClient().get(url("api_season", season_id)).json()["teams"] == []


def test_a_vote_through_the_api_is_the_captains_alone(api, outsider_api, organizer):
    game = gorod_game(organizer)
    alpha = get_teams(organizer)[0]
    omega = get_teams(make_user("omega-captain"), ["Omega"])[0]
    api.post(url("api_publish", game.pk))
    api.post(url("api_organizer", game.pk), {"team": omega.pk}, format="json")
    response = outsider_api.post(url("api_vote", game.pk, alpha.pk), {"value": 50},
                                 format="json")
    assert response.status_code == 403 and "captain" in response.json()["detail"]
    assert APIClient().post(url("api_vote", game.pk, alpha.pk), {"value": 50},
                            format="json").status_code == 403
    response = api.post(url("api_table", game.pk), {"rows": [
        {"team": t.pk, "place": 1} for t in get_teams(organizer)]}, format="json")
    assert response.status_code == 400 and "same place" in response.json()["detail"]
    assert api.get(url("api_results", game.pk)).json()["vote_count"] == 0


def test_numbers_past_their_columns_are_a_400_detail_and_nothing_changes(api, organizer):
    game = gorod_game(organizer)
    teams = get_teams(organizer)
    api.post(url("api_publish", game.pk))
    for row, field in [({"deduction": 2**32}, "deduction"), ({"place": 40000}, "place")]:
        rows = [{"team": t.pk, "place": i} for i, t in enumerate(teams, start=1)]
        rows[1].update(row)
        response = api.post(url("api_table", game.pk), {"rows": rows}, format="json")
        assert response.status_code == 400 and field in response.json()["detail"]
    response = api.post(url("api_organizer", game.pk), {"team": 2**63}, format="json")
    assert response.status_code == 400 and "team:" in response.json()["detail"]
    assert api.get(url("api_results", game.pk)).json()["organizing_team"] is None


def test_a_game_id_past_the_range_in_the_url_is_a_404_detail(api, organizer):
    response = api.get(f"/rating/api/games/{2**63}/results/", format="json")
    assert response.status_code == 404 and response.json()["detail"]
