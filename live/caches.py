"""The process's caches of what the last writes stored: values by their large texts
(``shared``) and row-by-row values by their heads (``keep_head``). Keyed by the stored text
itself, a value can never be another text's: no version, rollback or emptied test database can
mislead them."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, NamedTuple

from live.codec import decode

# the texts the last write stored: their values are kept by their text, so the next write finds
# them by a hash and a comparison of the text instead of parsing it again (two thirds of a
# closing code's own time went to parsing). Keyed by the text itself, a value can never be
# another text's: no version, rollback or emptied test database can mislead it.
SHARED_MIN = 8 * 1024
# Room for a night's every team's own part (~10 KiB each at 200 teams × 30 levels: with 24 a
# batch of codes parsed its teams' parts again, a tenth of a code's time) and the organizer's,
# bounded by their text too so that large parts cannot hold much memory.
_SHARED_SIZE = 400
_SHARED_CHARS = 16 * 1024 * 1024
_shared: OrderedDict[str, Any] = OrderedDict()
_shared_chars = [0]
_shared_lock = threading.Lock()


def shared(text: str) -> Any:
    """``decode(text)``, the same values for an equal large text: **read only** (copy what you
    change; ``{**table, "rows": new_rows}`` rather than ``table["rows"] = …``)."""
    if len(text) < SHARED_MIN:
        return decode(text)
    with _shared_lock:
        found = _shared.get(text, _shared)
        if found is not _shared:
            _shared.move_to_end(text)
            return found
    value = decode(text)
    remember(text, value)
    return value


def remember(text: str, value: Any) -> None:
    """Keep ``value`` as what ``shared(text)`` gives (a write's new part, encoded from it)."""
    if len(text) < SHARED_MIN:
        return
    with _shared_lock:
        if text not in _shared:
            _shared_chars[0] += len(text)
        _shared[text] = value
        _shared.move_to_end(text)
        while len(_shared) > 1 and (len(_shared) > _SHARED_SIZE
                                    or _shared_chars[0] > _SHARED_CHARS):
            _shared_chars[0] -= len(_shared.popitem(last=False)[0])


def forget_shared() -> None:
    with _shared_lock:
        _shared.clear()
        _shared_chars[0] = 0
        _heads.clear()
        _latest.clear()


# A head names its rows' texts by their hashes, so it stands for the whole value: the values
# of the heads the last writes stored are kept by the head's text (like ``shared``: no version
# or rollback can make a head mean another value), and a write that finds its head here reads
# no row at all.
_HEADS_SIZE = 64
_heads: OrderedDict[str, Any] = OrderedDict()
_latest: OrderedDict[tuple[int, str], str] = OrderedDict()  # (stream, key) -> its last head


# A stored row of a row-by-row value as its head lists it, ``(id, hash, slot)``: a plain tuple,
# which orjson encodes as the head's own triple (a named tuple it refuses).
Mark = tuple[int | str, str, int]
DIGEST, SLOT = 1, 2


class Kept(NamedTuple):
    value: Any
    marks: dict[str, Mark]  # row id (as text) -> the row's id, its text's hash, its slot
    rows: dict[str, Any]  # row id -> the value's row


def head_kept(head: str) -> Kept | None:
    with _shared_lock:
        found = _heads.get(head)
        if found is not None:
            _heads.move_to_end(head)
        return found


def head_value(head: str) -> Any:
    found = head_kept(head)
    return None if found is None else found.value


def keep_head(head: str, value: Any, marks: dict[str, Mark], rows: dict[str, Any],
               stream: int, key: str) -> None:
    with _shared_lock:
        _heads[head] = Kept(value, marks, rows)
        _heads.move_to_end(head)
        while len(_heads) > _HEADS_SIZE:
            _heads.popitem(last=False)
        _latest[stream, key] = head
        _latest.move_to_end((stream, key))
        while len(_latest) > _HEADS_SIZE:
            _latest.popitem(last=False)


def latest_kept(stream: int, key: str) -> Kept | None:
    """The last head of this stream's key that this process kept, if it still keeps it."""
    with _shared_lock:
        head = _latest.get((stream, key))
        return None if head is None else _heads.get(head)

