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
        # After the games' demo builders (this app comes after them in INSTALLED_APPS): the
        # results links name the games they made.
        if DEMO_BUILDER not in demo.DEMO_BUILDERS:
            demo.DEMO_BUILDERS.append(DEMO_BUILDER)
