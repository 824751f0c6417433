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
    # A replay reads a file and runs a pure engine: the project's system checks (a third of a
    # second, `make bench`) guard nothing it uses.
    requires_system_checks: list = []

    def add_arguments(self, parser):
        parser.add_argument("file", help="path to the record JSON, or - for standard input")

    def handle(self, *args, file: str, **options):
        try:
            text = self._read(file)
            record = _parse(text)
            result = replay(record)
            output = json.dumps(result, ensure_ascii=False, indent=1, allow_nan=False)
            output.encode("utf-8")
        except RecordError as exc:
            raise CommandError(str(exc)) from None
        except Exception as exc:  # an engine bug must still not print a traceback to users
            raise CommandError(
                f"cannot replay this {_format_of(locals().get('record'))} record: an internal "
                f"error ({type(exc).__name__}: {exc}); please report it with the record"
            ) from None
        self.stdout.write(output)

    def _read(self, file: str) -> str:
        if file == "-":
            # Bytes, so a non-UTF-8 input is a clear error; a text stream given in place of
            # stdin (an embedding caller, a test) is read as it is.
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:
                return sys.stdin.read()
            try:
                return stream.read().decode("utf-8")
            except UnicodeDecodeError as exc:
                raise RecordError(f"standard input is not UTF-8 text (byte {exc.start})") from None
        try:
            with open(file, encoding="utf-8") as handle:
                return handle.read()
        except OSError as exc:
            raise RecordError(f"cannot read {file}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise RecordError(f"{file} is not UTF-8 text (byte {exc.start})") from None


def _refuse_constant(name: str):
    raise RecordError(f"not valid JSON: {name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise RecordError(f"not valid JSON: the number {text} is too large")
    return value


def _parse(text: str):
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise RecordError("not valid JSON: nested too deeply") from None


def _format_of(record) -> str:
    fmt = record.get("format") if isinstance(record, dict) else None
    return fmt if isinstance(fmt, str) and fmt.isidentifier() else "game"
