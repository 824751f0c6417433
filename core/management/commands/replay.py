"""``manage.py replay FILE.json`` (or ``-``): recompute a game record and print the result."""

from __future__ import annotations

import json
import sys

from django.core.management.base import CommandError

from core.management.base import ClearCommand
from core.records import RecordError
from core.replay import replay


class Command(ClearCommand):
    help = "Replay a game record (King of the Hill, GoRoD or season) and print the result as JSON."

    def add_arguments(self, parser):
        parser.add_argument("file", help="path to the record JSON, or - for standard input")

    def handle(self, *args, file: str, **options):
        try:
            text = self._read(file)
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                raise RecordError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
            result = replay(record)
        except RecordError as exc:
            raise CommandError(str(exc)) from None
        except Exception as exc:  # an engine bug must still not print a traceback to users
            raise CommandError(f"cannot replay this record ({type(exc).__name__}: {exc})") from None
        self.stdout.write(json.dumps(result, ensure_ascii=False, indent=1))

    def _read(self, file: str) -> str:
        if file == "-":
            return sys.stdin.read()
        try:
            with open(file, encoding="utf-8") as handle:
                return handle.read()
        except OSError as exc:
            raise RecordError(f"cannot read {file}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise RecordError(f"{file} is not UTF-8 text") from None
