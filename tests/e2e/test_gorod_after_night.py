"""A ruling the morning after, in real Chromium: on a finished GoRoD night whose results are
published the organizer rules a penalty; the console asks first with its preview, which says
the results will be out of date, a cancel stores nothing, a confirmation stores the ruling and
the results page says the published results are out of date."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from gorod import services
from gorod.models import Ruling
from rating import services as rating_services
from teams.models import Game
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_live import WAIT, with_session
from tests.gorod.fixtures_live import LEVELS
from tests.rating.helpers import captained_teams, enter, make_game, make_organizer

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_ruling_after_the_published_night_asks_first_then_marks_the_results_out_of_date(
        asgi_server, new_page):
    organizer = make_organizer()
    game = make_game(Game.Format.GOROD, organizer, title="ГоРоД: утро после")
    alpha, beta, _gamma = enter(game, captained_teams())
    start = timezone.now() - timedelta(hours=3)
    gg = services.gorod_create(actor=organizer, game=game, levels=LEVELS)
    services.game_start(actor=organizer, game=gg, now=start)
    services.code_submit(game=gg, application=alpha, text="G1R1D", now=start + timedelta(minutes=10))
    services.code_submit(game=gg, application=beta, text="G1R1D", now=start + timedelta(minutes=20))
    services.game_end(actor=organizer, game=gg, now=start + timedelta(minutes=60))
    rating_services.results_publish(actor=organizer, game=game)

    client = Client()
    client.force_login(organizer)
    page = with_session(new_page(), asgi_server, client)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{asgi_server}/gorod/{game.pk}/")
    expect(page.locator("#ruling-team option")).to_have_count(3, timeout=WAIT)

    def rule():
        page.select_option("#ruling-team", str(beta.pk))
        page.select_option("#ruling-type", "penalty")
        page.fill("#ruling-minutes", "30")
        page.fill("#ruling-reason", "протест Alpha")
        page.click("#ruling-send")
        asked = page.locator("#ruling-form + #ruling-preview")
        expect(asked).to_be_visible(timeout=WAIT)
        return asked

    asked = rule()
    # The browser speaks Russian (as a hall's laptop would).
    expect(asked).to_contain_text("Beta: итог 0:20 → 0:50")
    expect(asked).to_contain_text("опубликовать их заново")
    asked.locator("#ruling-preview-cancel").click()
    expect(page.locator("#ruling-preview")).to_have_count(0)
    assert not Ruling.objects.filter(gorod=gg, type="penalty").exists()

    rule().locator("#ruling-preview-confirm").click()
    expect(page.locator("#rulings li")).to_have_count(1, timeout=WAIT)
    expect(page.locator("#rulings li")).to_contain_text("Beta")
    expect(page.locator("#ruling-preview")).to_have_count(0)
    assert Ruling.objects.filter(gorod=gg, type="penalty", application=beta).exists()
    assert dialogs == []  # the console asked in the page
    page.screenshot(path=str(artifacts_dir() / "gorod-after-night-confirmed.png"))

    page.goto(f"{asgi_server}/rating/games/{game.pk}/")
    notice = page.locator("#results-outdated")
    expect(notice).to_contain_text("поле игры изменилось после их публикации")
    expect(notice).to_contain_text("Добавлено решение для команды Beta")
