"""The results' lifecycle and who may do what: places from standings, the one checked table
with reasons, early finals, captains' votes, the organizing team, notices, renames, the
players' table, exports and the cached season table."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from rating import presentation, rules, selectors, services
from rating.models import GameResult, ResultChange, ResultRow, Season
from teams import services as teams_services
from teams.models import Application, Member, Notice
from tests.rating.helpers import (
    captained_teams,
    ended,
    enter,
    finalize,
    gorod_game,
    koth_game,
    make_game,
    make_user,
    player,
    table_rows,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def omega():
    return captained_teams(["Omega"])[0]



def placed(game):
    return [(r.team.name, r.place, r.disqualified)
            for r in selectors.ordered_rows(GameResult.objects.get(game=game))]


def test_a_final_inside_the_protest_window_needs_an_explicit_confirmation_and_a_reason(
        game, organizer):
    soon = ended(game) + timedelta(hours=2)
    with pytest.raises(services.DomainError, match="confirm an early final"):
        services.results_finalize(actor=organizer, game=game, now=soon)
    with pytest.raises(services.DomainError, match="Say why"):
        services.results_finalize(actor=organizer, game=game, now=soon, early=True, reason=" ")
    assert not GameResult.objects.get(game=game).is_final
    result = services.results_finalize(actor=organizer, game=game, now=soon, early=True,
                                       reason="every captain agreed")
    assert result.is_final and result.early_final_reason == "every captain agreed"
    assert ResultChange.objects.filter(action="early_final", reason="every captain agreed").exists()


def test_after_the_window_the_final_needs_no_confirmation(game, organizer):
    result = services.results_finalize(actor=organizer, game=game,
                                       now=ended(game) + timedelta(hours=12, minutes=1))
    assert result.is_final and result.early_final_reason == ""
    assert ResultChange.objects.filter(action="finalize").count() == 1


def test_disqualifying_a_team_closes_up_the_places_and_logs_every_change_with_its_reason(
        game, organizer):
    assert placed(game) == [("Alpha", 1, False), ("Beta", 2, False), ("Gamma", None, True)]
    services.results_table_set(actor=organizer, game=game, rows=table_rows(
        game, Alpha={"disqualified": True, "reason": "used a car"},
        Gamma={"disqualified": False, "place": 3, "reason": "ruling taken back"}))
    assert placed(game) == [("Beta", 1, False), ("Gamma", 2, False), ("Alpha", None, True)]
    log = {c.team.name: (c.detail, c.reason) for c in ResultChange.objects.filter(action="edit")}
    assert log["Alpha"] == ({"place": [1, None], "disqualified": [False, True]}, "used a car")
    assert log["Gamma"] == ({"place": [None, 2], "disqualified": [True, False]},
                            "ruling taken back")
    # Beta moved only because of the others: the log carries their reasons.
    assert log["Beta"][0] == {"place": [2, 1]} and "used a car" in log["Beta"][1]


def test_the_table_is_checked_as_a_whole_and_a_refusal_changes_nothing(game, organizer):
    before = placed(game)
    cases = [
        (table_rows(game, Beta={"place": 1, "reason": "x"}), "same place"),
        (table_rows(game, Beta={"deduction": 4}), "Say why the row of Beta"),
        (table_rows(game)[:2], "every team"),
        (table_rows(game) + table_rows(game)[:1], "once"),
    ]
    for rows, message in cases:
        with pytest.raises(services.DomainError, match=message):
            services.results_table_set(actor=organizer, game=game, rows=rows)
    assert placed(game) == before and not ResultChange.objects.filter(action="edit").exists()


def test_captains_vote_and_the_organizing_teams_k_counts(organizer, teams, omega):
    game = gorod_game(organizer, teams=teams)
    alpha, beta, gamma = teams
    services.organizer_set(actor=organizer, game=game, team=omega)
    services.results_publish(actor=organizer, game=game)
    at = ended(game) + timedelta(hours=1)
    services.vote_cast(actor=alpha.captain, game=game, team=alpha, value=50, now=at)
    services.vote_cast(actor=alpha.captain, game=game, team=alpha, value=100, now=at)  # again
    services.vote_cast(actor=beta.captain, game=game, team=beta, value=50, now=at)
    with pytest.raises(services.DomainError, match="one of"):
        services.vote_cast(actor=gamma.captain, game=game, team=gamma, value=60, now=at)
    season = Season.objects.create(title="S", format="gorod", scale=list(rules.GOROD_SCALE.points))
    season.games.add(game)
    finalize(organizer, game)
    # 3 teams played (the disqualified one too): R4 = 88, Q = 75 → 88 + 12 · 0.75 = 97
    data = selectors.season_data(season)
    assert {r["team"]: r["points"] for r in data["teams"]}[omega.pk] == 97
    votes = GameResult.objects.get(game=game).votes.order_by("team_id")
    assert [(v.team_id, v.value, v.voted_by_id) for v in votes] == [
        (alpha.pk, 100, alpha.captain_id), (beta.pk, 50, beta.captain_id)]


def test_a_vote_by_a_non_captain_after_72_hours_or_by_the_organizing_team_is_refused(
        organizer, teams, omega):
    game = gorod_game(organizer, teams=teams)
    alpha = teams[0]
    services.results_publish(actor=organizer, game=game)
    at = ended(game) + timedelta(hours=1)
    with pytest.raises(services.DomainError, match="no organizing team"):
        services.vote_cast(actor=alpha.captain, game=game, team=alpha, value=100, now=at)
    services.organizer_set(actor=organizer, game=game, team=omega)
    for actor in (make_user("player"), organizer, teams[1].captain):
        with pytest.raises(services.NotAllowed):
            services.vote_cast(actor=actor, game=game, team=alpha, value=100, now=at)
    with pytest.raises(services.DomainError, match="Only a team that played"):
        services.vote_cast(actor=omega.captain, game=game, team=omega, value=100, now=at)
    with pytest.raises(services.DomainError, match="72 hours"):
        services.vote_cast(actor=alpha.captain, game=game, team=alpha, value=100,
                           now=ended(game) + timedelta(hours=72, minutes=1))
    finalize(organizer, game)
    with pytest.raises(services.DomainError, match="final"):
        services.vote_cast(actor=alpha.captain, game=game, team=alpha, value=100, now=at)
    assert not GameResult.objects.get(game=game).votes.exists()


def test_the_organizing_team_cannot_apply_to_the_game_it_prepares(organizer, teams, omega):
    game = make_game("gorod", organizer, title="future", days=60)
    services.organizer_set(actor=organizer, game=game, team=omega)
    member = Member.objects.create(team=omega, nickname="o", nickname_key="o")
    with pytest.raises(teams_services.TeamsError, match="organizes this game"):
        teams_services.application_submit(game=game, team=omega, members=[member],
                                          now=game.starts_at - timedelta(days=5))
    assert not Application.objects.filter(team=omega).exists()
    # And a team that applied cannot be named the organizing team.
    enter(game, [teams[0]])
    with pytest.raises(services.DomainError, match="applied"):
        services.organizer_set(actor=organizer, game=game, team=teams[0])


def test_captains_are_told_when_results_appear_a_protest_is_answered_and_results_are_final(
        organizer, teams, omega):
    game = gorod_game(organizer, teams=teams)
    services.organizer_set(actor=organizer, game=game, team=omega)
    services.results_publish(actor=organizer, game=game)
    services.results_publish(actor=organizer, game=game)  # a refresh tells nobody again
    beta = teams[1]
    kinds = lambda team: sorted(Notice.objects.filter(team=team, game=game)  # noqa: E731
                                .values_list("kind", flat=True))
    assert all(kinds(t) == ["results_preliminary"] for t in (*teams, omega))
    protest = services.protest_file(actor=beta.captain, game=game, team=beta, text="late",
                                    now=ended(game) + timedelta(hours=1))
    services.protest_answer(actor=organizer, protest=protest, upheld=False, answer="no")
    assert kinds(beta) == ["protest_answered", "results_preliminary"]
    assert kinds(teams[0]) == ["results_preliminary"]
    finalize(organizer, game)
    assert "results_final" in kinds(beta) and "results_final" in kinds(omega)


def test_renaming_a_team_after_its_game_keeps_every_results_row(organizer, teams):
    koth = koth_game(organizer, teams=teams)
    gorod = gorod_game(organizer, teams=teams, title="night")
    services.results_publish(actor=organizer, game=gorod)
    teams_services.team_rename(team=teams[0], name="Alpha Prime")
    teams_services.team_rename(team=teams[1], name="Бета")
    services.results_publish(actor=organizer, game=koth)  # published after the rename
    services.results_publish(actor=organizer, game=gorod)  # refreshed after it
    for game in (koth, gorod):
        assert ResultRow.objects.filter(result__game=game).count() == 3
        assert [name for name, _p, _dq in placed(game)][:2] == ["Alpha Prime", "Бета"]
        result = selectors.game_result(game)
        texts = [row.cells[1].text for row in presentation.results_table(result, []).rows]
        assert texts[:2] == ["Alpha Prime", "Бета"]


def test_the_players_table_is_the_rules_modules_with_the_rosters(client, organizer, teams):
    game = koth_game(organizer, teams=teams)
    for team in teams:
        members = [player(team, f"{team.name}-{n}", surname=f"{team.name}-{n}", first_name="Ann")
                   for n in (1, 2)]
        Application.objects.get(game=game, team=team).members.set(members)
    services.results_publish(actor=organizer, game=game)
    finalize(organizer, game)
    season = services.season_create(actor=organizer, title="KotH", format="kingofhill")
    services.season_game_add(actor=organizer, season=season, game=game)
    expected = rules.replay(selectors.season_record(season))["players"]
    shown = presentation.players_table(season, selectors.season_data(season))
    assert [(r.cells[0].value, r.cells[1].text, r.cells[3].value) for r in shown.rows] == [
        (p["place"], p["player"], p["points"]) for p in expected]
    # Alpha won (115) and answered every question right: its players have bonuses on top.
    alpha = next(p for p in expected if p["player"] == "Alpha-1 Ann")
    assert alpha["points"] > 115
    html = client.get(reverse("rating:season", args=[season.pk])).content.decode()
    assert "Alpha-1 Ann" in html and 'id="players-table"' in html
    exported = client.get(reverse("rating:season_export", args=[season.pk, "players", "csv"]))
    assert list(csv.reader(io.StringIO(exported.content.decode("utf-8-sig")))) == [
        shown.columns, *[[c.text for c in r.cells] for r in shown.rows]]
    sheet = load_workbook(io.BytesIO(client.get(reverse(
        "rating:season_export", args=[season.pk, "players", "xlsx"])).content)).active
    assert [list(r) for r in sheet.iter_rows(min_row=2, values_only=True)] == [
        [c.value for c in r.cells] for r in shown.rows]
    member = Member.objects.get(nickname="Alpha-1")
    page = client.get(reverse("rating:season_player", args=[season.pk, member.pk]))
    assert page.status_code == 200 and str(alpha["points"]) in page.content.decode()


def _page_cells(html: str, table_id: str) -> list[list[str]]:
    import re
    from html import unescape

    body = html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    return [[unescape(re.sub(r"<[^>]+>", "", cell)).strip()
             for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)] for row in rows]


def test_exports_parse_back_equal_to_the_page_whatever_the_accept_header(
        client, organizer, teams):
    first = gorod_game(organizer, teams=teams)
    second = gorod_game(organizer, teams=teams, title="second", days=2, disqualify=False)
    season = services.season_create(actor=organizer, title="Зима", format="gorod")
    for game in (first, second):
        services.season_game_add(actor=organizer, season=season, game=game)
        services.results_publish(actor=organizer, game=game)
        finalize(organizer, game)
    pages = [(reverse("rating:results", args=[first.pk]), "results",
              reverse("rating:results_export", args=[first.pk, "csv"]),
              reverse("rating:results_export", args=[first.pk, "xlsx"])),
             (reverse("rating:season", args=[season.pk]), "season-table",
              reverse("rating:season_export", args=[season.pk, "table", "csv"]),
              reverse("rating:season_export", args=[season.pk, "table", "xlsx"]))]
    for page_url, table_id, csv_url, xlsx_url in pages:
        shown = _page_cells(client.get(page_url).content.decode(), table_id)
        response = client.get(csv_url, HTTP_ACCEPT="application/json")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
        parsed = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
        assert parsed == shown
        response = client.get(xlsx_url, HTTP_ACCEPT="text/html")
        assert response["Content-Type"] == (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
        sheet = load_workbook(io.BytesIO(response.content)).active
        values = [list(row) for row in sheet.iter_rows(values_only=True)]
        assert [["" if v is None else str(v) for v in row] for row in values] == shown
        assert all(isinstance(v, int) for v in values[1][2:4] if v is not None)
    # GoRoD times are the page's readable texts in the XLSX too (core.exports.duration_text).
    sheet = load_workbook(io.BytesIO(client.get(pages[0][3]).content)).active
    results_page = _page_cells(client.get(pages[0][0]).content.decode(), "results")
    assert results_page[0][6] == "Total time" and results_page[1][6] == "4:00"
    assert sheet.cell(2, 7).data_type == "s" and sheet.cell(2, 7).value == "4:00"
    assert client.get(reverse("rating:season_export", args=[season.pk, "players", "csv"])
                      ).status_code == 404


def test_the_season_table_is_computed_once_and_recomputed_when_a_result_changes(
        organizer, teams, django_assert_max_num_queries):
    game = gorod_game(organizer, teams=teams)
    season = services.season_create(actor=organizer, title="S", format="gorod")
    services.season_game_add(actor=organizer, season=season, game=game)
    services.results_publish(actor=organizer, game=game)
    finalize(organizer, game)
    first = selectors.season_data(season)
    with django_assert_max_num_queries(1):  # the stamp only
        assert selectors.season_data(season) == first
    services.results_reopen(actor=organizer, game=game, reason="protest upheld")
    assert selectors.season_data(season)["teams"] == []


def test_the_organizers_desk_shows_the_final_due_and_overdue_protests(
        client, organizer, teams):
    game = gorod_game(organizer, teams=teams)
    services.results_publish(actor=organizer, game=game)
    protest = services.protest_file(actor=teams[1].captain, game=game, team=teams[1], text="x",
                                    now=ended(game) + timedelta(hours=1))
    desk = selectors.organizer_desk(ended(game) + timedelta(hours=80))
    assert [r.game_id for r in desk["pending"]] == [game.pk] and desk["pending"][0].final_overdue
    assert [p.pk for p in desk["protests"]] == [protest.pk] and desk["protests"][0].overdue
    assert not selectors.organizer_desk(ended(game) + timedelta(hours=2))["protests"][0].overdue
    client.force_login(organizer)
    html = client.get(reverse("rating:seasons")).content.decode()
    assert 'id="desk"' in html and game.title in html and "answer overdue" not in html
    client.force_login(teams[1].captain)
    assert 'id="desk"' not in client.get(reverse("rating:seasons")).content.decode()


def test_a_teams_phone_shows_the_results_notices_of_its_game(client, organizer, teams):
    game = gorod_game(organizer, teams=teams)
    services.results_publish(actor=organizer, game=game)
    token = Application.objects.get(game=game, team=teams[1]).join_token
    client.post(reverse("teams:join_token", args=[token]))  # the link asks first
    html = client.get(reverse("teams:playing", args=[game.pk])).content.decode()
    assert "notice-results_preliminary" in html and game.title in html
