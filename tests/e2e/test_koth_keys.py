"""The host's keys in real Chromium with the Russian layout on: the keys are dispatched as
ЙЦУКЕН produces them (``key`` «ы», ``code`` ``KeyS``…), since Playwright's keyboard types by key;
the console acts on the physical key, leaves typing in its fields alone, and its key help shows
the layout's own letters next to the Latin ones."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import HOST, ORGANIZER
from kingofhill import services
from kingofhill.models import KothGame, Question
from teams.models import Game
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_live import WAIT, with_session
from tests.kingofhill.conftest import make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# What the Keyboard Map API answers with the Russian layout on (the letters the host sees).
RUSSIAN_LAYOUT = {"KeyS": "ы", "KeyA": "ф", "KeyC": "с", "KeyP": "з"}


def press(page, key: str, code: str, target: str = "body") -> None:
    """A keydown as the layout makes it: the character in ``key``, the physical key in ``code``."""
    page.locator(target).dispatch_event("keydown", {"key": key, "code": code, "bubbles": True})


@pytest.fixture
def console(asgi_server, new_page):
    organizer = make_user("organizer-keys", ORGANIZER)
    host = make_user("host-keys", HOST)
    game = Game.objects.create(title="Царь Горы: раскладка", format="kingofhill",
                               starts_at=timezone.now() + timedelta(hours=1))
    alpha, beta = make_teams(game, ["Alpha", "Beta"], organizer)
    koth = services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                reserve_questions=0)
    services.host_assign(actor=organizer, game=koth, user=host)
    client = Client()
    client.force_login(host)

    def open_console(layout: dict | None = None):
        page = with_session(new_page(), asgi_server, client)
        if layout is not None:
            # The machine's layout is the operating system's; the page learns it only from
            # this API, so the test gives the page the map the Russian layout would.
            page.add_init_script(
                "navigator.keyboard.getLayoutMap = () => Promise.resolve(new Map(Object.entries("
                f"{layout!r})));")
        page.goto(f"{asgi_server}/koth/{koth.pk}/host/")
        expect(page.locator("#live-status")).to_have_attribute("data-status", "online",
                                                              timeout=WAIT)
        return page

    return {"koth": koth, "host": host, "alpha": alpha, "beta": beta, "open": open_console}


def test_with_the_russian_layout_the_letter_keys_start_announce_mark_and_close(console):
    koth, page = console["koth"], console["open"]()
    body = page.locator("body")
    expect(body).to_have_attribute("data-phase", "setup")

    press(page, "ы", "KeyS")
    expect(body).to_have_attribute("data-phase", "declaring", timeout=WAIT)

    # Typing in the announce form is typing: «ф» there is a letter, not "announce".
    page.locator("#q-text").fill("Столица Франции")
    press(page, "ф", "KeyA", target="#q-text")
    page.locator("#q-key").fill("Париж")
    press(page, "ф", "KeyA", target="#q-key")
    assert body.get_attribute("data-phase") == "declaring"
    assert Question.objects.get(koth=koth, number=1).announced_at is None

    page.locator("#q-key").blur()
    press(page, "ф", "KeyA")
    expect(body).to_have_attribute("data-phase", "answering", timeout=WAIT)
    assert Question.objects.get(koth=koth, number=1).text == "Столица Франции"

    press(page, "з", "KeyP")
    expect(page.locator("#partner")).to_be_checked(timeout=WAIT)

    services.answer_submit(game=koth, application=console["alpha"], text="Париж",
                           client_id=uuid.uuid4())
    expect(page.locator("#close")).to_be_enabled(timeout=WAIT)  # the key's match is judged
    press(page, "с", "KeyC")
    expect(page.locator("#question-title")).to_contain_text("Вопрос 2", timeout=WAIT)
    koth.refresh_from_db()
    assert koth.status == KothGame.Status.RUNNING
    assert next(t for t in koth.board["teams"] if t["team"] == "Alpha")["points"] == 2


def test_the_key_help_shows_the_layouts_letters_next_to_the_latin_ones(console):
    page = console["open"](RUSSIAN_LAYOUT)
    help_line = page.locator("#key-help")
    expect(help_line.locator('kbd[data-code="KeyA"]')).to_have_text("A/Ф", timeout=WAIT)
    expect(help_line.locator('kbd[data-code="KeyS"]')).to_have_text("S/Ы")
    expect(help_line.locator('kbd[data-code="KeyC"]')).to_have_text("C/С")
    expect(help_line.locator('kbd[data-code="KeyP"]')).to_have_text("P/З")
    expect(page.locator("#start")).to_contain_text("(S/Ы)")
    page.screenshot(path=str(artifacts_dir() / "koth-keys-russian-layout.png"))

