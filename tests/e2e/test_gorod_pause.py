"""Pausing the whole GoRoD game in real Chromium: the organizer pauses (a confirm asking why),
the team's phone shows the "game paused" banner with since when and its code field disabled, a
code sent then is refused in Russian; the organizer resumes and the level's next hint has moved
later by exactly the pause's length, the phone's countdown going on from where it stood."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import ORGANIZER
from gorod import selectors, services
from gorod.models import Pause
from teams.models import Game
from tests.e2e.test_gorod_live import PHONE, with_session
from tests.e2e.waits import LOADED, WAIT
from tests.gorod.fixtures_live import LEVELS, join_session, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The phone's own request, as its code form sends it (the form itself is disabled while paused).
SEND_CODE = """async (text) => {
  const config = JSON.parse(document.getElementById("gorod-config").textContent);
  const token = (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || "";
  const answer = await fetch(config.codeUrl, {method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", "Accept": "application/json",
              "X-CSRFToken": token},
    body: JSON.stringify({text: text})});
  return [answer.status, (await answer.json()).detail];
}"""


def seconds(text: str) -> int:
    """A countdown as the phone writes it ("24:31", "1:02:03") in seconds."""
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return total


def test_the_organizer_pauses_a_phone_is_refused_and_the_resume_moves_the_hint(
        asgi_server, new_page):
    organizer = make_user("organizer-pause-e2e", ORGANIZER)
    game = Game.objects.create(title="ГоРоД: пауза", format="gorod",
                               starts_at=timezone.now() + timedelta(days=3))
    alpha, _beta = make_teams(game, ["Alpha", "Beta"], organizer)
    gg = services.gorod_create(actor=organizer, game=game, levels=LEVELS)
    services.game_start(actor=organizer, game=gg)
    hint_before = datetime.fromisoformat(selectors.read_state(
        gg, kind="team", application_id=alpha.pk)["state"]["me"]["level"]["next_hint_at"])
    errors: list[str] = []

    org_client = Client()
    org_client.force_login(organizer)
    org = with_session(new_page(), asgi_server, org_client)
    org.on("pageerror", lambda exc: errors.append(str(exc)))
    org.goto(f"{asgi_server}/gorod/{gg.pk}/")
    org.wait_for_function(LOADED, timeout=WAIT)

    phone_client = Client()
    join_session(phone_client, alpha)
    phone = with_session(new_page(viewport=PHONE), asgi_server, phone_client)
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    phone.goto(f"{asgi_server}/gorod/{gg.pk}/play/")
    phone.wait_for_function(LOADED, timeout=WAIT)
    expect(phone.locator("#level-task")).to_have_text("Find the bridge", timeout=WAIT)
    expect(phone.locator("#code-text")).to_be_enabled()
    expect(org.locator("#resume-game")).to_be_hidden()

    dialogs: list[str] = []

    def answer(dialog):
        dialogs.append(dialog.message)
        dialog.accept("гроза" if dialog.type == "prompt" else None)

    org.on("dialog", answer)
    org.click("#pause-game")
    expect(org.locator("#resume-game")).to_be_visible(timeout=WAIT)
    expect(org.locator("#pause-game")).to_be_hidden()
    expect(org.locator("#pause-banner")).to_contain_text("Игра на паузе", timeout=WAIT)
    assert dialogs and "на паузу" in dialogs[0]
    # The team list shows no deadline while the clock stands (the resume moves them all).
    expect(org.locator("#teams tr[data-team='Alpha'] td").nth(3)).to_have_text("–")

    # The phone learns of the pause by its socket: the banner with since when, no code field.
    paused_at = Pause.objects.get(gorod=gg).started_at
    since = timezone.localtime(paused_at).strftime("%H:%M:%S")
    banner = phone.locator("#game-status")
    expect(banner).to_contain_text("Организатор поставил игру на паузу", timeout=WAIT)
    expect(banner).to_contain_text(since)
    expect(banner).to_have_attribute("data-paused", "true")
    expect(phone.locator("#code-text")).to_be_disabled()
    expect(phone.locator("#code-send")).to_be_disabled()
    status, detail = phone.evaluate(SEND_CODE, "G1R1D")
    assert status == 400 and "Игра на паузе" in detail

    # The countdown stands still while paused: it shows what was left at the pause.
    frozen = seconds(phone.locator("#next-hint").inner_text())
    left_at_pause = (hint_before - paused_at).total_seconds()
    assert abs(frozen - left_at_pause) <= 1

    org.click("#resume-game")
    expect(org.locator("#pause-game")).to_be_visible(timeout=WAIT)
    expect(org.locator("#pause-banner")).to_be_hidden()
    expect(org.locator("#teams tr[data-team='Alpha'] td").nth(3)).not_to_have_text("–")
    # The organizer's list keeps the pause: since when, until when, why and who.
    expect(org.locator("#pauses li")).to_have_count(1)
    expect(org.locator("#pauses li")).to_contain_text("гроза")
    expect(org.locator("#pauses li")).to_have_attribute("data-open", "false")
    expect(banner).to_be_hidden(timeout=WAIT)
    expect(phone.locator("#code-text")).to_be_enabled()

    pause = Pause.objects.get(gorod=gg)
    hint_after = datetime.fromisoformat(selectors.read_state(
        gg, kind="team", application_id=alpha.pk)["state"]["me"]["level"]["next_hint_at"])
    assert hint_after - hint_before == pause.ended_at - pause.started_at > timedelta(0)
    # The countdown goes on from where it stood (a second or two later at most; a second more
    # when the frozen and the running display round the same moment to different seconds).
    expect(phone.locator("#next-hint")).not_to_have_text("–", timeout=WAIT)
    assert -1 <= frozen - seconds(phone.locator("#next-hint").inner_text()) <= 3

    phone.fill("#code-text", "G1R1D")
    phone.click("#code-send")
    expect(phone.locator("#level-task")).to_have_text("Find the tower", timeout=WAIT)
    assert errors == []
