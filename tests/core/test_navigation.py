"""One header menu on every page (the projector's waits above the screen), a favicon, and a
team page that sends an unjoined phone to the join page."""

from __future__ import annotations

import re

import pytest

from tests.core.conftest import main_pages, open_as

pytestmark = pytest.mark.django_db
MENU = ["/teams/games/", "/rating/seasons/", "/teams/join/"]
ORGANIZER_MENU = ["/gorod/setup/", "/gorod/", "/koth/", "/accounts/roles/", "/admin/"]


@pytest.fixture
def demo_site(demo_site_once):
    """The demo, built once for this module: its tests only read it."""
    return demo_site_once


def menu_links(html: str) -> list[str]:
    nav = re.search(r'<nav class="site-menu".*?</nav>', html, re.S)
    assert nav, "the page has the site menu"
    return re.findall(r'href="([^"]+)"', nav.group(0))


def test_every_main_page_has_the_one_menu_and_organizers_get_their_pages(demo_site):
    for who, urls in main_pages(demo_site).items():
        client = open_as(who, demo_site)
        for url in urls:
            if url.startswith("/admin/"):
                continue  # Django's admin keeps its own header
            links = menu_links(client.get(url).content.decode())
            assert all(path in links for path in MENU), (who, url, links)
            organizer_links = [path for path in ORGANIZER_MENU if path in links]
            assert organizer_links == (ORGANIZER_MENU if who == "organizer" else []), (who, url)
            assert ("/teams/" in links) == (who == "organizer"), (who, url)  # my teams: logged in


def test_the_projector_keeps_the_menu_and_the_join_sheet_has_it_too(demo_site):
    client = open_as("organizer", demo_site)
    projector = client.get(f"/koth/{demo_site['koth']}/projector/").content.decode()
    assert 'class="koth-projector-page"' in projector and menu_links(projector)
    sheet = client.get(f"/teams/games/{demo_site['registration']}/sheet/").content.decode()
    assert menu_links(sheet) and 'class="join-page"' in sheet


def test_the_current_page_is_marked_in_the_menu(client):
    html = client.get("/rating/seasons/").content.decode()
    assert '<a href="/rating/seasons/" aria-current="page">' in html


def test_every_page_names_the_svg_favicon_and_favicon_ico_leads_to_it(client):
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in client.get("/").content.decode()
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/favicon.svg"


@pytest.mark.parametrize("kind", ["koth", "gorod"])
def test_a_team_page_sends_an_unjoined_phone_to_the_join_page_with_its_game(demo_site, kind):
    client = open_as("guest", demo_site)
    response = client.get(f"/{kind}/{demo_site[kind]}/play/", follow=True)
    assert response.redirect_chain == [(f"/teams/join/?game={demo_site[kind]}", 302)]
    html = response.content.decode()
    assert "ещё не вошёл в команду игры" in html  # the message, in Russian
    assert f'<option value="{demo_site[kind]}" selected>' in html
