"""Changing the past in real Chromium: on a finished, published King of the Hill game the host
flips a verdict that would re-open it; the console asks first and says what will change, a
refusal changes nothing, a confirmation re-opens the game and the results page says the
published results are out of date."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import ORGANIZER
from kingofhill import services
from kingofhill.models import Answer
from rating import services as rating_services
from teams.models import Game
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_live import WAIT, with_session
from tests.kingofhill.conftest import make_teams, make_user
from tests.kingofhill.test_services import finish

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_flip_that_re_opens_a_published_game_asks_first_then_marks_the_results_out_of_date(
        asgi_server, new_page):
    organizer = make_user("organizer-past", ORGANIZER)
    game = Game.objects.create(title="Царь Горы: прошлое", format="kingofhill",
                               starts_at=timezone.now() - timedelta(hours=2))
    alpha, beta, gamma = make_teams(game, ["Alpha", "Beta", "Gamma"], organizer)
    koth = services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                reserve_questions=2)
    services.game_start(actor=organizer, game=koth)
    finish(koth, organizer, alpha, beta, gamma)
    rating_services.results_publish(actor=organizer, game=game)
    jump = Answer.objects.get(question__koth=koth, question__number=2, application=alpha)

    client = Client()
    client.force_login(organizer)
    page = with_session(new_page(), asgi_server, client)
    dialogs: list[str] = []
    replies = iter(["dismiss", "accept"])
    page.on("dialog", lambda d: (dialogs.append(d.message), getattr(d, next(replies))()))
    page.goto(f"{asgi_server}/koth/{koth.pk}/host/")
    expect(page.locator("body")).to_have_attribute("data-phase", "finished")

    def flip(seen: int):
        question = page.locator('details[data-question="2"]')
        if question.get_attribute("open") is None:
            question.locator("summary").click()
        with page.expect_event("dialog", timeout=WAIT):
            question.locator(f'tr[data-answer="{jump.pk}"] button').click()
        assert len(dialogs) == seen + 1, "no confirmation was asked"

    flip(0)
    # The browser speaks Russian (as a hall's laptop would).
    assert "Меняется победитель: Alpha → пока никто." in dialogs[0]
    assert "Завершённая игра возобновится" in dialogs[0]
    assert "опубликовать их заново" in dialogs[0]
    # Dismissed: the verdict and the finished game stay as they were.
    expect(page.locator("body")).to_have_attribute("data-phase", "finished")
    expect(page.locator(f'tr[data-answer="{jump.pk}"] td').nth(3)).to_have_text("Верно")
    assert Answer.objects.get(pk=jump.pk).verdict is True

    flip(1)
    expect(page.locator("body")).to_have_attribute("data-phase", "declaring", timeout=WAIT)
    expect(page.locator(f'tr[data-answer="{jump.pk}"] td').nth(3)).to_have_text("Неверно")
    page.screenshot(path=str(artifacts_dir() / "koth-past-confirmed.png"))

    page.goto(f"{asgi_server}/rating/games/{game.pk}/")
    notice = page.locator("#results-outdated")
    expect(notice).to_contain_text("поле игры изменилось после их публикации")
    expect(notice).to_contain_text("Изменён вопрос 2")
    expect(notice).to_contain_text("«Обновить по игре»")
