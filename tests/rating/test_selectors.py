"""The season record and table: only final results of the season's rated games count, in game
order; the table is ``rating.rules`` of the record (the ``manage.py replay`` path)."""

from __future__ import annotations

import json

import pytest

from core.replay import replay as core_replay
from rating import rules, selectors, services
from rating.models import GameResult
from teams.models import Game
from tests.rating.helpers import (
    finalize,
    get_teams,
    gorod_game,
    koth_game,
    table_rows,
)

pytestmark = pytest.mark.django_db


def final(organizer, game):
    services.results_publish(actor=organizer, game=game)
    return finalize(organizer, game)


def test_a_new_seasons_scale_is_the_formats_default(organizer):
    koth = services.season_create(actor=organizer, title="KotH", format="kingofhill")
    gorod = services.season_create(actor=organizer, title="G", format="gorod")
    assert koth.scale == list(rules.KOTH_BAND_SCALE.points)
    assert gorod.scale == list(rules.GOROD_SCALE.points)
    assert selectors.season_scale(koth) == {"points": koth.scale, "beyond": "repeat"}
    assert selectors.season_scale(gorod) == gorod.scale


def test_the_record_holds_final_results_in_game_order_and_replays_to_the_table(organizer):
    teams = get_teams(organizer)
    later = gorod_game(organizer, title="second", days=5, teams=teams)
    earlier = gorod_game(organizer, title="first", days=1, teams=teams)
    season = services.season_create(actor=organizer, title="S", format="gorod")
    for game in (later, earlier):
        services.season_game_add(actor=organizer, season=season, game=game)
        final(organizer, game)
    record = selectors.season_record(season)
    assert [g["game"] for g in record["games"]] == ["first", "second"]
    assert record["games"][0]["results"] == ["Alpha", "Beta"]
    assert record["games"][0]["disqualified"] == ["Gamma"]
    table = selectors.season_table(season)
    assert table == rules.replay(json.loads(json.dumps(record))) == core_replay(record)
    assert [(t["team"], t["place"], t["points"], t["games"]) for t in table["teams"]] == [
        ("Alpha", 1, 200, 2), ("Beta", 2, 192, 2), ("Gamma", 3, 0, 2)]


def test_unrated_and_preliminary_games_are_left_out(organizer):
    game = gorod_game(organizer)
    season = services.season_create(actor=organizer, title="S", format="gorod")
    services.season_game_add(actor=organizer, season=season, game=game)
    services.results_publish(actor=organizer, game=game)
    assert selectors.season_record(season)["games"] == []
    finalize(organizer, game)
    assert len(selectors.season_record(season)["games"]) == 1
    Game.objects.filter(pk=game.pk).update(rated=False)
    assert selectors.season_record(season)["games"] == []


def test_the_organizer_and_votes_and_deductions_go_into_the_record(organizer):
    game = koth_game(organizer)
    omega = get_teams(organizer, ["Omega"])[0]
    alpha, beta, _gamma = get_teams(organizer)
    services.results_publish(actor=organizer, game=game)
    services.organizer_set(actor=organizer, game=game, team=omega)
    services.vote_cast(actor=organizer, game=game, team=alpha, value=100)
    services.results_table_set(actor=organizer, game=game, rows=table_rows(
        game, Beta={"deduction": 4, "reason": "late"}))
    finalize(organizer, game)
    season = services.season_create(actor=organizer, title="S", format="kingofhill")
    services.season_game_add(actor=organizer, season=season, game=game)
    entry = selectors.season_record(season)["games"][0]
    assert entry["organizer"] == {"team": "Omega", "votes": {"Alpha": 100}}
    assert entry["deductions"] == {"Beta": 4}
    assert GameResult.objects.get(game=game).is_final
