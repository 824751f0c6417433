"""A GoRoD night in real Chromium over a real daphne server: the organizer starts the game, a
team phone enters a wrong code and then the right one, and the organizer's live statistics show
level 1 closed by code. Screenshots go to artifacts/."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from playwright.sync_api import expect

from gorod import services
from tests.conftest import artifacts_dir
from tests.gorod.fixtures_live import LEVELS, join_session, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000
PHONE = {"width": 390, "height": 844}


def with_session(page, base: str, client: Client):
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": base}])
    return page


@pytest.fixture
def night(asgi_server):
    from datetime import timedelta

    from django.utils import timezone

    from core.roles import ORGANIZER
    from teams.models import Game

    organizer = make_user("organizer-gorod-e2e", ORGANIZER)
    game = Game.objects.create(title="ГоРоД e2e", format="gorod",
                               starts_at=timezone.now() + timedelta(days=3))
    entries = make_teams(game, ["Alpha", "Beta"], organizer)
    gg = services.gorod_create(actor=organizer, game=game, levels=LEVELS)
    return gg, organizer, entries


def test_a_wrong_code_then_the_right_one_closes_the_level_on_the_organizer_screen(
        asgi_server, new_page, night):
    gg, organizer, (alpha, _beta) = night
    errors: list[str] = []

    org_client = Client()
    org_client.force_login(organizer)
    org = with_session(new_page(), asgi_server, org_client)
    org.on("pageerror", lambda exc: errors.append(str(exc)))
    org.goto(f"{asgi_server}/gorod/{gg.pk}/")
    expect(org.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)

    phone_client = Client()
    join_session(phone_client, alpha)
    phone = with_session(new_page(viewport=PHONE), asgi_server, phone_client)
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    phone.goto(f"{asgi_server}/gorod/{gg.pk}/play/")
    expect(phone.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    expect(phone.locator("#code-box")).to_be_hidden()

    expect(org.locator("#ruling-team option")).to_have_count(2)
    expect(org.locator("#ruling-team")).to_have_value(str(alpha.pk))
    expect(org.locator("#end-game")).to_be_hidden()
    dialogs: list[str] = []

    def accept(dialog):
        dialogs.append(dialog.message)
        dialog.accept()

    org.on("dialog", accept)
    org.click("#start-game")
    expect(org.locator("#start-game")).to_be_hidden(timeout=WAIT)
    expect(org.locator("#game-status")).to_have_attribute("data-status", "running", timeout=WAIT)
    # The phone learns of the start by its socket alone.
    expect(phone.locator("#level-task")).to_have_text("Find the bridge", timeout=WAIT)
    expect(phone.locator("#fail-in")).not_to_have_text("–", timeout=WAIT)

    phone.fill("#code-text", "G1R999D")
    phone.click("#code-send")
    expect(phone.locator("#code-result")).to_have_attribute("data-kind", "wrong", timeout=WAIT)
    expect(phone.locator("#attempts li.verdict-wrong")).to_have_count(1, timeout=WAIT)
    expect(org.locator("#attempts tr.verdict-wrong")).to_have_count(1, timeout=WAIT)

    phone.fill("#code-text", "g1r1d")
    phone.click("#code-send")
    expect(phone.locator("#code-result")).to_have_attribute("data-kind", "accepted", timeout=WAIT)
    expect(phone.locator("#level-task")).to_have_text("Find the tower", timeout=WAIT)
    expect(phone.locator("#history tr")).to_have_count(1)

    assert dialogs and "первый уровень" in dialogs[0]  # the start was confirmed first

    # The team list: Alpha on level 2 for a few seconds, its last attempt; Beta on level 1.
    alpha_row = org.locator("#teams tr[data-team='Alpha']")
    expect(alpha_row.locator("td").nth(1)).to_have_text("2 · 2", timeout=WAIT)
    expect(alpha_row.locator("td").nth(4)).to_contain_text("g1r1d")
    expect(alpha_row.locator("td.on-level")).to_have_text(re.compile(r"^0:\d\d$"))
    expect(org.locator("#teams tr[data-team='Beta'] td").nth(4)).to_have_text("–")
    expect(org.locator("#teams tr[data-team='Beta'] td").nth(3)).not_to_have_text("–")

    # The attempts filter: by verdict, by team, by level.
    expect(org.locator("#attempts tr")).to_have_count(2)
    org.select_option("#filter-verdict", "wrong")
    expect(org.locator("#attempts tr")).to_have_count(1)
    expect(org.locator("#attempts tr code")).to_have_text("G1R999D")
    org.select_option("#filter-verdict", "")
    org.select_option("#filter-team", str(_beta.pk))
    expect(org.locator("#attempts tr")).to_have_count(0)
    org.select_option("#filter-team", "")
    org.select_option("#filter-level", "2")
    expect(org.locator("#attempts tr")).to_have_count(0)
    org.select_option("#filter-level", "")
    expect(org.locator("#end-share")).to_have_text("80 %")
    expect(org.locator("#end-rule")).to_contain_text("Сама игра заканчивается")
    expect(org.locator("#end-allowed")).to_be_hidden()

    row = org.locator("#stats-body tr[data-team='Alpha']")
    expect(row.locator("td[data-level='1']")).to_have_class("outcome-code", timeout=WAIT)
    expect(row.locator("td[data-level='2']")).to_have_class("outcome-open")
    expect(org.locator("#stats-body tr[data-team='Beta'] td[data-level='1']")).to_have_class(
        "outcome-open")

    # A ruling from the form: 10 minutes of penalty for Beta, with the reason.
    org.select_option("#ruling-team", str(_beta.pk))
    org.select_option("#ruling-type", "penalty")
    org.fill("#ruling-minutes", "10")
    org.fill("#ruling-reason", "ехали на красный")
    org.click("#ruling-send")
    # Asked with its preview first: Beta's total gets the 10 minutes.
    expect(org.locator("#ruling-preview-text")).to_contain_text("Beta", timeout=WAIT)
    org.click("#ruling-preview-confirm")
    expect(org.locator("#rulings li")).to_contain_text("ехали на красный", timeout=WAIT)
    expect(org.locator("#rulings li")).to_contain_text("штраф 10 мин")  # labels, not codes
    expect(org.locator("#stats-body tr[data-team='Beta'] td").nth(-4)).to_have_text("10:00")

    # The public statistics appear, by the socket, once the organizer ends the game.
    public = new_page()
    public.on("pageerror", lambda exc: errors.append(str(exc)))
    public.goto(f"{asgi_server}/gorod/{gg.pk}/statistics/")
    expect(public.locator("#live-status")).to_have_attribute("data-status", "online",
                                                             timeout=WAIT)
    expect(public.locator("#stats-later")).to_be_visible()
    org.click("#end-game")
    expect(org.locator("#game-status")).to_have_attribute("data-status", "finished", timeout=WAIT)
    expect(public.locator("#stats-body tr")).to_have_count(2, timeout=WAIT)
    expect(public.locator("#stats-body tr").first).to_have_attribute("data-team", "Alpha")
    expect(phone.locator("#code-box")).to_be_hidden(timeout=WAIT)
    # Beta was stopped on level 1: its cell does not read "playing" any more.
    expect(public.locator("#stats-body tr[data-team='Beta'] td[data-level='1']")).to_contain_text(
        "не закрыт")

    public.screenshot(path=str(artifacts_dir() / "gorod-statistics.png"), full_page=True)
    phone.screenshot(path=str(artifacts_dir() / "gorod-phone.png"), full_page=True)
    org.screenshot(path=str(artifacts_dir() / "gorod-organizer.png"), full_page=True)
    assert errors == []
