"""Base for this project's commands: bad input prints one ``error: ...`` line and exits 2."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from core.records import one_line


class ClearCommand(BaseCommand):
    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        except CommandError as exc:
            # Exactly one line whatever the message holds (a newline in a name would split or
            # forge it; a lone surrogate would not even print).
            self.stderr.write(f"error: {one_line(str(exc))}")
            sys.exit(2)
