"""The store: a write's built states compared with the stored ones key by key, the changed
keys stored with the stream's version + 1, and the stored reads (``stored_parts`` and the
others) that builds and reads use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from django.db import connection

from core import sql
from live import delta
from live.caches import head_value, keep_head, remember
from live.codec import decode, encode, joined
from live.messages import Stored
from live.models import LiveStream
from live.queries import (
    INSERT_BATCH,
    bump_sql,
    compared,
    delete_all_rows_sql,
    delete_parts_sql,
    delete_rows_sql,
    insert_parts_sql,
    like,
    parts_sql,
    stored_sql,
    unpacked,
)
from live.rows import (
    HEAD,
    Mark,
    Split,
    assembled,
    row_digest,
    row_values,
    rows_compared,
    split_rows,
    with_rows,
)


class _Part(NamedTuple):
    """A ``LivePart`` row as a write reads and writes it (a model instance per row cost more
    than the row)."""

    pk: int | None
    stream_id: int
    key: str
    position: int
    text: str


@dataclass(slots=True)
class _Stream:
    """A stored ``LiveStream`` as a write reads and bumps it: its id and version (a model
    instance per stream cost a host's close, which touches every team's stream, more than
    comparing their states)."""

    pk: int
    version: int



def _whole_text(key: str, state: dict, texts: dict[str, str], splits: dict) -> str:
    """A key's value as JSON text (a row-by-row one's compared text is its head)."""
    return encode(state[key]) if key in splits else texts[key]


def _patch_is_shorter(patch: str, key: str, state: dict, texts: dict[str, str],
                      splits: dict[str, Split]) -> bool:
    """Whether a key's patch is the smaller push: shorter than its whole value's text and the
    ``{"=": …}`` around it. A row-by-row value is encoded whole only when a lower bound of its
    text's length does not settle it: the rest of the value's text and two characters a row
    (an answer's patch of the host's console was measured against every closed question's
    answers, encoded again on each answer: a tenth of an answer's time by question 20)."""
    split = splits.get(key)
    if split is not None:
        least = 2 * len(split.rows) + 1
        if split.skeleton is not None:
            least += len(encode(split.skeleton)) - len("null")
        if len(patch) < least + 6:
            return True
    return len(patch) < len(_whole_text(key, state, texts, splits)) + 6


def _least_length(texts: dict[str, str], splits: dict[str, Split]) -> int:
    """A lower bound of a whole state's text length, without encoding its row-by-row values:
    the other keys' texts, and for each row-by-row value its list (n values take at least
    ``2n + 1`` characters: one each, the commas, the brackets)."""
    return (sum(len(text) for key, text in texts.items() if key not in splits)
            + sum(2 * len(split.rows) + 1 for split in splits.values()))


def _stored_value(game_id: int, part: _Part, rows: dict[str, _Part] | None) -> Any:
    """A stored key's value, for a diff: its text parsed, or a row-by-row value kept, joined
    from its rows read with it (a whole state's) or read now."""
    if not part.text.startswith(HEAD):
        return decode(part.text)
    value = head_value(part.text)
    if value is not None:
        return value
    if rows is not None:
        return decode(assembled(part.text, {rid: r.text for rid, r in rows.items()}))
    return row_values(game_id, [(part.stream_id, part.key, part.text)])[
        part.stream_id, part.key]



class Parts(dict):
    """What a build returns for an audience when it changed only some top-level keys of the
    state: those keys and their new values; the others keep their stored value and are not
    read. Only for an audience already stored (``stored_parts`` says whether it is).

    ``patches``: for a key the build knows how it changed, ``live.delta``'s patch from the
    stored value, pushed as it is instead of diffing the two (a re-ranked table of hundreds of
    KiB whose changed rows the build already has)."""

    def __init__(self, *args, patches: dict[str, dict] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.patches = patches or {}

# One pushed change: the audience, its new version, its whole state's text (None: the change
# is the smaller push) and the change's text (None: the whole state is).
Change = tuple[str, int, str | None, str | None]


def compare_and_store(game_id: int, states: dict[str, dict], read: list[tuple],
                      asked: dict[str, set[str]]) -> list[Change]:
    """Compare a write's built states with the stored ones, store the changed ones with
    version + 1, and answer what to push of each (``live.write`` pushes it after the commit).

    A state is compared and stored key by key (``LivePart``): only the keys whose text
    changed are written, and the push is the patch of those keys. A build that returns
    ``Parts`` for an audience gives only the keys it changed: the others are not even read.
    ``read`` and ``asked`` are what the build already read of the stored states
    (``Write.read_values``), compared with instead of read again.
    """
    # The streams and the parts to compare with, in one query: every part of a whole
    # state, only the given keys of ``Parts``.
    whole = [a for a, state in states.items() if not isinstance(state, Parts)]
    partial = [a for a, state in states.items() if isinstance(state, Parts)]
    streams: dict[str, _Stream] = {}
    old: dict[int, dict[str, _Part]] = {}
    # Audiences whose every returned key the build already read (``Write.read_values``)
    # are compared with those rows; the others are read now.
    known = {a for a in partial if set(states[a]) <= asked.get(a, set())}
    partial = [a for a in partial if a not in known]
    keys = {key for a in partial for key in states[a]}
    rows = [row for row in read if row[1] in known]
    if whole or partial:
        rows += compared(game_id, whole, partial, sorted(keys))
    # Each stream's stored parts: its keys' (``old``) and its row-by-row values' rows.
    old_rows: dict[int, dict[str, dict[str, _Part]]] = {}
    for pk, audience, version, part, key, position, text in rows:
        if audience not in streams:
            streams[audience] = _Stream(pk, version)
        if part is None:
            continue
        found = _Part(part, pk, key, position, text)
        base, slash, rid = key.partition("/")
        if slash:
            old_rows.setdefault(pk, {}).setdefault(base, {})[rid] = found
        else:
            old.setdefault(pk, {})[key] = found
    new_streams: list[tuple[LiveStream, dict, dict[str, str], dict[str, Split]]] = []
    gone: list[int] = []
    parts: list[_Part] = []
    bumped: list[_Stream] = []
    messages: list[Change] = []
    # Values by identity: the audiences' states share parts (each team's state holds the
    # public board), encoded once per write. Every value lives in ``states`` meanwhile.
    encoded: dict[int, str] = {}
    # Likewise a shared value's patch from an equal stored text, computed once per write: a
    # close changes the board every team's state holds, and diffing it once per team was
    # half of a 64-team close's time.
    shared_patches: dict[tuple[str, int], dict] = {}
    some_rows: list[tuple[int, str]] = []  # (stream, "key/slot"): row parts to delete
    all_rows: list[tuple[int, str]] = []  # (stream, key): every row part of the key
    for audience, state in states.items():
        row = streams.get(audience)
        splits = {key: found for key, value in state.items()
                  if (found := split_rows(key, value)) is not None}
        if row is None:
            if isinstance(state, Parts):
                raise ValueError(f"{audience}: Parts for a stream never stored")
            texts = {key: encode(value) for key, value in state.items()}
            new_streams.append((LiveStream(game_id=game_id, audience=audience, version=1),
                                state, texts, splits))
            messages.append((audience, 1, joined(texts.items()), None))
            continue
        before = old.get(row.pk, {})
        before_rows = old_rows.get(row.pk, {})
        # A row-by-row value is compared by its head, which names every row's text.
        texts: dict[str, str] = {}
        row_parts: dict[str, dict[str, str]] = {}  # key -> {slot: new text}
        dropped: dict[str, list[int]] = {}  # key -> slots left empty
        marks: dict[str, dict[str, Mark]] = {}
        for key, value in state.items():
            split = splits.get(key)
            if split is None:
                text = encoded.get(id(value))
                if text is None:
                    text = encoded[id(value)] = encode(value)
                texts[key] = text
                continue
            head = before[key].text if key in before else None
            texts[key], row_parts[key], marks[key], dropped[key] = rows_compared(
                split, head if head is not None and head.startswith(HEAD) else None)
        for key, split in splits.items():
            keep_head(texts[key], state[key], marks[key], split.rows, row.pk, key)
        changed = {key for key, text in texts.items()
                   if key not in before or before[key].text != text}
        removed = [] if isinstance(state, Parts) else [k for k in before if k not in texts]
        if isinstance(state, Parts):
            last = max((p.position for p in before.values()), default=-1)
            # A key the stored state lacks goes last; ``Parts`` never reorders.
            order = {key: before[key].position if key in before else (last := last + 1)
                     for key in texts}
        else:
            order = {key: position for position, key in enumerate(texts)}
            changed |= {key for key in texts
                        if key in before and before[key].position != order[key]}
        if not changed and not removed:
            continue
        change: dict[str, Any] = {"d": {}}
        for key in (key for key in texts if key in changed):
            if key not in before:
                change["d"][key] = {"=": state[key]}
                continue
            if before[key].text == texts[key]:
                continue  # only moved: nothing for a screen to apply
            given = getattr(state, "patches", {}).get(key)
            if given is not None:
                change["d"][key] = given
                continue
            memo = None if key in splits else (before[key].text, id(state[key]))
            found = shared_patches.get(memo) if memo is not None else None
            if found is None:
                sub = delta.diff(_stored_value(game_id, before[key], before_rows.get(key)),
                                 state[key])
                found = sub if sub is not None and _patch_is_shorter(
                    encode(sub), key, state, texts, splits) else {"=": state[key]}
                if memo is not None:
                    shared_patches[memo] = found
            change["d"][key] = found
        if removed:
            change["x"] = removed
        # A changed key's part is replaced in place (``insert_parts_sql`` upserts); a
        # row-by-row value writes its head and its changed rows and drops the rows it no
        # longer has, or all of them when it is stored as one text now or removed.
        gone += [before[key].pk for key in removed]
        for key in changed:
            if key not in splits:
                parts.append(_Part(None, row.pk, key, order[key], texts[key]))
                if key in before and before[key].text.startswith(HEAD):
                    all_rows.append((row.pk, key))
                continue
            parts.append(_Part(None, row.pk, key, order[key], texts[key]))
            parts += [_Part(None, row.pk, f"{key}/{slot}", order[key], text)
                      for slot, text in row_parts[key].items()]
            some_rows += [(row.pk, f"{key}/{slot}") for slot in dropped[key]]
        all_rows += [(row.pk, key) for key in removed
                     if before[key].text.startswith(HEAD)]
        for key in changed:
            if key not in splits:
                remember(texts[key], state[key])
        row.version += 1
        bumped.append(row)
        change_text = encode(change)
        text = None
        # The whole state's text only when the change may not be the smaller push
        # (``_least_length``): encoding a row-by-row value whole (a host's history) cost a
        # King of the Hill answer a tenth of its time.
        if not isinstance(state, Parts) and len(change_text) >= _least_length(texts, splits):
            text = joined((key, _whole_text(key, state, texts, splits)) for key in texts)
            if len(change_text) >= len(text):
                change_text = None
        messages.append((audience, row.version, text, change_text))
    if gone:
        sql.execute(delete_parts_sql(len(gone)), gone)
    for start in range(0, len(some_rows), INSERT_BATCH):
        batch = some_rows[start:start + INSERT_BATCH]
        sql.execute(delete_rows_sql(len(batch)), [value for pair in batch for value in pair])
    if all_rows:
        sql.execute(delete_all_rows_sql(len(all_rows)),
                    [value for pk, key in all_rows for value in (pk, like(key))])
    if bumped:
        # Every changed stream moves on by exactly one (the game is locked): one query.
        sql.execute(bump_sql(len(bumped)), [row.pk for row in bumped])
    if new_streams:
        created = LiveStream.objects.bulk_create([row for row, *_rest in new_streams])
        for row, (_r, value_of, texts, splits) in zip(created, new_streams, strict=True):
            for position, (key, text) in enumerate(texts.items()):
                split = splits.get(key)
                if split is None:
                    parts.append(_Part(None, row.pk, key, position, text))
                    continue
                rows = [encode(value) for value in split.rows.values()]
                marks = {rid: (raw, row_digest(text), slot) for slot, (raw, rid, text)
                         in enumerate(zip(split.ids, split.rows, rows, strict=True))}
                head = split.head(marks)
                keep_head(head, value_of[key], marks, split.rows, row.pk, key)
                parts.append(_Part(None, row.pk, key, position, head))
                parts += [_Part(None, row.pk, f"{key}/{slot}", position, text)
                          for slot, text in enumerate(rows)]
    for start in range(0, len(parts), INSERT_BATCH):
        batch = parts[start:start + INSERT_BATCH]
        sql.execute(insert_parts_sql(len(batch)), [
            value for p in batch for value in (p.stream_id, p.key, p.position, p.text)])
    return messages


def stored_texts(game_id: int, audiences) -> dict[str, str]:
    """The stored state texts of these audiences (one query): what a build that touches a few
    audiences compares with or reuses of the others'."""
    return {audience: stored.text for audience, stored in stored_many(
        game_id, list(audiences)).items()}


def stored_parts(game_id: int, wanted: dict[str, list[str]]) -> dict[str, dict[str, str]]:
    """``{audience: {key: text}}``: the stored texts of some top-level keys of some audiences'
    states, in one query, without reading their other keys. An audience or key that is not
    stored is missing from the answer (then a build must return that state whole, not
    ``Parts``)."""
    wanted = {audience: list(keys) for audience, keys in wanted.items() if keys}
    if not wanted:
        return {}
    params: list[Any] = [game_id]
    for audience, keys in wanted.items():
        params += [audience, *keys, *map(like, keys)]
    items: dict[str, list[tuple[str, str]]] = {}
    for audience, key, text in sql.rows(parts_sql(tuple(len(k) for k in wanted.values())),
                                     params):
        if key.partition("/")[0] in wanted[audience]:
            items.setdefault(audience, []).append((key, text))
    return {audience: dict(with_rows(parts)) for audience, parts in items.items()}


def streams_stored(game_id: int, audiences: list[str]) -> bool:
    """Every one of these audiences has a stored state (``Parts`` may be built for them)."""
    return LiveStream.objects.filter(game_id=game_id, audience__in=audiences).count() == len(
        set(audiences))


def stream_versions(game_id: int) -> dict[str, int]:
    """Every audience's current version (tests, the admin, benchmarks)."""
    return dict(LiveStream.objects.filter(game_id=game_id).values_list("audience", "version"))


def stored_many(game_id: int, audiences: list[str] | None,
                 game_format: str | None = None) -> dict[str, Stored]:
    if audiences is not None and not audiences:
        return {}
    params: list[Any] = [game_id]
    if game_format is not None:
        params.append(game_format)
    params += audiences or []
    shape = (game_format is not None, None if audiences is None else len(audiences))
    if connection.vendor == "sqlite":
        # One row a stream (``live.queries`` says why); psycopg takes every row of a
        # result at once, so PostgreSQL keeps one row a part.
        read: dict[str, Stored] = {}
        for (row,) in sql.rows(stored_sql(*shape, packed=True), params):
            audience, version, packed = row.split(" ", 2)
            read[audience] = Stored(audience, int(version),
                                    joined(with_rows(unpacked(packed))))
        return read
    found: dict[str, tuple[int, list]] = {}
    for audience, version, key, text in sql.rows(stored_sql(*shape), params):
        entry = found.setdefault(audience, (version, []))
        if key is not None:
            entry[1].append((key, text))
    return {audience: Stored(audience, version, joined(with_rows(items)))
            for audience, (version, items) in found.items()}



def stored_one(game_id: int, audience: str) -> Stored | None:
    return stored_many(game_id, [audience]).get(audience)


