"""The one live pipeline of both games (King of the Hill, GoRoD): write, store, broadcast, read.

Every live write goes through ``LiveGame.write``: it opens the game's transaction, locks the game
row, and only then takes ``now`` (so a write that waited for the lock is stamped when it really
happens, never before a write that was applied earlier). The app's action appends its event;
then the app's ``build`` settles the game with its pure rules module and returns the states of
the audiences the write can change (every audience, or only the few it touched: the others
keep their stored state), each whole or as ``Parts`` (only the top-level keys the write changed:
a GoRoD code gives the organizer's attempt log and team list, never its statistics table).
States are stored key by key (``core.models.LiveStream`` and ``LivePart``): each key's value is
encoded once and compared with its stored text — a long list of rows (``Rows``: a GoRoD
organizer's statistics, team list and attempt log) row by row under a head that names each
row's text by its hash, so a write stores and reads the rows it changed, not the list; an
audience with a changed key is stored with
``version + 1`` — version N always means state N — and only such audiences are broadcast, after
the commit, each as the patch of its changed keys from its previous version (``core.delta``)
when that is smaller than the state, so a push carries what changed. Which streams changed is
never listed at a call site. A broadcast that fails is logged and never turns a committed write
into an error: screens catch up on their next push or resync.

A phone's writes (``write(batch=True)``) that arrive while the game's previous write runs are
applied together (``core.batch``: group commit): one transaction, each action in its own
savepoint, one build of the writes merged by the app (``LiveGame.merge``) and one publish.

Reads (HTTP resync, a socket's first message) serve the stored keys joined; they never
recompute.

An app supplies only its adapter (``LiveGame``): its name (group and message prefix), its game
model, its ``build`` and the error for an unknown game; it registers the adapter for its
``teams.Game`` format so a change outside the game (a team renamed) can refresh its screens.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

import orjson
from django.conf import settings
from django.db import DatabaseError, transaction
from django.http import HttpResponse
from django.utils import timezone, translation

from core import delta, sql
from core.batch import Batcher, Job
from core.errors import DomainError
from core.models import LivePart, LiveStream
from core.realtime import send_to_groups

log = logging.getLogger(__name__)

PUBLIC = "public"
# No socket message carries a state past this: a larger one travels over HTTP (a socket's first
# message says only its version; ``tests/gorod/test_push_sizes.py`` holds the pushes to it).
PUSH_LIMIT = 16 * 1024


def team_audience(application_id: int) -> str:
    """The audience of one team's phones."""
    return f"team:{application_id}"


def group_name(app_name: str, game_id: int, audience: str) -> str:
    """``koth.7.public``, ``gorod.7.team.12``: the channel-layer group of one audience (group
    names allow no colon)."""
    return f"{app_name}.{game_id}.{audience.replace(':', '.')}"


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
_HEAD = '{"$rows":'
_KEY_MAX = LivePart._meta.get_field("key").max_length


def _digest(text: str) -> str:
    """A row text's name in its head: 64 bits, so two different texts of one row id sharing it
    is a chance of 2⁻⁶⁴ per change."""
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


# A head names its rows' texts by their hashes, so it stands for the whole value: the values
# of the heads the last writes stored are kept by the head's text (like ``shared``: no version
# or rollback can make a head mean another value), and a write that finds its head here reads
# no row at all.
_HEADS_SIZE = 64
_heads: OrderedDict[str, Any] = OrderedDict()
_latest: OrderedDict[tuple[int, str], str] = OrderedDict()  # (stream, key) -> its last head


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


# A stored row of a row-by-row value as its head lists it, ``(id, hash, slot)``: a plain tuple,
# which orjson encodes as the head's own triple (a named tuple it refuses).
_Mark = tuple[int | str, str, int]
_DIGEST, _SLOT = 1, 2


class _Kept(NamedTuple):
    value: Any
    marks: dict[str, _Mark]  # row id (as text) -> the row's id, its text's hash, its slot
    rows: dict[str, Any]  # row id -> the value's row


def _kept(head: str) -> _Kept | None:
    with _shared_lock:
        found = _heads.get(head)
        if found is not None:
            _heads.move_to_end(head)
        return found


def _head_value(head: str) -> Any:
    found = _kept(head)
    return None if found is None else found.value


def _keep_head(head: str, value: Any, marks: dict[str, _Mark], rows: dict[str, Any],
               stream: int, key: str) -> None:
    with _shared_lock:
        _heads[head] = _Kept(value, marks, rows)
        _heads.move_to_end(head)
        while len(_heads) > _HEADS_SIZE:
            _heads.popitem(last=False)
        _latest[stream, key] = head
        _latest.move_to_end((stream, key))
        while len(_latest) > _HEADS_SIZE:
            _latest.popitem(last=False)


def _latest_kept(stream: int, key: str) -> _Kept | None:
    """The last head of this stream's key that this process kept, if it still keeps it."""
    with _shared_lock:
        head = _latest.get((stream, key))
        return None if head is None else _heads.get(head)


