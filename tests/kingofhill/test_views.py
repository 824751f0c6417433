"""Pages: who may open them, and that each embeds its state, socket path and state URL."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from core.live import stream_versions
from kingofhill.models import KothGame
from tests.kingofhill.conftest import join_session

pytestmark = pytest.mark.django_db


def embedded_state(response) -> dict:
    html = response.content.decode()
    start = html.index('id="koth-state"')
    start = html.index(">", start) + 1
    return json.loads(html[start:html.index("</script>", start)])


def test_the_host_console_is_for_hosts_and_embeds_the_host_state(client, running, host,
                                                                 outsider):
    page = reverse("kingofhill:host", args=[running.pk])
    assert client.get(page).status_code == 302  # to the login
    client.force_login(outsider)
    assert client.get(page).status_code == 403
    client.force_login(host)
    response = client.get(page)
    assert response.status_code == 200
    assert embedded_state(response)["version"] == stream_versions(running.pk)["host"]
    assert f"/ws/koth/{running.pk}/host/" in response.content.decode()
    assert 'id="record-download"' not in response.content.decode()  # organizers only


def test_an_organizer_gets_the_record_download_button(client, running, organizer):
    client.force_login(organizer)
    html = client.get(reverse("kingofhill:host", args=[running.pk])).content.decode()
    assert 'id="record-download"' in html and "download=1" in html
    assert f'href="/rating/games/{running.pk}/"' in html  # publishing the results starts here


def test_the_team_page_sends_an_unjoined_phone_to_the_join_page_with_a_message(client, running):
    response = client.get(reverse("kingofhill:play", args=[running.pk]), follow=True)
    assert response.redirect_chain == [(f"{reverse('teams:join')}?game={running.pk}", 302)]
    html = response.content.decode()
    assert "has not joined a team of" in html
    assert f'<option value="{running.pk}" selected>' in html


def test_the_team_page_shows_the_joined_team_and_its_own_state(client, running, alpha):
    join_session(client, alpha)
    response = client.get(reverse("kingofhill:play", args=[running.pk]))
    assert response.status_code == 200
    state = embedded_state(response)["state"]
    assert state["me"]["team"] == "Alpha"
    assert f"/ws/koth/{running.pk}/team/" in response.content.decode()


def test_the_projector_page_is_public_and_embeds_the_public_state(client, running):
    response = client.get(reverse("kingofhill:projector", args=[running.pk]))
    assert response.status_code == 200
    assert response.context["ws_path"] == f"/ws/koth/{running.pk}/public/"
    assert response.context["state_url"] == f"/koth/api/games/{running.pk}/state/"
    assert "me" not in response.context["state_json"]["state"]


def test_an_organizer_prepares_a_board_from_the_list_page(client, organizer, scheduled, entries):
    client.force_login(organizer)
    assert scheduled.title in client.get(reverse("kingofhill:index")).content.decode()
    response = client.post(reverse("kingofhill:create"),
                           {"game": scheduled.pk, "summit": 4, "main_questions": 12,
                            "reserve_questions": 2})
    assert response.status_code == 302
    assert KothGame.objects.get(pk=scheduled.pk).summit == 4
