"""Rating pages: the public results page with its preliminary/final badge, organizer buttons
only for organizers, the season table, and the record download that replays to what the page
shows."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from rating import rules, selectors, services
from rating.models import GameResult, ResultRow, Season
from tests.rating.helpers import (
    finalize,
    get_teams,
    gorod_game,
    koth_game,
    make_user,
    table_rows,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def org_client(client, organizer):
    client.force_login(organizer)
    return client


def page(client, name, *args) -> str:
    response = client.get(reverse(f"rating:{name}", args=args))
    assert response.status_code == 200
    return response.content.decode()


def test_the_results_page_shows_the_badge_and_the_buttons_to_organizers_only(
        client, organizer):
    game = koth_game(organizer)
    assert "not published yet" in page(client, "results", game.pk)
    services.results_publish(actor=organizer, game=game)
    html = page(client, "results", game.pk)
    assert 'data-status="preliminary"' in html and "Alpha" in html
    assert "Make the results final" not in html and "table-form" not in html
    client.force_login(organizer)
    html = page(client, "results", game.pk)
    assert "Make the results final" in html and "Refresh from the game" in html
    finalize(organizer, game)
    html = page(client, "results", game.pk)
    assert 'data-status="final"' in html and "Re-open the results" in html


def test_the_results_page_renders_in_russian(client, organizer):
    game = gorod_game(organizer)
    services.results_publish(actor=organizer, game=game)
    html = client.get(reverse("rating:results", args=[game.pk]),
                      HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Alpha" in html


def test_organizer_forms_publish_edit_finalize_and_reopen(org_client, organizer):
    game = gorod_game(organizer)
    beta = get_teams(organizer)[1]
    post = org_client.post
    assert post(reverse("rating:results_action", args=[game.pk, "publish"])).status_code == 302
    alpha, _beta, gamma = get_teams(organizer)
    form = {f"place-{alpha.pk}": "1", f"place-{beta.pk}": "2", f"deduction-{beta.pk}": "4",
            f"reason-{beta.pk}": "late start", f"dq-{gamma.pk}": "on"}
    post(reverse("rating:table_set", args=[game.pk]), form)
    assert ResultRow.objects.get(team=beta).deduction == 4
    post(reverse("rating:results_action", args=[game.pk, "finalize"]))
    assert not GameResult.objects.get().is_final  # the protest window is open
    post(reverse("rating:results_action", args=[game.pk, "finalize"]),
         {"early": "on", "reason": "every captain agreed"})
    assert GameResult.objects.get().is_final
    response = post(reverse("rating:results_action", args=[game.pk, "reopen"]), {"reason": ""},
                    follow=True)
    assert "Say why" in response.content.decode() and GameResult.objects.get().is_final
    post(reverse("rating:results_action", args=[game.pk, "reopen"]), {"reason": "protest"})
    assert not GameResult.objects.get().is_final


def test_others_get_403_and_nothing_changes(client, organizer):
    game = gorod_game(organizer)
    season = Season.objects.create(title="S", format="gorod", scale=[100])
    client.force_login(make_user("outsider"))
    for name, args in (("results_action", [game.pk, "publish"]), ("season_create", []),
                       ("season_game", [season.pk])):
        assert client.post(reverse(f"rating:{name}", args=args),
                           {"title": "x", "format": "gorod", "game": game.pk}).status_code == 403
    assert client.get(reverse("rating:season_record", args=[season.pk])).status_code == 403
    assert not GameResult.objects.exists() and Season.objects.count() == 1
    assert not season.games.exists()


def test_the_season_pages_and_the_downloaded_record_replays_to_the_shown_table(
        client, org_client, organizer):
    teams = get_teams(organizer)
    first = gorod_game(organizer, teams=teams)
    second = gorod_game(organizer, title="second", days=2, teams=teams, disqualify=False)
    org_client.post(reverse("rating:season_create"), {"title": "Зима", "format": "gorod"})
    season = Season.objects.get()
    for game in (first, second):
        org_client.post(reverse("rating:season_game", args=[season.pk]), {"game": game.pk})
        services.results_publish(actor=organizer, game=game)
        finalize(organizer, game)
    assert "Зима" in page(client, "seasons")
    response = org_client.get(reverse("rating:season_record", args=[season.pk]))
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    replayed = rules.replay(json.loads(response.content))
    client.logout()
    html = page(client, "season", season.pk)
    shown = re.findall(r'<tr><td class="num">(\d+)</td><td><a href="[^"]*">([^<]+)</a></td>'
                       r'<td class="num">(-?\d+)</td><td class="num">(\d+)</td>', html)
    assert shown == [(str(t["place"]), t["team"], str(t["points"]), str(t["games"]))
                     for t in replayed["teams"]]
    assert replayed == selectors.season_table(season)
    # Gamma: disqualified in the first, third in the second; Beta and Gamma ...
    assert [row[1] for row in shown] == ["Alpha", "Beta", "Gamma"]
    assert "Download the season record" not in html


def test_shared_places_are_shown(client, organizer):
    teams = get_teams(organizer)
    alpha, beta, _gamma = teams
    first = gorod_game(organizer, teams=teams)
    second = gorod_game(organizer, title="second", days=2, teams=teams)
    season = Season.objects.create(title="S", format="gorod", scale=[100, 96, 92])
    season.games.add(first, second)
    for game in (first, second):
        services.results_publish(actor=organizer, game=game)
    with pytest.raises(services.DomainError, match="same place"):
        services.results_table_set(actor=organizer, game=second, rows=table_rows(
            second, Beta={"place": 1, "reason": "ruling"}))
    services.results_table_set(actor=organizer, game=second, rows=table_rows(
        second, Beta={"place": 1, "reason": "ruling"}, Alpha={"place": 2, "reason": "ruling"}))
    for game in (first, second):
        finalize(organizer, game)
    html = page(client, "season", season.pk)
    rows = re.findall(r'<tr><td class="num">(\d+)</td><td><a href="[^"]*">([^<]+)</a></td>'
                      r'<td class="num">(-?\d+)', html)
    # Alpha and Beta: one 1st and one 2nd each, 196 points: they share the 1st place.
    assert rows == [("1", "Alpha", "196"), ("1", "Beta", "196"), ("3", "Gamma", "0")]


def test_a_broken_scale_is_reported_not_a_crash(client, organizer):
    game = gorod_game(organizer)
    season = Season.objects.create(title="S", format="gorod", scale=[10, 20])
    season.games.add(game)
    services.results_publish(actor=organizer, game=game)
    finalize(organizer, game)
    assert "cannot be computed" in page(client, "season", season.pk)


def test_a_teams_season_page_lists_its_games_places_and_points(client, organizer):
    teams = get_teams(organizer)
    first = gorod_game(organizer, teams=teams)
    second = gorod_game(organizer, title="second", days=2, teams=teams, disqualify=False)
    season = Season.objects.create(title="S", format="gorod", scale=[100, 96, 92])
    season.games.add(first, second)
    for game in (first, second):
        services.results_publish(actor=organizer, game=game)
        finalize(organizer, game)
    gamma = teams[2]
    html = page(client, "season_team", season.pk, gamma.pk)
    rows = re.findall(r'<tr><td><a href="[^"]*">([^<]+)</a></td><td>[^<]*</td>\s*'
                      r'<td class="num">([^<]+)</td><td class="num">(\d+)</td>', html)
    assert rows == [("ГоРоД", "disqualified", "0"), ("second", "3", "92")]
    assert "Place 3 in the season: 92 points from 2 games." in html


def test_the_chart_escapes_team_names_and_draws_the_top_teams(organizer):
    from rating.presentation import season_chart

    data = {"teams": [{"team": 1}, {"team": 2}], "progress": [{1: 100, 2: 96}, {1: 196, 2: 192}]}
    svg = str(season_chart(data, {1: "<script>x</script>", 2: "Beta"}))
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert svg.count("<polyline") == 2 and 'data-points="196"' in svg
    assert str(season_chart({"teams": [], "progress": []}, {})) == ""


def test_a_one_game_season_chart_draws_each_teams_points_for_that_game(organizer):
    from rating.presentation import season_chart

    data = {"teams": [{"team": 1}, {"team": 2}], "progress": [{1: 100, 2: 60}]}
    svg = str(season_chart(data, {1: "Alpha", 2: "Beta"}))
    dots = re.findall(r'<circle class="chart-point" data-team="(\d+)" data-game="1" '
                      r'data-points="(\d+)" cx="[\d.]+" cy="([\d.]+)" r="4"', svg)
    assert [(team, points) for team, points, _cy in dots] == [("1", "100"), ("2", "60")]
    # Drawn at the heights of their points: more points, higher on the chart.
    assert float(dots[0][2]) < float(dots[1][2])


def test_results_and_season_pages_carry_the_print_stylesheet(client, organizer):
    game = gorod_game(organizer)
    services.results_publish(actor=organizer, game=game)
    assert "rating/rating.css" in page(client, "results", game.pk)
    from django.contrib.staticfiles import finders

    css = open(finders.find("rating/rating.css"), encoding="utf-8").read()
    assert "@media print" in css and ".no-print" in css