@dataclass
class _Split:
    """A value as its rows: each row's id (as text) with its row, in order, and where the rows
    sit in the value."""

    skeleton: dict | None  # the value with its rows' field as None (None: the value is Rows)
    at: str | None
    by: str
    ids: list
    rows: dict[str, Any]

    def head(self, marks: dict[str, _Mark]) -> str:
        # A mark is the head's own triple, encoded as it is: building a list per row cost a
        # GoRoD code a twentieth of its time (three 200-row heads).
        return encode({"$rows": self.by, "$at": self.at,
                       "$ids": list(map(marks.__getitem__, self.rows)), "head": self.skeleton})


def _split(key: str, value: Any) -> _Split | None:
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
    return _Split(skeleton, at, by, ids, by_id)


def _assembled(head: str, texts: dict[str, str]) -> str:
    """A stored row-by-row value's JSON text from its head part and its row parts' texts:
    what ``encode`` gives for the value (its other fields encoded in place, the rows joined
    in order)."""
    found = decode(head)
    rows = "[" + ",".join(texts[str(slot)] for _rid, _digest, slot in found["$ids"]) + "]"
    skeleton, at = found["head"], found["$at"]
    if skeleton is None:
        return rows
    return "{" + ",".join(f"{encode(k)}:{rows if k == at else encode(v)}"
                          for k, v in skeleton.items()) + "}"


def _with_rows(items: list[tuple[str, str]]) -> list[tuple[str, str]]:
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
    if not rows and not any(text.startswith(_HEAD) for _k, text in heads):
        return heads
    return [(key, _assembled(text, rows.get(key, {})) if text.startswith(_HEAD) else text)
            for key, text in heads]


def _head_marks(head: str) -> dict[str, _Mark]:
    return {str(rid): (rid, digest, slot) for rid, digest, slot in decode(head)["$ids"]}


def _rows_compared(split: _Split, head: str | None
                   ) -> tuple[str, dict[str, str], dict[str, _Mark], list[int]]:
    """A row-by-row value against its stored head (None: not stored row by row): the new
    head's text, the texts of the slots to write, every row's hash and slot, and the slots
    left empty. A row that is the very object of the stored value the build read
    (``_head_value``: read only, so the same object means the same text) is not encoded
    again."""
    stored: dict[str, _Mark] = {}
    previous: dict[str, Any] = {}
    if head is not None:
        kept = _kept(head)
        if kept is not None:
            stored, previous = kept.marks, kept.rows
        else:
            stored = _head_marks(head)
    # Most writes drop no row and add none: the set difference and the highest slot are
    # looked at only when they do.
    gone = stored.keys() - split.rows.keys()
    free = sorted((stored[rid][_SLOT] for rid in gone), reverse=True)
    after = None
    marks, writes = {}, {}
    for raw, (rid, value) in zip(split.ids, split.rows.items(), strict=True):
        mark = stored.get(rid)
        if mark is not None and previous.get(rid) is value:
            marks[rid] = mark
            continue
        text = encode(value)
        digest = _digest(text)
        if mark is None:
            if free:
                slot = free.pop()
            else:
                if after is None:
                    after = max((m[_SLOT] for m in stored.values()), default=-1) + 1
                slot, after = after, after + 1
        else:
            slot = mark[_SLOT]
            if mark[_DIGEST] == digest:
                marks[rid] = mark
                continue
        marks[rid] = (raw, digest, slot)
        writes[str(slot)] = text
    return split.head(marks), writes, marks, free


def _row_values(game_id: int, heads: list[tuple[int, str, str]]) -> dict[tuple[int, str], Any]:
    """The values of row-by-row parts ``(stream pk, key, head)`` whose heads are not kept, from
    their rows (then kept). When this process keeps an older head of the same part (another
    worker wrote since), only the rows whose hashes differ are read."""
    found = {}
    for pk, key, head in heads:
        parsed = decode(head)
        marks = {str(rid): (rid, digest, slot) for rid, digest, slot in parsed["$ids"]}
        old = _latest_kept(pk, key)
        if old is None:
            texts = {name.partition("/")[2]: text
                     for _pk, name, text in sql.rows(_rows_sql(1), [pk, _like(key)])}
            rows = {rid: decode(texts[str(mark[_SLOT])]) for rid, mark in marks.items()}
        else:
            need = {rid: f"{key}/{mark[_SLOT]}" for rid, mark in marks.items()
                    if (seen := old.marks.get(rid)) is None or seen[_DIGEST] != mark[_DIGEST]}
            texts = dict(sql.rows(_some_rows_sql(len(need)), [pk, *need.values()])
                         ) if need else {}
            rows = {rid: decode(texts[need[rid]]) if rid in need else old.rows[rid]
                    for rid in marks}
        listed = Rows([rows[str(rid)] for rid, *_mark in parsed["$ids"]], by=parsed["$rows"])
        at, skeleton = parsed["$at"], parsed["head"]
        value = listed if at is None else {k: listed if k == at else v
                                           for k, v in skeleton.items()}
        _keep_head(head, value, marks, rows, pk, key)
        found[pk, key] = value
    return found


