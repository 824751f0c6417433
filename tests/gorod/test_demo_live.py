"""The running GoRoD demo: three levels with codes, teams that can play, idempotent."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from gorod.demo import DEMO_TITLE, LIVE_TITLE
from gorod.models import GorodGame
from teams.models import Game

pytestmark = pytest.mark.django_db


def test_the_demo_builds_a_running_gorod_game_once_and_prints_its_links(capsys):
    call_command("demo", "--port", "8123")
    out = capsys.readouterr().out
    gg = GorodGame.objects.get(game__title=LIVE_TITLE)  # the demo season's nights are over
    assert gg.status == "running" and gg.levels.count() == 3 and len(gg.team_order) == 3
    assert f"http://127.0.0.1:8123/gorod/{gg.pk}/" in out and "G7R11111D" in out
    call_command("demo")
    assert GorodGame.objects.filter(game__title=LIVE_TITLE).count() == 1
    assert Game.objects.filter(title=LIVE_TITLE).count() == 1
    # a phone follows a printed join link and plays
    link = next(line for line in out.splitlines() if "GoRoD live team" in line).split("8123")[1]
    phone = Client()
    phone.post(link)  # the join link asks first; the button POSTs
    page = phone.get(f"/gorod/{gg.pk}/play/")
    assert page.status_code == 200
    assert "мост" in page.context["state_json"]["state"]["me"]["level"]["task"]


def test_the_registration_demo_game_stays_open_for_applications_beside_the_running_one(capsys):
    call_command("demo")
    assert Game.objects.get(title=DEMO_TITLE).status == Game.Status.SCHEDULED
    assert not GorodGame.objects.filter(game__title=DEMO_TITLE).exists()
