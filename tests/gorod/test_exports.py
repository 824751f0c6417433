"""Downloads are files whatever the Accept header says: both games' records, the statistics
CSV/XLSX and the scenario file; the statistics exports parse back to the engine's table."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from core.roles import HOST
from teams.models import Game
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import make_teams, make_user

pytestmark = pytest.mark.django_db

#: What Chromium sends when a link is followed (a browser asks for HTML first).
BROWSER_ACCEPT = ("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,"
                  "image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7")


def browser(user=None) -> Client:
    client = Client(headers={"accept": BROWSER_ACCEPT})
    if user is not None:
        client.force_login(user)
    return client


def assert_file(response, content_type: str, filename: str) -> None:
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith(content_type)
    assert f'filename="{filename}"' in response["Content-Disposition"]


# --- the records --------------------------------------------------------------------------------


@pytest.mark.parametrize("download, how", [("?download=1", "attachment"), ("", "inline")])
def test_the_gorod_record_is_json_even_for_a_browsers_accept_header(live, organizer, download,
                                                                    how):
    response = browser(organizer).get(f"/gorod/api/games/{live.pk}/record/{download}")
    assert_file(response, "application/json", f"gorod-{live.pk}.json")
    assert response["Content-Disposition"].startswith(how)
    assert json.loads(response.content)["format"] == "gorod"


def test_a_refused_gorod_record_is_json_too(live, outsider):
    response = browser(outsider).get(f"/gorod/api/games/{live.pk}/record/?download=1")
    assert response.status_code == 403 and response["Content-Type"] == "application/json"
    assert "detail" in response.json()


def test_the_king_of_the_hill_record_is_json_even_for_a_browsers_accept_header(organizer):
    from kingofhill import services as koth_services

    host = make_user("host-exports", HOST)
    game = Game.objects.create(title="Царь Горы", format=Game.Format.KINGOFHILL,
                               starts_at=timezone.now() + timedelta(days=5), created_by=organizer)
    make_teams(game, [f"T{i}" for i in range(8)], organizer)
    koth = koth_services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                     reserve_questions=2)
    koth_services.game_start(actor=host, game=koth)
    response = browser(organizer).get(f"/koth/api/games/{koth.pk}/record/?download=1")
    assert_file(response, "application/json", f"kingofhill-{koth.pk}.json")
    assert response["Content-Disposition"].startswith("attachment")
    assert json.loads(response.content)["format"] == "kingofhill"
    assert browser(host).get(f"/koth/api/games/{koth.pk}/record/").json()["detail"]
