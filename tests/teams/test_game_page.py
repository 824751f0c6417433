"""A game's own page and a team's public page: a captain applies by himself to any game open
for applications (a fresh GoRoD night included) from the game's page and from his team's page,
and the public team list links every team to its page."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from core.roles import ORGANIZER
from gorod import services as gorod_services
from teams.models import Application
from tests.teams.conftest import _user, apply, login

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    return response.content.decode()


@pytest.fixture
def fresh_night(organizer):
    """A GoRoD night as the organizer publishes it from the GoRoD set-up: nothing else done."""
    return gorod_services.gorod_create(actor=organizer, title="ГоРоД: новая ночь",
                                       starts_at=timezone.now() + timedelta(days=6)).game


def test_the_games_list_links_each_game_to_its_page(fresh_night, alpha):
    for client in (login(alpha), login(_user("guest-x"))):
        assert f'href="/teams/games/{fresh_night.pk}/about/"' in _text(client.get("/teams/games/"))


def test_a_captain_applies_to_a_fresh_gorod_night_from_its_page(fresh_night, team_alpha, alpha):
    client = login(alpha)
    page = _text(client.get(f"/teams/games/{fresh_night.pk}/about/"))
    link = f"/teams/{team_alpha.pk}/apply/{fresh_night.pk}/?from=game"
    assert f'href="{link}"' in page
    members = [m.pk for m in team_alpha.members.all()]
    response = client.post(link, {"members": members}, follow=True)
    # Back on the game's page, the application listed with its status.
    assert response.redirect_chain[-1][0] == f"/teams/games/{fresh_night.pk}/about/"
    application = Application.objects.get(game=fresh_night, team=team_alpha)
    assert application.status == Application.Status.PENDING
    assert sorted(application.members.values_list("pk", flat=True)) == sorted(members)
    assert "pending" in _text(response) and "Change roster" in _text(response)


def test_a_captain_applies_to_a_fresh_gorod_night_from_the_team_page(fresh_night, team_alpha,
                                                                     alpha):
    client = login(alpha)
    link = f"/teams/{team_alpha.pk}/apply/{fresh_night.pk}/"
    assert f'href="{link}"' in _text(client.get(f"/teams/{team_alpha.pk}/"))
    response = client.post(link, {"members": [m.pk for m in team_alpha.members.all()]})
    assert response.status_code == 302 and response["Location"] == f"/teams/{team_alpha.pk}/"
    assert Application.objects.filter(game=fresh_night, team=team_alpha).exists()


def test_a_too_small_roster_from_the_game_page_is_refused_with_a_message(fresh_night,
                                                                          team_alpha, alpha):
    response = login(alpha).post(f"/teams/{team_alpha.pk}/apply/{fresh_night.pk}/?from=game",
                                 {"members": [team_alpha.members.first().pk]}, follow=True)
    assert response.status_code == 200 and 'class="messages"' in _text(response)
    assert not Application.objects.filter(game=fresh_night).exists()


def test_the_game_page_lists_only_the_users_own_teams_and_asks_a_guest_to_log_in(
        fresh_night, team_alpha, team_beta, alpha, client):
    page = _text(login(alpha).get(f"/teams/games/{fresh_night.pk}/about/"))
    assert team_alpha.name in page and team_beta.name not in page
    guest = _text(client.get(f"/teams/games/{fresh_night.pk}/about/"))
    assert f"/accounts/login/?next=/teams/games/{fresh_night.pk}/about/" in guest
    assert "/apply/" not in guest


def test_the_game_page_of_a_game_closed_for_applications_offers_no_apply(organizer, team_alpha,
                                                                          alpha):
    night = gorod_services.gorod_create(actor=organizer, title="Скоро",
                                        starts_at=timezone.now() + timedelta(minutes=30)).game
    page = _text(login(alpha).get(f"/teams/games/{night.pk}/about/"))
    assert "closed" in page and "/apply/" not in page


def test_an_unknown_game_page_is_404(client):
    assert client.get("/teams/games/999999/about/").status_code == 404


def test_the_public_team_list_links_to_each_teams_public_page(team_alpha, team_beta, client):
    page = _text(client.get("/teams/all/"))
    links = re.findall(r'href="(/teams/all/\d+/)"', page)
    assert links == [f"/teams/all/{team_alpha.pk}/", f"/teams/all/{team_beta.pk}/"]  # by name
    for link in links:
        assert client.get(link).status_code == 200


def test_a_teams_public_page_shows_nicknames_and_games_but_no_contacts(approved_alpha, client,
                                                                       alpha):
    team = approved_alpha.team
    page = _text(client.get(f"/teams/all/{team.pk}/"))
    assert "Ann" in page and approved_alpha.game.title in page
    assert "Приватов" not in page and "@example.org" not in page
    assert f'href="/teams/{team.pk}/"' not in page  # the captain's page: for its managers only
    assert f'href="/teams/{team.pk}/"' in _text(login(alpha).get(f"/teams/all/{team.pk}/"))


def test_an_organizer_reaches_the_applications_from_the_game_page(fresh_night, organizer):
    page = _text(login(organizer).get(f"/teams/games/{fresh_night.pk}/about/"))
    assert f'href="/teams/games/{fresh_night.pk}/"' in page


def test_a_captain_who_applied_sees_the_status_instead_of_apply(game, team_alpha, alpha):
    apply(team_alpha, game)
    page = _text(login(alpha).get(f"/teams/games/{game.pk}/about/"))
    assert "pending" in page and 'class="apply-link"' not in page


@pytest.fixture(autouse=True)
def organizer_group():
    from django.contrib.auth.models import Group

    Group.objects.get_or_create(name=ORGANIZER)
