"""The King of the Hill players' table per rule 2.6: it ranks the people whose roster entry
was linked to a named profile before the game, one row per person across teams and games, and
lists everybody else who played as not registered, apart and unranked."""

from __future__ import annotations

import doctest
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from core.accounts import services as account_services
from rating import presentation, rules, selectors, services
from rating.rules import players as players_rule
from teams import profiles
from teams.models import Application
from tests.rating.helpers import finalize, koth_game, player

pytestmark = pytest.mark.django_db


def test_the_rule_of_who_counts_is_pure_and_documented():
    assert doctest.testmod(players_rule).failed == 0


def _roster(game, team, *members):
    Application.objects.get(game=game, team=team).members.set(members)


def _season(organizer, *games, title="Царь Горы: весна"):
    season = services.season_create(actor=organizer, title=title, format="kingofhill")
    for game in games:
        services.season_game_add(actor=organizer, season=season, game=game)
    return season


def _final(organizer, game):
    services.results_publish(actor=organizer, game=game)
    finalize(organizer, game)


def _cells(table):
    return [[cell.text for cell in row.cells] for row in table.rows]


def test_the_table_ranks_linked_named_profiles_and_lists_the_others_as_not_registered(
        client, organizer, teams):
    alpha, beta, gamma = teams
    game = koth_game(organizer, teams=teams)
    anna = player(alpha, "Аня", surname="Лисицына", first_name="Анна")
    bob = player(alpha, "Боб")  # never linked
    late = player(beta, "Вова", surname="Волков", first_name="Владимир",
                  linked_at=game.starts_at + timedelta(minutes=1))
    nameless = player(gamma, "Гоша", user=User.objects.create_user("gosha"))
    _roster(game, alpha, anna, bob)
    _roster(game, beta, late)
    _roster(game, gamma, nameless)
    _final(organizer, game)
    season = _season(organizer, game)

    data = selectors.season_data(season)
    ranked = presentation.players_table(season, data)
    assert [row[1:3] for row in _cells(ranked)] == [["Лисицына Анна", "Alpha"]]
    assert ranked.rows[0].url == reverse("rating:player", args=[anna.user_id])
    assert _cells(presentation.unregistered_table(data)) == [
        ["Боб", "Alpha", "1"], ["Вова", "Beta", "1"], ["Гоша", "Gamma", "1"]]
    # The record keys the counted players by their profile's name; its replay is the table.
    replayed = rules.replay(selectors.season_record(season))["players"]
    assert [p["player"] for p in replayed] == ["Лисицына Анна"]
    assert replayed[0]["points"] == ranked.rows[0].cells[3].value

    html = client.get(reverse("rating:season", args=[season.pk])).content.decode()
    ranked_html = html.split('id="players-table"', 1)[1].split("</table>", 1)[0]
    apart_html = html.split('id="players-unregistered"', 1)[1].split("</table>", 1)[0]
    assert "Лисицына Анна" in ranked_html and "Боб" not in ranked_html
    assert "Боб" in apart_html and "Лисицына" not in apart_html
    page = client.get(reverse("rating:season_player", args=[season.pk, bob.pk]))
    assert 'id="not-registered"' in page.content.decode()
    # Linked after the start: the player's page lists the game as not counted, with no points.
    late_page = client.get(reverse("rating:player", args=[late.user_id])).content.decode()
    assert game.title in late_page and 'class="unregistered"' in late_page
    assert selectors.player_seasons(late.user)[0]["standing"] is None


def test_one_person_across_two_teams_is_one_row_and_their_page_lists_every_game(
        client, organizer, teams):
    alpha, beta, _gamma = teams
    first = koth_game(organizer, teams=teams, title="Первый тур")
    second = koth_game(organizer, teams=teams, title="Второй тур", days=1)
    anna = player(alpha, "Аня", surname="Лисицына", first_name="Анна")
    again = player(beta, "Анна Л.", user=anna.user)  # the same person, in another team
    _roster(first, alpha, anna)
    _roster(second, beta, again)
    for game in (first, second):
        _final(organizer, game)
    both = _season(organizer, first, second)
    autumn = _season(organizer, first, title="Осень")

    data = selectors.season_data(both)
    assert [(row["player"], row["games"]) for row in data["players"]] == [(anna.user_id, 2)]
    lines = [g["players"][anna.user_id] for g in data["games"]]
    assert data["players"][0]["points"] == sum(line["points"] for line in lines)
    assert _cells(presentation.players_table(both, data))[0][1:3] == [
        "Лисицына Анна", "Alpha, Beta"]

    page = client.get(reverse("rating:player", args=[anna.user_id]))
    html = page.content.decode()
    assert page.status_code == 200 and "Лисицына Анна" in html
    assert "Первый тур" in html and "Второй тур" in html
    assert f'data-season="{both.pk}"' in html and f'data-season="{autumn.pk}"' in html
    assert str(data["players"][0]["points"]) in html


def test_a_player_page_exists_only_for_a_profile_that_was_on_a_roster(client, teams):
    nobody = User.objects.create_user("nobody", first_name="Ник", last_name="Никто")
    assert client.get(reverse("rating:player", args=[nobody.pk])).status_code == 404


def test_one_profile_on_two_rosters_of_the_same_game_counts_for_neither(organizer, teams):
    alpha, beta, _gamma = teams
    game = koth_game(organizer, teams=teams)
    anna = player(alpha, "Аня", surname="Лисицына", first_name="Анна")
    twin = player(beta, "Анна", user=anna.user)
    _roster(game, alpha, anna)
    _roster(game, beta, twin)
    _final(organizer, game)
    season = _season(organizer, game)
    data = selectors.season_data(season)
    assert data["players"] is None
    assert {row["member"] for row in data["unregistered"]} == {anna.pk, twin.pk}
    assert rules.replay(selectors.season_record(season)).get("players") is None


def test_naming_the_profile_or_merging_a_typo_updates_a_table_already_computed(
        organizer, teams, django_capture_on_commit_callbacks):
    alpha, beta, _gamma = teams
    game = koth_game(organizer, teams=teams)
    nameless = player(alpha, "Аня", user=User.objects.create_user("anna"))
    typo = player(beta, "Вава")  # the captain's typo on the roster
    right = player(beta, "Вова", surname="Волков", first_name="Владимир")
    _roster(game, alpha, nameless)
    _roster(game, beta, typo)
    _final(organizer, game)
    season = _season(organizer, game)
    assert selectors.season_data(season)["players"] is None  # computed and cached

    account_services.profile_update(user=nameless.user, first_name="Анна", last_name="Лисицына",
                                    email="anna@example.org")
    assert [row["player"] for row in selectors.season_data(season)["players"]] == [
        nameless.user_id]
    with django_capture_on_commit_callbacks(execute=True):
        profiles.member_merge(actor=beta.captain, typo=typo, into=right)
    data = selectors.season_data(season)
    assert sorted(row["player"] for row in data["players"]) == sorted(
        [nameless.user_id, right.user_id])
    assert data["unregistered"] == []
