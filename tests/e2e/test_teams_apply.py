"""A captain applies by himself to a GoRoD night the organizer has just published, in real
Chromium on a phone: once from the game's page (reached from the games list) and once, with
another team, from the team's page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import ORGANIZER
from gorod import services as gorod_services
from teams import services as team_services
from teams.models import Application
from tests.gorod.fixtures_live import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def fresh_night(asgi_server):
    organizer = make_user("organizer-apply", ORGANIZER)
    return gorod_services.gorod_create(actor=organizer, title="ГоРоД: только что",
                                       starts_at=timezone.now() + timedelta(days=5)).game


@pytest.fixture
def captain(asgi_server):
    user = make_user("captain-apply")
    teams = []
    for name, nicks in (("Полуночники", ("Лис", "Ёж")), ("Следопыты", ("Сыч", "Рысь", "Уж"))):
        team = team_services.team_create(captain=user, name=name)
        for nick in nicks:
            team_services.member_create(team=team, nickname=nick)
        teams.append(team)
    return user, teams


def logged_in(browser, base, user):
    context = browser.new_context(viewport=PHONE, locale="ru-RU")
    client = Client()
    client.force_login(user)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                          "url": base}])
    return context


def test_a_captain_applies_to_a_fresh_gorod_night_from_the_game_page_and_the_team_page(
        browser, asgi_server, fresh_night, captain):
    user, (midnight, trackers) = captain
    context = logged_in(browser, asgi_server, user)
    try:
        page = context.new_page()
        # From the games list to the night's page, and its Apply for the first team.
        page.goto(f"{asgi_server}/teams/games/")
        page.get_by_role("link", name=fresh_night.title).click()
        card = page.locator(f'#apply-box li[data-team="{midnight.pk}"]')
        card.locator(".apply-link").click()
        page.get_by_label("Лис").check()
        page.get_by_label("Ёж").check()
        page.locator("main form button[type=submit]").click()
        expect(page).to_have_url(f"{asgi_server}/teams/games/{fresh_night.pk}/about/",
                                 timeout=WAIT)
        expect(card.locator(".status")).to_have_text("на рассмотрении")
        assert Application.objects.get(game=fresh_night, team=midnight).members.count() == 2

        # From the second team's page: the night is listed among the games open to apply.
        page.goto(f"{asgi_server}/teams/{trackers.pk}/")
        page.locator(f'a[href="/teams/{trackers.pk}/apply/{fresh_night.pk}/"]').click()
        for nick in ("Сыч", "Рысь", "Уж"):
            page.get_by_label(nick).check()
        page.locator("main form button[type=submit]").click()
        expect(page).to_have_url(f"{asgi_server}/teams/{trackers.pk}/", timeout=WAIT)
        expect(page.locator(".cards .card", has_text=fresh_night.title)).to_contain_text(
            "на рассмотрении")
        application = Application.objects.get(game=fresh_night, team=trackers)
        assert application.status == Application.Status.PENDING
        assert application.members.count() == 3
    finally:
        context.close()
