from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = _("Club games")

    def ready(self) -> None:
        from core import announcements, scheduler

        # Announcements queued by `manage.py announce` where it cannot reach the server's
        # pages go out with the next round of the scheduler (in the server, or the clock).
        scheduler.register("core.announcements", announcements.deliver_pending)
