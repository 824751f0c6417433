"""The one dispatch point from a record's ``format`` to the pure engine that replays it.

Each engine exposes ``replay(record: dict) -> dict`` returning the contract's output
(``docs/spec/record-format.md``) and raising ``core.records.RecordError`` for a bad record.
"""

from __future__ import annotations

import importlib
from typing import Any

from core.records import RecordError

ENGINES = {
    "kingofhill": "kingofhill.rules",
    "gorod": "gorod.rules",
    "season": "rating.rules",
}


def replay(record: Any) -> dict:
    if not isinstance(record, dict):
        raise RecordError("the record must be a JSON object")
    fmt = record.get("format")
    if fmt not in ENGINES:
        known = ", ".join(sorted(ENGINES))
        raise RecordError(f"format: expected one of {known}, got {fmt!r}")
    engine = importlib.import_module(ENGINES[fmt])
    return engine.replay(record)
