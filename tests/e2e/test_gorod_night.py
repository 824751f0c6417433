"""A whole GoRoD night in real Chromium, the way a club plays it: two teams on phones (390x844)
and the organizer's monitor, a three-level night imported from a scenario file. A code typed on
the Russian layout is accepted, a brute-force wait counts down, a timeout is asked from a phone
and confirmed on the monitor, a photo-proof level is closed by an accepted photo, a ruling is
undone with a reason, the live public leaderboard is switched on, the phones show their total and place at the end, and the statistics
download as CSV and XLSX that parse. One test: the night is one story."""

from __future__ import annotations

import base64
import csv
import io
import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from openpyxl import load_workbook
from playwright.sync_api import expect

from gorod.models import CodeAttempt, GorodGame, PhotoProof, Ruling, TimeoutRequest
from tests.conftest import artifacts_dir
from tests.e2e import test_gorod_phone
from tests.e2e.test_gorod_phone import WAIT, assert_no_horizontal_overflow, send
from tests.e2e.waits import counted_down
from tests.gorod.fixtures_live import make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
phones = test_gorod_phone.phones  # the phones' and the monitor's browser contexts
# A real 1×1 PNG: the monitor shows it as the team's photo.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

SCENARIO = """\
format: gorod-scenario
version: 1
title: Ночь у реки
settings:
  hint_offsets_min: [25, 50]
  sliv_penalty_min: 15
  max_duration_h: 6
  max_wrong: 2
  wrong_window_s: 10
levels:
  - id: "1"
    task: Старый мост
    danger: 2
    codes:
      code: G7R11111D
  - id: "2"
    task: Сфотографируйте фонтан
    photo_proof: true
    codes:
      code: G7R22222D
  - id: "3"
    task: Водонапорная башня
    codes:
      code: G7R33333D
"""


