"""A test run in real Chromium: the organizer makes a 60 times faster test run on the game's
set-up page and starts it; a tester's phone joins by its link, sees the first hint come within
seconds and closes the level; the organizer resets the run and the phone is back before the
start. Screenshots in artifacts/."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from gorod import services
from gorod.models import CodeAttempt, GorodGame
from tests.conftest import artifacts_dir
from tests.e2e.test_gorod_setup import organizer_page
from tests.gorod.fixtures_live import LEVELS, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000
PHONE = {"width": 390, "height": 844}


def test_an_organizer_test_runs_a_level_on_a_fast_clock_and_resets_it(asgi_server, new_page,
                                                                        browser):
    from core.roles import ORGANIZER
    from teams.models import Game

    organizer = make_user("organizer-test-run-e2e", ORGANIZER)
    game = Game.objects.create(title="Ночь у реки", format="gorod",
                               starts_at=timezone.now() + timedelta(days=5))
    make_teams(game, ["Alpha"], organizer)
    # Hints at +5 and +10 min: at ×60 the first comes 5 s after the start.
    source = services.gorod_create(actor=organizer, game=game, levels=LEVELS,
                                   hint_offsets_min=[5, 10])
    org, errors = organizer_page(asgi_server, new_page, organizer)
    org.on("dialog", lambda dialog: dialog.accept())

    org.goto(f"{asgi_server}/gorod/{source.pk}/setup/")
    # A refusal is said in the card, next to the form.
    org.fill("#test-run-teams", "0")
    org.click("#test-run-create")
    expect(org.locator("#test-run-error")).to_contain_text("от 1 до 20 тестовых команд",
                                                           timeout=WAIT)
    org.select_option("#test-run-factor", "60")
    org.fill("#test-run-teams", "1")
    org.click("#test-run-create")
    run_card = org.locator(".gorod-test-run")
    expect(run_card).to_have_count(1, timeout=WAIT)
    expect(run_card.locator("h3")).to_contain_text("Тест: Ночь у реки")
    expect(run_card.locator("h3")).to_contain_text("в 60 раз быстрее")
    org.screenshot(path=str(artifacts_dir() / "gorod-test-run.png"), full_page=True)
    join_link = run_card.locator("a[data-join]").get_attribute("href")
    run = GorodGame.objects.get(game__test_of=game)

    run_card.locator("a[data-open]").click()
    expect(org.locator("#start-game")).to_be_visible(timeout=WAIT)
    org.click("#start-game")
    expect(org.locator("#game-status")).to_have_attribute("data-status", "running",
                                                          timeout=WAIT)

    context = browser.new_context(viewport=PHONE, locale="ru-RU")
    try:
        phone = context.new_page()
        phone.goto(f"{asgi_server}{join_link}")
        phone.click(".join-button")
        phone.goto(f"{asgi_server}/gorod/{run.pk}/play/")
        expect(phone.locator("#level-title")).to_contain_text("1", timeout=WAIT)
        # The hint due 5 s after the start comes by the clock alone.
        expect(phone.locator('#level-hints li[data-hint="1"]')).to_be_visible(timeout=WAIT)
        phone.fill("#code-text", "G1R1D")
        phone.click("#code-send")
        expect(phone.locator("#code-result")).to_contain_text("Код принят", timeout=WAIT)

        org.goto(f"{asgi_server}/gorod/{source.pk}/setup/")
        org.locator(".gorod-test-run button[data-reset]").click()
        expect(org.locator(".gorod-test-run h3")).to_contain_text("подготовка", timeout=WAIT)
        # The phone follows to the set-up state, with nothing of its play left.
        expect(phone.locator("#game-status")).to_be_visible(timeout=WAIT)
        expect(phone.locator('#level-hints li[data-hint="1"]')).to_have_count(0)
        assert not CodeAttempt.objects.filter(gorod_id=run.pk).exists()
    finally:
        context.close()
    assert errors == []
