from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = _("Live screens")

    def ready(self) -> None:
        from teams.signals import games_changed

        games_changed.connect(_refresh, dispatch_uid="live.refresh_games")
        # A game never published gets its states here, once, rather than from a GET.
        post_migrate.connect(_publish_unpublished, sender=self,
                             dispatch_uid="live.publish_unpublished")


def _refresh(sender, games, **kwargs) -> None:
    from live import registry

    registry.refresh_games(games)


def _publish_unpublished(sender, **kwargs) -> None:
    from live import registry

    registry.publish_unpublished()
