"""``manage.py replay FILE.json`` (or ``-``): recompute a game record and print the result.

``manage.py replay FILE`` itself runs ``core.replay.main`` without Django (see ``manage.py``);
this command is the same work for ``call_command`` and for a call with Django's options."""

from __future__ import annotations

import sys

from django.core.management.base import CommandError

from core.management.base import ClearCommand
from core.records import RecordError
from core.replay import run


class Command(ClearCommand):
    help = "Replay a game record (King of the Hill, GoRoD or season) and print the result as JSON."
    # A replay reads a file and runs a pure engine: the project's system checks (a third of a
    # second, `make bench`) guard nothing it uses.
    requires_system_checks: list = []

    def add_arguments(self, parser):
        parser.add_argument("file", help="path to the record JSON, or - for standard input")

    def handle(self, *args, file: str, **options):
        try:
            output = run(file, sys.stdin)
        except RecordError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(output.decode("utf-8"))
