"""A scenario proposal in real Chromium (rules 10.1–10.4): a captain proposes the demo scenario
from the team's page for an announced GoRoD night; the organizer accepts it on the proposals
page; the night's set-up then shows the scenario's levels, and the team, now its organizer, is
refused when it applies to play it. Screenshots in artifacts/."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import ORGANIZER
from teams.models import Application, Game, Member, Team
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_live import WAIT, with_session
from tests.gorod.fixtures_live import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DEMO = Path(__file__).resolve().parents[2] / "gorod" / "scenarios" / "demo-night.yaml"


def logged_in(asgi_server, new_page, user):
    client = Client()
    client.force_login(user)
    page = with_session(new_page(), asgi_server, client)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors


def test_a_captain_proposes_a_scenario_the_organizer_accepts_and_the_team_organizes_the_night(
        asgi_server, new_page):
    organizer = make_user("organizer-proposal-e2e", ORGANIZER)
    captain = make_user("captain-proposal-e2e")
    team = Team.objects.create(name="Мосты", name_key="мосты", captain=captain)
    for nick in ("Аня", "Борис"):
        Member.objects.create(team=team, nickname=nick, nickname_key=nick.casefold())
    game = Game.objects.create(title="Ночь мостов", format=Game.Format.GOROD,
                               starts_at=timezone.now() + timedelta(days=7))
    Application.objects.create(game=game, team=team, status=Application.Status.PENDING)
    shots = artifacts_dir()

    page, errors = logged_in(asgi_server, new_page, captain)
    page.goto(f"{asgi_server}/teams/{team.pk}/")
    page.click("#propose-scenario")
    expect(page.locator("#proposal-form")).to_be_visible(timeout=WAIT)
    page.set_input_files("#id_file", str(DEMO))
    page.select_option("#id_game", str(game.pk))
    page.fill("#id_note", "Три уровня у реки")
    page.click("#proposal-send")
    card = page.locator("#team-proposals .proposal").first
    expect(card).to_contain_text("demo-night.yaml", timeout=WAIT)
    expect(card).to_contain_text("на рассмотрении")
    expect(card).to_contain_text("3 уровня")
    page.screenshot(path=str(shots / "gorod-proposal-captain.png"), full_page=True)

    desk, desk_errors = logged_in(asgi_server, new_page, organizer)
    desk.goto(f"{asgi_server}/gorod/proposals/")
    offered = desk.locator("#proposals .proposal").first
    expect(offered).to_contain_text("Мосты", timeout=WAIT)
    expect(offered.locator("select[name=game]")).to_have_value(str(game.pk))
    desk.screenshot(path=str(shots / "gorod-proposals-organizer.png"), full_page=True)
    offered.locator("button[id^=accept-]").click()
    expect(desk.locator(".messages li.success")).to_contain_text("Сценарий принят", timeout=WAIT)
    expect(desk.locator("#proposals .proposal").first).to_contain_text("принято")

    desk.goto(f"{asgi_server}/gorod/{game.pk}/setup/")
    expect(desk.locator("#levels tbody tr")).to_have_count(3, timeout=WAIT)
    desk.screenshot(path=str(shots / "gorod-proposal-setup.png"), full_page=True)

    page.goto(f"{asgi_server}/gorod/teams/{team.pk}/proposals/")
    expect(page.locator("#team-proposals .proposal").first).to_contain_text("принято",
                                                                           timeout=WAIT)
    page.goto(f"{asgi_server}/teams/{team.pk}/")
    expect(page.locator(".status-rejected").first).to_be_visible(timeout=WAIT)
    page.goto(f"{asgi_server}/teams/{team.pk}/apply/{game.pk}/")
    for box in page.locator("input[name=members]").all():
        box.check()
    page.locator("form.stack button[type=submit]").click()
    expect(page.locator(".messages li.error")).to_contain_text("организует эту игру",
                                                               timeout=WAIT)
    assert Application.objects.get(game=game, team=team).status == Application.Status.REJECTED
    assert errors == [] and desk_errors == []
