"""Values stored row by row (``Rows``): a head part that names each row's text by its hash
and slot, and one part per row, so a write stores and reads the rows it changed, not the list."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from core import sql
from live.caches import DIGEST, SLOT, Mark, head_kept, keep_head, latest_kept
from live.codec import decode, encode
from live.models import LivePart
from live.queries import like, rows_sql, some_rows_sql

# --- values stored row by row -----------------------------------------------------------------


class Rows(list):
    """A list of dicts, each identified by its ``by`` field, that is stored one row per
    ``LivePart`` (``<key>/<slot>``) under a small head part that holds the rows' ids in order,
    a hash of each row's text and its slot: a write that changes one row of a 200-row table writes that row and the
    head, and reads only the head (a GoRoD organizer's statistics are ~500 KiB; rewriting them
    cost a closing code a third of its time, most of it in the commit). A state key's value
    may be ``Rows`` or a dict with one field that is ``Rows`` (the statistics table's
    ``rows``).

    It is a list in every other way: encoded, diffed and read back it is the same JSON, and
    a stored state read whole is byte for byte what encoding the value gives."""

    def __init__(self, rows=(), *, by: str):
        super().__init__(rows)
        self.by = by


# A head part's text starts so: ``{"$rows": by, "$at": field, "$ids": [[id, hash, slot], …]}``;
# row ``id`` is stored in the part ``<key>/<slot>``. A new row takes a slot a dropped row left
# (an attempt log that gains its newest line and drops its oldest rewrites one part, deletes
# none).
HEAD = '{"$rows":'
_KEY_MAX = LivePart._meta.get_field("key").max_length


def row_digest(text: str) -> str:
    """A row text's name in its head: 64 bits, so two different texts of one row id sharing it
    is a chance of 2⁻⁶⁴ per change."""
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


@dataclass
class Split:
    """A value as its rows: each row's id (as text) with its row, in order, and where the rows
    sit in the value."""

    skeleton: dict | None  # the value with its rows' field as None (None: the value is Rows)
    at: str | None
    by: str
    ids: list
    rows: dict[str, Any]

    def head(self, marks: dict[str, Mark]) -> str:
        # A mark is the head's own triple, encoded as it is: building a list per row cost a
        # GoRoD code a twentieth of its time (three 200-row heads).
        return encode({"$rows": self.by, "$at": self.at,
                       "$ids": list(map(marks.__getitem__, self.rows)), "head": self.skeleton})


def split_rows(key: str, value: Any) -> Split | None:
    """How ``value`` is stored row by row, or None when it is stored as one text (not
    ``Rows``; a row without a usable id, or ids that repeat)."""
    at, skeleton = None, None
    if isinstance(value, Rows):
        rows = value
    elif isinstance(value, dict):
        at = next((k for k, v in value.items() if isinstance(v, Rows)), None)
        if at is None:
            return None
        rows = value[at]
        skeleton = {k: (None if k == at else v) for k, v in value.items()}
    else:
        return None
    by = rows.by
    try:
        ids = [row[by] for row in rows]
    except (KeyError, TypeError, IndexError):
        return None
    if not {type(rid) for rid in ids} <= {int, str}:
        return None
    names = [str(rid) for rid in ids]
    by_id = dict(zip(names, rows, strict=True))
    # A slot's part key is ``<key>/<slot>``: room for five digits.
    if len(by_id) != len(ids) or len(key) + 6 > _KEY_MAX:
        return None
    return Split(skeleton, at, by, ids, by_id)


def assembled(head: str, texts: dict[str, str]) -> str:
    """A stored row-by-row value's JSON text from its head part and its row parts' texts:
    what ``encode`` gives for the value (its other fields encoded in place, the rows joined
    in order)."""
    found = decode(head)
    rows = "[" + ",".join(texts[str(slot)] for _rid, digest, slot in found["$ids"]) + "]"
    skeleton, at = found["head"], found["$at"]
    if skeleton is None:
        return rows
    return "{" + ",".join(f"{encode(k)}:{rows if k == at else encode(v)}"
                          for k, v in skeleton.items()) + "}"


def with_rows(items: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A stream's ``(key, text)`` parts as its top-level keys: each row-by-row value joined
    from its head and row parts."""
    rows: dict[str, dict[str, str]] = {}
    heads = []
    for key, text in items:
        base, slash, rid = key.partition("/")
        if slash:
            rows.setdefault(base, {})[rid] = text
        else:
            heads.append((key, text))
    if not rows and not any(text.startswith(HEAD) for _k, text in heads):
        return heads
    return [(key, assembled(text, rows.get(key, {})) if text.startswith(HEAD) else text)
            for key, text in heads]


