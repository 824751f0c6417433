"""The host console in real Chromium with twelve teams: a two-digit group is judged by keyboard,
an opened earlier question stays open across live updates, and a phone that connects shows up
in the console's presence line."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import HOST, ORGANIZER
from kingofhill import services
from kingofhill.models import Answer
from teams.models import Game
from tests.e2e.test_koth_live import WAIT, open_phone, with_session
from tests.kingofhill.conftest import make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_twelve_groups_by_keyboard_a_history_that_stays_open_and_presence(asgi_server, new_page):
    organizer = make_user("organizer-console", ORGANIZER)
    host_user = make_user("host-console", HOST)
    game = Game.objects.create(title="Царь Горы: пульт", format="kingofhill",
                               starts_at=timezone.now() + timedelta(days=1))
    entries = make_teams(game, [f"Команда {i}" for i in range(1, 13)], organizer)
    koth = services.koth_create(actor=organizer, game=game, summit=5, main_questions=10,
                                reserve_questions=0)
    services.host_assign(actor=organizer, game=koth, user=host_user)
    services.game_start(actor=host_user, game=koth)
    services.question_announce(actor=host_user, game=koth)
    services.question_close(actor=host_user, game=koth)  # nobody answered question 1
    services.question_announce(actor=host_user, game=koth)
    for i, entry in enumerate(entries, start=1):
        services.answer_submit(game=koth, application=entry, text=f"ответ {i}",
                               client_id=uuid.uuid4())

    client = Client()
    client.force_login(host_user)
    page = with_session(new_page(), asgi_server, client)
    page.goto(f"{asgi_server}/koth/{koth.pk}/host/")
    expect(page.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    expect(page.locator("#groups li")).to_have_count(12)
    page.locator('details[data-question="1"] summary').click()

    page.keyboard.press("1")
    expect(page.locator("#key-buffer")).to_have_text("#1 ✓")
    page.keyboard.press("2")  # no group 120: judged at once
    twelfth = page.locator('#groups li[data-key="ответ 12"]')
    expect(twelfth).to_have_attribute("data-verdict", "true", timeout=WAIT)
    assert Answer.objects.get(normalized="ответ 12").verdict is True
    assert Answer.objects.get(normalized="ответ 1").verdict is None
    page.keyboard.press("Shift+1")
    page.keyboard.press("Enter")  # group 1 ends early, incorrect
    expect(page.locator('#groups li[data-key="ответ 1"]')).to_have_attribute(
        "data-verdict", "false", timeout=WAIT)
    # Two live re-renders later the question the host opened is still open.
    assert page.locator('details[data-question="1"]').get_attribute("open") is not None

    expect(page.locator("#presence")).to_contain_text("0 из 12")
    phone = open_phone(new_page, asgi_server, koth, entries[0])
    expect(page.locator("#presence")).to_contain_text("1 из 12", timeout=WAIT)
    expect(page.locator("#presence")).not_to_contain_text("не на связи: Команда 1,")
    phone.close()
    expect(page.locator("#presence")).to_contain_text("0 из 12", timeout=WAIT)
