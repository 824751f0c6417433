from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = _("Club games")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import post_migrate

        from core import announcements, backups, rights, roles, scheduler

        # The role groups are data the code relies on, like content types: a flush (a test's
        # end, `manage.py flush`) empties the table and emits post_migrate, which puts them
        # back, as migrate first made them (migration 0001_roles).
        post_migrate.connect(roles.ensure_groups, sender=self, dispatch_uid="core.roles.groups")

        # A log-out closes that session's staff sockets (core.rights).
        user_logged_out.connect(rights.on_logged_out, dispatch_uid="core.rights.logged_out")

        # Announcements queued by `manage.py announce` where it cannot reach the server's
        # pages go out with the next round of the scheduler (in the server, or the clock).
        scheduler.register("core.announcements", announcements.deliver_pending)
        # Snapshots of the running night (hall mode: every minute; BACKUP_INTERVAL_S).
        scheduler.register("core.backups", backups.scheduled)
