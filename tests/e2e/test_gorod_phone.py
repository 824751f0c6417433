"""The GoRoD team phone at 390x844 in real Chromium: a wrong code, the brute-force wait counting
down on a disabled form, a code of a closed level answered as such, a sector's verdict gone once
the level changed, a new level vibrating, times in the game's zone on a phone set to another
zone, no horizontal overflow, and the total and place at the end. Screenshots go to artifacts/."""

from __future__ import annotations

import re
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from gorod import rules, services
from gorod.models import CodeAttempt
from tests.conftest import artifacts_dir
from tests.e2e.waits import counted_down
from tests.gorod.fixtures_live import LEVELS, join_session, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000
PHONE = {"width": 390, "height": 844}
# Far from the game's zone (Moscow), so a time shown in the device's zone would differ.
DEVICE_ZONE = "Asia/Tokyo"
# Counts the phone's vibrations (headless Chromium has no vibrator to observe).
COUNT_VIBRATIONS = ("window.__vibrations = 0; navigator.vibrate = function () {"
                    " window.__vibrations += 1; return true; };")


@pytest.fixture
def phones(browser, asgi_server):
    contexts = []

    def open_phone(entry):
        context = browser.new_context(viewport=PHONE, locale="ru-RU", timezone_id=DEVICE_ZONE)
        contexts.append(context)
        client = Client()
        join_session(client, entry)
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                              "url": asgi_server}])
        context.add_init_script(COUNT_VIBRATIONS)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        return page

    def open_organizer(base, gg, organizer):
        context = browser.new_context(locale="ru-RU", timezone_id=DEVICE_ZONE)
        contexts.append(context)
        client = Client()
        client.force_login(organizer)
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                              "url": base}])
        page = context.new_page()
        page.goto(f"{base}/gorod/{gg.pk}/")
        expect(page.locator("#live-status")).to_have_attribute("data-status", "online",
                                                               timeout=WAIT)
        return page

    open_phone.organizer = open_organizer
    yield open_phone
    for context in contexts:
        context.close()


@pytest.fixture
def night(asgi_server):
    from core.roles import ORGANIZER
    from teams.models import Game

    organizer = make_user("organizer-gorod-phone", ORGANIZER)
    game = Game.objects.create(title="ГоРоД на телефоне", format="gorod",
                               starts_at=timezone.now() + timedelta(days=3))
    entries = make_teams(game, ["Alpha", "Beta"], organizer)
    gg = services.gorod_create(actor=organizer, game=game, levels=LEVELS, max_wrong=3,
                               wrong_window_s=12)
    services.game_start(actor=organizer, game=gg)
    return gg, organizer, entries


def in_game_zone(moment) -> str:
    return moment.astimezone(ZoneInfo(settings.TIME_ZONE)).strftime("%H:%M:%S")


def send(phone, code: str, kind: str | None = None) -> None:
    phone.fill("#code-text", code)
    phone.click("#code-send")
    if kind:
        expect(phone.locator("#code-result")).to_have_attribute("data-kind", kind, timeout=WAIT)


def assert_no_horizontal_overflow(phone) -> None:
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide"


