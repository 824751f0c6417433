"""The team phone at 390x844 in real Chromium, through a whole short game driven from the host
console: after every close each phone shows its own verdict and move (a wrong answer in a red
box, never a green one), the King's crowning and deposition, and its history; during a question
the answer field is inside the first screen with no sideways scrolling; after the game the
controls give way to the result. Screenshots go to artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import artifacts_dir
from tests.e2e.test_koth_live import PHONE, WAIT, evening, open_phone, with_session  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

GREEN = "rgb(233, 247, 239)"


def fits_the_first_screen(phone, selector: str) -> None:
    box = phone.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (selector, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (selector, box)
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert phone.evaluate("window.scrollY") == 0


def answer_now(phone, text: str) -> None:
    expect(phone.locator("#answer-send")).to_be_enabled(timeout=WAIT)
    fits_the_first_screen(phone, "#answer-text")
    fits_the_first_screen(phone, "#answer-send")
    phone.fill("#answer-text", text)
    phone.click("#answer-send")
    expect(phone.locator("#answer-confirm")).to_contain_text(text, timeout=WAIT)


def last_move(phone, number: int, verdict: str):
    card = phone.locator("#last-move")
    expect(card).to_have_attribute("data-number", str(number), timeout=WAIT)
    expect(card).to_have_attribute("data-verdict", verdict)
    fits_the_first_screen(phone, "#last-move")
    background = card.evaluate("el => getComputedStyle(el).backgroundColor")
    assert (background == GREEN) == (verdict == "correct"), background
    return card


def texts(phone) -> dict:
    """The page's own texts (the server picks the language), so the test reads in any."""
    return phone.evaluate("JSON.parse(document.getElementById('koth-text').textContent)")


