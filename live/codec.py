"""The one JSON encoding of live states, and a state's text from its keys' texts."""

from __future__ import annotations

from typing import Any

import orjson


def encode(value: Any) -> str:
    """The one JSON encoding of states: compact, UTF-8 kept, deterministic for equal dicts
    built in the same order (which is what the comparison relies on). orjson writes what
    ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` writes (only a float under
    1e-4 is spelt otherwise, ``1e-05`` as ``0.00001``: the same number), an order of magnitude
    faster: a closing GoRoD code re-encodes a 460-KiB statistics table."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def decode(text: str | bytes) -> Any:
    """A stored state's (or part's) JSON text as values (orjson: twice ``json.loads``'s speed)."""
    return orjson.loads(text)


# The large parts a write reads back (a 200-team organizer's statistics table is ~400 KiB) are


def joined(items) -> str:
    """The state's JSON text from its keys' texts, in order."""
    return "{" + ",".join(f"{encode(key)}:{text}" for key, text in items) + "}"

