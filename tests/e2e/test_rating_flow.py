"""Results and the season rating in real Chromium: an organizer publishes two GoRoD nights
(naming the organizing team of the first), a captain votes on the organizers and protests,
the organizer answers the protest and makes both results final early (the nights end in the
fixtures' future, so the protest window is still open), and the public season table and
chart show the expected order. Screenshots (phone and desktop) in artifacts/."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import expect

from tests.conftest import artifacts_dir

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000


@pytest.fixture
def season_of_two_nights(asgi_server):
    from django.core.cache import cache

    from rating import services
    from tests.rating.helpers import captained_teams, gorod_game, make_organizer

    cache.clear()
    organizer = make_organizer()
    teams = captained_teams()
    omega = captained_teams(["Omega"])[0]
    first = gorod_game(organizer, teams=teams, title="Ночь первая")
    second = gorod_game(organizer, teams=teams, title="Ночь вторая", days=3, disqualify=False)
    season = services.season_create(actor=organizer, title="Зима 2026", format="gorod")
    for game in (first, second):
        services.season_game_add(actor=organizer, season=season, game=game)
    return organizer, teams, omega, first, second, season


def logged_in(new_page, server, user, viewport=None):
    client = Client()
    client.force_login(user)
    page = new_page(viewport)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": server}])
    return page


@pytest.mark.slow
def test_publish_vote_protest_answer_finalize_and_the_public_season(
        asgi_server, new_page, season_of_two_nights):
    organizer, teams, omega, first, second, season = season_of_two_nights
    alpha, beta, gamma = teams
    errors: list[str] = []
    boss = logged_in(new_page, asgi_server, organizer)
    boss.on("pageerror", lambda exc: errors.append(str(exc)))

    # The organizer names the organizing team of the first night and publishes both.
    boss.goto(f"{asgi_server}/rating/games/{first.pk}/")
    boss.select_option("#organizer-form select[name=team]", str(omega.pk))
    boss.click("#organizer-form button")
    boss.click('form[action$="/publish/"] button')
    expect(boss.locator('[data-status="preliminary"]')).to_be_visible(timeout=WAIT)
    expect(boss.locator("#results tbody tr")).to_have_count(3)
    boss.goto(f"{asgi_server}/rating/games/{second.pk}/")
    boss.click('form[action$="/publish/"] button')
    expect(boss.locator('[data-status="preliminary"]')).to_be_visible(timeout=WAIT)

    # Beta's captain votes 100 on Omega's night and protests on the phone-sized page.
    captain = logged_in(new_page, asgi_server, beta.captain, {"width": 390, "height": 844})
    captain.on("pageerror", lambda exc: errors.append(str(exc)))
    captain.goto(f"{asgi_server}/rating/games/{first.pk}/")
    captain.click(f'.vote-form[data-team="{beta.pk}"] button[value="100"]')
    expect(captain.locator(".my-vote")).to_have_text("100", timeout=WAIT)
    captain.fill("#protest-form textarea", "Код уровня 2 засчитан с опозданием")
    captain.click("#protest-form button[type=submit]")
    expect(captain.locator('[data-protest-status="open"]')).to_be_visible(timeout=WAIT)
    captain.screenshot(path=str(artifacts_dir() / "rating-captain-phone.png"), full_page=True)

    # The organizer sees who voted, answers the protest and makes both results final early.
    boss.goto(f"{asgi_server}/rating/games/{first.pk}/")
    expect(boss.locator(f'#vote-table tr[data-team="{beta.pk}"]')).to_contain_text(
        beta.captain.username)
    expect(boss.locator(".organizer-points")).to_contain_text("100")  # K with Q = 100
    boss.fill(".protest-answer-form textarea", "Код пришёл после закрытия уровня.")
    boss.click('.protest-answer-form button[value="0"]')
    expect(boss.locator('[data-protest-status="rejected"]')).to_be_visible(timeout=WAIT)
    boss.screenshot(path=str(artifacts_dir() / "rating-organizer-desktop.png"), full_page=True)
    for game in (first, second):
        boss.goto(f"{asgi_server}/rating/games/{game.pk}/")
        boss.check("#finalize-form input[name=early]")
        boss.fill("#finalize-form input[name=reason]", "Все капитаны согласны")
        boss.click("#finalize-form button")
        expect(boss.locator('[data-status="final"]')).to_be_visible(timeout=WAIT)

    # The public season: Alpha 200, Beta 192, Omega's K = 100 (Q = 100), Gamma 92.
    public = new_page({"width": 1440, "height": 900})
    public.on("pageerror", lambda exc: errors.append(str(exc)))
    public.goto(f"{asgi_server}/rating/seasons/{season.pk}/")
    rows = public.locator("#season-table tbody tr")
    expect(rows).to_have_count(4, timeout=WAIT)
    names = [rows.nth(i).locator("td").nth(1).inner_text() for i in range(4)]
    points = [rows.nth(i).locator("td").nth(2).inner_text() for i in range(4)]
    assert names == ["Alpha", "Beta", "Omega", "Gamma"]
    assert points == ["200", "192", "100", "92"]
    lines = public.locator(".season-chart polyline")
    expect(lines).to_have_count(4)
    assert [lines.nth(i).get_attribute("data-team") for i in range(4)] == [
        str(t.pk) for t in (alpha, beta, omega, gamma)]
    assert [lines.nth(i).get_attribute("data-points") for i in range(4)] == points
    public.screenshot(path=str(artifacts_dir() / "rating-season-desktop.png"), full_page=True)
    phone = new_page({"width": 390, "height": 844})
    phone.goto(f"{asgi_server}/rating/seasons/{season.pk}/")
    expect(phone.locator("#season-table")).to_be_visible(timeout=WAIT)
    phone.screenshot(path=str(artifacts_dir() / "rating-season-phone.png"), full_page=True)
    assert errors == []
