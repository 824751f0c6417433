"""Reads: a game's published results, and a season's record and table.

The season table is never stored: ``season_record`` builds the season record
(``docs/spec/record-format.md``, format ``season``) from the FINAL results of the season's rated
games, and ``season_table`` replays it with ``rating.rules`` — the code path of
``manage.py replay`` — so a downloaded record replays to exactly the table the page shows.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Prefetch

from rating import rules
from rating.models import (
    PROTEST_WINDOW_HOURS,
    GameResult,
    OrganizerVote,
    Protest,
    ResultRow,
    Season,
)
from teams.models import Game


def game_result(game: Game) -> GameResult | None:
    return (GameResult.objects.select_related("game", "organizing_team", "published_by")
            .prefetch_related(Prefetch("rows", ResultRow.objects.select_related("team")),
                              Prefetch("votes", OrganizerVote.objects.select_related("team")),
                              Prefetch("protests", Protest.objects.select_related("team")))
            .filter(game=game).first())


def ordered_rows(result: GameResult) -> list[ResultRow]:
    """Placed teams by place (then name), disqualified ones last."""
    return sorted(result.rows.all(), key=lambda r: (r.disqualified, r.place or 0, r.team.name))


def game_ended_at(result: GameResult) -> datetime:
    """When the game ended: the live engine's end (King of the Hill ``finished_at``, GoRoD
    ``ended_at``, when every team still playing is stopped), else the results' publication."""
    game = result.game
    ended = None
    if game.format == Game.Format.KINGOFHILL:
        from kingofhill.models import KothGame

        ended = KothGame.objects.filter(pk=game.pk).values_list("finished_at", flat=True).first()
    elif game.format == Game.Format.GOROD:
        from gorod.models import GorodGame

        ended = GorodGame.objects.filter(pk=game.pk).values_list("ended_at", flat=True).first()
    return ended or result.published_at


def protest_deadline(result: GameResult) -> datetime:
    """The last moment a protest may be filed: 12 h after the game's end."""
    return game_ended_at(result) + timedelta(hours=PROTEST_WINDOW_HOURS)


def protests(result: GameResult) -> list[Protest]:
    """The game's protests, oldest first, with their teams and answers."""
    return list(result.protests.select_related("team", "created_by", "answered_by")
                .order_by("created_at", "id"))


def season_scale(season: Season) -> list[int] | dict:
    """The season's scale as the record carries it. King of the Hill's band scale repeats its
    last value ("20 and below"), so its seasons say so; a GoRoD list extends by decrement."""
    points = list(season.scale) or list(
        (rules.KOTH_BAND_SCALE if season.format == Game.Format.KINGOFHILL
         else rules.GOROD_SCALE).points)
    if season.format == Game.Format.KINGOFHILL:
        return {"points": points, "beyond": "repeat"}
    return points


def season_results(season: Season) -> list[GameResult]:
    """The final results of the season's rated games, in game order (start time, then id)."""
    return list(
        GameResult.objects.filter(game__in=season.games.filter(rated=True, format=season.format),
                                  status=GameResult.Status.FINAL)
        .select_related("game", "organizing_team")
        .prefetch_related(Prefetch("rows", ResultRow.objects.select_related("team")),
                          Prefetch("votes", OrganizerVote.objects.select_related("team")))
        .order_by("game__starts_at", "game_id"))


def _game_entry(result: GameResult) -> dict:
    rows = ordered_rows(result)
    entry: dict = {
        "game": result.game.title,
        "results": [r.team.name for r in rows if not r.disqualified],
    }
    disqualified = [r.team.name for r in rows if r.disqualified]
    if disqualified:
        entry["disqualified"] = disqualified
    deductions = {r.team.name: r.deduction for r in rows if r.deduction}
    if deductions:
        entry["deductions"] = deductions
    if result.organizing_team is not None:
        played = {r.team_id for r in rows}
        entry["organizer"] = {
            "team": result.organizing_team.name,
            "votes": {v.team.name: v.value for v in result.votes.all() if v.team_id in played},
        }
    return entry


def season_record(season: Season) -> dict:
    """The season record: scale and, in game order, the final results of its rated games."""
    return {
        "format": "season",
        "season": season.title,
        "scale": season_scale(season),
        "games": [_game_entry(result) for result in season_results(season)],
    }


def season_table(season: Season) -> dict:
    """The season table (``rating.rules.replay`` of ``season_record``): ``teams`` rows
    ``team, place, points, games, places`` in table order, equal teams sharing a place."""
    return rules.replay(season_record(season))