def _head_marks(head: str) -> dict[str, Mark]:
    return {str(rid): (rid, digest, slot) for rid, digest, slot in decode(head)["$ids"]}


def rows_compared(split: Split, head: str | None
                   ) -> tuple[str, dict[str, str], dict[str, Mark], list[int]]:
    """A row-by-row value against its stored head (None: not stored row by row): the new
    head's text, the texts of the slots to write, every row's hash and slot, and the slots
    left empty. A row that is the very object of the stored value the build read
    (``head_value``: read only, so the same object means the same text) is not encoded
    again."""
    stored: dict[str, Mark] = {}
    previous: dict[str, Any] = {}
    if head is not None:
        kept = head_kept(head)
        if kept is not None:
            stored, previous = kept.marks, kept.rows
        else:
            stored = _head_marks(head)
    # Most writes drop no row and add none: the set difference and the highest slot are
    # looked at only when they do.
    gone = stored.keys() - split.rows.keys()
    free = sorted((stored[rid][SLOT] for rid in gone), reverse=True)
    after = None
    marks, writes = {}, {}
    for raw, (rid, value) in zip(split.ids, split.rows.items(), strict=True):
        mark = stored.get(rid)
        if mark is not None and previous.get(rid) is value:
            marks[rid] = mark
            continue
        text = encode(value)
        digest = row_digest(text)
        if mark is None:
            if free:
                slot = free.pop()
            else:
                if after is None:
                    after = max((m[SLOT] for m in stored.values()), default=-1) + 1
                slot, after = after, after + 1
        else:
            slot = mark[SLOT]
            if mark[DIGEST] == digest:
                marks[rid] = mark
                continue
        marks[rid] = (raw, digest, slot)
        writes[str(slot)] = text
    return split.head(marks), writes, marks, free


def row_values(game_id: int, heads: list[tuple[int, str, str]]) -> dict[tuple[int, str], Any]:
    """The values of row-by-row parts ``(stream pk, key, head)`` whose heads are not kept, from
    their rows (then kept). When this process keeps an older head of the same part (another
    worker wrote since), only the rows whose hashes differ are read."""
    found = {}
    for pk, key, head in heads:
        parsed = decode(head)
        marks = {str(rid): (rid, digest, slot) for rid, digest, slot in parsed["$ids"]}
        old = latest_kept(pk, key)
        if old is None:
            texts = {name.partition("/")[2]: text
                     for _pk, name, text in sql.rows(rows_sql(1), [pk, like(key)])}
            rows = {rid: decode(texts[str(mark[SLOT])]) for rid, mark in marks.items()}
        else:
            need = {rid: f"{key}/{mark[SLOT]}" for rid, mark in marks.items()
                    if (seen := old.marks.get(rid)) is None or seen[DIGEST] != mark[DIGEST]}
            texts = dict(sql.rows(some_rows_sql(len(need)), [pk, *need.values()])
                         ) if need else {}
            rows = {rid: decode(texts[need[rid]]) if rid in need else old.rows[rid]
                    for rid in marks}
        listed = Rows([rows[str(rid)] for rid, *_mark in parsed["$ids"]], by=parsed["$rows"])
        at, skeleton = parsed["$at"], parsed["head"]
        value = listed if at is None else {k: listed if k == at else v
                                           for k, v in skeleton.items()}
        keep_head(head, value, marks, rows, pk, key)
        found[pk, key] = value
    return found