@pytest.mark.slow
def test_two_teams_play_a_night_from_a_scenario_file_to_the_exports(asgi_server, phones, tmp_path):
    from core.roles import ORGANIZER
    from gorod import services
    from teams.models import Game

    organizer = make_user("organizer-night", ORGANIZER)
    game = Game.objects.create(title="Ночь у реки", format="gorod",
                               starts_at=timezone.now() + timedelta(days=1))
    alpha, beta = make_teams(game, ["Альфа", "Бета"], organizer)
    gg = services.gorod_create(actor=organizer, game=game)
    path = tmp_path / "night.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    call_command("gorod_scenario", "import", str(path), "--game", str(gg.pk))
    assert [lv.photo_proof for lv in gg.levels.order_by("order")] == [False, True, False]

    org = phones.organizer(asgi_server, gg, organizer)
    answers = []  # what the organizer types into the next prompts (confirms are accepted)
    org.on("dialog", lambda d: d.accept(answers.pop(0)) if d.type == "prompt" else d.accept())
    org.click("#start-game")
    expect(org.locator("#game-status")).to_have_attribute("data-status", "running", timeout=WAIT)

    a, b = phones(alpha), phones(beta)
    for phone in (a, b):
        phone.goto(f"{asgi_server}/gorod/{gg.pk}/play/")
        expect(phone.locator("#level-task")).to_have_text("Старый мост", timeout=WAIT)
    expect(a.locator("#level-danger")).to_contain_text("2")

    # Альфа types G7R11111D with the Russian layout on: п7к11111в, accepted.
    send(a, "п7к11111в", "accepted")
    expect(a.locator("#level-task")).to_have_text("Сфотографируйте фонтан", timeout=WAIT)

    # The organizer switches the live public leaderboard on: levels and time, no codes.
    org.check("#leaderboard-public")
    board = org.context.new_page()
    board.goto(f"{asgi_server}/gorod/{gg.pk}/statistics/")
    expect(board.locator("#leaderboard-body tr[data-team='Альфа'] td").nth(2)).to_have_text(
        "1", timeout=WAIT)
    assert "G7R" not in board.inner_text("#leaderboard-box")
    board.close()

    # Level 2 is a photo level: the photo goes to the monitor, which accepts it.
    expect(a.locator("#photo-box")).to_be_visible()
    a.set_input_files("#photo-file", files=[{"name": "fontan.png", "mimeType": "image/png",
                                             "buffer": PNG}])
    a.screenshot(path=str(artifacts_dir() / "gorod-night-photo-level.png"), full_page=True)
    a.click("#photo-send")
    expect(a.locator("#photo-status")).to_be_visible(timeout=WAIT)
    expect(org.locator("#photos li.photo-pending")).to_have_count(1, timeout=WAIT)
    expect(org.locator("#photos li.photo-pending img")).to_have_js_property("naturalWidth", 1)
    org.click("#photos button.photo-accept")
    expect(a.locator("#level-task")).to_have_text("Водонапорная башня", timeout=WAIT)
    assert PhotoProof.objects.get().status == "accepted"

    # Бета guesses: two wrong codes, then the brute-force wait counts down on its phone.
    for n, guess in enumerate(("G7R00000D", "G7R00001D"), start=1):
        send(b, guess)
        expect(b.locator("#attempts li.verdict-wrong")).to_have_count(n, timeout=WAIT)
        # The answer itself (not only the push) is in: the form is cleared and free again.
        expect(b.locator("#code-result")).to_have_attribute("data-kind", "wrong", timeout=WAIT)
        expect(b.locator("#code-text")).to_have_value("", timeout=WAIT)
        expect(b.locator("#code-send")).to_be_enabled(timeout=WAIT)
    send(b, "G7R00002D")
    expect(b.locator("#code-wait")).to_be_visible(timeout=WAIT)
    expect(b.locator("#code-send")).to_be_disabled()

    def seconds_left() -> int:
        m, s = re.search(r"(\d+):(\d\d)", b.inner_text("#code-wait")).groups()
        return int(m) * 60 + int(s)

    first = seconds_left()
    counted_down(b, "#code-wait", first)
    assert 0 < seconds_left() < first <= 10
    expect(b.locator("#code-text")).to_be_enabled(timeout=WAIT)

    # Бета asks for a timeout; the clock stops only once the organizer confirms it.
    b.fill("#timeout-minutes", "5")
    b.fill("#timeout-reason", "участник подвернул ногу")
    b.click("#timeout-send")
    expect(b.locator("#timeout-status")).to_contain_text("ждёт", timeout=WAIT)
    expect(b.locator("#timeout-status")).to_contain_text("(5 мин)")  # not "(5 min)"
    expect(b.locator("#timeout-note")).to_be_hidden()
    b.screenshot(path=str(artifacts_dir() / "gorod-night-timeout-asked.png"), full_page=True)
    expect(org.locator("#timeout-requests li.request-pending")).to_contain_text(
        "участник подвернул ногу", timeout=WAIT)
    org.click("#timeout-requests button.timeout-confirm")
    expect(b.locator("#timeout-note")).to_be_visible(timeout=WAIT)
    expect(b.locator("#timeout-form")).to_be_hidden()
    assert TimeoutRequest.objects.get().ruling.type == "timeout"

    # A penalty given to the wrong team is undone with a reason: the phone follows.
    org.select_option("#ruling-team", str(alpha.pk))
    org.select_option("#ruling-type", "penalty")
    org.fill("#ruling-minutes", "10")
    org.fill("#ruling-reason", "шум")
    org.click("#ruling-send")
    org.click("#ruling-preview-confirm")  # asked with its preview first
    expect(a.locator("#me-penalty")).to_have_text("10:00", timeout=WAIT)
    penalty = Ruling.objects.get(type="penalty")
    org.click(f"#rulings li[data-ruling='{penalty.pk}'] button.ruling-undo")
    # The undo is asked with its preview and the reason, in the page.
    expect(org.locator("#ruling-preview-text")).to_contain_text("итог 0:10 → 0:00", timeout=WAIT)
    org.fill("#undo-reason", "не та команда")
    org.click("#ruling-preview-confirm")
    expect(org.locator(f"#rulings li[data-ruling='{penalty.pk}']")).to_have_class(
        re.compile("undone"), timeout=WAIT)
    expect(a.locator("#me-penalty")).to_have_text("0:00", timeout=WAIT)
    penalty.refresh_from_db()
    assert penalty.undone_at and penalty.history[-1]["reason"] == "не та команда"

    send(a, "G7R33333D", "accepted")
    expect(a.locator("#total-row")).to_be_visible(timeout=WAIT)
    org.click("#end-game")
    expect(org.locator("#game-status")).to_have_attribute("data-status", "finished", timeout=WAIT)
    expect(a.locator("#me-place")).to_have_text("1 из 2", timeout=WAIT)
    expect(b.locator("#me-place")).to_have_text("2 из 2", timeout=WAIT)
    expect(b.locator("#total-row")).to_be_visible()
    for name, phone in (("alpha", a), ("beta", b)):
        assert_no_horizontal_overflow(phone)
        phone.screenshot(path=str(artifacts_dir() / f"gorod-night-{name}.png"), full_page=True)
        assert phone.errors == []
    org.screenshot(path=str(artifacts_dir() / "gorod-night-monitor.png"), full_page=True)
    assert GorodGame.objects.get(pk=gg.pk).status == "finished"
    assert CodeAttempt.objects.filter(verdict="limited").count() == 1

    # The exports, as the organizer's browser downloads them.
    table = org.request.get(f"{asgi_server}/gorod/{gg.pk}/statistics.csv")
    assert table.ok
    rows = list(csv.reader(io.StringIO(table.body().decode("utf-8-sig"))))
    assert any("Альфа" in row for row in rows) and any("Бета" in row for row in rows)
    sheet = org.request.get(f"{asgi_server}/gorod/{gg.pk}/statistics.xlsx")
    assert sheet.ok
    values = [[c for c in row] for row in load_workbook(io.BytesIO(sheet.body())).active
              .iter_rows(values_only=True)]
    alpha_row = next(row for row in values if "Альфа" in row)
    assert any(isinstance(c, int | float) and not isinstance(c, bool) for c in alpha_row)
