"""``manage.py restore FILE``: put a snapshot back (the server stopped) and migrate it."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from core.backups import BackupError, restore
from core.management.base import ClearCommand


class Command(ClearCommand):
    help = ("Replace the database with a snapshot made by `manage.py backup` (stop the server "
            "first); the replaced database is kept in BACKUP_DIR.")

    def add_arguments(self, parser):
        parser.add_argument("file", help="the snapshot (.sqlite3 or .pgdump)")

    def handle(self, *args, file: str, **options):
        try:
            aside = restore(Path(file))
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        name = settings.DATABASES["default"]["NAME"]
        self.stdout.write(f"restored {file} into {name}")
        if aside:
            self.stdout.write(f"the replaced database is kept at {aside}")