@pytest.mark.slow
def test_a_team_phone_through_a_night_wrong_codes_the_wait_a_closed_level_and_the_result(
        asgi_server, phones, night):
    gg, organizer, (alpha, beta) = night
    phone = phones(alpha)
    organizer_page = phones.organizer
    phone.goto(f"{asgi_server}/gorod/{gg.pk}/play/")
    expect(phone.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    expect(phone.locator("#level-task")).to_have_text("Find the bridge", timeout=WAIT)
    # Penalties and bonuses are shown live; the total waits for the finish.
    expect(phone.locator("#result-box")).to_be_visible()
    expect(phone.locator("#total-row")).to_be_hidden()

    send(phone, "G1R999D", "wrong")
    attempt = CodeAttempt.objects.get(application=alpha)
    # The game's zone, not the phone's (Tokyo is six hours off Moscow).
    expect(phone.locator("#attempts li").first).to_contain_text(in_game_zone(attempt.at))

    send(phone, "G1R998D")
    expect(phone.locator("#attempts li.verdict-wrong")).to_have_count(2, timeout=WAIT)
    send(phone, "G1R997D")
    expect(phone.locator("#attempts li.verdict-wrong")).to_have_count(3, timeout=WAIT)
    # The limit (3 wrong in 12 s): refused with the wait, the form disabled and counting down.
    send(phone, "G1R1D")
    expect(phone.locator("#code-wait")).to_be_visible(timeout=WAIT)
    expect(phone.locator("#code-text")).to_be_disabled()
    expect(phone.locator("#code-send")).to_be_disabled()
    expect(phone.locator("#attempts li.verdict-limited")).to_have_count(1, timeout=WAIT)
    phone.screenshot(path=str(artifacts_dir() / "gorod-phone-wait.png"), full_page=True)

    def seconds_left() -> int:
        minutes, seconds = re.search(r"(\d+):(\d\d)", phone.inner_text("#code-wait")).groups()
        return int(minutes) * 60 + int(seconds)

    first = seconds_left()
    assert 1 <= first <= 12
    counted_down(phone, "#code-wait", first)  # it counts down
    assert 0 < seconds_left() < first
    expect(phone.locator("#code-text")).to_be_enabled(timeout=WAIT)
    expect(phone.locator("#code-wait")).to_be_hidden()

    vibrations = phone.evaluate("window.__vibrations")
    send(phone, "G1R1D", "accepted")
    expect(phone.locator("#level-task")).to_have_text("Find the tower", timeout=WAIT)
    assert phone.evaluate("window.__vibrations") > vibrations  # a new level vibrates

    # A code of the level already closed: said so, not a wrong attempt.
    send(phone, "g1r1d", "closed_level")
    expect(phone.locator("#code-result")).to_contain_text("1")
    expect(phone.locator("#attempts li.verdict-closed_level")).to_have_count(1, timeout=WAIT)
    assert CodeAttempt.objects.filter(application=alpha, verdict="wrong").count() == 3
    phone.screenshot(path=str(artifacts_dir() / "gorod-phone-closed-level.png"), full_page=True)

    send(phone, "G1R2D", "accepted")
    expect(phone.locator("#level-task")).to_have_text("Two sectors", timeout=WAIT)
    send(phone, "G1R31D", "accepted")
    expect(phone.locator("#code-result")).to_be_visible()
    # The organizer closes the last level by force majeure: "sector found, 1 left" goes away.
    org = organizer_page(asgi_server, gg, organizer)
    org.select_option("#ruling-team", str(alpha.pk))
    org.select_option("#ruling-type", "force_majeure")
    org.fill("#ruling-reason", "дорога перекрыта")
    org.click("#ruling-send")
    org.click("#ruling-preview-confirm")  # asked with its preview first
    expect(phone.locator("#game-status")).to_be_visible(timeout=WAIT)
    expect(phone.locator("#code-result")).to_be_hidden()
    expect(phone.locator("#history tr")).to_have_count(3)
    expect(phone.locator("#total-row")).to_be_visible(timeout=WAIT)
    expect(phone.locator("#place-row")).to_be_hidden()

    org.on("dialog", lambda dialog: dialog.accept())
    org.click("#end-game")
    expect(phone.locator("#place-row")).to_be_visible(timeout=WAIT)
    expect(phone.locator("#me-place")).to_have_text("1 из 2")
    record = services.game_record(gg)  # the engine's total, as the statistics show it
    results = rules.compute(rules.parse_record(record), timezone.now())
    alpha_total = next(t for t in results.teams if t.team == "Alpha").total_s
    hours, rest = divmod(round(alpha_total), 3600)
    shown = (f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours
             else f"{rest // 60}:{rest % 60:02d}")
    expect(phone.locator("#me-total")).to_have_text(shown)
    assert_no_horizontal_overflow(phone)
    phone.screenshot(path=str(artifacts_dir() / "gorod-phone-end.png"), full_page=True)

    # The other team was stopped: it does not read "playing".
    other = phones(beta)
    other.goto(f"{asgi_server}/gorod/{gg.pk}/play/")
    expect(other.locator("#game-status")).to_contain_text("остановлена", timeout=WAIT)
    expect(other.locator("#me-place")).to_have_text("2 из 2")
    assert_no_horizontal_overflow(other)
    other.screenshot(path=str(artifacts_dir() / "gorod-phone-stopped.png"), full_page=True)
    assert phone.errors == [] and other.errors == []
