"""The question bank page in real Chromium, by keyboard: the host moves a question to the top,
down and to a place, edits one in its form (errors shown beside it), and the console open
beside it follows: its "next question" is the queue's first, pushed live."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import ORGANIZER
from kingofhill import selectors, services
from teams.models import Game
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_live import WAIT, with_session
from tests.kingofhill.conftest import make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def row(page, text: str):
    return page.locator("#bank-list tbody tr", has_text=text)


def test_the_host_reorders_and_edits_the_bank_by_keyboard_and_the_console_follows(
        asgi_server, new_page):
    organizer = make_user("organizer-bank", ORGANIZER)
    game = Game.objects.create(title="Царь Горы: банк", format="kingofhill",
                               starts_at=timezone.now() - timedelta(hours=1))
    make_teams(game, ["Alpha", "Beta", "Gamma"], organizer)
    koth = services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                reserve_questions=2)
    services.game_start(actor=organizer, game=koth)
    for n in (1, 2, 3):
        services.bank_question_add(actor=organizer, game=koth, text=f"Вопрос {n}?",
                                   answer_key=f"ответ {n}")
    client = Client()
    client.force_login(organizer)

    console = with_session(new_page(), asgi_server, client)
    console.goto(f"{asgi_server}/koth/{koth.pk}/host/")
    expect(console.locator("#bank-next-text")).to_contain_text("Вопрос 1?", timeout=WAIT)

    page = with_session(new_page(viewport={"width": 1024, "height": 768}), asgi_server, client)
    page.goto(f"{asgi_server}/koth/{koth.pk}/questions/")
    # The first cannot go up, the last cannot go down.
    expect(row(page, "Вопрос 1?").locator('[data-move="up"]')).to_be_disabled()
    expect(row(page, "Вопрос 3?").locator('[data-move="down"]')).to_be_disabled()

    # Question 3 up, by the keyboard: the page comes back at it, so "up" again is one key.
    row(page, "Вопрос 3?").locator('[data-move="up"]').focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.hash.startsWith('#bank-q')")
    expect(page.locator("#bank-list tbody tr").nth(1)).to_contain_text("Вопрос 3?")
    row(page, "Вопрос 3?").locator('[data-move="up"]').focus()
    page.keyboard.press("Space")
    expect(page.locator("#bank-list tbody tr").first).to_contain_text("Вопрос 3?")
    expect(console.locator("#bank-next-text")).to_contain_text("Вопрос 3?", timeout=WAIT)

    # Question 1 to place 3 by typing its place.
    place = row(page, "Вопрос 1?").locator('input[name="to"]')
    place.fill("3")
    place.press("Enter")
    expect(page.locator("#bank-list tbody tr").last).to_contain_text("Вопрос 1?")
    assert [q["text"] for q in selectors.bank_listing(koth)] == [
        "Вопрос 3?", "Вопрос 2?", "Вопрос 1?"]

    # Edit the first: the form opens with the text focused; an empty text is refused beside it.
    row(page, "Вопрос 3?").locator("[data-edit]").focus()
    page.keyboard.press("Enter")
    text = page.locator("#id_edit-text")
    expect(text).to_be_focused()
    expect(text).to_have_value("Вопрос 3?")
    text.fill("  ")
    page.locator("#bank-edit button[type=submit]").click()
    expect(page.locator("#bank-edit")).to_be_visible()
    page.evaluate("() => document.getElementById('id_edit-text').removeAttribute('required')")
    text.fill(" ")
    page.locator("#bank-edit button[type=submit]").click()
    expect(page.locator("#bank-edit .errorlist")).to_be_visible()
    page.locator("#id_edit-text").fill("Кто написал «Онегина»?")
    page.locator("#id_edit-answer_key").fill("Пушкин")
    page.locator("#id_edit-variants").fill("А. С. Пушкин")
    page.locator("#id_edit-note").fill("читать медленно")
    page.locator("#id_edit-note").press("Tab")
    page.keyboard.press("Enter")  # the focus is on "Save"
    expect(page.locator("#bank-edit")).to_have_count(0)
    expect(page.locator("#bank-list tbody tr").first).to_contain_text("Кто написал «Онегина»?")
    expect(console.locator("#bank-next-text")).to_contain_text("Кто написал «Онегина»?",
                                                               timeout=WAIT)
    page.screenshot(path=str(artifacts_dir() / "koth-bank-1024x768.png"), full_page=True)

    # The announcement takes it; on the page it is announced, without buttons.
    services.question_announce(actor=organizer, game=koth)
    page.reload()
    announced = row(page, "Кто написал «Онегина»?")
    expect(announced).to_have_attribute("data-used", "1")
    expect(announced.locator("[data-move], [data-edit]")).to_have_count(0)
    expect(row(page, "Вопрос 2?").locator('[data-move="up"]')).to_be_disabled()
