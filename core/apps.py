from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = _("Club games")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from core import announcements, backups, rights, scheduler

        # A log-out closes that session's staff sockets (core.rights).
        user_logged_out.connect(rights.on_logged_out, dispatch_uid="core.rights.logged_out")

        # Announcements queued by `manage.py announce` where it cannot reach the server's
        # pages go out with the next round of the scheduler (in the server, or the clock).
        scheduler.register("core.announcements", announcements.deliver_pending)
        # Snapshots of the running night (hall mode: every minute; BACKUP_INTERVAL_S).
        scheduler.register("core.backups", backups.scheduled)
