"""Protests on preliminary results: who may file (a playing team's captain, or an organizer on
its behalf), the 12 h window after the game's end, the organizer's answer, finalizing refused
while a protest is open, the results page and the API."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from rating import services
from rating.models import GameResult, Protest
from tests.rating.helpers import (
    captained_teams,
    ended,
    finalize,
    koth_game,
    make_user,
)

pytestmark = pytest.mark.django_db



def file(game, team, *, actor=None, text="Level 2 code was accepted late", hours=1.0):
    return services.protest_file(actor=actor or team.captain, game=game, team=team, text=text,
                                 now=ended(game) + timedelta(hours=hours))


def test_a_captain_files_within_12_hours_of_the_end(game, teams):
    beta = teams[1]
    protest = file(game, beta, hours=11.9)
    assert protest.status == Protest.Status.OPEN and protest.created_by == beta.captain
    assert protest.result.game == game and protest.team == beta
    assert file(game, beta, hours=12).pk  # the 12th hour still counts


def test_the_gorod_window_runs_from_the_nights_end(game):
    from gorod.models import GorodGame

    assert ended(game) == GorodGame.objects.get(pk=game.pk).ended_at


def test_the_king_of_the_hill_window_runs_from_the_games_end(organizer, teams):
    from kingofhill.models import KothGame

    game = koth_game(organizer, teams=teams)
    services.results_publish(actor=organizer, game=game)
    assert ended(game) == KothGame.objects.get(pk=game.pk).finished_at
    assert file(game, teams[2], hours=2).pk
    with pytest.raises(services.DomainError, match="12 hours"):
        file(game, teams[2], hours=12.1)


def test_after_the_window_a_protest_is_refused(game, teams):
    with pytest.raises(services.DomainError, match="12 hours"):
        file(game, teams[1], hours=12.01)
    assert not Protest.objects.exists()


def test_only_the_teams_captain_or_an_organizer_files(game, teams, organizer):
    alpha, beta, _gamma = teams
    for actor in (alpha.captain, make_user("player")):
        with pytest.raises(services.NotAllowed) as exc:
            file(game, beta, actor=actor)
        assert exc.value.status_code == 403
    assert file(game, beta, actor=organizer).created_by == organizer  # on the team's behalf
    assert Protest.objects.count() == 1


def test_a_team_that_did_not_play_cannot_protest(game):
    omega = captained_teams(["Omega"])[0]
    with pytest.raises(services.DomainError, match="did not play") as exc:
        file(game, omega)
    assert exc.value.status_code == 400


def test_final_results_take_no_protests(game, teams, organizer):
    finalize(organizer, game)
    with pytest.raises(services.DomainError, match="final") as exc:
        file(game, teams[1])
    assert exc.value.status_code == 400


@pytest.mark.parametrize("text", ["", "   ", "x" * 2001])
def test_the_text_is_1_to_2000_characters(game, teams, text):
    with pytest.raises(services.DomainError):
        file(game, teams[1], text=text)
    assert file(game, teams[1], text="x" * 2000).text == "x" * 2000


def test_only_an_organizer_answers_and_only_once(game, teams, organizer):
    protest = file(game, teams[1])
    with pytest.raises(services.NotAllowed):
        services.protest_answer(actor=teams[1].captain, protest=protest, upheld=True,
                                answer="yes")
    with pytest.raises(services.DomainError, match="answer"):
        services.protest_answer(actor=organizer, protest=protest, upheld=True, answer=" ")
    protest = services.protest_answer(actor=organizer, protest=protest, upheld=False,
                                      answer="The code arrived after the level closed.")
    assert protest.status == Protest.Status.REJECTED and protest.answered_by == organizer
    assert protest.answered_at is not None
    with pytest.raises(services.DomainError, match="already answered"):
        services.protest_answer(actor=organizer, protest=protest, upheld=True, answer="no")


def test_finalizing_is_refused_while_a_protest_is_open(game, teams, organizer):
    protest = file(game, teams[1])
    with pytest.raises(services.DomainError, match="open protests"):
        finalize(organizer, game)
    assert GameResult.objects.get(game=game).status == GameResult.Status.PRELIMINARY
    services.protest_answer(actor=organizer, protest=protest, upheld=True, answer="Agreed.")
    assert finalize(organizer, game).is_final


# --- the results page ---------------------------------------------------------------------


def page(client, game) -> str:
    response = client.get(reverse("rating:results", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_form_shows_only_to_a_playing_teams_captain_while_allowed(
        client, game, teams, organizer):
    assert "File a protest" not in page(client, game)  # anonymous
    client.force_login(make_user("player"))
    assert "File a protest" not in page(client, game)
    client.force_login(captained_teams(["Omega"])[0].captain)  # did not play
    assert "File a protest" not in page(client, game)
    client.force_login(teams[1].captain)
    html = page(client, game)
    assert "File a protest" in html and f'name="team" value="{teams[1].pk}"' in html
    assert f'value="{teams[0].pk}"' not in html
    finalize(organizer, game)
    assert "File a protest" not in page(client, game)


def test_no_form_once_the_window_closed(client, organizer, teams):
    from kingofhill.models import KothGame

    game = koth_game(organizer, teams=teams)
    services.results_publish(actor=organizer, game=game)
    KothGame.objects.filter(pk=game.pk).update(
        finished_at=ended(game) - timedelta(hours=13))
    GameResult.objects.filter(game=game).update(ended_at=ended(game) - timedelta(hours=13))
    client.force_login(teams[1].captain)
    assert "File a protest" not in page(client, game)


def test_filing_and_answering_through_the_page(client, game, teams, organizer):
    beta = teams[1]
    client.force_login(beta.captain)
    response = client.post(reverse("rating:protest_file", args=[game.pk]),
                           {"team": beta.pk, "text": "Our code G1R1D was lost"})
    assert response.status_code == 302
    protest = Protest.objects.get()
    client.force_login(teams[0].captain)  # another captain cannot file for Beta
    client.post(reverse("rating:protest_file", args=[game.pk]), {"team": beta.pk, "text": "x"})
    assert Protest.objects.count() == 1
    html = page(client, game)
    assert "Our code G1R1D was lost" in html and "Uphold" not in html  # public, no buttons
    assert client.post(reverse("rating:protest_answer", args=[game.pk, protest.pk]),
                       {"upheld": "1", "answer": "x"}).status_code == 403
    client.force_login(organizer)
    assert "Uphold" in page(client, game) and "Reject" in page(client, game)
    client.post(reverse("rating:protest_answer", args=[game.pk, protest.pk]),
                {"upheld": "1", "answer": "Beta gets the level."})
    protest.refresh_from_db()
    assert protest.status == Protest.Status.UPHELD
    client.force_login(beta.captain)
    html = page(client, game)
    assert "Beta gets the level." in html and 'data-protest-status="upheld"' in html
    assert "your team" in html


# --- the API -------------------------------------------------------------------------------


def api_client(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def test_api_round_trip(game, teams, organizer):
    beta = teams[1]
    url = reverse("rating:api_protests", args=[game.pk])
    assert api_client().post(url, {"team": beta.pk, "text": "t"}, format="json"
                             ).status_code == 403
    response = api_client(teams[0].captain).post(url, {"team": beta.pk, "text": "t"},
                                                 format="json")
    assert response.status_code == 403 and response.json()["detail"]
    omega = captained_teams(["Omega"])[0]
    response = api_client(omega.captain).post(url, {"team": omega.pk, "text": "t"},
                                              format="json")
    assert response.status_code == 400 and "did not play" in response.json()["detail"]
    response = api_client(beta.captain).post(url, {"team": beta.pk, "text": "Lost code"},
                                             format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["team_name"], body["status"], body["game"]) == ("Beta", "open", game.pk)
    answer = reverse("rating:api_protest_answer", args=[game.pk, body["id"]])
    assert api_client(beta.captain).post(answer, {"upheld": True, "answer": "a"},
                                         format="json").status_code == 403
    finalize = reverse("rating:api_finalize", args=[game.pk])
    response = api_client(organizer).post(finalize)
    assert response.status_code == 400 and "open protests" in response.json()["detail"]
    response = api_client(organizer).post(answer, {"upheld": False, "answer": "Arrived late."},
                                          format="json")
    assert response.status_code == 200 and response.json()["status"] == "rejected"
    listed = api_client().get(url).json()
    assert [(p["team_name"], p["status"], p["answer"]) for p in listed] == [
        ("Beta", "rejected", "Arrived late.")]
    results = api_client().get(reverse("rating:api_results", args=[game.pk])).json()
    assert results["protests"][0]["answer"] == "Arrived late."
    assert api_client(organizer).post(finalize, {"early": True, "reason": "answered"},
                                      format="json").json()["status"] == "final"
    response = api_client(beta.captain).post(url, {"team": beta.pk, "text": "again"},
                                             format="json")
    assert response.status_code == 400



def test_a_team_has_at_most_three_open_protests_and_files_again_once_one_is_answered(
        game, teams, organizer):
    from rating import rules

    beta = teams[1]
    for n in range(rules.PROTESTS_OPEN_MAX):
        file(game, beta, text=f"protest {n}")
    with pytest.raises(services.DomainError) as refused:
        file(game, beta, text="one more")
    assert refused.value.message == (
        "Your team has 3 protests waiting for the organizer's answer: wait for an answer "
        "before filing another.")
    assert file(game, teams[0]).pk  # another team is not limited by Beta's protests
    services.protest_answer(actor=organizer, protest=Protest.objects.filter(team=beta).first(),
                            upheld=False, answer="the code came after the deadline")
    assert file(game, beta, text="one more").pk
    assert Protest.objects.filter(team=beta).count() == rules.PROTESTS_OPEN_MAX + 1


def test_a_captain_casts_or_changes_the_vote_at_most_five_times(organizer, teams):
    from rating import rules
    from rating.models import GameResult
    from tests.rating.helpers import gorod_game

    omega = captained_teams(["Omega"])[0]
    game = gorod_game(organizer, teams=teams)
    services.organizer_set(actor=organizer, game=game, team=omega)
    services.results_publish(actor=organizer, game=game)
    alpha = teams[0]
    at = ended(game) + timedelta(hours=1)
    for value in [100, 75, 50, 25, 0][:rules.VOTES_CAST_MAX]:
        services.vote_cast(actor=alpha.captain, game=game, team=alpha, value=value, now=at)
    with pytest.raises(services.DomainError, match="voted 5 times on this game"):
        services.vote_cast(actor=alpha.captain, game=game, team=alpha, value=100, now=at)
    assert GameResult.objects.get(game=game).votes.get(team=alpha).value == 0
    services.vote_cast(actor=teams[1].captain, game=game, team=teams[1], value=50, now=at)
