"""Opening the live pages of both games in Chromium as their users do, and counting the
state reads they make (Playwright request events on the page's own state URL)."""

from __future__ import annotations

from django.test import Client
from playwright.sync_api import expect

from tests.e2e.test_koth_resync import FLAKY_SOCKET
from tests.e2e.waits import settle  # noqa: F401 - the live client tests import it from here
from tests.kingofhill.conftest import join_session

WAIT = 15000
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1920, "height": 1080}


def session_for(games, who: str) -> Client | None:
    client = Client()
    if who in ("host", "organizer"):
        client.force_login(games[who])
    elif who in ("koth_team", "gorod_team"):
        join_session(client, games[who])
    else:
        return None
    return client


PAGES = {
    # page: (who opens it, its path)
    "koth host console": ("host", lambda g: f"/koth/{g['koth'].pk}/host/"),
    "koth team phone": ("koth_team", lambda g: f"/koth/{g['koth'].pk}/play/"),
    "koth projector": (None, lambda g: f"/koth/{g['koth'].pk}/projector/"),
    "gorod organizer screen": ("organizer", lambda g: f"/gorod/{g['gorod'].pk}/"),
    "gorod team phone": ("gorod_team", lambda g: f"/gorod/{g['gorod'].pk}/play/"),
    "gorod statistics": (None, lambda g: f"/gorod/{g['gorod'].pk}/statistics/"),
}


def open_live(new_page, base: str, games, name: str, flaky: bool = False):
    who, path = PAGES[name]
    phone = "phone" in name
    page = new_page(viewport=PHONE if phone else PROJECTOR if "projector" in name else None)
    client = session_for(games, who)
    if client is not None:
        page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                                   "url": base}])
    if flaky:
        page.add_init_script(FLAKY_SOCKET)
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(base + path(games))
    expect(page.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    return page


def state_reads(page) -> list[str]:
    """GET requests to the page's own state URL from now on."""
    state_url = page.evaluate("Live.streams[0].stateUrl")
    assert state_url
    reads: list[str] = []

    def on_request(request):
        if request.method == "GET" and request.url.split("?")[0].endswith(state_url):
            reads.append(request.url)

    page.on("request", on_request)
    return reads


