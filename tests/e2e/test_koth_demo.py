"""The demo `make run` loads can be played: from the printed links a newcomer logs in as the
demo host, opens the host console, the projector and one team's join link, and plays a
question through in real Chromium."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from playwright.sync_api import expect

from core.demo import DEMO_PASSWORD
from core.roles import HOST, ORGANIZER
from kingofhill import rules
from tests.conftest import artifacts_dir

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000


def load_demo(base: str) -> dict[str, str]:
    """Run ``manage.py demo`` against the server's database; return its printed links."""
    for name in (HOST, ORGANIZER):  # a transactional test flushed the migration's groups
        Group.objects.get_or_create(name=name)
    host, port = re.match(r"http://([^:]+):(\d+)", base).groups()
    out = io.StringIO()
    call_command("demo", host=host, port=port, stdout=out)
    text = out.getvalue()
    links = {
        "host": re.search(r"King of the Hill host:\s+(\S+)", text).group(1),
        "projector": re.search(r"King of the Hill projector:\s+(\S+)", text).group(1),
    }
    team = re.search(r"King of the Hill team (\S+) \(PIN \d+\): (\S+)", text)
    links["team name"], links["team"] = team.groups()
    assert all(link.startswith(base) for key, link in links.items() if key != "team name")
    return links


def test_a_newcomer_plays_a_question_of_the_demo_game_from_the_printed_links(
        asgi_server, new_page):
    links = load_demo(asgi_server)
    shots = artifacts_dir()

    host = new_page()
    errors = []
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    host.goto(links["host"])  # not logged in yet: the console sends the host to log in
    host.fill("input[name=username]", "host")
    host.fill("input[name=password]", DEMO_PASSWORD)
    host.click("form.card button[type=submit]")
    expect(host).to_have_url(links["host"], timeout=WAIT)
    expect(host.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)

    projector = new_page(viewport={"width": 1920, "height": 1080})
    projector.goto(links["projector"])
    expect(projector.locator("#koth-standings")).to_contain_text(links["team name"],
                                                                 timeout=WAIT)

    phone = new_page(viewport={"width": 390, "height": 844})
    phone.goto(links["team"])  # the join link asks; its one button binds the phone
    phone.click("button.join-button")
    phone.click("a.play-link")
    expect(phone.locator("#me-team")).to_have_text(links["team name"], timeout=WAIT)
    expect(phone.locator("#live-status")).to_have_attribute("data-status", "online",
                                                            timeout=WAIT)

    host.click("#start")
    expect(phone.locator("#question-title")).to_contain_text("1", timeout=WAIT)
    # No jump on the first question: the button is off and the engine's reason is shown.
    reasons = phone.evaluate(
        "() => JSON.parse(document.getElementById('koth-reasons').textContent)")
    expect(phone.locator("#declare-jump")).to_be_disabled()
    expect(phone.locator("#jump-reason")).to_have_text(reasons[rules.JUMP_FIRST_QUESTION])
    expect(phone.locator("#revolution-reason")).to_have_text(reasons[rules.REV_NO_KING])
    host.fill("#q-text", "Автор «Евгения Онегина»?")
    host.fill("#q-key", "Пушкин")
    host.click("#announce")
    expect(phone.locator("#answer-send")).to_be_enabled(timeout=WAIT)
    phone.fill("#answer-text", "Пушкин")
    phone.click("#answer-send")
    expect(phone.locator("#answer-confirm")).to_contain_text("Пушкин", timeout=WAIT)
    expect(host.locator("#answered-counter")).to_contain_text("1", timeout=WAIT)
    expect(host.locator("#answered-counter")).to_contain_text("8")
    expect(host.locator("#groups li").first).to_have_attribute("data-verdict", "true")
    host.click("#close")

    # The move is played on every screen: the team leads, the others stay at the rim.
    expect(phone.locator("#me-step")).to_have_text("1", timeout=WAIT)
    expect(phone.locator("#me-points")).to_have_text("1")
    expect(phone.locator("#me-place")).to_have_text("1")
    expect(phone.locator("#question-title")).to_contain_text("2")
    expect(host.locator("#standings tr").first).to_have_attribute(
        "data-team", links["team name"], timeout=WAIT)
    expect(projector.locator("#koth-standings .kp-row:not(.kp-head)").first).to_contain_text(
        links["team name"], timeout=WAIT)
    projector.screenshot(path=str(shots / "koth-demo-projector-q1.png"))
    host.screenshot(path=str(shots / "koth-demo-host-q1.png"), full_page=True)
    assert errors == []
