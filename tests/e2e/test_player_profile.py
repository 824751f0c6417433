"""A player's profile in real Chromium (rule 2.6): the captain copies the invitation of a
roster entry from its page, the player opens it, signs up, opens the e-mail link, claims the
entry, gives their name, and their page lists the game they played with its points."""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from playwright.sync_api import expect

from core.accounts.tokens import verification_token
from tests.conftest import artifacts_dir

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000
PASSWORD = "a-long-Passw0rd-2026"


@pytest.fixture
def played_season(asgi_server):
    from django.core.cache import cache

    from rating import services
    from teams.models import Application
    from tests.rating.helpers import captained_teams, finalize, koth_game, make_organizer, player

    cache.clear()
    organizer = make_organizer()
    teams = captained_teams()
    # The game starts tomorrow (so a profile linked today counts, rule 2.6) and was played
    # ahead: the rating needs its final results.
    game = koth_game(organizer, teams=teams, title="Царь Горы: декабрь", days=31)
    anna = player(teams[0], "Аня")
    Application.objects.get(game=game, team=teams[0]).members.set([anna])
    services.results_publish(actor=organizer, game=game)
    finalize(organizer, game)
    season = services.season_create(actor=organizer, title="Зима", format="kingofhill")
    services.season_game_add(actor=organizer, season=season, game=game)
    return teams[0], anna, game


def logged_in(new_page, server, user):
    client = Client()
    client.force_login(user)
    page = new_page()
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": server}])
    return page


def test_the_captain_invites_the_player_signs_up_and_their_page_lists_the_game(
        asgi_server, new_page, played_season):
    team, anna, game = played_season
    errors: list[str] = []
    captain = logged_in(new_page, asgi_server, team.captain)
    captain.on("pageerror", lambda exc: errors.append(str(exc)))
    captain.goto(f"{asgi_server}/teams/{team.pk}/members/{anna.pk}/")
    invite = captain.locator("#invite-url").input_value()
    assert "/teams/invite/" in invite

    phone = new_page({"width": 390, "height": 844})
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    invite_path = urlsplit(invite).path
    phone.goto(asgi_server + invite_path)
    phone.click("#invite-signup")
    phone.fill("#id_username", "anna")
    phone.fill("#id_email", "anna@example.org")
    phone.fill("#id_password1", PASSWORD)
    phone.fill("#id_password2", PASSWORD)
    phone.click("#signup-form button[type=submit]")
    expect(phone.locator("#signup-done")).to_be_visible(timeout=WAIT)

    # The e-mail goes out from the server's process; its link is this one (same secret).
    user = User.objects.get(username="anna")
    link = (f"/accounts/verify/{urlsafe_base64_encode(force_bytes(user.pk))}/"
            f"{verification_token.make_token(user)}/?next={quote(invite_path)}")
    phone.goto(asgi_server + link)
    expect(phone.locator("#invite-claim")).to_be_visible(timeout=WAIT)
    phone.click("#invite-claim")
    expect(phone).to_have_url(re.compile(r"/accounts/profile/$"), timeout=WAIT)
    phone.fill("#id_last_name", "Лисицына")
    phone.fill("#id_first_name", "Анна")
    phone.click("#profile-form button[type=submit]")
    expect(phone.locator("#rating-name")).to_have_text("Лисицына Анна", timeout=WAIT)
    phone.click("#my-games")
    expect(phone.locator("#player-name")).to_have_text("Лисицына Анна", timeout=WAIT)
    row = phone.locator(".player-games tbody tr").first
    expect(row).to_contain_text(game.title)
    expect(row.locator("td.num").last).to_have_text(re.compile(r"^\d+$"))
    phone.screenshot(path=str(artifacts_dir() / "player-profile-phone.png"), full_page=True)

    captain.reload()
    expect(captain.locator("#profile-linked")).to_contain_text("Лисицына Анна")
    assert errors == []
