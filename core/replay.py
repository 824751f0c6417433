"""The one dispatch point from a record's ``format`` to the pure engine that replays it.

Each engine exposes ``replay(record: dict) -> dict`` returning the contract's output
(``docs/spec/record-format.md``) and raising ``core.records.RecordError`` for a bad record.
"""

from __future__ import annotations

import importlib
from typing import Any

from core.records import RecordError, find_unstorable_text

ENGINES = {
    "kingofhill": "kingofhill.rules",
    "gorod": "gorod.rules",
    "season": "rating.rules",
}


def replay(record: Any) -> dict:
    if not isinstance(record, dict):
        raise RecordError("the record must be a JSON object")
    fmt = record.get("format")
    if not isinstance(fmt, str) or fmt not in ENGINES:
        known = ", ".join(sorted(ENGINES))
        got = repr(fmt) if isinstance(fmt, (str, int, float, type(None))) else type(fmt).__name__
        raise RecordError(f"format: expected one of {known}, got {got}")
    # A result is printed (and stored) as UTF-8, which cannot hold a lone UTF-16 surrogate.
    where = find_unstorable_text(record)
    if where is not None:
        raise RecordError(f"{where}: holds an unpaired surrogate (broken Unicode, e.g. \\ud800)")
    engine = importlib.import_module(ENGINES[fmt])
    return engine.replay(record)