def _whole_text(key: str, state: dict, texts: dict[str, str], splits: dict) -> str:
    """A key's value as JSON text (a row-by-row one's compared text is its head)."""
    return encode(state[key]) if key in splits else texts[key]


def _least_length(texts: dict[str, str], splits: dict[str, _Split]) -> int:
    """A lower bound of a whole state's text length, without encoding its row-by-row values:
    the other keys' texts, and for each row-by-row value its list (n values take at least
    ``2n + 1`` characters: one each, the commas, the brackets)."""
    return (sum(len(text) for key, text in texts.items() if key not in splits)
            + sum(2 * len(split.rows) + 1 for split in splits.values()))


def _stored_value(game_id: int, part: _Part, rows: dict[str, _Part] | None) -> Any:
    """A stored key's value, for a diff: its text parsed, or a row-by-row value kept, joined
    from its rows read with it (a whole state's) or read now."""
    if not part.text.startswith(_HEAD):
        return decode(part.text)
    value = _head_value(part.text)
    if value is not None:
        return value
    if rows is not None:
        return decode(_assembled(part.text, {rid: r.text for rid, r in rows.items()}))
    return _row_values(game_id, [(part.stream_id, part.key, part.text)])[
        part.stream_id, part.key]


def _like(key: str) -> str:
    """The LIKE pattern of ``key``'s row parts (``_`` is a wildcard there: escaped)."""
    return key.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "/%"


