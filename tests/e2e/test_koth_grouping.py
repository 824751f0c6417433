"""The host console's grouping help in real Chromium: four ways of writing «Ломоносов» are
suggested as one merge, the host accepts it by key, judges all four with one more and splits
them back; a suggestion the host says is wrong goes away and stays away."""

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
from tests.e2e.test_koth_live import WAIT, with_session
from tests.kingofhill.conftest import make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def console_with_answers(asgi_server, new_page, name: str, texts: list[str]):
    """A running game whose question 1 the teams answered with ``texts``, and its host's
    console open in Chromium."""
    organizer = make_user(f"organizer-{name}", ORGANIZER)
    host_user = make_user(f"host-{name}", HOST)
    game = Game.objects.create(title="Царь Горы: группы", format="kingofhill",
                               starts_at=timezone.now() + timedelta(days=1))
    entries = make_teams(game, [f"Команда {i}" for i in range(1, len(texts) + 1)], organizer)
    koth = services.koth_create(actor=organizer, game=game, summit=5, main_questions=10,
                                reserve_questions=0)
    services.host_assign(actor=organizer, game=koth, user=host_user)
    services.game_start(actor=host_user, game=koth)
    services.question_announce(actor=host_user, game=koth)
    for entry, text in zip(entries, texts, strict=True):
        services.answer_submit(game=koth, application=entry, text=text, client_id=uuid.uuid4())
    client = Client()
    client.force_login(host_user)
    page = with_session(new_page(), asgi_server, client)
    page.goto(f"{asgi_server}/koth/{koth.pk}/host/")
    expect(page.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    return page


def test_the_host_merges_four_lomonosovs_by_key_and_judges_them_with_one_more(
        asgi_server, new_page):
    page = console_with_answers(asgi_server, new_page, "merge",
                                ["Ломоносов", "Ломоносав", "М. Ломоносов", "Lomonosov"])
    expect(page.locator("#groups > li")).to_have_count(4)
    suggestion = page.locator(".koth-suggestion")
    expect(suggestion).to_have_count(1)
    expect(suggestion).to_contain_text("Тот же ответ?")
    for reason in ("написание", "инициалы", "латиница/кириллица"):
        expect(suggestion).to_contain_text(reason)
    expect(page.locator("#key-help")).to_contain_text("объединить первые предложенные группы")

    page.keyboard.press("m")
    expect(page.locator("#groups > li")).to_have_count(1, timeout=WAIT)
    group = page.locator("#groups > li")
    expect(group).to_contain_text("× 4")
    expect(group).to_have_attribute("data-verdict", "null")  # a merge is not a verdict
    expect(page.locator(".koth-suggestion")).to_have_count(0)
    assert set(Answer.objects.values_list("verdict", flat=True)) == {None}

    page.keyboard.press("1")
    expect(group).to_have_attribute("data-verdict", "true", timeout=WAIT)
    assert list(Answer.objects.values_list("verdict", flat=True)) == [True] * 4

    # Split back: four groups again, each keeping the verdict the merged group gave it.
    group.locator(".koth-split").click()
    expect(page.locator("#groups > li")).to_have_count(4, timeout=WAIT)
    expect(page.locator('#groups > li[data-verdict="true"]')).to_have_count(4)


def test_a_suggestion_the_host_calls_wrong_goes_and_stays_away(asgi_server, new_page):
    page = console_with_answers(asgi_server, new_page, "apart", ["Лев Толстой", "Толстой Лев"])
    suggestion = page.locator(".koth-suggestion")
    expect(suggestion).to_contain_text("порядок слов")
    suggestion.locator(".koth-apart").click()
    expect(page.locator(".koth-suggestion")).to_have_count(0, timeout=WAIT)
    page.reload()
    expect(page.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    expect(page.locator("#groups > li")).to_have_count(2)
    expect(page.locator(".koth-suggestion")).to_have_count(0)
