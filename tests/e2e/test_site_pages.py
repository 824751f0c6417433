"""Every main page in real Chromium, in Russian, on a phone (390x844) and a laptop (1440x900):
no horizontal scrolling of the page, no word split between two letters inside a table cell,
and no serious or critical axe-core finding. Screenshots of each go to artifacts/site/.

The data is the demo (``core.demo.load_demo``) plus a team whose name is one long Russian word,
the kind that used to break as «Достопримечательн|ости» in the organizer's tables.
"""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.conftest import artifacts_dir
from tests.e2e.layout import SPLIT_WORDS_JS
from tests.e2e.waits import loaded
from tests.shared_data import committed_once

# No database mark: the site's data is committed once for the module (``committed_once``) and
# the tests only drive the browser.
pytestmark = [pytest.mark.e2e, pytest.mark.slow]
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1440, "height": 900}
LONG_NAME = "Достопримечательности"
SCENARIO = """format: gorod-scenario
version: 1
title: Мосты
levels:
  - id: "1"
    task: Найдите мост
    codes: {code: G1R1D}
"""

OVERFLOW_JS = "() => document.documentElement.scrollWidth - window.innerWidth"


@pytest.fixture(scope="module")
def site(asgi_server, django_db_blocker):
    """The demo and the extras below, made once for the module's tests (they only read)."""
    with committed_once(django_db_blocker):
        yield build_site(asgi_server)


def build_site(asgi_server) -> dict:
    from django.contrib.auth.models import Group, User
    from django.test import Client

    from core.demo import load_demo
    from core.roles import HOST, ORGANIZER
    from gorod.demo import LIVE_TITLE
    from gorod.models import GorodGame
    from kingofhill.models import KothGame
    from teams import services as team_services
    from teams.models import Application, Game

    for name in (ORGANIZER, HOST):  # transactional tests flush what the migration made
        Group.objects.get_or_create(name=name)
    load_demo()
    koth = KothGame.objects.get()
    gorod = GorodGame.objects.get(game__title=LIVE_TITLE)  # not a demo season's night
    registration = Game.objects.filter(format=Game.Format.GOROD, gorod__isnull=True).get()
    organizer = User.objects.get(username="organizer")
    long_team = team_services.team_create(captain=organizer, name=LONG_NAME)
    for nickname in ("Экскурсовод", "Путешественница", "Краевед", "Фотограф"):
        team_services.member_create(team=long_team, nickname=nickname,
                                    full_name="Константинопольская Александра")
    team_services.application_submit(team=long_team, game=registration,
                                      members=list(long_team.members.all()))
    token = {game: Application.objects.filter(game_id=game, status="approved")
             .exclude(join_token=None).first().join_token for game in (koth.pk, gorod.pk)}
    # A captain of his own team (not an organizer), applied to the open night.
    from core.demo import DEMO_PASSWORD
    from rating import services as rating_services

    captain = User.objects.create_user("captain-pages", password=DEMO_PASSWORD)
    own = team_services.team_create(captain=captain, name="Краеведы")
    for nickname in ("Лис", "Ёж", "Сыч"):
        team_services.member_create(team=own, nickname=nickname)
    team_services.application_submit(team=own, game=registration, members=list(own.members.all()))
    # The captain is a player with a profile on his roster (rule 2.6: his player page), and has
    # a scenario proposal waiting (10.1: his team's proposals page, the organizers' list).
    from gorod import proposals
    from teams import profiles

    captain.email, captain.first_name, captain.last_name = (
        "captain-pages@example.org", "Анна", "Краеведова")
    captain.save()
    fox = own.members.get(nickname="Лис")
    profiles.member_link(actor=captain, member=fox, email=captain.email)
    proposals.propose(actor=captain, team=own, file_name="мосты.yaml", content=SCENARIO.encode())
    # Two played GoRoD nights: one with preliminary results (the organizer's table form), one
    # final in a season of that one game (its chart).
    from tests.rating.helpers import finalize, gorod_game

    preliminary = gorod_game(organizer, title="ГоРоД: предварительные итоги")
    rating_services.results_publish(actor=organizer, game=preliminary)
    final = gorod_game(organizer, title="ГоРоД: итоги")
    rating_services.results_publish(actor=organizer, game=final)
    finalize(organizer, final)
    season = rating_services.season_create(actor=organizer, title="Сезон", format=final.format)
    rating_services.season_game_add(actor=organizer, season=season, game=final)
    koth_team = Application.objects.filter(game=final, status="approved").first().team
    from gorod import services as gorod_services

    setup = gorod_services.gorod_create(actor=organizer, title="ГоРоД: подготовка",
                                        starts_at=registration.starts_at, levels=[
                                            {"label": "1", "task": "Мост", "codes": {"code": "G1R1D"}}])
    # The logged-in roles' sessions, made here once instead of through the log-in form in
    # every test (the form is one of the walked pages; logging in is tests/core/test_accounts).
    sessions = {}
    for who, username in (("organizer", "organizer"), ("host", "host"),
                          ("captain", "captain-pages")):
        client = Client()
        client.force_login(User.objects.get(username=username))
        sessions[who] = client.cookies["sessionid"].value
    return {"base": asgi_server, "sessions": sessions,
            "koth": koth.pk, "gorod": gorod.pk, "registration": registration.pk,
            "team": long_team.pk, "token": token, "own": own.pk, "member": own.members.first().pk,
            "season": season.pk, "season_team": koth_team.pk,
            "season_member": own.members.first().pk, "setup": setup.pk,
            "preliminary": preliminary.pk, "player": captain.pk,
            "invite": profiles.invite_token(own.members.get(nickname="Ёж"))}


