"""Both team phones at 390x844 in real Chromium: the GoRoD code field and its button lie inside
the first screen in every state of a level (a long task with images, danger and hints, the
organizer's long message and a bonus hint, a short task after a verdict, a timeout), the result card is there once the game is over, neither phone
page shifts its layout by more than 0.1 while it loads and its live state arrives, and the
phone's table of levels keeps a long Russian word on one line."""

from __future__ import annotations

import struct
import zlib
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from gorod import services
from tests.e2e.layout import (
    IMAGES_LOADED_JS,
    OBSERVE_SHIFTS_JS,
    SPLIT_WORDS_JS,
    in_first_screen,
    layout_shift,
)
from tests.gorod.fixtures_live import join_session, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000
PHONE = {"width": 390, "height": 844}
MAX_SHIFT = 0.1
LONG_LABEL = "Достопримечательности"
LONG_TASK = " ".join(["Пройдите вдоль набережной до старого моста, где Толстой писал о прыжке "
                      "через реку; найдите табличку с годом постройки."] * 12)


def png(width: int, height: int) -> bytes:
    """A real grey picture (the browser lays it out at its size once it has loaded)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    rows = b"".join(b"\0" + b"\x88" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


@pytest.fixture
def night(asgi_server):
    from core.roles import ORGANIZER
    from teams.models import Game

    organizer = make_user("organizer-first-screen", ORGANIZER)
    game = Game.objects.create(title="ГоРоД: первый экран", format="gorod",
                               starts_at=timezone.now() + timedelta(days=3))
    alpha, beta = make_teams(game, ["Полуночники", "Следопыты"], organizer)
    # Both hints at once: the first level shows them as soon as it is received.
    gg = services.gorod_create(actor=organizer, game=game, hint_offsets_min=[0, 0.001])
    for name in ("map.png", "sign.png"):
        services.image_add(actor=organizer, game=gg, name=name, data=png(800, 600))
    services.level_add(actor=organizer, game=gg, label=LONG_LABEL, task=LONG_TASK,
                       hint1="У воды " * 20, hint2="Красный мост " * 20, danger=3,
                       images=["map.png", "sign.png"], codes={"code": "G1R1D"})
    services.level_add(actor=organizer, game=gg, label="Прыжок", task="Найдите башню.",
                       codes={"code": "G1R2D"})
    services.game_start(actor=organizer, game=gg)
    return gg, organizer, alpha


@pytest.fixture
def phone(browser, asgi_server):
    contexts = []

    def open_page(entry, path: str):
        """A fresh load of the team's page, its layout shifts observed from the first paint."""
        context = browser.new_context(viewport=PHONE, locale="ru-RU")
        contexts.append(context)
        client = Client()
        join_session(client, entry)
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                              "url": asgi_server}])
        context.add_init_script(OBSERVE_SHIFTS_JS)
        page = context.new_page()
        page.goto(asgi_server + path)
        expect(page.locator("#live-status")).to_have_attribute("data-status", "online",
                                                               timeout=WAIT)
        page.wait_for_function(IMAGES_LOADED_JS, timeout=WAIT)
        return page

    yield open_page
    for context in contexts:
        context.close()


def assert_code_form_in_first_screen(page, state: str) -> None:
    expect(page.locator("#code-text")).to_be_visible(timeout=WAIT)
    for selector in ("#code-text", "#code-send"):
        assert in_first_screen(page, selector), (state, selector,
                                                 page.locator(selector).bounding_box())


def assert_steady(page, state: str) -> None:
    total, shifts = layout_shift(page)
    assert total <= MAX_SHIFT, (state, total, shifts)


