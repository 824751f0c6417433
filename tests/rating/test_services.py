"""Results publication from the live games and what it does to the season table and prizes."""

from __future__ import annotations

import pytest

from kingofhill.models import KothGame
from rating import selectors, services
from rating.models import GameResult, OrganizerVote, ResultRow
from teams.models import Benefit, Game, Notice
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
def outsider():
    return make_user("outsider")


def rows(game) -> list[tuple[str, int | None, bool]]:
    result = GameResult.objects.get(game=game)
    return [(r.team.name, r.place, r.disqualified) for r in selectors.ordered_rows(result)]


def table(season) -> list[tuple[str, int, int]]:
    return [(t["team"], t["place"], t["points"]) for t in selectors.season_table(season)["teams"]]


def season_of(organizer, *games):
    season = services.season_create(actor=organizer, title="Сезон", format=games[0].format)
    for game in games:
        services.season_game_add(actor=organizer, season=season, game=game)
    return season


def test_a_finished_king_of_the_hill_game_publishes_the_boards_standings(organizer):
    game = koth_game(organizer)
    board = KothGame.objects.get(pk=game.pk).board
    result = services.results_publish(actor=organizer, game=game)
    assert result.status == GameResult.Status.PRELIMINARY and result.published_by == organizer
    assert rows(game) == [(t["team"], t["place"], False) for t in board["teams"]]
    assert rows(game)[0] == ("Alpha", 1, False)


def test_a_finished_gorod_night_publishes_places_and_the_disqualified_team(organizer):
    game = gorod_game(organizer)
    services.results_publish(actor=organizer, game=game)
    assert rows(game) == [("Alpha", 1, False), ("Beta", 2, False), ("Gamma", None, True)]


@pytest.mark.parametrize("make", [koth_game, gorod_game])
def test_a_game_that_is_not_finished_is_refused(organizer, make):
    game = make(organizer, finish=False)
    with pytest.raises(services.DomainError, match="not finished"):
        services.results_publish(actor=organizer, game=game)
    assert not GameResult.objects.exists()


def test_only_final_results_enter_the_season_and_reopening_takes_them_out(organizer):
    game = gorod_game(organizer)
    season = season_of(organizer, game)
    services.results_publish(actor=organizer, game=game)
    assert table(season) == []
    finalize(organizer, game)
    assert table(season) == [("Alpha", 1, 100), ("Beta", 2, 96), ("Gamma", 3, 0)]
    services.results_reopen(actor=organizer, game=game, reason="protest upheld")
    assert table(season) == []
    result = GameResult.objects.get(game=game)
    assert result.status == "preliminary" and result.reopen_reason == "protest upheld"


def test_final_results_grant_the_prizes_and_reopening_withdraws_them(organizer):
    game = koth_game(organizer)
    services.results_publish(actor=organizer, game=game)
    assert not Benefit.objects.exists()
    finalize(organizer, game)
    granted = {(b.team.name, b.place, b.percent) for b in Benefit.objects.filter(game=game)}
    places = {name: place for name, place, _dq in rows(game)}
    assert ("Alpha", 1, 100) in granted
    assert granted == {(n, p, {1: 100, 2: 50, 3: 25}[p]) for n, p in places.items() if p <= 3}
    assert Notice.objects.filter(game=game, kind=Notice.Kind.BENEFIT).count() == len(granted)
    services.results_reopen(actor=organizer, game=game, reason="protest")
    assert not Benefit.objects.filter(game=game).exists()


def test_a_disqualified_team_gets_no_prize_no_place_and_no_points(organizer):
    game = gorod_game(organizer)
    season = season_of(organizer, game)
    services.results_publish(actor=organizer, game=game)
    finalize(organizer, game)
    assert not Benefit.objects.filter(team__name="Gamma").exists()
    gamma = next(t for t in selectors.season_table(season)["teams"] if t["team"] == "Gamma")
    assert gamma["points"] == 0 and gamma["places"] == {} and gamma["games"] == 1


