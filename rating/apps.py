from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

DEMO_BUILDER = "rating.demo.results_links"
NAME_FIELDS = {"first_name", "last_name", "username"}


class RatingConfig(AppConfig):
    name = "rating"
    verbose_name = _("Rating")

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from core import demo, formats
        from rating.selectors import players_cache_forget
        from rating.services import PublishedResults
        from teams.signals import players_changed

        # The games tell the rating through the registry when their board changed after the
        # results were published; they never import the rating (core.formats).
        formats.keep_results(PublishedResults())
        # After every demo game is made (the apps' builders and the demo season): the results
        # links name them all.
        if DEMO_BUILDER not in demo.DEMO_REPORTS:
            demo.DEMO_REPORTS.append(DEMO_BUILDER)
        # The King of the Hill players' table counts linked, named profiles (rule 2.6) and
        # shows their names: a link, a merge or a renamed profile makes the cached tables old.
        def forget(**_kwargs) -> None:
            players_cache_forget()

        def profile_saved(*, update_fields=None, created=False, **_kwargs) -> None:
            # A log-in saves last_login alone: that changes no name.
            if created or (update_fields is not None and not NAME_FIELDS & set(update_fields)):
                return
            players_cache_forget()

        players_changed.connect(forget, weak=False, dispatch_uid="rating.players_changed")
        post_save.connect(profile_saved, sender=get_user_model(), weak=False,
                          dispatch_uid="rating.profile_saved")
