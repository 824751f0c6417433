"""``replay``: the one dispatch point from a record's ``format`` to the pure engine that
replays it, and the whole of the ``replay`` command (``manage.py replay FILE.json`` or ``-``)
without Django.

Each engine exposes ``replay(record: dict) -> dict`` returning the contract's output
(``docs/spec/record-format.md``) and raising ``core.records.RecordError`` for a bad record.

``manage.py replay FILE`` runs ``main`` before Django is even imported: a replay reads a file
and runs a pure engine, and Django's set-up and system checks were five sixths of the time a
200-team GoRoD record took as a process (``make bench``). The Django command
(``core/management/commands/replay.py``) calls the same ``run``.
"""

from __future__ import annotations

import gc
import importlib
import json
import sys

import orjson

from core.records import RecordError, find_unstorable_text, one_line

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

ENGINES = {
    "kingofhill": "kingofhill.rules",
    "gorod": "gorod.rules",
    "season": "rating.rules",
}


def replay(record: Any, *, surrogates_possible: bool = True) -> dict:
    """The engine's output for ``record``; ``surrogates_possible=False`` when the caller knows
    the record holds no lone surrogate (``run``: its text could not give one)."""
    if not isinstance(record, dict):
        raise RecordError("the record must be a JSON object")
    fmt = record.get("format")
    if not isinstance(fmt, str) or fmt not in ENGINES:
        known = ", ".join(sorted(ENGINES))
        got = repr(fmt) if isinstance(fmt, (str, int, float, type(None))) else type(fmt).__name__
        raise RecordError(f"format: expected one of {known}, got {got}")
    # A result is printed (and stored) as UTF-8, which cannot hold a lone UTF-16 surrogate.
    where = unstorable_text(record) if surrogates_possible else None
    if where is not None:
        raise RecordError(f"{where}: holds an unpaired surrogate (broken Unicode, e.g. \\ud800)")
    return engine(fmt).replay(record)


def engine(fmt: str) -> Any:
    """The pure engine module of a record format (one of ``ENGINES``), loaded on first use:
    how the season rules replay a King of the Hill record without importing that game."""
    return importlib.import_module(ENGINES[fmt])


def unstorable_text(record: Any) -> str | None:
    """``find_unstorable_text(record)``, in a tenth of its time for a record without one (a
    200-team night: 0.2 ms, not 2 ms): orjson refuses a lone surrogate in any string or key,
    and whatever it refuses, ``find_unstorable_text`` then says where, if anywhere."""
    try:
        orjson.dumps(record)
    except orjson.JSONEncodeError:
        return find_unstorable_text(record)
    return None


def run(file: str, stdin: Any = None) -> bytes:
    """The command's output for ``file`` (a path, or ``-`` for ``stdin``): the result as
    indented UTF-8 JSON. Raises ``RecordError`` with the one line to print for any bad input,
    and for an engine's own failure (which must still not print a traceback)."""
    # A replay builds one result and drops everything else at once: the collector's passes
    # over the record's and the result's containers (60 for a 200-team night, more for a
    # 64-team King of the Hill game's 32 000 answers) free nothing it needs and cost time.
    collecting = gc.isenabled()
    gc.disable()
    record = None
    try:
        text = read(file, sys.stdin if stdin is None else stdin)
        record = parse(text)
        result = replay(record, surrogates_possible=may_hold_surrogates(text))
        # orjson writes what json.dumps(indent=2, ensure_ascii=False) writes, in a tenth of its
        # time (a 200-team night's result is 1.5 MB), and refuses a lone surrogate.
        return orjson.dumps(result, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
    except RecordError:
        raise
    except Exception as exc:  # noqa: BLE001 - an engine bug: one line, never a traceback
        raise RecordError(
            f"cannot replay this {_format_of(record)} record: an internal error "
            f"({type(exc).__name__}: {exc}); please report it with the record") from None
    finally:
        if collecting:
            gc.enable()


def main(file: str, stdin: Any = None, stdout: BinaryIO | None = None,
         stderr: Any = None) -> int:
    """``manage.py replay FILE``: the result on standard output, exit 0; or one
    ``error: ...`` line on standard error, exit 2."""
    try:
        output = run(file, stdin)
    except RecordError as exc:
        (stderr or sys.stderr).write(f"error: {one_line(str(exc))}\n")
        return 2
    out = stdout or sys.stdout.buffer
    out.write(output + b"\n")
    out.flush()
    return 0


def read(file: str, stdin: Any) -> str:
    if file == "-":
        # Bytes, so a non-UTF-8 input is a clear error; a text stream given in place of
        # stdin (an embedding caller, a test) is read as it is.
        stream = getattr(stdin, "buffer", None)
        if stream is None:
            return stdin.read()
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


def may_hold_surrogates(text: str) -> bool:
    """Whether ``parse(text)`` can hold a lone surrogate: only through a ``\\u`` escape, or
    from a text that holds one already (a text stream; a file read as UTF-8 cannot). Both
    looks take a tenth of a millisecond on a 2.4 MB record, against 4 ms for looking through
    the parsed record (``unstorable_text``).

    >>> may_hold_surrogates('{"team": "Бета"}'), may_hold_surrogates('{"team": "\\ud800"}')
    (False, True)
    """
    if "\\" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _refuse_constant(name: str):
    raise RecordError(f"not valid JSON: {name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise RecordError(f"not valid JSON: the number {text} is too large")
    return value


def parse(text: str):
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise RecordError("not valid JSON: nested too deeply") from None


def _format_of(record) -> str:
    fmt = record.get("format") if isinstance(record, dict) else None
    return fmt if isinstance(fmt, str) and fmt.isidentifier() else "game"
