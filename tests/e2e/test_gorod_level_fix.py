"""Fixing a level during play in real Chromium: on the monitor (1366×768) the organizer opens
"Fix level" for level 1 from the keyboard, adds the variant a team had typed, sees in Russian
who gains what before confirming, and confirms; the credited team's phone (390×844) moves on to
level 2 live, another phone on level 1 shows the corrected task, and nothing is cut off or
scrolls sideways on either screen."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import ORGANIZER
from gorod import services
from gorod.models import Level, Ruling
from teams.models import Game
from tests.conftest import artifacts_dir
from tests.e2e.test_gorod_live import PHONE, with_session
from tests.e2e.waits import LOADED, WAIT
from tests.gorod.fixtures_live import LEVELS, join_session, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
MONITOR = {"width": 1366, "height": 768}
NO_SIDEWAYS = "document.documentElement.scrollWidth <= window.innerWidth"

# Every visible control of a box lies within the screen's width.
INSIDE = """(sel) => [...document.querySelectorAll(sel + ' :is(input, textarea, select, button)')]
  .filter((e) => e.getClientRects().length)
  .every((e) => { const r = e.getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth; })"""


def open_as(new_page, base, client, path, viewport):
    page = with_session(new_page(viewport=viewport), base, client)
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(base + path)
    page.wait_for_function(LOADED, timeout=WAIT)
    return page


def test_the_organizer_fixes_a_code_from_the_monitor_and_the_credited_phone_moves_on(
        asgi_server, new_page):
    organizer = make_user("organizer-level-fix", ORGANIZER)
    game = Game.objects.create(title="ГоРоД: исправление", format="gorod",
                               starts_at=timezone.now() + timedelta(days=3))
    alpha, beta = make_teams(game, ["Alpha", "Beta"], organizer)
    gg = services.gorod_create(actor=organizer, game=game, levels=LEVELS)
    start = timezone.now() - timedelta(minutes=20)
    services.game_start(actor=organizer, game=gg, now=start)
    # The sign on the spot said G1R1X: Alpha typed what it saw.
    services.code_submit(game=gg, application=alpha, text="G1R1X",
                         now=start + timedelta(minutes=5))
    sent = timezone.localtime(start + timedelta(minutes=5)).strftime("%H:%M")

    boss = Client()
    boss.force_login(organizer)
    org = open_as(new_page, asgi_server, boss, f"/gorod/{gg.pk}/", MONITOR)
    phones = {}
    for entry in (alpha, beta):
        team = Client()
        join_session(team, entry)
        phones[entry.pk] = open_as(new_page, asgi_server, team, f"/gorod/{gg.pk}/play/", PHONE)
        expect(phones[entry.pk].locator("#level-task")).to_have_text("Find the bridge",
                                                                     timeout=WAIT)

    # From the keyboard: the level, then "Fix level"; the form starts from the level as it is.
    expect(org.locator("#fix-level option")).to_have_count(3, timeout=WAIT)
    org.focus("#fix-level")
    org.keyboard.press("Tab")
    expect(org.locator("#fix-open")).to_be_focused()
    expect(org.locator("#fix-open")).to_have_text("Исправить уровень")
    org.keyboard.press("Enter")
    expect(org.locator("#level-fix-form")).to_be_visible(timeout=WAIT)
    expect(org.locator("#fix-task")).to_be_focused()
    expect(org.locator("#fix-codes")).to_have_value("G1R1D")
    org.keyboard.press("Control+A")
    org.keyboard.type("Find the old bridge")
    org.fill("#fix-codes", "G1R1D | G1R1X")
    org.fill("#fix-reason", "на табличке опечатка")
    org.focus("#fix-preview")
    org.keyboard.press("Enter")

    asked = org.locator("#level-fix-form + #ruling-preview")
    text = asked.locator("#ruling-preview-text")
    expect(text).to_contain_text(f"Alpha: «G1R1X» отправлен в {sent} — уровень закрывается в",
                                 timeout=WAIT)
    expect(text).to_contain_text("бонус +")
    expect(asked.locator("#ruling-preview-confirm")).to_be_focused()
    assert not Ruling.objects.exists()  # nothing before the confirmation
    org.locator("#level-fix-box").scroll_into_view_if_needed()
    assert org.evaluate(NO_SIDEWAYS)
    assert org.evaluate(INSIDE, "#level-fix-box")
    org.screenshot(path=str(artifacts_dir() / "glevel-monitor.png"))

    org.keyboard.press("Enter")  # Confirm
    expect(org.locator("#ruling-preview")).to_have_count(0, timeout=WAIT)
    expect(org.locator("#level-fix-form")).to_be_hidden()
    expect(org.locator("#rulings li")).to_have_count(2, timeout=WAIT)
    expect(org.locator("#rulings")).to_contain_text("код засчитан (уровень исправлен)")

    alpha_phone, beta_phone = phones[alpha.pk], phones[beta.pk]
    expect(alpha_phone.locator("#level-task")).to_have_text("Find the tower", timeout=WAIT)
    expect(beta_phone.locator("#level-task")).to_have_text("Find the old bridge", timeout=WAIT)
    assert alpha_phone.evaluate(NO_SIDEWAYS) and beta_phone.evaluate(NO_SIDEWAYS)
    beta_phone.screenshot(path=str(artifacts_dir() / "glevel-phone.png"))
    assert Level.objects.get(gorod=gg, label="1").codes == {
        "sectors": [{"name": "1", "codes": ["G1R1D", "G1R1X"]}]}
    assert set(Ruling.objects.values_list("type", flat=True)) == {"code", "bonus"}

    # A refusal is said next to the form: an empty code list.
    org.focus("#fix-open")
    org.keyboard.press("Enter")
    expect(org.locator("#level-fix-form")).to_be_visible(timeout=WAIT)
    org.fill("#fix-codes", "")
    org.click("#fix-preview")
    refused = org.locator("#level-fix-form + #ruling-preview")
    expect(refused).to_contain_text("Введите хотя бы один код", timeout=WAIT)
    org.keyboard.press("Escape")
    expect(org.locator("#level-fix-form")).to_be_hidden()
    assert org.errors == [] and alpha_phone.errors == [] and beta_phone.errors == []
