"""GoRoD's entry in the game-format registry (``core.formats``, registered in
``GorodConfig.ready``): the night's record and its outcome for the rating, which imports no
game."""

from __future__ import annotations

from core.formats import GameFormat, Outcome
from gorod import rules, services
from gorod.models import GorodGame
from teams.models import Game
from teams.selectors import team_ids_by_name


def record(game: Game) -> dict | None:
    gg = GorodGame.objects.filter(pk=game.pk).first()
    if gg is None or gg.started_at is None:
        return None
    return services.game_record(gg)


def outcome(game: Game) -> Outcome | None:
    """The finished night's standings by team id; None while it is not finished."""
    gg = GorodGame.objects.filter(pk=game.pk).first()
    if gg is None or gg.status != GorodGame.Status.FINISHED or gg.ended_at is None:
        return None
    # As of its end: the record is complete then (and a night may be "in the future" in tests).
    results = rules.compute(rules.parse_record(services.game_record(gg)), gg.ended_at)
    ids = team_ids_by_name(game)
    rows = []
    for t in results.teams:
        if t.team not in ids:
            continue
        disqualified = t.status == "disqualified"
        rows.append((ids[t.team], None if disqualified else t.place, disqualified, {
            "levels_closed": t.levels_closed, "failed_levels": len(t.failed_levels),
            "penalty_s": t.penalty_s, "bonus_s": t.bonus_s, "total_s": t.total_s,
            "status": t.status}))
    return Outcome(results.ended_at or gg.ended_at, results.end_reason or "", tuple(rows))


FORMAT = GameFormat(code=Game.Format.GOROD, record=record, outcome=outcome)