def pages(site) -> dict[str, list[str]]:
    """The main pages by who opens them."""
    return {
        "guest": ["/", "/teams/games/", "/teams/join/", "/rating/seasons/",
                  f"/rating/games/{site['koth']}/", "/accounts/login/", "/accounts/signup/",
                  "/accounts/password_reset/", f"/gorod/{site['gorod']}/statistics/",
                  f"/koth/{site['koth']}/projector/"],
        "organizer": ["/teams/", f"/teams/{site['team']}/", f"/teams/games/{site['registration']}/",
                      "/gorod/", "/gorod/setup/", f"/gorod/{site['gorod']}/", "/koth/",
                      f"/koth/{site['koth']}/host/", "/accounts/roles/", "/accounts/profile/",
                      f"/rating/games/{site['gorod']}/"],
        "koth phone": [f"/koth/{site['koth']}/play/"],
        "gorod phone": [f"/gorod/{site['gorod']}/play/"],
    }


def every_page(site) -> dict[str, list[str]]:
    """Every HTML page of the urlconfs (the teams, gorod, kingofhill, rating, accounts and core
    page names) by the role that opens it, on the demo's data; downloads, POST-only actions
    and redirects are not pages."""
    main = pages(site)
    return {
        "guest": main["guest"] + [
            "/teams/all/", f"/teams/all/{site['team']}/",
            f"/teams/games/{site['registration']}/about/", "/gorod/", "/koth/",
            f"/rating/seasons/{site['season']}/",
            f"/rating/seasons/{site['season']}/teams/{site['season_team']}/",
            f"/rating/seasons/{site['season']}/players/{site['season_member']}/",
            f"/rating/games/{site['gorod']}/", f"/rating/games/{site['preliminary']}/",
            "/accounts/password_reset/done/",
            "/accounts/reset/done/", f"/rating/players/{site['player']}/"],
        "captain": ["/teams/", f"/teams/{site['own']}/",
                    f"/teams/{site['own']}/members/{site['member']}/",
                    f"/teams/{site['own']}/apply/{site['registration']}/",
                    f"/teams/games/{site['registration']}/about/", "/accounts/profile/",
                    "/accounts/password_change/", "/accounts/password_change/done/",
                    f"/gorod/teams/{site['own']}/proposals/", f"/teams/invite/{site['invite']}/"],
        "host": ["/koth/", f"/koth/{site['koth']}/host/", "/accounts/profile/"],
        "organizer": main["organizer"] + [
            f"/teams/games/{site['registration']}/sheet/", f"/koth/{site['koth']}/questions/",
            f"/gorod/{site['setup']}/setup/", "/announce/", "/accounts/lockouts/",
            "/audit/", f"/audit/games/{site['gorod']}/", f"/rating/games/{site['koth']}/",
            f"/rating/games/{site['preliminary']}/",
            f"/rating/seasons/{site['season']}/", "/gorod/proposals/"],
        "koth phone": main["koth phone"] + [f"/teams/play/{site['koth']}/"],
        "gorod phone": main["gorod phone"] + [f"/teams/play/{site['gorod']}/"],
    }


