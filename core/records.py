"""Helpers shared by the pure rules modules for reading and writing game records.

This module must not import Django: the rules engines (``kingofhill.rules``, ``gorod.rules``,
``rating.rules``) depend on it and stay runnable and testable without a settings module.
"""

from __future__ import annotations

from datetime import datetime
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
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # bool is an int in Python; a record that says true where a number belongs is wrong.
    if isinstance(value, bool) and bool not in kinds:
        raise RecordError(f"{where}: expected {_names(kinds)}, got a boolean")
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


def team_names(value: Any, where: str = "teams", *, minimum: int = 1) -> tuple[str, ...]:
    """A record's list of team names: non-empty strings, each once, at least ``minimum``.

    >>> team_names(["Альфа", "Бета"])
    ('Альфа', 'Бета')
    """
    names = check_type(value, list, where)
    seen: set[str] = set()
    for i, name in enumerate(names):
        check_type(name, str, f"{where}[{i}]")
        if not name.strip():
            raise RecordError(f"{where}[{i}]: a team name must not be empty")
        if name in seen:
            raise RecordError(f"{where}[{i}]: duplicate team name {name!r}")
        seen.add(name)
    if len(names) < minimum:
        raise RecordError(f"{where}: at least {minimum} team{'s are' if minimum > 1 else ' is'} "
                          f"needed, got {len(names)}")
    return tuple(names)
