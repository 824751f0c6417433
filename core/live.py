"""The one live pipeline of both games (King of the Hill, GoRoD): write, store, broadcast, read.

Every live write goes through ``LiveGame.write``: it opens the game's transaction, locks the game
row, and only then takes ``now`` (so a write that waited for the lock is stamped when it really
happens, never before a write that was applied earlier). The app's action appends its event;
then the app's ``build`` settles the game with its pure rules module and returns the states of
the audiences the write can change (every audience, or only the few it touched: the others
keep their stored state), each whole or as ``Parts`` (only the top-level keys the write changed:
a GoRoD code gives the organizer's attempt log and team list, never its statistics table).
States are stored key by key (``core.models.LiveStream`` and ``LivePart``): each key's value is
encoded once and compared with its stored text; an audience with a changed key is stored with
``version + 1`` — version N always means state N — and only such audiences are broadcast, after
the commit, each as the patch of its changed keys from its previous version (``core.delta``)
when that is smaller than the state, so a push carries what changed. Which streams changed is
never listed at a call site. A broadcast that fails is logged and never turns a committed write
into an error: screens catch up on their next push or resync.

Reads (HTTP resync, a socket's first message) serve the stored keys joined; they never
recompute.

An app supplies only its adapter (``LiveGame``): its name (group and message prefix), its game
model, its ``build`` and the error for an unknown game; it registers the adapter for its
``teams.Game`` format so a change outside the game (a team renamed) can refresh its screens.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from django.db import transaction
from django.http import HttpResponse
from django.utils import timezone

from core import delta, sql
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
_SHARED_SIZE = 24
_shared: OrderedDict[str, Any] = OrderedDict()
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
        _shared[text] = value
        _shared.move_to_end(text)
        while len(_shared) > _SHARED_SIZE:
            _shared.popitem(last=False)


def forget_shared() -> None:
    with _shared_lock:
        _shared.clear()


@dataclass
class Write:
    """One live write in progress: the locked game row, the moment it happens (taken after the
    lock), and what the action computed that the app's ``build`` may reuse (``memo``)."""

    game: Any
    now: datetime
    memo: dict = field(default_factory=dict)
    # The action found nothing to change (a retried submission): no build, no version.
    unchanged: bool = False
    # What the build read of the stored states (``read_parts``), which ``publish`` compares
    # with instead of reading them again: the rows of ``_compared`` and the keys asked.
    read: list[tuple] = field(default_factory=list)
    asked: dict[str, set[str]] = field(default_factory=dict)

    def read_parts(self, wanted: dict[str, list[str]]) -> dict[str, dict[str, str]]:
        """``stored_parts`` of this write's game, kept for ``publish``: a build that reads the
        keys it will return as ``Parts`` spares the write its comparison query. Ask for every
        key the build will return, whether stored or not."""
        wanted = {audience: list(keys) for audience, keys in wanted.items() if keys}
        if not wanted:
            return {}
        keys = sorted({key for keys in wanted.values() for key in keys})
        found: dict[str, dict[str, str]] = {}
        for row in _compared(self.game.pk, [], list(wanted), keys):
            self.read.append(row)
            _pk, audience, _v, part, key, _position, text = row
            if part is not None and key in wanted[audience]:
                found.setdefault(audience, {})[key] = text
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

    def write(self, action: Callable[..., Any]) -> Callable[..., Any]:
        """Turn ``action(w: Write, **kwargs)`` into the service ``f(*, game, now=None, **kwargs)``:
        one transaction, the game locked first, ``now`` taken after the lock (unless the caller
        gives the moment), the action, then ``publish``."""

        @functools.wraps(action)
        def service(*, game, now: datetime | None = None, **kwargs):
            with transaction.atomic():
                w = Write(game=self.lock(game), now=now)
                w.now = now or timezone.now()
                result = action(w, **kwargs)
                if not w.unchanged:
                    self.publish(w)
            return result

        return service

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
        streams: dict[str, LiveStream] = {}
        old: dict[int, dict[str, LivePart]] = {}
        # Audiences whose every returned key the build already read (``Write.read_parts``)
        # are compared with those rows; the others are read now.
        known = {a for a in partial if set(states[a]) <= w.asked.get(a, set())}
        partial = [a for a in partial if a not in known]
        keys = {key for a in partial for key in states[a]}
        rows = [row for row in w.read if row[1] in known]
        if whole or partial:
            rows += _compared(game_id, whole, partial, sorted(keys))
        for pk, audience, version, part, key, position, text in rows:
            if audience not in streams:
                streams[audience] = LiveStream(pk=pk, game_id=game_id, audience=audience,
                                               version=version)
            if part is not None:
                old.setdefault(pk, {})[key] = LivePart(pk=part, stream_id=pk, key=key,
                                                       position=position, text=text)
        new_streams: list[tuple[LiveStream, dict[str, str]]] = []
        gone: list[int] = []
        parts: list[LivePart] = []
        bumped: list[LiveStream] = []
        messages: list[tuple[str, dict]] = []
        for audience, state in states.items():
            texts = {key: encode(value) for key, value in state.items()}
            row = streams.get(audience)
            if row is None:
                if isinstance(state, Parts):
                    raise ValueError(f"{audience}: Parts for a stream never stored")
                new_streams.append((LiveStream(game_id=game_id, audience=audience, version=1),
                                    texts))
                messages.append((audience, 1, _joined(texts.items()), None))
                continue
            before = old.get(row.pk, {})
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
                sub = delta.diff(decode(before[key].text), state[key])
                whole_value = {"=": state[key]}
                change["d"][key] = sub if sub is not None and len(encode(sub)) < len(
                    texts[key]) + 6 else whole_value
            if removed:
                change["x"] = removed
            # A changed key's row is replaced in place (``_insert_parts_sql`` upserts).
            gone += [before[key].pk for key in removed]
            parts += [LivePart(stream_id=row.pk, key=key, position=order[key], text=texts[key])
                      for key in changed]
            for key in changed:
                remember(texts[key], state[key])
            row.version += 1
            bumped.append(row)
            change_text = encode(change)
            text = None
            if not isinstance(state, Parts):
                text = _joined((key, texts[key]) for key in texts)
                if len(change_text) >= len(text):
                    change_text = None
            messages.append((audience, row.version, text, change_text))
        if gone:
            sql.execute(_delete_parts_sql(len(gone)), gone)
        if bumped:
            # Every changed stream moves on by exactly one (the game is locked): one query.
            sql.execute(_bump_sql(len(bumped)), [row.pk for row in bumped])
        if new_streams:
            created = LiveStream.objects.bulk_create([row for row, _t in new_streams])
            for row, (_r, texts) in zip(created, new_streams, strict=True):
                parts += [LivePart(stream_id=row.pk, key=key, position=position, text=text)
                          for position, (key, text) in enumerate(texts.items())]
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
        params += [audience, *keys]
    found: dict[str, dict[str, str]] = {}
    for audience, key, text in sql.rows(_parts_sql(tuple(len(k) for k in wanted.values())),
                                     params):
        found.setdefault(audience, {})[key] = text
    return found


# The hot reads and the write's comparison as constant SQL texts: every read (a projector's
# poll, a resync, a socket's first message) and every write runs one, and the ORM spent more
# time building these joins than the database spent answering them (a third of a public read).
_Q, _marks = sql.q, sql.marks  # the same quoting on SQLite and PostgreSQL (``core.sql``)
_STREAM, _PART = LiveStream._meta.db_table, LivePart._meta.db_table


@functools.lru_cache(maxsize=256)
def _parts_sql(key_counts: tuple[int, ...]) -> str:
    which = " OR ".join(f"(s.{_Q('audience')} = %s AND p.{_Q('key')} IN ({_marks(n)}))"
                        for n in key_counts)
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
    return {audience: Stored(audience, version, _joined(items))
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
