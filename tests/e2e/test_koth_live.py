"""A short live King of the Hill evening in real Chromium: a host console, three team phones
and the projector, over a real daphne server. Summit 3: Alpha jumps onto the summit and becomes
King; Beta's revolution deposes it. Every screen is checked, and screenshots go to artifacts/."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import expect

from kingofhill import services
from tests.conftest import artifacts_dir
from tests.kingofhill.conftest import join_session, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000
PHONE = {"width": 390, "height": 844}


def with_session(page, base: str, client: Client):
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": base}])
    return page


@pytest.fixture
def evening(asgi_server):
    from datetime import timedelta

    from django.utils import timezone

    from core.roles import HOST, ORGANIZER
    from teams.models import Game

    organizer = make_user("organizer-e2e", ORGANIZER)
    host = make_user("host-e2e", HOST)
    game = Game.objects.create(title="Царь Горы e2e", format="kingofhill",
                               starts_at=timezone.now() + timedelta(days=3))
    entries = make_teams(game, ["Alpha", "Beta", "Gamma"], organizer)
    koth = services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                reserve_questions=0)
    services.host_assign(actor=organizer, game=koth, user=host)
    return koth, host, entries


def open_phone(new_page, base, koth, entry):
    client = Client()
    join_session(client, entry)
    page = with_session(new_page(viewport=PHONE), base, client)
    page.goto(f"{base}/koth/{koth.pk}/play/")
    expect(page.locator("#me-team")).to_have_text(entry.team.name)
    expect(page.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    return page


def answer(phone, text):
    expect(phone.locator("#answer-send")).to_be_enabled(timeout=WAIT)
    phone.fill("#answer-text", text)
    phone.click("#answer-send")
    expect(phone.locator("#answer-confirm")).to_contain_text(text, timeout=WAIT)


@pytest.mark.slow
def test_a_team_becomes_king_and_a_revolution_deposes_it_on_every_screen(
        asgi_server, new_page, evening):
    koth, host_user, (alpha, beta, gamma) = evening
    shots = artifacts_dir()

    host_client = Client()
    host_client.force_login(host_user)
    host = with_session(new_page(), asgi_server, host_client)
    errors = []
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    host.goto(f"{asgi_server}/koth/{koth.pk}/host/")
    expect(host.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)

    projector = new_page(viewport={"width": 1600, "height": 900})
    projector.goto(f"{asgi_server}/koth/{koth.pk}/projector/")

    phones = {e.team.name: open_phone(new_page, asgi_server, koth, e)
              for e in (alpha, beta, gamma)}

    # The host works with the keyboard alone: S starts, A announces, digits judge, C closes.
    host.keyboard.press("s")
    expect(host.locator("#question-title")).to_contain_text("1", timeout=WAIT)
    expect(phones["Alpha"].locator("#declare-jump")).to_be_disabled(timeout=WAIT)
    host.keyboard.press("a")
    for name, text in (("Alpha", "Пушкин"), ("Beta", "пушкин!"), ("Gamma", "Гоголь")):
        answer(phones[name], text)
    expect(host.locator("#answered-counter")).to_contain_text("3", timeout=WAIT)
    expect(host.locator("#groups li")).to_have_count(2, timeout=WAIT)
    expect(host.locator("#groups li").first).to_have_attribute("data-key", "пушкин")
    host.screenshot(path=str(shots / "koth-host-q1-answers.png"), full_page=True)
    host.keyboard.press("1")
    expect(host.locator("#groups li").first).to_have_attribute("data-verdict", "true",
                                                               timeout=WAIT)
    host.keyboard.press("Shift+Digit2")
    expect(host.locator("#groups li").nth(1)).to_have_attribute("data-verdict", "false",
                                                                timeout=WAIT)
    host.keyboard.press("c")
    expect(phones["Alpha"].locator("#me-step")).to_have_text("1", timeout=WAIT)
    expect(phones["Gamma"].locator("#me-step")).to_have_text("0", timeout=WAIT)

    # Question 2: Alpha may now jump (the engine says so), and lands on the summit.
    jump = phones["Alpha"].locator("#declare-jump")
    expect(jump).to_be_enabled(timeout=WAIT)
    expect(phones["Gamma"].locator("#declare-jump")).to_be_disabled()
    expect(phones["Gamma"].locator("#jump-reason")).not_to_be_empty()
    jump.click()
    expect(jump).to_have_attribute("aria-pressed", "true", timeout=WAIT)
    expect(host.locator("#declarations tr")).to_have_count(1, timeout=WAIT)
    host.fill("#q-key", "Толстой")
    host.click("#announce")
    expect(phones["Alpha"].locator("#declare-jump")).to_be_disabled(timeout=WAIT)
    for name in ("Alpha", "Beta", "Gamma"):
        answer(phones[name], "Толстой")
    # Key matches arrive pre-marked correct, so closing needs no judging.
    expect(host.locator("#groups li").first).to_have_attribute("data-verdict", "true",
                                                               timeout=WAIT)
    host.click("#close")
    expect(projector.locator("#koth-king-card")).to_have_attribute("data-king", "Alpha",
                                                                   timeout=WAIT)
    expect(projector.locator("#koth-standings")).to_contain_text("Alpha")
    expect(phones["Alpha"].locator("#king-banner")).to_be_visible(timeout=WAIT)
    expect(phones["Beta"].locator("#me-step")).to_have_text("2", timeout=WAIT)
    projector.screenshot(path=str(shots / "koth-projector-alpha-king.png"))

    # Question 3: Beta, on the penultimate step with its right, revolts; the King errs.
    revolt = phones["Beta"].locator("#declare-revolution")
    expect(revolt).to_be_enabled(timeout=WAIT)
    expect(phones["Alpha"].locator("#declare-revolution")).to_be_disabled()
    revolt.click()
    expect(revolt).to_have_attribute("aria-pressed", "true", timeout=WAIT)
    host.fill("#q-key", "Лермонтов")
    host.locator("#q-key").press("Enter")
    answer(phones["Beta"], "Лермонтов")
    answer(phones["Gamma"], "Лермонтов")
    answer(phones["Alpha"], "Пушкин")
    expect(host.locator("#groups li")).to_have_count(2, timeout=WAIT)
    host.locator("h1").click()  # leave the text field: keys are shortcuts again
    host.keyboard.press("Shift+Digit2")
    expect(host.locator("#groups li").nth(1)).to_have_attribute("data-verdict", "false",
                                                                timeout=WAIT)
    host.keyboard.press("c")
    expect(projector.locator("#koth-king-card")).to_have_attribute("data-king", "Beta",
                                                                   timeout=WAIT)
    expect(host.locator("#king-line")).to_contain_text("Beta", timeout=WAIT)
    expect(phones["Beta"].locator("#king-banner")).to_be_visible(timeout=WAIT)
    expect(phones["Alpha"].locator("#me-step")).to_have_text("2", timeout=WAIT)
    expect(host.locator("#standings tr").first).to_have_attribute("data-team", "Beta")

    # A reload loses nothing: the phone comes back to the same state from the server.
    phones["Gamma"].reload()
    expect(phones["Gamma"].locator("#me-step")).to_have_text("2", timeout=WAIT)
    expect(phones["Gamma"].locator("#me-points")).to_have_text("2")

    host.screenshot(path=str(shots / "koth-host-beta-king.png"), full_page=True)
    projector.screenshot(path=str(shots / "koth-projector-beta-king.png"))
    for name, phone in phones.items():
        phone.screenshot(path=str(shots / f"koth-phone-{name.lower()}.png"), full_page=True)
    assert errors == []  # the host console ran without a script error
