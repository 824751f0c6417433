from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

# The registration demo (a game open for applications) and a running night game.
DEMO_BUILDERS = ("gorod.demo.build_demo", "gorod.demo.build_live_demo")


class GorodConfig(AppConfig):
    name = "gorod"
    verbose_name = _("GoRoD")

    def ready(self) -> None:
        from core import demo, formats, scheduler
        from gorod import clock, outcome, signals
        from gorod.live import LIVE
        from live import registry
        from teams.models import Game

        scheduler.register("gorod.clock", clock.run_due)
        registry.register(Game.Format.GOROD, LIVE)
        # The rating asks the registry for this format's record and outcome (core.formats).
        formats.register(outcome.FORMAT)
        signals.connect()

        # Registered here rather than in core so core needs no knowledge of this app.
        for builder in DEMO_BUILDERS:
            if builder not in demo.DEMO_BUILDERS:
                demo.DEMO_BUILDERS.append(builder)
