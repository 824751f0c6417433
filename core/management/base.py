"""Base for this project's commands: bad input prints one ``error: ...`` line and exits 2."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from core.records import one_line


class Problems(CommandError):
    """Several problems at once (a dry run's findings): one ``error: ...`` line each."""

    def __init__(self, lines) -> None:
        self.lines = list(lines)
        super().__init__("; ".join(self.lines))


class ClearCommand(BaseCommand):
    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        except CommandError as exc:
            # Exactly one line per problem whatever its message holds (a newline in a name
            # would split or forge it; a lone surrogate would not even print).
            for line in getattr(exc, "lines", None) or [str(exc)]:
                self.stderr.write(f"error: {one_line(line)}")
            sys.exit(2)
