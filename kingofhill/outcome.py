"""King of the Hill's entry in the game-format registry (``core.formats``, registered in
``KingOfHillConfig.ready``): the game's record and its outcome for the rating, which imports
no game."""

from __future__ import annotations

from django.utils import timezone

from core.formats import Dispute, GameFormat, Outcome
from kingofhill import rules, selectors, services
from kingofhill.models import KothGame
from teams.models import Game
from teams.selectors import team_ids_by_name


def record(game: Game) -> dict | None:
    koth = KothGame.objects.filter(pk=game.pk).first()
    return None if koth is None else services.game_record(koth)


def outcome(game: Game) -> Outcome | None:
    """The finished game's standings by team id; None while it is not finished."""
    koth = KothGame.objects.filter(pk=game.pk).first()
    if koth is None or koth.status != KothGame.Status.FINISHED:
        return None
    board = rules.compute(rules.parse_record(services.game_record(koth)))
    if not board.finished:
        return None
    ids = team_ids_by_name(game)
    rows = tuple((ids[t.team], t.place, False, {"step": t.step, "points": t.points})
                 for t in board.teams if t.team in ids)
    return Outcome(koth.finished_at or timezone.now(), board.finish_reason or "", rows)


def disputes(game: Game) -> list[Dispute]:
    """The teams' appeals of verdicts and the host's decisions (``kingofhill.appeals``)."""
    return [Dispute(question=a.question.number, team=a.application.team.name, text=a.text,
                    status=a.status, status_label=str(a.get_status_display()), answer=a.answer)
            for a in selectors.game_appeals(game.pk)]


FORMAT = GameFormat(code=Game.Format.KINGOFHILL, record=record, outcome=outcome,
                    disputes=disputes)
