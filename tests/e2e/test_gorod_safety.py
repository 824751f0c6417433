"""Safety check-ins in real Chromium: a phone on a grade-4 level shows "All fine" with the time
left, misses its check-in (the night's start is set in the past so the check-in falls due a few
seconds into the test), vibrates, and the organizer's monitor shows the alarm, pushed by the
server's clock with no write; the organizer acknowledges it and it clears."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import ORGANIZER
from gorod import services
from teams.models import Game
from tests.conftest import artifacts_dir
from tests.gorod.fixtures_live import LEVELS, join_session, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 30000
COUNT_VIBRATIONS = ("window.__vibrations = 0; navigator.vibrate = function () {"
                    " window.__vibrations += 1; return true; };")


def session_of(client: Client) -> str:
    return client.cookies["sessionid"].value


def dangerous_night(name: str, *, danger: int, every_min: int, started: datetime):
    """A GoRoD night with one team, Alpha, whose first level has the danger ``danger``."""
    organizer = make_user(f"organizer-{name}", ORGANIZER)
    game = Game.objects.create(title=f"ГоРоД: {name}", format="gorod",
                               starts_at=timezone.now() + timedelta(days=3))
    alpha, = make_teams(game, ["Alpha"], organizer)
    gg = services.gorod_create(actor=organizer, game=game,
                               levels=[{**LEVELS[0], "danger": danger}, *LEVELS[1:]],
                               checkin_every_min=every_min)
    services.game_start(actor=organizer, game=gg, now=started)
    return organizer, alpha, gg


def open_phone(browser, base: str, entry, gg):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="ru-RU")
    team = Client()
    join_session(team, entry)
    context.add_cookies([{"name": "sessionid", "value": session_of(team), "url": base}])
    context.add_init_script(COUNT_VIBRATIONS)
    page = context.new_page()
    page.goto(f"{base}/gorod/{gg.pk}/play/")
    return context, page


@pytest.mark.slow
def test_a_phone_on_a_grade_4_level_misses_its_check_in_and_the_monitor_raises_the_alarm(
        browser, asgi_server):
    # The check-in (every 15 min from the level's start) falls due fifteen seconds from now:
    # time for both pages to open before it.
    organizer, alpha, gg = dangerous_night(
        "safety", danger=4, every_min=15,
        started=timezone.now() - timedelta(minutes=15) + timedelta(seconds=15))

    monitor_context = browser.new_context(locale="ru-RU")
    boss = Client()
    boss.force_login(organizer)
    monitor_context.add_cookies([{"name": "sessionid", "value": session_of(boss),
                                  "url": asgi_server}])
    monitor = monitor_context.new_page()
    errors: list[str] = []
    monitor.on("pageerror", lambda exc: errors.append(str(exc)))
    monitor.goto(f"{asgi_server}/gorod/{gg.pk}/")
    expect(monitor.locator("#live-status")).to_have_attribute("data-status", "online",
                                                              timeout=WAIT)
    assert errors == []
    expect(monitor.locator("#alarms-box")).to_be_hidden()

    phone_context, phone = open_phone(browser, asgi_server, alpha, gg)
    expect(phone.locator("#checkin-send")).to_be_visible(timeout=WAIT)
    expect(phone.locator("#checkin-send")).to_have_text("Всё в порядке")
    expect(phone.locator("#checkin-due")).to_contain_text("подтвердите, что всё в порядке")
    # The code field stays above the check-in: still the first thing on the screen.
    code_box = phone.locator("#code-box").bounding_box()
    safety_box = phone.locator("#safety-box").bounding_box()
    assert code_box["y"] < safety_box["y"]

    # Nobody presses "All fine": the check-in falls due; the phone vibrates and says so.
    expect(phone.locator("#safety-box")).to_have_attribute("data-overdue", "true", timeout=WAIT)
    expect(phone.locator("#checkin-due")).to_contain_text("Отметка просрочена")
    phone.wait_for_function("() => window.__vibrations >= 1", timeout=WAIT)

    # The monitor's alarm arrives by the server's clock alone.
    alarm = monitor.locator(f"#alarms li[data-alarm='{alpha.pk}']")
    expect(alarm).to_be_visible(timeout=WAIT)
    expect(alarm).to_contain_text("Alpha")
    expect(alarm).to_contain_text("отметка просрочена с")
    expect(alarm).to_contain_text("последний код: нет")
    monitor.screenshot(path=str(artifacts_dir() / "gorod-safety-alarm.png"), full_page=True)
    phone.screenshot(path=str(artifacts_dir() / "gorod-safety-phone-overdue.png"))

    monitor.once("dialog", lambda dialog: dialog.accept())
    alarm.locator("button.alarm-acknowledge").click()
    expect(monitor.locator("#alarms-box")).to_be_hidden(timeout=WAIT)
    # The phone's countdown starts over from the acknowledgement.
    expect(phone.locator("#safety-box")).to_have_attribute("data-overdue", "false", timeout=WAIT)
    phone_context.close()
    monitor_context.close()


def test_the_team_presses_all_fine_and_its_alarm_clears_on_the_monitor(browser, asgi_server):
    _, alpha, gg = dangerous_night("check-in", danger=3, every_min=10,
                                   started=timezone.now() - timedelta(minutes=11))
    phone_context, phone = open_phone(browser, asgi_server, alpha, gg)
    expect(phone.locator("#safety-box")).to_have_attribute("data-overdue", "true", timeout=WAIT)
    phone.locator("#checkin-send").click()
    expect(phone.locator("#safety-box")).to_have_attribute("data-overdue", "false", timeout=WAIT)
    expect(phone.locator("#checkin-due")).to_contain_text("подтвердите, что всё в порядке")
    phone_context.close()
