"""A GoRoD night set up in real Chromium without the admin: the organizer creates the GoRoD of
a scheduled game, adds two levels (one with sectors) and sees them listed. Screenshot in
artifacts/."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import expect

from tests.conftest import artifacts_dir
from tests.gorod.fixtures_live import make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000


@pytest.fixture
def scheduled_game(asgi_server):
    from datetime import timedelta

    from django.utils import timezone

    from core.roles import ORGANIZER
    from teams.models import Game

    organizer = make_user("organizer-gorod-setup-e2e", ORGANIZER)
    game = Game.objects.create(title="ГоРоД setup e2e", format="gorod",
                               starts_at=timezone.now() + timedelta(days=3))
    make_teams(game, ["Alpha", "Beta"], organizer)
    return game, organizer


def test_an_organizer_sets_up_a_gorod_night_with_two_levels(asgi_server, new_page,
                                                            scheduled_game):
    game, organizer = scheduled_game
    errors: list[str] = []
    client = Client()
    client.force_login(organizer)
    page = new_page()
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": asgi_server}])
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    page.goto(f"{asgi_server}/gorod/")
    page.click("#setup-link")
    expect(page.locator("#gorod-create")).to_be_visible(timeout=WAIT)
    page.select_option("#id_game", str(game.pk))
    page.fill("#id_sliv_penalty_min", "20")
    page.click("#gorod-create-send")
    page.wait_for_url(f"**/gorod/{game.pk}/setup/", timeout=WAIT)
    expect(page.locator("#no-levels")).to_be_visible()

    page.fill("#id_task", "Find the bridge")
    page.fill("#id_hint1", "Near water")
    page.fill("#id_duration_min", "45")
    page.fill("#id_codes", "G1R1D")
    page.click("#level-add")
    expect(page.locator("#levels tbody tr")).to_have_count(1, timeout=WAIT)

    # A bad line is a message on the page; the typed task stays in the form.
    page.fill("#id_task", "Two sectors")
    page.fill("#id_codes", "north: G1R11D ||")
    page.click("#level-add")
    expect(page.locator(".messages li.error")).to_contain_text("Строка 1", timeout=WAIT)  # the audience language
    expect(page.locator("#id_task")).to_have_value("Two sectors")

    page.fill("#id_label", "final")
    page.fill("#id_codes", "north: G1R11D | G1R12D\nsouth: G1R2D")
    page.click("#level-add")
    rows = page.locator("#levels tbody tr")
    expect(rows).to_have_count(2, timeout=WAIT)
    expect(rows.nth(0)).to_have_attribute("data-level", "1")
    expect(rows.nth(0)).to_contain_text("Find the bridge")
    expect(rows.nth(1)).to_have_attribute("data-level", "final")
    expect(rows.nth(1).locator(".level-codes")).to_have_text(
        "north: G1R11D | G1R12D; south: G1R2D")

    page.click("#routes-generate")
    expect(page.locator("#routes tbody tr")).to_have_count(2, timeout=WAIT)
    page.screenshot(path=str(artifacts_dir() / "gorod-setup.png"), full_page=True)

    page.click("#manage-link")
    expect(page.locator("#start-game")).to_be_visible(timeout=WAIT)
    expect(page.locator("#setup-link")).to_be_visible()
    assert errors == []