def open_as(new_page, site, who: str, viewport: dict):
    page = new_page(viewport=viewport)
    base = site["base"]
    if who in site["sessions"]:
        page.context.add_cookies([{"name": "sessionid", "value": site["sessions"][who],
                                   "url": base}])
    elif who.endswith("phone"):
        game = site["koth"] if who.startswith("koth") else site["gorod"]
        page.goto(f"{base}/teams/j/{site['token'][game]}/")
        page.click(".join-button")  # the join link asks before it binds the phone
        page.wait_for_url(f"{base}/teams/play/{game}/")
    return page


def slug(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path).strip("-") or "home"


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_every_main_page_fits_the_screen_without_splitting_words(new_page, site, viewport):
    shots = artifacts_dir() / "site"
    shots.mkdir(exist_ok=True)
    problems = []
    for who, paths in pages(site).items():
        page = open_as(new_page, site, who, viewport)
        for path in paths:
            response = page.goto(site["base"] + path)
            assert response.status == 200, (who, path, response.status)
            assert page.locator("html").get_attribute("lang") == "ru"
            loaded(page)
            page.screenshot(path=str(shots / f"{viewport['width']}-{slug(path)}.png"), full_page=True)
            overflow = page.evaluate(OVERFLOW_JS)
            if overflow > 0:
                problems.append(f"{path}: the page scrolls sideways by {overflow}px")
            split = page.evaluate(SPLIT_WORDS_JS)
            if split:
                problems.append(f"{path}: words split inside table cells: {split[:5]}")
    assert problems == []


def test_the_long_team_name_stays_whole_in_the_organizers_table_on_a_phone(new_page, site):
    page = open_as(new_page, site, "organizer", PHONE)
    page.goto(f"{site['base']}/teams/games/{site['registration']}/")
    cell = page.locator("td", has_text=LONG_NAME).first
    box = cell.evaluate("""c => { const r = document.createRange(); r.selectNodeContents(c.querySelector('a'));
                                  return [...r.getClientRects()].filter(x => x.width > 0).length; }""")
    assert box == 1  # one line box: the word is not broken
    scroller = page.locator(".table-scroll").first
    assert scroller.evaluate("e => e.scrollWidth > e.clientWidth")  # the table scrolls in its card
    assert page.evaluate(OVERFLOW_JS) <= 0


ROLES = ("guest", "captain", "host", "organizer", "koth phone", "gorod phone")


@pytest.mark.parametrize("who", ROLES)
def test_every_page_of_every_role_has_no_serious_or_critical_accessibility_violations(
        new_page, site, who):
    axe = Axe()
    found = []
    page = open_as(new_page, site, who, LAPTOP)
    for path in every_page(site)[who]:
        response = page.goto(site["base"] + path)
        if response.status != 200:
            found.append(f"{who} {path}: HTTP {response.status}")
            continue
        loaded(page)
        results = axe.run(page).response
        for violation in results["violations"]:
            if violation["impact"] in ("serious", "critical"):
                targets = [node["target"] for node in violation["nodes"]][:3]
                found.append(f"{who} {path}: {violation['id']} ({violation['impact']}) {targets}")
    assert found == []


def test_the_walk_covers_every_role_of_the_site(site):
    assert set(every_page(site)) == set(ROLES)
