"""``manage.py backup [--to DIR]``: a snapshot of the database now (core.backups)."""

from pathlib import Path

from django.core.management.base import CommandError

from core.backups import BackupError, snapshot
from core.management.base import ClearCommand


class Command(ClearCommand):
    help = "Write a snapshot of the database (SQLite online backup or pg_dump) and print its path."

    def add_arguments(self, parser):
        parser.add_argument("--to", dest="directory", default=None,
                            help="the folder for the snapshot (default: BACKUP_DIR)")

    def handle(self, *args, directory: str | None, **options):
        try:
            path = snapshot(Path(directory) if directory else None)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(str(path))
