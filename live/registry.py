"""The formats' adapters by ``teams.Game.format``, for changes made outside a game (a team
renamed refreshes the screens of its games)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from live.write import LiveGame

_BY_FORMAT: dict[str, LiveGame] = {}
_FORMAT_OF: dict[str, str] = {}  # adapter name -> teams.Game.format


def format_of(name: str) -> str | None:
    """The ``teams.Game.format`` of the adapter named ``name`` (None: not registered)."""
    return _FORMAT_OF.get(name)


def register(game_format: str, app: LiveGame) -> None:
    """Called by each game app's ``ready()``: its adapter for ``teams.Game.format``."""
    _BY_FORMAT[game_format] = app
    _FORMAT_OF[app.name] = game_format


def refresh_games(games) -> int:
    """Refresh the live screens of these ``teams.Game`` rows (e.g. a team was renamed); games
    without a live game of their format are skipped. Returns how many were refreshed."""
    count = 0
    for game in games:
        app = _BY_FORMAT.get(game.format)
        if app is None or not app.model.objects.filter(pk=game.pk).exists():
            continue
        app.refresh(game=game.pk)
        count += 1
    return count


def publish_unpublished() -> int:
    """Publish every live game that has no stored state yet (one created before the live core
    stored states): run after ``migrate``, so that reads never have to. Returns how many."""
    from live.models import LiveStream

    count = 0
    for app in _BY_FORMAT.values():
        missing = app.model.objects.exclude(
            pk__in=LiveStream.objects.values("game_id")).values_list("pk", flat=True)
        for game_id in list(missing):
            app.refresh(game=game_id)
            count += 1
    return count
