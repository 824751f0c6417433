"""The GoRoD pages: who may open them and what they render from the server."""

from __future__ import annotations

import pytest
from django.test import Client

from gorod import services
from teams.models import Game
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import join_session

pytestmark = pytest.mark.django_db


def test_the_team_page_is_the_games_team_page_url(live):
    assert Game.objects.get(pk=live.pk).team_page_url() == f"/gorod/{live.pk}/play/"


def test_the_team_page_sends_an_unjoined_phone_to_the_join_page_with_a_message(live):
    response = Client().get(f"/gorod/{live.pk}/play/", follow=True)
    assert response.redirect_chain == [(f"/teams/join/?game={live.pk}", 302)]
    assert b"has not joined a team of" in response.content
    assert f'<option value="{live.pk}" selected>'.encode() in response.content


def test_the_team_page_shows_the_level_from_the_server(live, alpha):
    client = Client()
    join_session(client, alpha)
    services.code_submit(game=live, application=alpha, text="nope")
    response = client.get(f"/gorod/{live.pk}/play/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Find the bridge" in html and "/ws/gorod/" in html and "gorod/play.js" in html
    assert "nope" in html  # its own attempts, in the initial state


def test_a_joined_phone_before_the_set_up_sees_a_waiting_page(scheduled, entries):
    client = Client()
    join_session(client, entries[0])
    response = client.get(f"/gorod/{scheduled.pk}/play/")
    assert response.status_code == 200 and b"not been set up" in response.content


def test_the_organizer_page(live, organizer, outsider):
    assert Client().get(f"/gorod/{live.pk}/").status_code == 302
    client = Client()
    client.force_login(outsider)
    assert client.get(f"/gorod/{live.pk}/").status_code == 403
    client.force_login(organizer)
    response = client.get(f"/gorod/{live.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "gorod/manage.js" in html and f"/gorod/api/games/{live.pk}/record/" in html
    assert f'href="/rating/games/{live.pk}/"' in html  # publishing the results starts here
    assert "Alpha" in html


def test_the_gorod_index_links_statistics_for_all_and_the_organizer_screen_for_organizers(
        live, organizer):
    public = Client().get("/gorod/").content.decode()
    assert f'href="/gorod/{live.pk}/statistics/"' in public
    assert f'href="/gorod/{live.pk}/"' not in public
    client = Client()
    client.force_login(organizer)
    assert f'href="/gorod/{live.pk}/"' in client.get("/gorod/").content.decode()


def test_an_unknown_game_is_404(organizer):
    client = Client()
    client.force_login(organizer)
    assert client.get("/gorod/987654/").status_code == 404
    assert client.get("/gorod/987654/play/").status_code == 404


def test_the_admin_pages_open(live, admin_client, alpha):
    services.code_submit(game=live, application=alpha, text="nope")
    for path in ("/admin/gorod/gorodgame/", f"/admin/gorod/gorodgame/{live.pk}/change/",
                 "/admin/gorod/codeattempt/", "/admin/gorod/route/"):
        assert admin_client.get(path).status_code == 200, path


def test_the_public_statistics_page_shows_the_table_only_after_the_game(live, organizer):
    response = Client().get(f"/gorod/{live.pk}/statistics/")
    assert response.status_code == 200
    assert response.context["state_json"]["state"]["statistics"] is None
    services.game_end(actor=organizer, game=live)
    response = Client().get(f"/gorod/{live.pk}/statistics/")
    rows = response.context["state_json"]["state"]["statistics"]["rows"]
    assert [r["team"] for r in rows] == ["Alpha", "Beta", "Gamma"]
    assert "gorod/stats.js" in response.content.decode()
