"""The organizer's messages and bonus hints in real Chromium: the organizer sends a bonus hint to
the teams on level 1 and a message to one team from the monitor; the right phones show them
live (the hint under the level's hints, the message at the top, with the alert of a new hint),
the others do not, and the monitor shows who has seen what."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from gorod import services
from tests.conftest import artifacts_dir
from tests.e2e.layout import in_first_screen
from tests.e2e.test_gorod_live import with_session
from tests.gorod.fixtures_live import LEVELS, join_session, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def night(asgi_server):
    from core.roles import ORGANIZER
    from teams.models import Game

    organizer = make_user("organizer-gorod-messages", ORGANIZER)
    game = Game.objects.create(title="ГоРоД: сообщения", format="gorod",
                               starts_at=timezone.now() + timedelta(days=3))
    entries = make_teams(game, ["Альфа", "Бета", "Гамма"], organizer)
    gg = services.gorod_create(actor=organizer, game=game, levels=LEVELS)
    services.game_start(actor=organizer, game=gg)
    # Альфа is on level 2 already: the bonus hint of level 1 is not for it.
    services.code_submit(game=gg, application=entries[0], text="G1R1D")
    return gg, organizer, entries


def test_a_bonus_hint_and_a_message_reach_the_right_phones_live_and_the_monitor_sees_them_seen(
        asgi_server, new_page, night):
    gg, organizer, (alpha, beta, gamma) = night
    errors: list[str] = []

    def open_phone(entry):
        client = Client()
        join_session(client, entry)
        page = with_session(new_page(viewport=PHONE), asgi_server, client)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{asgi_server}/gorod/{gg.pk}/play/")
        expect(page.locator("#live-status")).to_have_attribute("data-status", "online",
                                                               timeout=WAIT)
        # A touch lets the page play sound (browsers allow it only after a gesture): each
        # beep then counts on the body.
        page.locator("#me-team").click()
        return page

    org_client = Client()
    org_client.force_login(organizer)
    org = with_session(new_page(), asgi_server, org_client)
    org.on("pageerror", lambda exc: errors.append(str(exc)))
    org.goto(f"{asgi_server}/gorod/{gg.pk}/")
    expect(org.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    phones = {entry.pk: open_phone(entry) for entry in (alpha, beta, gamma)}
    for page in phones.values():
        expect(page.locator("#messages-box")).to_be_hidden()
        assert page.evaluate("document.body.dataset.alerts || '0'") == "0"

    # A bonus hint on level 1, also for the teams that reach it later.
    org.select_option("#message-kind", "bonus_hint")
    expect(org.locator("#message-audience")).to_have_value("level")
    expect(org.locator("#message-team-field")).to_be_hidden()
    org.select_option("#message-level", "1")
    org.check("#message-later")
    org.fill("#message-text", "Загляните под скамейку")
    org.click("#message-send")
    expect(org.locator("#messages li")).to_have_count(1, timeout=WAIT)
    expect(org.locator("#message-text")).to_have_value("")

    for entry in (beta, gamma):
        bonus = phones[entry.pk].locator("#level-hints li.bonus")
        expect(bonus).to_have_count(1, timeout=WAIT)
        expect(bonus).to_contain_text("Бонусная подсказка")
        expect(bonus).to_contain_text("Загляните под скамейку")
        # The phone alerted as for a new hint.
        expect(phones[entry.pk].locator("body")).to_have_attribute("data-alerts", "1")
    # The monitor: both phones on level 1 showed it (Альфа, on level 2, is not counted).
    seen = org.locator("#messages li .gorod-seen")
    expect(seen).to_have_attribute("data-seen", "2", timeout=WAIT)
    expect(seen).to_have_attribute("data-of", "2")
    expect(seen).to_contain_text("просмотрели 2 из 2")

    # A message to Бета alone, from the same form.
    org.select_option("#message-kind", "message")
    org.select_option("#message-audience", "team")
    org.select_option("#message-team", str(beta.pk))
    org.fill("#message-text", "Бета, позвоните организатору: " + "очень важно " * 30)
    org.click("#message-send")
    expect(org.locator("#messages li")).to_have_count(2, timeout=WAIT)

    betas = phones[beta.pk]
    expect(betas.locator("#messages-box")).to_be_visible(timeout=WAIT)
    expect(betas.locator("#message-text")).to_contain_text("позвоните организатору")
    expect(betas.locator("body")).to_have_attribute("data-alerts", "2")
    # A long message stays clipped at the top: the code form is still in the first screen.
    for selector in ("#code-text", "#code-send"):
        assert in_first_screen(betas, selector), selector
    expect(betas.locator("#messages-more")).to_be_visible()
    for entry in (alpha, gamma):
        expect(phones[entry.pk].locator("#messages-box")).to_be_hidden()
    expect(phones[alpha.pk].locator("#level-hints li.bonus")).to_have_count(0)

    latest = org.locator("#messages li").first
    expect(latest).to_contain_text("→ Бета")
    expect(latest.locator(".gorod-seen")).to_have_attribute("data-seen", "1", timeout=WAIT)
    expect(latest.locator(".gorod-seen")).to_contain_text("Бета")

    betas.screenshot(path=str(artifacts_dir() / "gorod-phone-messages.png"))
    org.locator("#messages-box").screenshot(path=str(artifacts_dir() / "gorod-messages.png"))

    # A reload shows the same.
    betas.reload()
    expect(betas.locator("#messages-box")).to_be_visible(timeout=WAIT)
    expect(betas.locator("#level-hints li.bonus")).to_have_count(1)
    assert errors == []
