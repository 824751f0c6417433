"""The host's countdown in real Chromium: the host starts 30 s, pauses it by key (the phone and
the projector say "paused" and stand still), gives 10 s more by button and by key, resumes;
with answers after zero off (the default) the phone closes its answer at zero, and a phone
whose clock lags behind the server's is refused by the server, in Russian."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import HOST, ORGANIZER
from kingofhill import services
from kingofhill.models import Answer, Question
from teams.models import Game
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_live import PHONE, WAIT, open_phone, with_session
from tests.e2e.test_koth_projector_sizes import fits
from tests.e2e.waits import counted_down
from tests.kingofhill.conftest import join_session, make_teams, make_user
from tests.kingofhill.projector_harness import mid_game_state, render_projector

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def shows_paused(page, selector: str, left: int) -> None:
    """Until the countdown in ``selector`` stands at ``left`` seconds, marked paused."""
    node = page.locator(selector)
    expect(node).to_have_attribute("data-paused", "true", timeout=WAIT)
    expect(node).to_have_attribute("data-left", str(left), timeout=WAIT)
    expect(node).to_have_text(f"0:{left:02d} · пауза")


def paused_left(koth) -> int:
    return Question.objects.get(koth=koth, number=1).countdown_paused_left


def test_the_host_pauses_and_extends_the_countdown_and_a_late_answer_is_refused(
        asgi_server, new_page):
    organizer = make_user("organizer-timer", ORGANIZER)
    host = make_user("host-timer", HOST)
    game = Game.objects.create(title="Царь Горы: отсчёт", format="kingofhill",
                               starts_at=timezone.now() + timedelta(hours=1))
    alpha, beta = make_teams(game, ["Alpha", "Beta"], organizer)
    koth = services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                reserve_questions=0)
    services.host_assign(actor=organizer, game=koth, user=host)
    services.game_start(actor=host, game=koth)
    services.question_announce(actor=host, game=koth, text="Кто написал «Онегина»?")

    client = Client()
    client.force_login(host)
    console = with_session(new_page(), asgi_server, client)
    console.goto(f"{asgi_server}/koth/{koth.pk}/host/")
    expect(console.locator("#live-status")).to_have_attribute("data-status", "online",
                                                              timeout=WAIT)
    phone = open_phone(new_page, asgi_server, koth, alpha)
    projector = new_page()
    projector.goto(f"{asgi_server}/koth/{koth.pk}/projector/")
    expect(projector.locator("#live-status")).to_have_attribute("data-status", "online",
                                                                timeout=WAIT)
    expect(console.locator("#answers-after-zero")).not_to_be_checked()

    console.fill("#countdown-seconds", "30")
    console.click("#countdown-start")
    expect(phone.locator("#countdown")).to_be_visible(timeout=WAIT)
    counted_down(phone, "#countdown", 30)

    # Space pauses, even with the start button still focused (it must not restart the count).
    console.keyboard.press("Space")
    expect(console.locator("#countdown-pause")).to_have_attribute("data-paused", "true",
                                                                  timeout=WAIT)
    expect(console.locator("#countdown-pause")).to_contain_text("Продолжить")
    left = paused_left(koth)
    assert 0 < left <= 30
    for page, selector in ((phone, "#countdown"), (projector, "#koth-countdown"),
                           (console, "#countdown")):
        shows_paused(page, selector, left)

    # Each extension lands on exactly the seconds kept: nothing counted down meanwhile.
    console.click("#countdown-plus")
    shows_paused(phone, "#countdown", left + 10)
    shows_paused(projector, "#koth-countdown", left + 10)
    console.keyboard.press("Minus")
    shows_paused(phone, "#countdown", left)
    console.keyboard.press("Equal")
    shows_paused(phone, "#countdown", left + 10)
    shows_paused(projector, "#koth-countdown", left + 10)
    assert paused_left(koth) == left + 10
    phone.screenshot(path=str(artifacts_dir() / "koth-timer-phone-paused.png"))
    projector.screenshot(path=str(artifacts_dir() / "koth-timer-projector-paused.png"))
    console.screenshot(path=str(artifacts_dir() / "koth-timer-console-paused.png"),
                       full_page=True)

    console.click("#countdown-pause")
    for page, selector in ((phone, "#countdown"), (projector, "#koth-countdown")):
        expect(page.locator(selector)).not_to_have_attribute("data-paused", "true",
                                                             timeout=WAIT)
        counted_down(page, selector, left + 10)
    assert Question.objects.get(koth=koth, number=1).countdown_ends_at is not None

    # A second phone whose clock fell a minute behind after it loaded: its countdown still
    # runs when the server's has ended.
    lagging = new_page(viewport=PHONE)
    late = Client()
    join_session(late, beta)
    with_session(lagging, asgi_server, late)
    lagging.clock.install()
    lagging.goto(f"{asgi_server}/koth/{koth.pk}/play/")
    expect(lagging.locator("#live-status")).to_have_attribute("data-status", "online",
                                                              timeout=WAIT)
    lagging.clock.set_system_time(timezone.now() - timedelta(minutes=1))

    # The host gives the last 2 seconds: at zero the phone closes its answer.
    console.fill("#countdown-seconds", "2")
    console.click("#countdown-start")
    expect(phone.locator("#time-up")).to_have_text(
        "Время вышло: ответы больше не принимаются.", timeout=WAIT)
    expect(phone.locator("#answer-send")).to_be_disabled()
    expect(projector.locator("#koth-countdown")).to_have_text("0:00", timeout=WAIT)
    phone.screenshot(path=str(artifacts_dir() / "koth-timer-phone-time-up.png"))

    expect(lagging.locator("#answer-send")).to_be_enabled(timeout=WAIT)
    lagging.fill("#answer-text", "Пушкин")
    lagging.click("#answer-send")
    expect(lagging.locator("#koth-error")).to_have_text("Время на вопрос 1 вышло.",
                                                        timeout=WAIT)
    assert not Answer.objects.filter(question__koth=koth).exists()


def test_a_paused_countdown_fits_the_smallest_projector_with_64_teams(asgi_server, new_page):
    state = mid_game_state(64)
    state["question"]["countdown"] = {"seconds": 600, "paused_left": 599}
    html = render_projector(state)
    page = new_page(viewport={"width": 1024, "height": 768})
    page.emulate_media(reduced_motion="reduce")
    page.route("**/projector-harness", lambda route: route.fulfill(
        body=html, content_type="text/html; charset=utf-8"))
    page.goto(asgi_server + "/projector-harness")
    page.wait_for_function("() => document.querySelectorAll('#koth-board .kp-slope').length > 0")
    countdown = page.locator("#koth-countdown")
    expect(countdown).to_have_text("9:59 · пауза")
    fits(page, 64, "a paused countdown, 64 teams at 1024x768")
    page.screenshot(path=str(artifacts_dir() / "projector-paused-64-1024x768.png"))
