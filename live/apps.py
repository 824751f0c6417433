from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = _("Live screens")

    def ready(self) -> None:
        from teams.signals import games_changed

        games_changed.connect(_refresh, dispatch_uid="live.refresh_games")


def _refresh(sender, games, **kwargs) -> None:
    from live import registry

    registry.refresh_games(games)