@dataclass
class Write:
    """One live write in progress: the locked game row, the moment it happens (taken after the
    lock), and what the action computed that the app's ``build`` may reuse (``memo``)."""

    game: Any
    now: datetime
    memo: dict = field(default_factory=dict)
    # The action found nothing to change (a retried submission): no build, no version.
    unchanged: bool = False
    # What the build read of the stored states (``read_values``), which ``publish`` compares
    # with instead of reading them again: the rows of ``_compared`` and the keys asked.
    read: list[tuple] = field(default_factory=list)
    asked: dict[str, set[str]] = field(default_factory=dict)
    # In a batch (``write(batch=True)``), the write applied before this one under the same
    # lock: what it read and left in its ``memo`` still holds, but for what it wrote itself
    # (each action need not read again what the previous one of the batch read).
    earlier: Write | None = field(default=None, repr=False)

    def read_values(self, wanted: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
        """``{audience: {key: value}}``: the stored values of some top-level keys of some
        audiences of this write's game (keys that are not stored are missing), **read only**
        (``shared``), kept for ``publish``: a build that reads the keys it will return as
        ``Parts`` spares the write its comparison query. Ask for every key the build will
        return, whether stored or not. A row-by-row value (``Rows``) costs its head alone
        when this process stored or read that head last."""
        wanted = {audience: list(keys) for audience, keys in wanted.items() if keys}
        if not wanted:
            return {}
        keys = sorted({key for keys in wanted.values() for key in keys})
        found: dict[str, dict[str, Any]] = {}
        unread: list[tuple[int, str, str]] = []
        where: dict[tuple[int, str], str] = {}
        for row in _compared(self.game.pk, [], list(wanted), keys):
            self.read.append(row)
            pk, audience, _v, part, key, _position, text = row
            if part is None or key not in wanted[audience]:
                continue
            if not text.startswith(_HEAD):
                found.setdefault(audience, {})[key] = shared(text)
                continue
            value = _head_value(text)
            if value is None:
                unread.append((pk, key, text))
                where[pk, key] = audience
            else:
                found.setdefault(audience, {})[key] = value
        for (pk, key), value in _row_values(self.game.pk, unread).items():
            found.setdefault(where[pk, key], {})[key] = value
        for audience, keys in wanted.items():
            self.asked.setdefault(audience, set()).update(keys)
        return found


@dataclass(frozen=True)
class Stored:
    """A stream's stored state: its version and the state's JSON text."""

    audience: str
    version: int
    text: str

    def envelope(self) -> str:
        """``{"version": N, "state": S}`` as JSON text: what a resync answers."""
        return f'{{"version":{self.version},"state":{self.text}}}'

    def data(self) -> dict:
        return {"version": self.version, "state": decode(self.text)}

    def response(self, status: int = 200, **extra: Any) -> HttpResponse:
        """The API's answer ``{"version", "state", "server_time", **extra}`` with the stored
        text spliced in as it is: a read never parses and re-encodes a state (the organizer's
        is hundreds of KiB at 200 teams)."""
        head = encode({"version": self.version, "server_time": timezone.now().isoformat(),
                       **extra})
        return HttpResponse(f'{head[:-1]},"state":{self.text}}}',
                            content_type="application/json", status=status)


@dataclass(frozen=True)
class LiveGame:
    """A game format's adapter to the live core."""

    name: str  # "koth", "gorod": the group prefix; the pushed type is "<name>.state"
    model: type
    # Settle the game (status, derived fields) and return {audience: state} for every audience
    # the write may have changed (all of them, or only the ones it touched).
    build: Callable[[Write], dict[str, dict]]
    # The refusal for a game id that has no live game of this format.
    missing: Callable[[int], DomainError]
    # Several writes applied in one batch (``write(batch=True)``) as the one write ``build``
    # takes: their memos merged, the latest moment. None: this format's writes never batch.
    merge: Callable[[list[Write]], Write] | None = None
    # Writes in one batch at the most: what one push of a batch may carry (``PUSH_LIMIT``).
    batch_most: int = 64

    @property
    def state_type(self) -> str:
        return f"{self.name}.state"

    def group(self, game_id: int, audience: str) -> str:
        return group_name(self.name, game_id, audience)

    def first_message(self, stored: Stored) -> str:
        """A socket's first message: the whole state when it is small; past ``PUSH_LIMIT``
        only its version with ``"resync": true``, and the page reads the state over HTTP (a
        200-team organizer's is over 500 KiB: never a socket message)."""
        return self.message(stored.version, stored.text)["text"]

    def message(self, version: int, text: str, change: str | None = None) -> dict:
        """The channel-layer message of one push; ``text`` is the client's JSON, built once
        per group rather than once per socket. With ``change`` (``core.delta``'s patch from
        version - 1, as JSON text) the push carries that patch instead of the whole state: a
        client at version - 1 applies it, any other reads the whole state over HTTP."""
        body = f'"state":{text}' if change is None else f'"delta":{change}'
        whole = f'{{"type":"{self.state_type}","version":{version},{body}}}'
        if len(whole) > PUSH_LIMIT // 4 and len(whole.encode()) > PUSH_LIMIT:
            # Past the limit only the version travels and the page reads the state over HTTP:
            # no socket message grows with the night (a tick that moves 150 teams at once).
            whole = self.resync_notice(version)
        return {"type": self.state_type, "version": version, "text": whole}

    def resync_notice(self, version: int) -> str:
        """``{"type", "version", "resync": true}``: the state is read over HTTP."""
        return encode({"type": self.state_type, "version": version, "resync": True})

    # --- writes -------------------------------------------------------------------------------

    @functools.cached_property
    def _locker(self) -> sql.Loader:
        return sql.Loader(self.model, "game")

    def lock(self, game) -> Any:
        """The game's row (with its ``teams.Game``), locked until the transaction ends."""
        game_id = game if isinstance(game, int) else game.pk
        if not sql.is_key(game_id):
            raise self.missing(game_id)
        # NO KEY UPDATE: writes still queue behind each other, but a row that merely references
        # the game (an attempt, a notice, a phone's socket) is inserted by another transaction
        # without waiting for the lock, so FK inserts cannot deadlock with it. Constant SQL:
        # every code and answer starts here, and the queryset's compilation cost more than the
        # query.
        found = self._locker.load(f"{self._locker.pk} = %s", [game_id], lock=True)
        if not found:
            raise self.missing(game_id)
        return found[0]

    def write(self, action: Callable[..., Any] | None = None, *, batch: bool = False
              ) -> Callable[..., Any]:
        """Turn ``action(w: Write, **kwargs)`` into the service ``f(*, game, now=None, **kwargs)``:
        one transaction, the game locked first, ``now`` taken after the lock (unless the caller
        gives the moment), the action, then ``publish``.

        ``batch=True`` (``@LIVE.write(batch=True)``: a phone's code or answer): calls that
        arrive while the game's previous write runs are applied together, in one transaction,
        each action in its own savepoint and at its own moment, with one build and one publish
        (``core.batch``, ``LIVE_BATCH``); each caller gets its own result or refusal. A caller
        that gives ``now`` or is inside a transaction already writes alone."""
        if action is None:
            return functools.partial(self.write, batch=batch)

        @functools.wraps(action)
        def service(*, game, now: datetime | None = None, **kwargs):
            if (batch and now is None and self.merge is not None and settings.LIVE_BATCH
                    and not transaction.get_connection().in_atomic_block):
                game_id = game if isinstance(game, int) else game.pk
                if sql.is_key(game_id):
                    return self._batcher.submit(
                        game_id, (action, kwargs, translation.get_language()))
            return self._write_one(action, game, now, kwargs)

        return service

    def _write_one(self, action: Callable[..., Any], game, now: datetime | None,
                   kwargs: dict) -> Any:
        with transaction.atomic():
            w = Write(game=self.lock(game), now=now)
            w.now = now or timezone.now()
            result = action(w, **kwargs)
            if not w.unchanged:
                self.publish(w)
        return result

    @functools.cached_property
    def _batcher(self) -> Batcher:
        return Batcher(self._run_batch, most=self.batch_most)

    def _run_batch(self, game_id: int, jobs: list[Job]) -> None:
        """One batch of a game's writes: one transaction and lock, each action in a savepoint
        (a refused or failing action leaves no trace and the others stand), then one build of
        the writes merged and one publish. Should the batch as a whole fail (the lock, the
        build), each job runs again alone, as it would have without the batch; a database that
        fails it (no connection in time, a lost server) fails each of its writes the same way,
        at once, rather than once per write."""
        if len(jobs) > 1:
            try:
                self._apply_together(game_id, jobs)
                return
            except DatabaseError as exc:
                for job in jobs:
                    job.result, job.error = None, exc
                return
            except Exception:  # noqa: BLE001 - nothing of the batch is stored: each alone
                log.info("a batch of %d writes of game %s failed; each runs alone", len(jobs),
                         game_id, exc_info=True)
        for job in jobs:
            action, kwargs, language = job.payload
            job.result, job.error = None, None
            try:
                with translation.override(language):
                    job.result = self._write_one(action, game_id, None, kwargs)
            except Exception as exc:  # noqa: BLE001 - raised in the caller's own thread
                job.error = exc

    def _apply_together(self, game_id: int, jobs: list[Job]) -> None:
        with transaction.atomic():
            game = self.lock(game_id)
            writes: list[Write] = []
            for job in jobs:
                action, kwargs, language = job.payload
                w = Write(game=game, now=timezone.now(), earlier=writes[-1] if writes else None)
                try:
                    with transaction.atomic(), translation.override(language):
                        job.result = action(w, **kwargs)
                except Exception as exc:  # noqa: BLE001 - this caller's refusal or error
                    job.error = exc
                    # The failed action may have changed the locked row's values in memory.
                    game = self.lock(game_id)
                    for done in writes:
                        done.game = game
                    continue
                if not w.unchanged:
                    writes.append(w)
            if writes:
                self.publish(writes[0] if len(writes) == 1 else self.merge(writes))

    def refresh(self, *, game, now: datetime | None = None) -> dict[str, int]:
        """Rebuild and store every audience's state (a change made outside the game, a game
        never published yet); pushes what changed."""
        with transaction.atomic():
            w = Write(game=self.lock(game), now=now)
            w.now = now or timezone.now()
            return self.publish(w)

    def publish(self, w: Write) -> dict[str, int]:
        """Build, compare with the stored states, store the changed ones with version + 1 and
        broadcast them after the commit; returns ``{audience: new version}`` of what changed.

        A state is compared and stored key by key (``LivePart``): only the keys whose text
        changed are written, and the push is the patch of those keys. A build that returns
        ``Parts`` for an audience gives only the keys it changed: the others are not even read.
        """
        game_id = w.game.pk
        states = self.build(w)
        # The streams and the parts to compare with, in one query: every part of a whole
        # state, only the given keys of ``Parts``.
        whole = [a for a, state in states.items() if not isinstance(state, Parts)]
        partial = [a for a, state in states.items() if isinstance(state, Parts)]
        streams: dict[str, _Stream] = {}
        old: dict[int, dict[str, _Part]] = {}
        # Audiences whose every returned key the build already read (``Write.read_values``)
        # are compared with those rows; the others are read now.
        known = {a for a in partial if set(states[a]) <= w.asked.get(a, set())}
        partial = [a for a in partial if a not in known]
        keys = {key for a in partial for key in states[a]}
        rows = [row for row in w.read if row[1] in known]
        if whole or partial:
            rows += _compared(game_id, whole, partial, sorted(keys))
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
        new_streams: list[tuple[LiveStream, dict, dict[str, str], dict[str, _Split]]] = []
        gone: list[int] = []
        parts: list[_Part] = []
        bumped: list[_Stream] = []
        messages: list[tuple[str, dict]] = []
        # Values by identity: the audiences' states share parts (each team's state holds the
        # public board), encoded once per write. Every value lives in ``states`` meanwhile.
        encoded: dict[int, str] = {}
        some_rows: list[tuple[int, str]] = []  # (stream, "key/slot"): row parts to delete
        all_rows: list[tuple[int, str]] = []  # (stream, key): every row part of the key
        for audience, state in states.items():
            row = streams.get(audience)
            splits = {key: found for key, value in state.items()
                      if (found := _split(key, value)) is not None}
            if row is None:
                if isinstance(state, Parts):
                    raise ValueError(f"{audience}: Parts for a stream never stored")
                texts = {key: encode(value) for key, value in state.items()}
                new_streams.append((LiveStream(game_id=game_id, audience=audience, version=1),
                                    state, texts, splits))
                messages.append((audience, 1, _joined(texts.items()), None))
                continue
            before = old.get(row.pk, {})
            before_rows = old_rows.get(row.pk, {})
            # A row-by-row value is compared by its head, which names every row's text.
            texts: dict[str, str] = {}
            row_parts: dict[str, dict[str, str]] = {}  # key -> {slot: new text}
            dropped: dict[str, list[int]] = {}  # key -> slots left empty
            marks: dict[str, dict[str, _Mark]] = {}
            for key, value in state.items():
                split = splits.get(key)
                if split is None:
                    text = encoded.get(id(value))
                    if text is None:
                        text = encoded[id(value)] = encode(value)
                    texts[key] = text
                    continue
                head = before[key].text if key in before else None
                texts[key], row_parts[key], marks[key], dropped[key] = _rows_compared(
                    split, head if head is not None and head.startswith(_HEAD) else None)
            for key, split in splits.items():
                _keep_head(texts[key], state[key], marks[key], split.rows, row.pk, key)
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
                sub = delta.diff(_stored_value(game_id, before[key], before_rows.get(key)),
                                 state[key])
                whole_value = {"=": state[key]}
                change["d"][key] = sub if sub is not None and len(encode(sub)) < len(
                    _whole_text(key, state, texts, splits)) + 6 else whole_value
            if removed:
                change["x"] = removed
            # A changed key's part is replaced in place (``_insert_parts_sql`` upserts); a
            # row-by-row value writes its head and its changed rows and drops the rows it no
            # longer has, or all of them when it is stored as one text now or removed.
            gone += [before[key].pk for key in removed]
            for key in changed:
                if key not in splits:
                    parts.append(_Part(None, row.pk, key, order[key], texts[key]))
                    if key in before and before[key].text.startswith(_HEAD):
                        all_rows.append((row.pk, key))
                    continue
                parts.append(_Part(None, row.pk, key, order[key], texts[key]))
                parts += [_Part(None, row.pk, f"{key}/{slot}", order[key], text)
                          for slot, text in row_parts[key].items()]
                some_rows += [(row.pk, f"{key}/{slot}") for slot in dropped[key]]
            all_rows += [(row.pk, key) for key in removed
                         if before[key].text.startswith(_HEAD)]
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
                text = _joined((key, _whole_text(key, state, texts, splits)) for key in texts)
                if len(change_text) >= len(text):
                    change_text = None
            messages.append((audience, row.version, text, change_text))
        if gone:
            sql.execute(_delete_parts_sql(len(gone)), gone)
        for start in range(0, len(some_rows), _INSERT_BATCH):
            batch = some_rows[start:start + _INSERT_BATCH]
            sql.execute(_delete_rows_sql(len(batch)), [value for pair in batch for value in pair])
        if all_rows:
            sql.execute(_delete_all_rows_sql(len(all_rows)),
                        [value for pk, key in all_rows for value in (pk, _like(key))])
        if bumped:
            # Every changed stream moves on by exactly one (the game is locked): one query.
            sql.execute(_bump_sql(len(bumped)), [row.pk for row in bumped])
        if new_streams:
            created = LiveStream.objects.bulk_create([row for row, *_rest in new_streams])
            for row, (_r, value_of, texts, splits) in zip(created, new_streams, strict=True):
                for position, (key, text) in enumerate(texts.items()):
                    split = splits.get(key)
                    if split is None:
                        parts.append(_Part(None, row.pk, key, position, text))
                        continue
                    rows = [encode(value) for value in split.rows.values()]
                    marks = {rid: (raw, _digest(text), slot) for slot, (raw, rid, text)
                             in enumerate(zip(split.ids, split.rows, rows, strict=True))}
                    head = split.head(marks)
                    _keep_head(head, value_of[key], marks, split.rows, row.pk, key)
                    parts.append(_Part(None, row.pk, key, position, head))
                    parts += [_Part(None, row.pk, f"{key}/{slot}", position, text)
                              for slot, text in enumerate(rows)]
        for start in range(0, len(parts), _INSERT_BATCH):
            batch = parts[start:start + _INSERT_BATCH]
            sql.execute(_insert_parts_sql(len(batch)), [
                value for p in batch for value in (p.stream_id, p.key, p.position, p.text)])
        if messages:
            transaction.on_commit(functools.partial(broadcast, [
                (self.group(game_id, audience), self.message(version, text, change))
                for audience, version, text, change in messages]))
        return {audience: version for audience, version, _t, _c in messages}

    # --- reads --------------------------------------------------------------------------------

    def read_by_id(self, game_id: int, audience: str) -> Stored | None:
        """A screen's stored state from the game's id alone, in one query (no game row: the
        projector's and statistics page's reads, the most frequent); None when there is no
        such game of this format or no such audience."""
        game_format = _FORMAT_OF.get(self.name)
        if game_format is not None:
            found = _stored_many(game_id, [audience], game_format=game_format).get(audience)
            if found is not None:
                return found
        if not self.model.objects.filter(pk=game_id).exists():
            return None
        return self.read(game_id, audience)

    def read(self, game_id: int, audience: str) -> Stored | None:
        """The stored state of one audience; None when the game has no such audience (a team
        that does not play). A game never published (created before the live core stored
        states) is published once first."""
        row = _stored(game_id, audience)
        if row is None and not LiveStream.objects.filter(game_id=game_id).exists():
            self.refresh(game=game_id)
            row = _stored(game_id, audience)
        return row


class Parts(dict):
    """What a build returns for an audience when it changed only some top-level keys of the
    state: those keys and their new values; the others keep their stored value and are not
    read. Only for an audience already stored (``stored_parts`` says whether it is).

    ``patches``: for a key the build knows how it changed, ``core.delta``'s patch from the
    stored value, pushed as it is instead of diffing the two (a re-ranked table of hundreds of
    KiB whose changed rows the build already has)."""

    def __init__(self, *args, patches: dict[str, dict] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.patches = patches or {}


def _joined(items) -> str:
    """The state's JSON text from its keys' texts, in order."""
    return "{" + ",".join(f"{encode(key)}:{text}" for key, text in items) + "}"


def stored_texts(game_id: int, audiences) -> dict[str, str]:
    """The stored state texts of these audiences (one query): what a build that touches a few
    audiences compares with or reuses of the others'."""
    return {audience: stored.text for audience, stored in _stored_many(
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
        params += [audience, *keys, *map(_like, keys)]
    items: dict[str, list[tuple[str, str]]] = {}
    for audience, key, text in sql.rows(_parts_sql(tuple(len(k) for k in wanted.values())),
                                     params):
        if key.partition("/")[0] in wanted[audience]:
            items.setdefault(audience, []).append((key, text))
    return {audience: dict(_with_rows(parts)) for audience, parts in items.items()}


# The hot reads and the write's comparison as constant SQL texts: every read (a projector's
# poll, a resync, a socket's first message) and every write runs one, and the ORM spent more
# time building these joins than the database spent answering them (a third of a public read).
_Q, _marks = sql.q, sql.marks  # the same quoting on SQLite and PostgreSQL (``core.sql``)
_STREAM, _PART = LiveStream._meta.db_table, LivePart._meta.db_table


def _keys_sql(n: int) -> str:
    """The parts of ``n`` keys: the keys' own and their rows (``Rows``); parameters: the keys,
    then their ``_like`` patterns."""
    rows = " OR ".join([f"p.{_Q('key')} LIKE %s ESCAPE '!'"] * n)
    return f"(p.{_Q('key')} IN ({_marks(n)}) OR {rows})"


@functools.lru_cache(maxsize=256)
def _parts_sql(key_counts: tuple[int, ...]) -> str:
    which = " OR ".join(f"(s.{_Q('audience')} = %s AND {_keys_sql(n)})" for n in key_counts)
    return (f"SELECT s.{_Q('audience')}, p.{_Q('key')}, p.{_Q('text')} FROM {_Q(_PART)} p "
            f"INNER JOIN {_Q(_STREAM)} s ON s.{_Q('id')} = p.{_Q('stream_id')} "
            f"WHERE s.{_Q('game_id')} = %s AND ({which})")


def _compared(game_id: int, whole: list[str], partial: list[str], keys: list[str]
              ) -> list[tuple]:
    """The streams of a write's audiences and the parts it compares with: every part of a
    whole state, only ``keys`` of a partial one (a stream whose asked keys are all new still
    comes back, with no part)."""
    if not whole and not partial:
        return []
    return sql.rows(_compared_sql(len(whole), len(partial), len(keys)),
                 [*whole, *keys, game_id, *whole, *partial])


@functools.lru_cache(maxsize=256)
def _compared_sql(whole: int, partial: int, keys: int) -> str:
    joined = []
    if whole:
        joined.append(f"s.{_Q('audience')} IN ({_marks(whole)})")
    if keys:
        joined.append(f"p.{_Q('key')} IN ({_marks(keys)})")
    on = f" AND ({' OR '.join(joined)})" if joined else " AND 1 = 0"
    return (f"SELECT s.{_Q('id')}, s.{_Q('audience')}, s.{_Q('version')}, p.{_Q('id')}, "
            f"p.{_Q('key')}, p.{_Q('position')}, p.{_Q('text')} FROM {_Q(_STREAM)} s "
            f"LEFT OUTER JOIN {_Q(_PART)} p ON p.{_Q('stream_id')} = s.{_Q('id')}{on} "
            f"WHERE s.{_Q('game_id')} = %s AND s.{_Q('audience')} IN ({_marks(whole + partial)})")


# A write's own statements, constant too (the ORM's delete alone collected the rows first).
_INSERT_BATCH = 200  # 800 parameters: under SQLite's limit of 999 on old builds


@functools.lru_cache(maxsize=64)
def _delete_parts_sql(n: int) -> str:
    return f"DELETE FROM {_Q(_PART)} WHERE {_Q('id')} IN ({_marks(n)})"


def _rows_where(n: int, like: bool) -> str:
    key = f"{_Q('key')} LIKE %s ESCAPE '!'" if like else f"{_Q('key')} = %s"
    return " OR ".join([f"({_Q('stream_id')} = %s AND {key})"] * n)


@functools.lru_cache(maxsize=64)
def _rows_sql(n: int) -> str:
    """The row parts of ``n`` row-by-row values: ``(stream, _like(key))`` each."""
    return (f"SELECT {_Q('stream_id')}, {_Q('key')}, {_Q('text')} FROM {_Q(_PART)} "
            f"WHERE {_rows_where(n, True)}")


@functools.lru_cache(maxsize=64)
def _some_rows_sql(n: int) -> str:
    """Some row parts of one stream: its id, then ``n`` part keys."""
    return (f"SELECT {_Q('key')}, {_Q('text')} FROM {_Q(_PART)} "
            f"WHERE {_Q('stream_id')} = %s AND {_Q('key')} IN ({_marks(n)})")


@functools.lru_cache(maxsize=64)
def _delete_rows_sql(n: int) -> str:
    """Delete ``n`` row parts: ``(stream, "key/slot")`` each."""
    return f"DELETE FROM {_Q(_PART)} WHERE {_rows_where(n, False)}"


@functools.lru_cache(maxsize=64)
def _delete_all_rows_sql(n: int) -> str:
    """Delete every row part of ``n`` keys: ``(stream, _like(key))`` each."""
    return f"DELETE FROM {_Q(_PART)} WHERE {_rows_where(n, True)}"


@functools.lru_cache(maxsize=64)
def _bump_sql(n: int) -> str:
    return (f"UPDATE {_Q(_STREAM)} SET {_Q('version')} = {_Q('version')} + 1 "
            f"WHERE {_Q('id')} IN ({_marks(n)})")


@functools.lru_cache(maxsize=256)
def _insert_parts_sql(n: int) -> str:
    """New parts and changed ones in one statement: a stream's key that is stored already
    takes its new text and place (SQLite and PostgreSQL both upsert on the unique key)."""
    columns = ", ".join(_Q(c) for c in ("stream_id", "key", "position", "text"))
    return (f"INSERT INTO {_Q(_PART)} ({columns}) VALUES "
            + ", ".join(["(%s, %s, %s, %s)"] * n)
            + f" ON CONFLICT ({_Q('stream_id')}, {_Q('key')}) DO UPDATE SET "
            f"{_Q('position')} = excluded.{_Q('position')}, {_Q('text')} = excluded.{_Q('text')}")


def streams_stored(game_id: int, audiences: list[str]) -> bool:
    """Every one of these audiences has a stored state (``Parts`` may be built for them)."""
    return LiveStream.objects.filter(game_id=game_id, audience__in=audiences).count() == len(
        set(audiences))


def stream_versions(game_id: int) -> dict[str, int]:
    """Every audience's current version (tests, the admin, benchmarks)."""
    return dict(LiveStream.objects.filter(game_id=game_id).values_list("audience", "version"))


def stored_streams(game_id: int) -> dict[str, Stored]:
    """Every audience's stored state (tests, benchmarks)."""
    return _stored_many(game_id, None)


def _stored_many(game_id: int, audiences: list[str] | None,
                 game_format: str | None = None) -> dict[str, Stored]:
    if audiences is not None and not audiences:
        return {}
    params: list[Any] = [game_id]
    if game_format is not None:
        params.append(game_format)
    params += audiences or []
    found: dict[str, tuple[int, list]] = {}
    for audience, version, key, text in sql.rows(
            _stored_sql(game_format is not None,
                        None if audiences is None else len(audiences)), params):
        entry = found.setdefault(audience, (version, []))
        if key is not None:
            entry[1].append((key, text))
    return {audience: Stored(audience, version, _joined(_with_rows(items)))
            for audience, (version, items) in found.items()}


@functools.lru_cache(maxsize=64)
def _stored_sql(by_format: bool, audiences: int | None) -> str:
    text = (f"SELECT s.{_Q('audience')}, s.{_Q('version')}, p.{_Q('key')}, p.{_Q('text')} "
            f"FROM {_Q(_STREAM)} s LEFT OUTER JOIN {_Q(_PART)} p "
            f"ON p.{_Q('stream_id')} = s.{_Q('id')} ")
    if by_format:
        game = LiveStream._meta.get_field("game").related_model._meta.db_table
        text += f"INNER JOIN {_Q(game)} g ON g.{_Q('id')} = s.{_Q('game_id')} "
    text += f"WHERE s.{_Q('game_id')} = %s "
    if by_format:
        text += f"AND g.{_Q('format')} = %s "
    if audiences is not None:
        text += f"AND s.{_Q('audience')} IN ({_marks(audiences)}) "
    return text + f"ORDER BY s.{_Q('audience')}, p.{_Q('position')}"


def _stored(game_id: int, audience: str) -> Stored | None:
    return _stored_many(game_id, [audience]).get(audience)


def broadcast(messages: list[tuple[str, dict]]) -> int:
    """Send after a commit; a failure is logged, never raised (the write is stored and every
    screen catches up on its next push or resync)."""
    try:
        return send_to_groups(messages)
    except Exception:  # noqa: BLE001 - any layer failure (Redis down, full channel) is the same
        log.exception("live broadcast of %d messages failed; screens resync", len(messages))
        return 0


# --- the formats' adapters, for changes made outside a game ----------------------------------

_BY_FORMAT: dict[str, LiveGame] = {}
_FORMAT_OF: dict[str, str] = {}  # adapter name -> teams.Game.format


def register(game_format: str, app: LiveGame) -> None:
    """Called by each game app's ``ready()``: its adapter for ``teams.Game.format``."""
    _BY_FORMAT[game_format] = app
    _FORMAT_OF[app.name] = game_format


def refresh_games(games) -> int:
    """Refresh the live screens of these ``teams.Game`` rows (e.g. a team was renamed); games
    without a live game of their format are skipped. Returns how many were refreshed."""
    count = 0
    for game in games:
        app = _BY_FORMAT.get(game.format)
        if app is None or not app.model.objects.filter(pk=game.pk).exists():
            continue
        app.refresh(game=game.pk)
        count += 1
    return count
