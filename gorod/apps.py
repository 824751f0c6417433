from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

DEMO_BUILDER = "gorod.demo.build_demo"


class GorodConfig(AppConfig):
    name = "gorod"
    verbose_name = _("GoRoD")

    def ready(self) -> None:
        from core import demo

        # Registered here rather than in core so core needs no knowledge of this app.
        if DEMO_BUILDER not in demo.DEMO_BUILDERS:
            demo.DEMO_BUILDERS.append(DEMO_BUILDER)
