"""Helpers shared by the pure rules modules for reading and writing game records.

This module must not import Django: the rules engines (``kingofhill.rules``, ``gorod.rules``,
``rating.rules``) depend on it and stay runnable and testable without a settings module.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from datetime import datetime

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class RecordError(ValueError):
    """A game record that cannot be computed: bad JSON shape, unknown name, impossible event.

    The message says what is wrong and where (``moves[3].answers.Alpha.at: ...``); it is shown
    to users as ``error: <message>`` by ``manage.py replay`` and as a 400 by the API.
    """


def parse_time(value: Any, where: str) -> datetime:
    """Parse an ISO 8601 time that carries a UTC offset.

    >>> parse_time("2026-12-05T22:00:00+03:00", "start").utcoffset().total_seconds()
    10800.0

    A naive time (no offset) is refused: the rules compare instants, and a naive time would
    silently depend on the server's zone (and break across daylight-saving changes).
    """
    if not isinstance(value, str):
        raise RecordError(f"{where}: expected an ISO 8601 time string, got {_kind(value)}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise RecordError(f"{where}: {value!r} is not an ISO 8601 time") from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise RecordError(f"{where}: {value!r} has no UTC offset (write e.g. +03:00)")
    return parsed


def format_time(value: datetime | None) -> str | None:
    """The record's time form: ISO 8601 with the offset the time carries."""
    return None if value is None else value.isoformat()


def require(mapping: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """Return ``mapping[key]`` if it exists and has the given type, else a clear RecordError."""
    if not isinstance(mapping, dict):
        raise RecordError(f"{where}: expected an object, got {_kind(mapping)}")
    if key not in mapping:
        raise RecordError(f"{where}.{key}: missing")
    return check_type(mapping[key], kind, f"{where}.{key}")


def optional(mapping: dict, key: str, kind: type | tuple[type, ...], where: str, default: Any = None) -> Any:
    """Return ``mapping[key]`` type-checked, or ``default`` when the key is absent or null."""
    value = mapping.get(key)
    if value is None:
        return default
    return check_type(value, kind, f"{where}.{key}")


def check_type(value: Any, kind: type | tuple[type, ...], where: str) -> Any:
    # The common case at once: a value whose own type is named passes every check below (a
    # boolean only where bool is named, a float only where float is); a 200-team night checks
    # 11 000 values.
    if type(value) is kind or (type(kind) is tuple and type(value) in kind):
        return value
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # bool is an int in Python; a record that says true where a number belongs is wrong.
    if isinstance(value, bool) and bool not in kinds:
        raise RecordError(f"{where}: expected {_names(kinds)}, got a boolean")
    if isinstance(value, float) and int in kinds and float not in kinds:
        # "expected a number, got a number" said nothing: name the value and what is missing.
        raise RecordError(f"{where}: expected a whole number, got {value!r}")
    if not isinstance(value, kinds):
        raise RecordError(f"{where}: expected {_names(kinds)}, got {_kind(value)}")
    return value


def _names(kinds: tuple[type, ...]) -> str:
    words = {dict: "an object", list: "a list", str: "a string", int: "a number",
             float: "a number", bool: "true or false"}
    return " or ".join(dict.fromkeys(words.get(k, k.__name__) for k in kinds))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return _names((type(value),))


def quote(text: str) -> str:
    """``text`` quoted for a one-line message: control characters (a newline that would split
    or forge the line) and unpaired surrogates (not printable as UTF-8) become escapes.

    >>> print(quote("Al\\nfa"))
    "Al\\nfa"
    """
    return json.dumps(text)


def one_line(message: str) -> str:
    """``message`` safe to print as one line: newlines and other control characters escaped,
    unpaired surrogates written as ``\\udXXX``."""
    out = []
    for char in message:
        if char in "\n\r\t" or unicodedata.category(char) in ("Cc", "Zl", "Zp"):
            out.append(json.dumps(char)[1:-1])
        elif 0xD800 <= ord(char) <= 0xDFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


def find_unstorable_text(value: Any) -> str | None:
    """The path (``teams[0]``, ``moves[2].answers``) of the first string, key or value, that
    holds an unpaired surrogate; ``"record"`` for the record itself; None when there is none."""
    try:
        # The common case at C speed: a record whose JSON text encodes to UTF-8 holds none (a
        # 200-team night has 65 000 strings, too many to walk letter by letter).
        json.dumps(value, ensure_ascii=False).encode("utf-8")
        return None
    except (UnicodeEncodeError, TypeError, ValueError, RecursionError):
        pass  # one is there (or the value is not JSON): the walk says where
    stack = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in item):
                return path or "record"
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                child_path = f"{path}.{key}" if path else str(key)
                if any(0xD800 <= ord(c) <= 0xDFFF for c in str(key)):
                    return f"{path or 'record'} (a key {one_line(quote(str(key)))})"
                stack.append((child, child_path))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{i}]") for i, child in reversed(list(enumerate(item))))
    return None


# Unicode's control characters (category Cc: C0, DEL, C1) and line and paragraph separators
# (Zl, Zp), as one search: a live write parses a record of every team's name.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def team_names(value: Any, where: str = "teams", *, minimum: int = 1) -> tuple[str, ...]:
    """A record's list of team names: non-empty strings, each once, at least ``minimum``.

    >>> team_names(["Альфа", "Бета"])
    ('Альфа', 'Бета')
    """
    names = check_type(value, list, where)
    if all(type(name) is str for name in names):
        # A live write parses a record of every team's name on every code: the same names.
        return _checked_names(tuple(names), where, minimum)
    return _checked_names.__wrapped__(tuple(names), where, minimum)


@functools.lru_cache(maxsize=64)
def _checked_names(names: tuple, where: str, minimum: int) -> tuple[str, ...]:
    seen: set[str] = set()
    for i, name in enumerate(names):
        check_type(name, str, f"{where}[{i}]")
        if not name.strip():
            raise RecordError(f"{where}[{i}]: a team name must not be empty")
        if _CONTROL.search(name):
            raise RecordError(f"{where}[{i}]: a team name must not hold control characters "
                              f"(a newline, a tab): {quote(name)}")
        if name in seen:
            raise RecordError(f"{where}[{i}]: duplicate team name {name!r}")
        seen.add(name)
    if len(names) < minimum:
        raise RecordError(f"{where}: at least {minimum} team{'s are' if minimum > 1 else ' is'} "
                          f"needed, got {len(names)}")
    return tuple(names)
