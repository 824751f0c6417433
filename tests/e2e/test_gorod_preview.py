"""The preview of a ruling and of an undo on the GoRoD monitor, in real Chromium: the ruling
form says, in Russian, which teams' places and totals change before anything is stored; a
cancel stores nothing, a confirmation stores the ruling; an undo asks with its own preview and
the reason, and is applied only on confirmation; so is a correction of a ruling's minutes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from gorod import services
from gorod.models import Ruling
from teams.models import Game
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_live import WAIT, with_session
from tests.gorod.fixtures_live import LEVELS
from tests.rating.helpers import captained_teams, enter, make_game, make_organizer

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_ruling_and_its_undo_show_their_preview_and_wait_for_the_confirmation(
        asgi_server, new_page):
    organizer = make_organizer()
    game = make_game(Game.Format.GOROD, organizer, title="ГоРоД: предпросмотр")
    alpha, beta, _gamma = enter(game, captained_teams())
    start = timezone.now() - timedelta(hours=1)
    gg = services.gorod_create(actor=organizer, game=game, levels=LEVELS)
    services.game_start(actor=organizer, game=gg, now=start)
    for entry, first in ((alpha, 10), (beta, 20)):
        for i, text in enumerate(("G1R1D", "G1R2D", "G1R31D", "G1R32D")):
            services.code_submit(game=gg, application=entry, text=text,
                                 now=start + timedelta(minutes=first + i))
    # Alpha finished in 0:13, Beta in 0:23.

    client = Client()
    client.force_login(organizer)
    page = with_session(new_page(), asgi_server, client)
    dialogs: list[str] = []
    # Only the correction's new minutes are typed into a prompt.
    page.on("dialog", lambda d: (dialogs.append(d.type),
                                 d.accept("20") if d.type == "prompt" else d.dismiss()))
    page.goto(f"{asgi_server}/gorod/{game.pk}/")
    expect(page.locator("#ruling-team option")).to_have_count(3, timeout=WAIT)

    page.select_option("#ruling-team", str(beta.pk))
    page.select_option("#ruling-type", "bonus")
    page.fill("#ruling-minutes", "15")
    page.fill("#ruling-reason", "помогли другой команде")
    page.click("#ruling-send")
    asked = page.locator("#ruling-form + #ruling-preview")
    expect(asked).to_have_text("Beta: место 2 → 1, итог 0:23 → 0:08; Alpha: место 1 → 2"
                               "ПодтвердитьОтмена", timeout=WAIT)
    asked.locator("#ruling-preview-cancel").click()
    expect(page.locator("#ruling-preview")).to_have_count(0)
    assert not Ruling.objects.exists()

    page.click("#ruling-send")
    expect(asked.locator("#ruling-preview-text")).to_contain_text("место 2 → 1", timeout=WAIT)
    page.screenshot(path=str(artifacts_dir() / "gorod-ruling-preview.png"))
    asked.locator("#ruling-preview-confirm").click()
    expect(page.locator("#rulings li")).to_have_count(1, timeout=WAIT)
    expect(page.locator("#ruling-preview")).to_have_count(0)
    expect(page.locator('#stats-body tr[data-team="Beta"] td').first).to_have_text("1")
    bonus = Ruling.objects.get(application=beta, type="bonus")

    # A correction of the minutes (15 → 20) is asked with its preview and why.
    page.locator(f'#rulings li[data-ruling="{bonus.pk}"] .ruling-edit').click()
    corrected = page.locator("#rulings + #ruling-preview")
    expect(corrected.locator("#ruling-preview-text")).to_have_text("Beta: итог 0:08 → 0:03",
                                                                   timeout=WAIT)
    page.fill("#edit-reason", "бонус пересчитан")
    corrected.locator("#ruling-preview-confirm").click()
    expect(page.locator("#ruling-preview")).to_have_count(0, timeout=WAIT)
    expect(page.locator('#stats-body tr[data-team="Beta"] td').nth(-2)).to_have_text("3:00")
    bonus.refresh_from_db()
    assert bonus.minutes == 20

    page.locator(f'#rulings li[data-ruling="{bonus.pk}"] .ruling-undo').click()
    undo = page.locator("#rulings + #ruling-preview")
    expect(undo.locator("#ruling-preview-text")).to_have_text(
        "Alpha: место 2 → 1; Beta: место 1 → 2, итог 0:03 → 0:23", timeout=WAIT)
    # Without a reason the undo is refused next to the question, and nothing changes.
    undo.locator("#ruling-preview-confirm").click()
    expect(undo.locator("#ruling-preview-text")).to_contain_text("почему", timeout=WAIT)
    bonus.refresh_from_db()
    assert bonus.undone_at is None
    page.fill("#undo-reason", "ошибка судьи")
    undo.locator("#ruling-preview-confirm").click()
    expect(page.locator("#ruling-preview")).to_have_count(0, timeout=WAIT)
    expect(page.locator('#stats-body tr[data-team="Alpha"] td').first).to_have_text("1")
    bonus.refresh_from_db()
    assert bonus.undone_at is not None and bonus.history[-1]["reason"] == "ошибка судьи"
    assert dialogs == ["prompt"]  # the monitor asked in the page, never in a confirm dialog
