from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

DEMO_BUILDER = "kingofhill.demo.build_demo"


class KingOfHillConfig(AppConfig):
    name = "kingofhill"
    verbose_name = _("King of the Hill")

    def ready(self) -> None:
        from core import demo, formats
        from kingofhill import outcome
        from kingofhill.live import LIVE
        from live import registry
        from teams.models import Game

        registry.register(Game.Format.KINGOFHILL, LIVE)
        # The rating asks the registry for this format's record and outcome (core.formats).
        formats.register(outcome.FORMAT)

        # Registered here rather than in core so core needs no knowledge of this app.
        if DEMO_BUILDER not in demo.DEMO_BUILDERS:
            demo.DEMO_BUILDERS.append(DEMO_BUILDER)