def test_preliminary_rows_are_editable_as_one_table_and_final_ones_are_not(organizer):
    game = gorod_game(organizer)
    services.results_publish(actor=organizer, game=game)
    services.results_table_set(actor=organizer, game=game, rows=table_rows(
        game, Alpha={"disqualified": True, "reason": "rules"},
        Beta={"place": 1, "deduction": 10, "reason": "swap"},
        Gamma={"disqualified": False, "place": 2, "reason": "ruling taken back"}))
    assert rows(game) == [("Beta", 1, False), ("Gamma", 2, False), ("Alpha", None, True)]
    with pytest.raises(services.DomainError, match="needs a place"):
        services.results_table_set(actor=organizer, game=game, rows=table_rows(
            game, Gamma={"place": None, "reason": "x"}))
    with pytest.raises(services.DomainError):
        services.results_table_set(actor=organizer, game=game, rows=table_rows(
            game, Gamma={"deduction": -1, "reason": "x"}))
    season = season_of(organizer, game)
    finalize(organizer, game)
    assert table(season) == [("Gamma", 1, 96), ("Beta", 2, 90), ("Alpha", 3, 0)]
    with pytest.raises(services.DomainError, match="final"):
        services.results_table_set(actor=organizer, game=game, rows=table_rows(
            game, Beta={"place": 3, "reason": "x"}))
    with pytest.raises(services.DomainError, match="final"):
        services.results_publish(actor=organizer, game=game)


def test_republishing_refreshes_places_and_keeps_deductions(organizer):
    game = gorod_game(organizer)
    beta = get_teams(organizer)[1]
    services.results_publish(actor=organizer, game=game)
    services.results_table_set(actor=organizer, game=game, rows=table_rows(
        game, Beta={"place": 1, "deduction": 4, "reason": "x"}, Alpha={"place": 2, "reason": "x"}))
    assert ResultRow.objects.get(team=beta).place == 1
    services.results_publish(actor=organizer, game=game)
    assert ResultRow.objects.get(team=beta).place == 2
    assert ResultRow.objects.get(team=beta).deduction == 4


def test_seasons_take_rated_games_of_their_format_only(organizer):
    game = gorod_game(organizer)
    koth_season = services.season_create(actor=organizer, title="K", format="kingofhill")
    with pytest.raises(services.DomainError, match="format"):
        services.season_game_add(actor=organizer, season=koth_season, game=game)
    Game.objects.filter(pk=game.pk).update(rated=False)
    game.refresh_from_db()
    season = services.season_create(actor=organizer, title="G", format="gorod")
    with pytest.raises(services.DomainError, match="rated"):
        services.season_game_add(actor=organizer, season=season, game=game)
    with pytest.raises(services.DomainError, match="scale"):
        services.season_create(actor=organizer, title="X", format="gorod", scale=[10, 20])


def test_non_organizers_are_refused_and_nothing_changes(organizer, outsider):
    game = gorod_game(organizer)
    alpha = get_teams(organizer)[0]
    with pytest.raises(services.NotAllowed):
        services.results_publish(actor=outsider, game=game)
    assert not GameResult.objects.exists()
    services.results_publish(actor=organizer, game=game)
    calls = [
        lambda: services.results_finalize(actor=outsider, game=game),
        lambda: services.results_table_set(actor=outsider, game=game, rows=[]),
        lambda: services.organizer_set(actor=outsider, game=game, team=None),
        lambda: services.vote_cast(actor=outsider, game=game, team=alpha, value=0),
        lambda: services.season_create(actor=outsider, title="S", format="gorod"),
    ]
    for call in calls:
        with pytest.raises(services.NotAllowed):
            call()
    finalize(organizer, game)
    with pytest.raises(services.NotAllowed):
        services.results_reopen(actor=outsider, game=game, reason="x")
    assert GameResult.objects.get().is_final and ResultRow.objects.get(team=alpha).place == 1
    assert not OrganizerVote.objects.exists()


def test_reopening_needs_a_reason_and_final_results(organizer):
    game = gorod_game(organizer)
    services.results_publish(actor=organizer, game=game)
    with pytest.raises(services.DomainError, match="Only final"):
        services.results_reopen(actor=organizer, game=game, reason="x")
    finalize(organizer, game)
    with pytest.raises(services.DomainError, match="why"):
        services.results_reopen(actor=organizer, game=game, reason="  ")
    with pytest.raises(services.DomainError, match="not published"):
        services.results_finalize(actor=organizer, game=gorod_game(organizer, title="other"))


def test_the_reason_results_are_out_of_date_is_kept_whole_however_long(organizer):
    game = gorod_game(organizer)
    services.results_publish(actor=organizer, game=game)
    reason = "A ruling was corrected: " + "очень подробная причина " * 120  # ~2900 characters
    services.results_mark_outdated(game=game, reason=reason)
    assert GameResult.objects.get(game=game).outdated_reason == reason
