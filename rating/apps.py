from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

DEMO_BUILDER = "rating.demo.results_links"


class RatingConfig(AppConfig):
    name = "rating"
    verbose_name = _("Rating")

    def ready(self) -> None:
        from core import demo, formats
        from rating.services import PublishedResults

        # The games tell the rating through the registry when their board changed after the
        # results were published; they never import the rating (core.formats).
        formats.keep_results(PublishedResults())
        # After every demo game is made (the apps' builders and the demo season): the results
        # links name them all.
        if DEMO_BUILDER not in demo.DEMO_REPORTS:
            demo.DEMO_REPORTS.append(DEMO_BUILDER)
