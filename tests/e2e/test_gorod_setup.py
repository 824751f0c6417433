"""A GoRoD night set up in real Chromium without the admin: the organizer creates the GoRoD of
a scheduled game, adds two levels (one with sectors) and sees them listed; another imports the
demo scenario file and sees its levels and warnings, then types the personal digits. Screenshots
in artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from playwright.sync_api import expect

from tests.conftest import artifacts_dir
from tests.gorod.fixtures_live import make_teams, make_user
from tests.images import PNG

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


def organizer_page(asgi_server, new_page, organizer):
    """A page logged in as the organizer, and the list its script errors go to."""
    errors: list[str] = []
    client = Client()
    client.force_login(organizer)
    page = new_page()
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": asgi_server}])
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors


def test_an_organizer_sets_up_a_gorod_night_with_two_levels(asgi_server, new_page,
                                                            scheduled_game):
    game, organizer = scheduled_game
    page, errors = organizer_page(asgi_server, new_page, organizer)

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


DEMO = Path(__file__).resolve().parents[2] / "gorod" / "scenarios" / "demo-night.yaml"


def test_an_organizer_imports_the_demo_scenario_and_sees_its_levels_and_warnings(
        asgi_server, new_page, scheduled_game):
    game, organizer = scheduled_game
    page, errors = organizer_page(asgi_server, new_page, organizer)

    # A new night published right on the set-up page, not via the teams app.
    page.goto(f"{asgi_server}/gorod/setup/")
    page.fill("#id_title", "Ночь у реки")
    page.fill("#id_starts_at", "2026-12-19T22:00")
    page.click("#gorod-create-send")
    page.wait_for_url("**/gorod/*/setup/", timeout=WAIT)
    expect(page.locator("#no-levels")).to_be_visible()

    # The published night has no teams yet: import into the scheduled game that has two.
    page.goto(f"{asgi_server}/gorod/setup/")
    page.select_option("#id_game", str(game.pk))
    page.click("#gorod-create-send")
    page.wait_for_url(f"**/gorod/{game.pk}/setup/", timeout=WAIT)
    page.set_input_files("#id_file", str(DEMO))
    page.click("#scenario-import")
    expect(page.locator(".messages li.success")).to_contain_text("Сценарий импортирован: 3",
                                                                 timeout=WAIT)
    rows = page.locator("#levels tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("Старый мост")
    expect(rows.nth(2).locator(".level-danger")).to_have_text("3")
    warnings = page.locator("#setup-warnings li")
    expect(warnings).to_have_count(1)
    expect(warnings.first).to_contain_text("Alpha, Beta")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.screenshot(path=str(artifacts_dir() / "gorod-setup-scenario.png"), full_page=True)

    # The personal digits of level 3, typed per team: the warning goes away.
    personal = page.locator('.gorod-personal[data-level="3"]')
    personal.locator('input[data-team="Alpha"]').fill("4")
    personal.locator('input[data-team="Beta"]').fill("7")
    personal.locator(".personal-save").click()
    expect(page.locator("#no-warnings")).to_be_visible(timeout=WAIT)
    expect(personal.locator('input[data-team="Beta"]')).to_have_value("7")

    # An image for level 1's task, uploaded and chosen in the level's edit form.
    image = artifacts_dir() / "мост.png"
    image.write_bytes(PNG)
    page.set_input_files("#id_image", str(image))
    page.click("#image-upload")
    expect(page.locator('#image-list li[data-image="мост.png"]')).to_be_visible(timeout=WAIT)
    page.click('[data-edit="1"]')
    page.check('#level-edit-form input[value="мост.png"]')
    page.click("#level-save")
    expect(rows.nth(0).locator('.level-images img[alt="мост.png"]')).to_be_visible(timeout=WAIT)

    # A broken file is a message per problem and changes nothing.
    broken = artifacts_dir() / "broken-scenario.yaml"
    broken.write_text("format: gorod-scenario\nlevels:\n  - id: 1\n    codes: {code: A}\n"
                      "routes:\n  Alpha: ['1', '9']\n", encoding="utf-8")
    page.set_input_files("#id_file", str(broken))
    page.click("#scenario-import")
    expect(page.locator(".messages li.error")).to_have_count(1, timeout=WAIT)
    expect(page.locator(".messages li.error")).to_contain_text("routes.Alpha[1]")
    expect(page.locator("#levels tbody tr")).to_have_count(3)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts_dir() / "gorod-setup-scenario-phone.png"), full_page=True)
    assert errors == []
