"""Pages: who may open them, and that each embeds its state, socket path and state URL."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from kingofhill.models import KothGame
from live.store import stream_versions
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


def finish(koth, host, alpha, beta, gamma):
    """Alpha takes the summit on question 2 and holds it for three silent questions."""
    from tests.kingofhill.play import crown_alpha, play

    crown_alpha(koth, host, alpha, beta, gamma)
    while KothGame.objects.get(pk=koth.pk).status == KothGame.Status.RUNNING:
        play(koth, host, {})
    koth.refresh_from_db()


def test_the_index_is_public_with_projectors_and_host_links_only_for_hosts(client, running,
                                                                           outsider, host):
    projector = reverse("kingofhill:projector", args=[running.pk])
    console = reverse("kingofhill:host", args=[running.pk])
    for who in (None, outsider):
        if who is not None:
            client.force_login(who)
        html = client.get(reverse("kingofhill:index")).content.decode()
        assert running.game.title in html and f'href="{projector}"' in html
        assert f'href="{console}"' not in html and 'action="/koth/new/"' not in html
    client.force_login(host)
    html = client.get(reverse("kingofhill:index")).content.decode()
    assert f'href="{console}"' in html and f'href="{projector}"' in html


def test_a_cancelled_games_board_is_not_listed(client, running):
    from teams.models import Game

    Game.objects.filter(pk=running.pk).update(status=Game.Status.CANCELLED)
    assert running.game.title not in client.get(reverse("kingofhill:index")).content.decode()


def test_a_finished_game_shows_as_finished_on_the_index_and_in_the_club_games_list(
        client, running, host, alpha, beta, gamma):
    from teams.models import Game

    finish(running, host, alpha, beta, gamma)
    assert Game.objects.get(pk=running.pk).status == Game.Status.FINISHED
    index = client.get(reverse("kingofhill:index")).content.decode()
    assert 'data-status="finished"' in index
    games = client.get(reverse("teams:games")).content.decode()
    assert "status-finished" in games and "status-running" not in games


def test_a_verdict_that_reopens_a_finished_game_makes_it_running_again_in_the_lists(
        running, host, alpha, beta, gamma):
    from kingofhill import services
    from kingofhill.models import Answer
    from teams.models import Game

    finish(running, host, alpha, beta, gamma)
    crowning = Answer.objects.get(question__koth=running, question__number=2, application=alpha)
    services.verdict_set(actor=host, game=running, answer=crowning.pk, verdict=False,
                         confirm=True)
    running.refresh_from_db()
    assert running.status == KothGame.Status.RUNNING
    assert Game.objects.get(pk=running.pk).status == Game.Status.RUNNING


def test_the_question_bank_page_adds_imports_and_refuses_bad_files_with_a_message(
        client, koth, host, outsider):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from kingofhill.models import PreparedQuestion

    page = reverse("kingofhill:bank", args=[koth.pk])
    client.force_login(outsider)
    assert client.get(page).status_code == 403
    client.force_login(host)
    assert client.get(page).status_code == 200
    added = client.post(page, {"action": "add", "text": "Столица Франции?", "answer_key": "Париж",
                               "variants": "Paris\nПариж!", "partner": "on", "note": "медленно"})
    assert added.status_code == 302
    row = PreparedQuestion.objects.get()
    assert (row.variants, row.partner, row.note) == (["Paris", "Париж!"], True, "медленно")

    for name, data, message in [
        ("q.csv", b"", "The file is empty."),
        ("q.csv", b"vopros\nx\n", "Unknown columns: vopros."),
        ("q.csv", "text\nВопрос\n".encode("cp1251"), "not UTF-8"),
        ("q.csv", b"text\n" + b"x" * (5 * 1024 * 1024), "The file is too big"),
    ]:
        upload = SimpleUploadedFile(name, data, content_type="text/csv")
        response = client.post(page, {"action": "import", "file": upload})
        html = response.content.decode()
        assert response.status_code == 400 and "Nothing is imported" in html, name
        assert message in html, name
    assert PreparedQuestion.objects.count() == 1

    upload = SimpleUploadedFile("q.txt", "Раз?\nОтвет: 1\n\nДва?\nОтвет: 2\n".encode())
    assert client.post(page, {"action": "import", "file": upload}).status_code == 302
    assert list(PreparedQuestion.objects.values_list("text", flat=True)) == [
        "Столица Франции?", "Раз?", "Два?"]
    html = client.get(page).content.decode()
    assert "Раз?" in html and "Imported 2 questions." in html


def test_a_bank_file_with_a_nul_byte_is_a_400_with_a_message_and_stores_nothing(
        client, koth, host):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from kingofhill.models import PreparedQuestion

    client.force_login(host)
    upload = SimpleUploadedFile("q.csv", "text,answer\nВопрос?,Пуш\x00кин\n".encode(),
                                content_type="text/csv")
    response = client.post(reverse("kingofhill:bank", args=[koth.pk]),
                           {"action": "import", "file": upload})
    html = response.content.decode()
    assert response.status_code == 400 and "Nothing is imported" in html
    assert "row 2: a cell contains a NUL character" in html
    assert not PreparedQuestion.objects.exists()
