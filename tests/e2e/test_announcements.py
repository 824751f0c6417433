"""Announcements in real Chromium on the embedded default (one daphne process, in-memory
layer): an organizer sends one from /announce/ and every open page — the projector, a team
phone, the host console, the GoRoD organizer screen and the home page — shows it at once,
without a reload; a page opened afterwards shows it on load; a dismissed one stays dismissed.
Screenshots of the projector (1920×1080) and a phone (390×844) with the banner go to
artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from core.models import Announcement
from tests.conftest import artifacts_dir
from tests.e2e.live_pages import PHONE, PROJECTOR, WAIT, open_live, session_for
from tests.e2e.waits import animations_done

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
TEXT = "Перерыв 10 минут: следующий вопрос в 21:40"


@pytest.mark.slow
def test_an_organizers_announcement_shows_on_every_open_page_without_a_reload(
        asgi_server, new_page, games):
    # A command test may have left an announcement committed by its subprocess: start clean.
    Announcement.objects.all().delete()
    open_pages = {name: open_live(new_page, asgi_server, games, name)
                  for name in ("koth projector", "koth team phone", "koth host console",
                               "gorod organizer screen")}
    home = new_page(viewport=PHONE)
    home.goto(asgi_server + "/")
    expect(home.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    open_pages["home"] = home
    for page in open_pages.values():
        expect(page.locator("#site-announcement")).to_be_hidden()
        page.evaluate("() => { window.__not_reloaded = true; }")

    organizer = new_page()
    client = session_for(games, "organizer")
    organizer.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                                    "url": asgi_server}])
    organizer.goto(asgi_server + "/")
    organizer.click("#organizer-menu summary")  # the organizer's pages are in the menu
    organizer.click("header a[href='/announce/']")
    organizer.fill("#id_text", "")
    organizer.click("#announce-send")
    expect(organizer.locator("#announce-error")).to_have_text("Объявление пустое: напишите, что показать.")
    expect(organizer.locator("#id_text")).to_have_attribute("aria-invalid", "true")
    organizer.fill("#id_text", TEXT)
    organizer.click("#announce-send")
    expect(organizer.locator(".messages .success")).to_have_text(
        "Объявление отправлено на все открытые страницы.", timeout=WAIT)

    for name, page in open_pages.items():
        banner = page.locator("#site-announcement")
        expect(banner, name).to_be_visible(timeout=WAIT)
        expect(page.locator("#site-announcement-text")).to_have_text(TEXT)
        expect(banner).to_have_attribute("role", "status")
        expect(banner).to_have_attribute("aria-live", "polite")
        assert page.evaluate("window.__not_reloaded") is True, name
        assert page.evaluate("Live.streams.length") == 1, name  # the game socket carried it
    assert Announcement.objects.get().delivered_at is not None

    projector, phone = open_pages["koth projector"], open_pages["koth team phone"]
    animations_done(projector)  # the banner's entrance
    projector.screenshot(path=str(artifacts_dir() / "announcement-projector.png"))
    phone.screenshot(path=str(artifacts_dir() / "announcement-phone.png"))
    # Readable from the back of the hall, and inside the screen.
    size = projector.evaluate("""() => {
        const b = document.getElementById('site-announcement').getBoundingClientRect();
        return {font: parseFloat(getComputedStyle(document.getElementById('site-announcement-text')).fontSize),
                top: b.top, bottom: b.bottom, width: b.width};
    }""")
    assert size["font"] >= 36 and size["top"] == 0 and size["width"] == PROJECTOR["width"], size
    assert projector.evaluate("document.documentElement.scrollHeight") <= PROJECTOR["height"]

    # A phone dismisses it; it stays dismissed after a reload. A page opened later shows it.
    phone.click("#site-announcement-close")
    expect(phone.locator("#site-announcement")).to_be_hidden()
    phone.reload()
    expect(phone.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    expect(phone.locator("#site-announcement")).to_be_hidden()
    later = new_page(viewport=PHONE)
    later.goto(asgi_server + "/teams/games/")
    expect(later.locator("#site-announcement-text")).to_have_text(TEXT)
    expect(later.locator("#site-announcement")).to_be_visible()
    for name in ("koth projector", "koth team phone", "koth host console", "gorod organizer screen"):
        assert open_pages[name].errors == [], name
