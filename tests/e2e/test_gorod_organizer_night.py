"""The organizer's whole night in one Chromium run: one GoRoD game, the monitor at 1366×768 and
three phones at 390×844. The organizer sends a bonus hint to the teams on level 1, messages one
team, pauses and resumes the game, corrects level 1's code (its preview shown before Confirm),
and a phone on a grade-4 level misses its safety check-in, which the monitor shows as an alarm.
Every screen gets each change live; no step waits a fixed time."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import ORGANIZER
from gorod import services
from gorod.models import Pause, Ruling
from teams.models import Game
from tests.conftest import artifacts_dir
from tests.e2e.test_gorod_level_fix import INSIDE, MONITOR, NO_SIDEWAYS, open_as
from tests.e2e.test_gorod_live import PHONE
from tests.e2e.waits import WAIT
from tests.gorod.fixtures_live import LEVELS, join_session, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
# The check-in falls due this long after the pages are asked for: it may come during the
# organizer's other steps (the alarm then simply stands) or after them (the test waits for it).
CHECKIN_IN = timedelta(seconds=15)


@pytest.mark.slow
def test_the_organizers_night_hint_message_pause_fix_and_a_missed_check_in(
        asgi_server, new_page):
    organizer = make_user("organizer-night", ORGANIZER)
    game = Game.objects.create(title="ГоРоД: ночь организатора", format="gorod",
                               starts_at=timezone.now() + timedelta(days=3))
    alpha, beta, gamma = make_teams(game, ["Alpha", "Beta", "Gamma"], organizer)
    # Level 2 is of danger grade 4: a check-in every 15 minutes there.
    levels = [LEVELS[0], {**LEVELS[1], "danger": 4, "duration_min": 70}, LEVELS[2]]
    gg = services.gorod_create(actor=organizer, game=game, levels=levels,
                               checkin_every_min=15)
    now = timezone.now()
    start = now - timedelta(minutes=20)
    services.game_start(actor=organizer, game=gg, now=start)
    # Alpha typed the code printed on the sign, which the scenario had wrong.
    services.code_submit(game=gg, application=alpha, text="G1R1X", now=start + timedelta(minutes=3))
    # Gamma reached the grade-4 level so that its first check-in falls due soon.
    services.code_submit(game=gg, application=gamma, text="G1R1D",
                         now=now - timedelta(minutes=15) + CHECKIN_IN)

    boss = Client()
    boss.force_login(organizer)
    org = open_as(new_page, asgi_server, boss, f"/gorod/{gg.pk}/", MONITOR)
    dialogs: list[str] = []
    org.on("dialog", lambda d: (dialogs.append(d.type),
                                d.accept("гроза" if d.type == "prompt" else None)))
    phones = {}
    for entry in (alpha, beta, gamma):
        team = Client()
        join_session(team, entry)
        phones[entry.pk] = open_as(new_page, asgi_server, team, f"/gorod/{gg.pk}/play/", PHONE)
    a, b, g = phones[alpha.pk], phones[beta.pk], phones[gamma.pk]
    expect(g.locator("#level-task")).to_have_text("Find the tower", timeout=WAIT)
    expect(g.locator("#checkin-send")).to_be_visible(timeout=WAIT)

    # 1. A bonus hint to the teams on level 1 (Alpha and Beta), not Gamma on level 2.
    org.select_option("#message-kind", "bonus_hint")
    org.select_option("#message-level", "1")
    org.fill("#message-text", "Мост виден с набережной")
    org.click("#message-send")
    for phone in (a, b):
        expect(phone.locator("#level-hints li.bonus")).to_contain_text(
            "Мост виден с набережной", timeout=WAIT)
    expect(g.locator("#level-hints li.bonus")).to_have_count(0)

    # 2. A message to Beta alone.
    org.select_option("#message-kind", "message")
    org.select_option("#message-audience", "team")
    org.select_option("#message-team", str(beta.pk))
    org.fill("#message-text", "Бета, позвоните организатору")
    org.click("#message-send")
    expect(b.locator("#message-text")).to_contain_text("позвоните организатору", timeout=WAIT)
    for phone in (a, g):
        expect(phone.locator("#messages-box")).to_be_hidden()

    # 3. Pause and resume: every phone says so, then goes on.
    org.click("#pause-game")
    expect(org.locator("#resume-game")).to_be_visible(timeout=WAIT)
    for phone in (a, b, g):
        expect(phone.locator("#game-status")).to_have_attribute("data-paused", "true",
                                                                timeout=WAIT)
        expect(phone.locator("#code-text")).to_be_disabled()
    org.click("#resume-game")
    expect(org.locator("#pause-game")).to_be_visible(timeout=WAIT)
    for phone in (a, b, g):
        expect(phone.locator("#code-text")).to_be_enabled(timeout=WAIT)
    assert Pause.objects.get(gorod=gg).ended_at is not None
    assert dialogs == ["prompt", "confirm"]

    # 4. The code of level 1 corrected: the preview says Alpha closes it, before Confirm.
    org.select_option("#fix-level", "1")
    org.click("#fix-open")
    expect(org.locator("#fix-codes")).to_have_value("G1R1D", timeout=WAIT)
    org.fill("#fix-codes", "G1R1D | G1R1X")
    org.click("#fix-preview")
    asked = org.locator("#level-fix-form + #ruling-preview")
    expect(asked.locator("#ruling-preview-text")).to_contain_text(
        "Alpha: «G1R1X» отправлен в", timeout=WAIT)
    expect(asked.locator("#ruling-preview-confirm")).to_be_visible()
    assert not Ruling.objects.filter(gorod=gg).exists()
    assert org.evaluate(NO_SIDEWAYS) and org.evaluate(INSIDE, "#level-fix-box")
    org.screenshot(path=str(artifacts_dir() / "glevel-night-monitor.png"))
    asked.locator("#ruling-preview-confirm").click()
    expect(org.locator("#ruling-preview")).to_have_count(0, timeout=WAIT)
    expect(a.locator("#level-task")).to_have_text("Find the tower", timeout=WAIT)
    expect(b.locator("#level-task")).to_have_text("Find the bridge")
    assert set(Ruling.objects.filter(gorod=gg).values_list("type", flat=True)) == {
        "code", "bonus"}

    # 5. Gamma, on the grade-4 level, does not check in: its phone says so and the monitor
    # raises the alarm by the server's clock.
    expect(g.locator("#safety-box")).to_have_attribute("data-overdue", "true",
                                                       timeout=CHECKIN_IN.seconds * 1000 + WAIT)
    alarm = org.locator(f"#alarms li[data-alarm='{gamma.pk}']")
    expect(alarm).to_be_visible(timeout=WAIT)
    expect(alarm).to_contain_text("Gamma")
    expect(org.locator(f"#alarms li[data-alarm='{alpha.pk}']")).to_have_count(0)
    org.screenshot(path=str(artifacts_dir() / "glevel-night-alarm.png"))
    for phone in (a, b, g):
        assert phone.evaluate(NO_SIDEWAYS)
    g.screenshot(path=str(artifacts_dir() / "glevel-night-phone.png"))
    assert org.errors == [] and a.errors == [] and b.errors == [] and g.errors == []