def open_host(new_page, base, koth, user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    host = with_session(new_page(), base, client)
    host.goto(f"{base}/koth/{koth.pk}/host/")
    expect(host.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    return host


@pytest.mark.slow
def test_each_phone_sees_its_verdict_move_and_history_after_every_close_and_the_result_at_the_end(
        asgi_server, new_page, evening):  # noqa: F811
    koth, host_user, (alpha, beta, gamma) = evening
    shots = artifacts_dir()
    host = open_host(new_page, asgi_server, koth, host_user)
    phones = {e.team.name: open_phone(new_page, asgi_server, koth, e) for e in (alpha, beta, gamma)}
    errors = []
    for phone in phones.values():
        phone.on("pageerror", lambda exc: errors.append(str(exc)))
    expect(phones["Alpha"].locator("#last-move")).to_be_hidden()

    # Question 1: Alpha and Beta right, Gamma wrong.
    host.keyboard.press("s")
    expect(host.locator("#announce")).to_be_enabled(timeout=WAIT)
    host.fill("#q-key", "Пушкин")
    host.click("#announce")
    answer_now(phones["Alpha"], "Пушкин")
    answer_now(phones["Beta"], "пушкин!")
    answer_now(phones["Gamma"], "Гоголь")
    phones["Gamma"].screenshot(path=str(shots / "koth-phone-answering.png"))
    expect(host.locator("#groups li")).to_have_count(2, timeout=WAIT)
    # The host sees why "close" is disabled: Gamma's answer waits for a verdict.
    expect(host.locator("#close")).to_be_disabled()
    expect(host.locator("#close-reason")).to_be_visible()
    expect(host.locator("#close-reason")).to_contain_text(" 1")
    host.locator("h1").click()
    host.keyboard.press("Shift+Digit2")
    expect(host.locator("#groups li").nth(1)).to_have_attribute("data-verdict", "false",
                                                                timeout=WAIT)
    expect(host.locator("#close-reason")).to_be_hidden(timeout=WAIT)
    host.keyboard.press("c")
    expect(last_move(phones["Alpha"], 1, "correct")).to_contain_text("0 → 1")
    last_move(phones["Beta"], 1, "correct")
    wrong = last_move(phones["Gamma"], 1, "incorrect")
    T = texts(phones["Gamma"])
    expect(wrong).to_contain_text("«Гоголь» — " + T["incorrect"])
    phones["Gamma"].screenshot(path=str(shots / "koth-phone-after-wrong.png"))

    # Question 2: Alpha jumps onto the summit and is told it took it.
    phones["Alpha"].click("#declare-jump")
    expect(phones["Alpha"].locator("#declare-jump")).to_have_attribute("aria-pressed", "true",
                                                                       timeout=WAIT)
    host.fill("#q-key", "Толстой")
    host.click("#announce")
    for name in ("Alpha", "Beta", "Gamma"):
        answer_now(phones[name], "Толстой")
    expect(host.locator("#groups li").first).to_have_attribute("data-verdict", "true",
                                                               timeout=WAIT)
    host.click("#close")
    crowned = last_move(phones["Alpha"], 2, "correct")
    expect(crowned).to_contain_text(T["kindJump"])
    expect(crowned).to_contain_text("1 → 3")
    expect(phones["Alpha"].locator("#last-note")).to_have_text(T["crowned"], timeout=WAIT)
    expect(phones["Alpha"].locator("#history tr")).to_have_count(2)
    phones["Alpha"].screenshot(path=str(shots / "koth-phone-crowned.png"))

    # Question 3: Beta revolts with its declaration card spent; the answer field stays on top.
    phones["Beta"].click("#declare-revolution")
    expect(phones["Beta"].locator("#declare-revolution")).to_have_attribute(
        "aria-pressed", "true", timeout=WAIT)
    host.fill("#q-key", "Лермонтов")
    host.click("#announce")
    answer_now(phones["Beta"], "Лермонтов")
    phones["Beta"].screenshot(path=str(shots / "koth-phone-revolution-answering.png"))
    answer_now(phones["Alpha"], "Пушкин")  # Gamma sends nothing
    expect(host.locator("#groups li")).to_have_count(2, timeout=WAIT)
    host.locator("h1").click()
    host.keyboard.press("Shift+Digit2")
    expect(host.locator("#groups li").nth(1)).to_have_attribute("data-verdict", "false",
                                                                timeout=WAIT)
    host.keyboard.press("c")
    last_move(phones["Alpha"], 3, "incorrect")
    expect(phones["Alpha"].locator("#last-note")).to_have_text(T["deposed"], timeout=WAIT)
    expect(last_move(phones["Beta"], 3, "correct")).to_contain_text(T["kindRevolution"])
    expect(last_move(phones["Gamma"], 3, "incorrect")).to_contain_text(T["silent"])
    history = phones["Alpha"].locator("#history tr")
    expect(history).to_have_count(3)
    expect(history.first).to_have_attribute("data-verdict", "incorrect")
    expect(history.first).to_contain_text("Пушкин")
    expect(history.last).to_be_visible()
    phones["Alpha"].screenshot(path=str(shots / "koth-phone-deposed.png"), full_page=True)

    # Silent questions until Beta has held the summit (the host's console, which renders each
    # of its own writes' answers, says when the game is over): then the result replaces the
    # phone's controls.
    for _ in range(6):
        if host.locator("body").get_attribute("data-phase") == "finished":
            break
        expect(host.locator("#announce")).to_be_enabled(timeout=WAIT)
        host.click("#announce")
        expect(host.locator("#close")).to_be_enabled(timeout=WAIT)
        host.click("#close")
        expect(host.locator("body")).not_to_have_attribute("data-phase", "answering",
                                                           timeout=WAIT)
    beta_phone = phones["Beta"]
    expect(beta_phone.locator("#result-box")).to_be_visible(timeout=WAIT)
    expect(beta_phone.locator("#result-winner")).to_have_text(T["youWon"])
    fits_the_first_screen(beta_phone, "#result-box")
    expect(beta_phone.locator("#answer-box")).to_be_hidden()
    expect(beta_phone.locator("#declare-box")).to_be_hidden()
    expect(beta_phone.locator("#question-box")).to_be_hidden()
    expect(phones["Alpha"].locator("#result-winner")).to_contain_text("Beta", timeout=WAIT)
    beta_phone.screenshot(path=str(shots / "koth-phone-finished.png"), full_page=True)
    assert errors == []


# Far from the site's zone (Moscow), so a time shown in the device's zone would differ.
DEVICE_ZONE = "Asia/Tokyo"


def test_a_phone_and_a_console_set_to_another_zone_show_times_as_the_hall_reads_them(
        asgi_server, browser, evening):  # noqa: F811 - the fixture imported above
    from zoneinfo import ZoneInfo

    from django.conf import settings
    from django.test import Client

    from kingofhill import services
    from kingofhill.models import Answer
    from tests.conftest import settle_server
    from tests.kingofhill.conftest import join_session

    koth, host_user, (alpha, _beta, _gamma) = evening
    services.game_start(actor=host_user, game=koth)
    services.question_announce(actor=host_user, game=koth)
    contexts = []

    def device(viewport, client):
        context = browser.new_context(viewport=viewport, locale="ru-RU", timezone_id=DEVICE_ZONE)
        contexts.append(context)
        return with_session(context.new_page(), asgi_server, client)

    try:
        team = Client()
        join_session(team, alpha)
        phone = device(PHONE, team)
        phone.goto(f"{asgi_server}/koth/{koth.pk}/play/")
        expect(phone.locator("#live-status")).to_have_attribute("data-status", "online",
                                                                timeout=WAIT)
        answer_now(phone, "Пушкин")
        arrived = Answer.objects.get(application=alpha).at
        hall = arrived.astimezone(ZoneInfo(settings.TIME_ZONE)).strftime("%H:%M:%S")
        device_time = arrived.astimezone(ZoneInfo(DEVICE_ZONE)).strftime("%H:%M:%S")
        assert hall != device_time
        expect(phone.locator("#answer-confirm")).to_have_text(
            f"Ответ принят в {hall}: «Пушкин»")

        answer_row = Answer.objects.get(application=alpha)
        services.answers_judge(actor=host_user, game=koth, question=1,
                               normalized=answer_row.normalized, verdict=True)
        services.question_close(actor=host_user, game=koth)
        staff = Client()
        staff.force_login(host_user)
        console = device({"width": 1366, "height": 768}, staff)
        console.goto(f"{asgi_server}/koth/{koth.pk}/host/")
        history = console.locator('details[data-question="1"]')
        history.locator("summary").click()
        expect(history.locator("tr[data-answer]")).to_contain_text(hall, timeout=WAIT)
    finally:
        for context in contexts:
            context.close()
        settle_server()