def test_the_gorod_code_form_is_in_the_first_screen_in_every_state_and_nothing_shifts(
        asgi_server, phone, night):
    gg, organizer, alpha = night
    path = f"/gorod/{gg.pk}/play/"

    # A long task with two pictures, a danger grade and both hints.
    page = phone(alpha, path)
    expect(page.locator("#level-hints li")).to_have_count(2, timeout=WAIT)
    expect(page.locator("#level-images img")).to_have_count(2)
    expect(page.locator("#level-danger")).to_be_visible()
    expect(page.locator("#result-box")).to_be_visible()  # the result card of zeros
    assert_steady(page, "long task")
    assert_code_form_in_first_screen(page, "long task")

    # The organizer's long message at the top and a bonus hint under the hints: the message is
    # held to its first lines, the code form stays in the first screen.
    services.message_send(actor=organizer, game=gg, text="Внимание! " + "Сбор у моста. " * 40)
    services.message_send(actor=organizer, game=gg, kind="bonus_hint", audience="level",
                          level=LONG_LABEL, text="Ищите у воды " * 10)
    page = phone(alpha, path)
    expect(page.locator("#messages-box")).to_be_visible(timeout=WAIT)
    expect(page.locator("#level-hints li.bonus")).to_have_count(1)
    assert_steady(page, "a long message")
    assert_code_form_in_first_screen(page, "a long message")

    # A short task, with the verdict of the code that closed the level before.
    page.fill("#code-text", "G1R1D")
    page.click("#code-send")
    expect(page.locator("#code-result")).to_have_attribute("data-kind", "accepted", timeout=WAIT)
    expect(page.locator("#level-task")).to_have_text("Найдите башню.", timeout=WAIT)
    # The next level's two hints fall due within a moment of its start and reach the stored
    # state by the clock's push: wait for them, or a fresh load may race that push.
    expect(page.locator("#level-hints li")).to_have_count(2, timeout=WAIT)
    assert_code_form_in_first_screen(page, "short task with a verdict")
    assert_steady(page, "short task with a verdict")
    page = phone(alpha, path)
    assert_code_form_in_first_screen(page, "short task")
    assert_steady(page, "short task")

    # A confirmed timeout: its note on the level, the request's answer in its card.
    request = services.timeout_request(game=gg, application=alpha, minutes=5, reason="Пробка")
    services.timeout_decide(actor=organizer, game=gg, request=request, confirm=True)
    page = phone(alpha, path)
    expect(page.locator("#timeout-note")).to_be_visible(timeout=WAIT)
    assert_code_form_in_first_screen(page, "timeout")
    assert_steady(page, "timeout")

    # The game is over: no code to send; the team's total and place come first instead.
    services.game_end(actor=organizer, game=gg)
    page = phone(alpha, path)
    expect(page.locator("#place-row")).to_be_visible(timeout=WAIT)
    expect(page.locator("#code-box")).to_be_hidden()
    for selector in ("#me-place", "#me-total"):
        assert in_first_screen(page, selector), ("finished", selector)
    assert_steady(page, "finished")


def test_the_levels_table_on_the_gorod_phone_keeps_a_long_word_on_one_line(
        asgi_server, phone, night):
    gg, organizer, alpha = night
    services.code_submit(game=gg, application=alpha, text="G1R1D")
    page = phone(alpha, f"/gorod/{gg.pk}/play/")
    cell = page.locator("#history td", has_text=LONG_LABEL)
    expect(cell).to_have_count(1, timeout=WAIT)
    style = cell.evaluate("""c => { const s = getComputedStyle(c);
                                    return [s.wordBreak, s.overflowWrap, s.hyphens]; }""")
    assert style == ["normal", "normal", "manual"]
    # The word's own width fits in its cell: no letter went to a second line.
    word, width = cell.evaluate("""c => { const r = document.createRange(); r.selectNodeContents(c);
                                          return [r.getClientRects().length, c.clientWidth]; }""")
    assert word == 1 and width > 0
    assert page.evaluate(SPLIT_WORDS_JS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_king_of_the_hill_phone_does_not_shift_while_its_state_arrives(asgi_server, phone):
    from core.roles import ORGANIZER
    from kingofhill import services as koth_services
    from teams.models import Game

    organizer = make_user("organizer-koth-shift", ORGANIZER)
    game = Game.objects.create(title="Царь Горы: первый экран", format="kingofhill",
                               starts_at=timezone.now() + timedelta(days=3))
    entries = make_teams(game, ["Барсуки", "Ежи", "Бобры", "Выдры"], organizer)
    koth = koth_services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                     reserve_questions=0)
    # Before the start: the declarations' reasons fill the card the team looks at.
    page = phone(entries[0], f"/koth/{koth.pk}/play/")
    expect(page.locator("#jump-reason")).not_to_be_empty(timeout=WAIT)
    assert_steady(page, "king of the hill phone")
