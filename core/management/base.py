"""Base for this project's commands: bad input prints one ``error: ...`` line and exits 2."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError


class ClearCommand(BaseCommand):
    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        except CommandError as exc:
            self.stderr.write(f"error: {exc}")
            sys.exit(2)
