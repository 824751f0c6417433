"""The game-format registry: where the rating (and anything else above teams) meets the games
without importing them, and where the games tell the rating that their board changed without
importing it.

The apps' layering (``[tool.importlinter]`` in ``pyproject.toml``, checked by
``tests/core/test_import_layers.py``): the games and the rating stand side by side above
``teams``, which stands above ``core``; none of them imports another. So:

- each game app registers its format in its ``AppConfig.ready()``: the game's record as the
  contract writes it (``docs/spec/record-format.md``, team names as they are called now) and
  its outcome (``Outcome``: when and how it ended and each team's line, by team id), both read
  from the game's own engine;
- the rating registers a ``ResultsKeeper`` in its ``ready()``: a game asks it whether results
  of a game are published (a change of the past then needs the organizer's confirmation) and
  tells it, once such a change is applied, that the published results are out of date.

The pure engines' dispatch by a record's ``format`` (``manage.py replay``, which runs without
Django) is ``core.replay``; this registry is for the Django side.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from django.utils.translation import gettext as _


@dataclass(frozen=True)
class Outcome:
    """What a finished game's engine says: when and how it ended, and each team's line in
    standings order ``(team id, place or None, disqualified, figures)``."""

    ended_at: datetime
    finish_reason: str
    rows: tuple[tuple[int, int | None, bool, dict], ...]


@dataclass(frozen=True)
class GameFormat:
    """One game format's entry points, each taking the game (``teams.models.Game``)."""

    code: str
    #: the game's record (the contract's format), or None when the game has none yet
    record: Callable[[Any], dict | None]
    #: the finished game's outcome, or None while it is not finished; a record the engine
    #: cannot compute raises ``core.records.RecordError``
    outcome: Callable[[Any], Outcome | None]
    #: the appeals of verdicts filed during the game, oldest first (formats without any: None)
    disputes: Callable[[Any], list[Dispute]] | None = None


@dataclass(frozen=True)
class Dispute:
    """A team's appeal of one verdict during the game and the host's decision, for the
    results page (King of the Hill's appeals)."""

    question: int
    team: str
    text: str
    status: str  # "open", "accepted" or "rejected"
    status_label: str  # the status in the reader's language
    answer: str  # the host's answer to a rejected one


class ResultsKeeper(Protocol):
    """Who keeps the games' published results (the rating)."""

    def published(self, game_id: int) -> bool: ...

    def outdated(self, *, game_id: int, now: datetime, reason: str) -> None: ...


_formats: dict[str, GameFormat] = {}
_keepers: list[ResultsKeeper] = []


def register(game_format: GameFormat) -> None:
    """A game app's ``ready()`` names its format's entry points (once; a second ready() of the
    same app, as tests may cause, replaces them)."""
    _formats[game_format.code] = game_format


def get(code: str) -> GameFormat | None:
    return _formats.get(code)


def disputes(game) -> list[Dispute]:
    """The appeals filed during ``game`` (a ``teams.Game``), for its results page."""
    game_format = get(game.format)
    if game_format is None or game_format.disputes is None:
        return []
    return game_format.disputes(game)


def keep_results(keeper: ResultsKeeper) -> None:
    """The rating's ``ready()`` says it keeps published results."""
    if not any(type(k) is type(keeper) for k in _keepers):
        _keepers.append(keeper)


def results_published(game_id: int) -> bool:
    """Are results of this game published? A change of its past then needs confirming."""
    return any(keeper.published(game_id) for keeper in _keepers)


def board_changed(*, game_id: int, now: datetime, reason: str) -> None:
    """A game's board changed after its results may have been published (a changed verdict, a
    ruling after the night): the results say they are out of date until published again.
    Called by the game's own service, which has authorized and confirmed the change, inside
    its transaction."""
    for keeper in _keepers:
        keeper.outdated(game_id=game_id, now=now, reason=reason)


def finish_label(reason: str) -> str:
    """How a game ended, in the reader's language: the results page and a game's own screens
    name an ``Outcome.finish_reason`` the same way (an unknown reason is shown as it is)."""
    labels = {
        "king_held": _("the King held the summit"),
        "questions_exhausted": _("the questions ran out"),
        "no_challenger": _("no team could challenge the King"),
        "all_finished": _("every team finished"),
        "organizer": _("the organizer ended the game"),
        "cap": _("the time ran out"),
    }
    return labels.get(reason, reason)
