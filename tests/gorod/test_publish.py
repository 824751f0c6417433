"""The scenario after the night: the organizer's switch (``services.scenario_publish``) on an
ended game makes the public scenario page show every level's task, hints and codes and the
statistics; refused before the end, off by default, the page a 404 while off, linked from the
game's public page when on."""

from __future__ import annotations

import pytest
from django.test import Client

from core.errors import NotAllowed
from core.models import AuditEntry
from gorod import services
from gorod.models import GorodGame
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import minutes

pytestmark = pytest.mark.django_db


@pytest.fixture
def ended(running, organizer, alpha) -> GorodGame:
    services.code_submit(game=running, application=alpha, text="G1R1D", now=minutes(10))
    services.game_end(actor=organizer, game=running, now=minutes(60))
    running.refresh_from_db()
    return running


def page(client, gg):
    return client.get(f"/gorod/{gg.pk}/scenario/")


def test_the_scenario_is_unpublished_by_default_and_its_page_is_a_404_even_to_organizers(
        ended, organizer):
    assert ended.scenario_public is False
    assert page(Client(), ended).status_code == 404
    client = Client()
    client.force_login(organizer)
    assert page(client, ended).status_code == 404
    stats = Client().get(f"/gorod/{ended.pk}/statistics/")
    assert b"scenario-link" not in stats.content


def test_a_published_scenario_shows_tasks_hints_codes_and_statistics_to_everyone(
        ended, organizer):
    services.scenario_publish(actor=organizer, game=ended, on=True)
    response = page(Client(), ended)
    assert response.status_code == 200
    html = response.content.decode()
    for text in ("Find the bridge", "Near water", "Red bridge", "G1R1D", "G1R2D",
                 "north: G1R31D", "south: G1R32D"):
        assert text in html
    # The statistics: Alpha closed level 1 by code in 10:00.
    assert 'id="scenario-stats"' in html and "Alpha" in html and "10:00" in html
    stats = Client().get(f"/gorod/{ended.pk}/statistics/").content.decode()
    assert f'href="/gorod/{ended.pk}/scenario/"' in stats
    entry = AuditEntry.objects.get(game_id=ended.pk, action="gorod.scenario_public")
    assert entry.after == {"public": True} and entry.actor == organizer


def test_taking_the_scenario_back_hides_it_again(ended, organizer):
    services.scenario_publish(actor=organizer, game=ended, on=True)
    services.scenario_publish(actor=organizer, game=ended, on=False)
    assert page(Client(), ended).status_code == 404


def test_publishing_is_refused_before_the_end_and_to_anyone_but_an_organizer(
        gorod, running, organizer, outsider):
    with pytest.raises(services.DomainError, match="once the game has ended"):
        services.scenario_publish(actor=organizer, game=running, on=True)
    running.refresh_from_db()
    assert running.scenario_public is False
    assert page(Client(), running).status_code == 404
    with pytest.raises(NotAllowed):
        services.scenario_publish(actor=outsider, game=running, on=True)


def test_the_api_publishes_and_answers_a_refusal_with_a_detail(live, organizer):
    client = Client()
    client.force_login(organizer)
    url = f"/gorod/api/games/{live.pk}/scenario/publish/"
    early = client.post(url, {"on": True}, content_type="application/json")
    assert early.status_code == 400 and "ended" in early.json()["detail"]
    services.game_end(actor=organizer, game=live)
    ok = client.post(url, {"on": True}, content_type="application/json")
    assert ok.status_code == 200
    assert page(Client(), live).status_code == 200
    assert client.post(url, {"on": "maybe"}, content_type="application/json").status_code == 400
