"""The one live pipeline of both games (King of the Hill, GoRoD): write, store, broadcast, read.

Every live write goes through ``LiveGame.write``: it opens the game's transaction, locks the
game row, and only then takes ``now`` (so a write that waited for the lock is stamped when it
really happens, never before a write that was applied earlier). The app's action appends its
event; then the app's ``settle`` (its services) makes the stored game follow its pure rules at
``now`` (a game the engine says is over finishes, the next question opens, the clock's next
deadline is stored) and hands what it computed to the app's ``build`` (its states module), which
only renders: it returns the states of the audiences the write can change (every audience, or
only the few it touched: the others keep their stored state), each whole or as ``Parts`` (only
the top-level keys the write changed: a GoRoD code gives the organizer's attempt log and team
list, never its statistics table). States are stored key by key (``live.models.LiveStream`` and
``LivePart``; ``live.store``): each key's value is encoded once and compared with its stored
text — a long list of rows (``Rows``: a GoRoD organizer's statistics, team list and attempt log)
row by row under a head that names each row's text by its hash, so a write stores and reads the
rows it changed, not the list; an audience with a changed key is stored with ``version + 1`` —
version N always means state N — and only such audiences are broadcast, after the commit, each
as the patch of its changed keys from its previous version (``live.delta``) when that is smaller
than the state, so a push carries what changed. Which streams changed is never listed at a call
site. A broadcast that fails is logged and never turns a committed write into an error: screens
catch up on their next push or resync.

A phone's writes (``write(batch=True)``) that arrive while the game's previous write runs are
applied together (``live.batch``: group commit): one transaction, each action in its own
savepoint, one build of the writes merged by the app (``LiveGame.merge``) and one publish.

Reads (HTTP resync, a socket's first message) serve the stored keys joined; they never
recompute.

An app supplies only its adapter (``LiveGame``): its name (group and message prefix), its game
model, its ``settle`` and ``build`` and the error for an unknown game; it registers the adapter
for its ``teams.Game`` format so a change outside the game (a team renamed) can refresh its
screens.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone, translation

from core import sql
from core.errors import DomainError
from live import messages, registry, store
from live.batch import Batcher, Job
from live.caches import head_value, shared
from live.codec import encode
from live.messages import PUSH_LIMIT, Stored, group_name
from live.queries import compared
from live.rows import HEAD, row_values
from live.store import stored_many, stored_one

log = logging.getLogger(__name__)

@dataclass
class Write:
    """One live write in progress: the locked game row, the moment it happens (taken after the
    lock), and what the action changed, as the app's ``build`` dispatches on it: ``change``,
    one of the app's typed changes (``kingofhill.changes``, ``gorod.changes``), None for a
    refresh."""

    game: Any
    now: datetime
    change: Any = None
    # The action found nothing to change (a retried submission): no build, no version.
    unchanged: bool = False
    # What the build read of the stored states (``read_values``), which ``publish`` compares
    # with instead of reading them again: the rows of ``compared`` and the keys asked.
    read: list[tuple] = field(default_factory=list)
    asked: dict[str, set[str]] = field(default_factory=dict)
    # In a batch (``write(batch=True)``), the write applied before this one under the same
    # lock: what it read and left in its ``change`` still holds, but for what it wrote itself
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
        for row in compared(self.game.pk, [], list(wanted), keys):
            self.read.append(row)
            pk, audience, _v, part, key, _position, text = row
            if part is None or key not in wanted[audience]:
                continue
            if not text.startswith(HEAD):
                found.setdefault(audience, {})[key] = shared(text)
                continue
            value = head_value(text)
            if value is None:
                unread.append((pk, key, text))
                where[pk, key] = audience
            else:
                found.setdefault(audience, {})[key] = value
        for (pk, key), value in row_values(self.game.pk, unread).items():
            found.setdefault(where[pk, key], {})[key] = value
        for audience, keys in wanted.items():
            self.asked.setdefault(audience, set()).update(keys)
        return found


Settled = TypeVar("Settled")


@dataclass(frozen=True)
class LiveGame(Generic[Settled]):
    """A game format's adapter to the live core."""

    name: str  # "koth", "gorod": the group prefix; the pushed type is "<name>.state"
    model: type
    # The app's services: make the locked game follow its rules at ``w.now`` (the only writes
    # after the action: status, the next question, the clock's deadline) and return what was
    # computed for it (a snapshot, the moved teams' rows) for ``build``.
    settle: Callable[[Write], Settled]
    # The app's states: {audience: state} for every audience the write may have changed (all
    # of them, or only the ones it touched), rendered from what ``settle`` computed. Only reads.
    build: Callable[[Write, Settled], dict[str, dict]]
    # The refusal for a game id that has no live game of this format.
    missing: Callable[[int], DomainError]
    # Several writes applied in one batch (``write(batch=True)``) as the one write ``build``
    # takes: their changes merged, the latest moment. None: this format's writes never batch.
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
        per group rather than once per socket. With ``change`` (``live.delta``'s patch from
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
        (``live.batch``, ``LIVE_BATCH``); each caller gets its own result or refusal. A caller
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
        return Batcher(self.run_batch, most=self.batch_most)

    def waiting(self, game_id: int) -> int:
        """The game's writes queued behind its running batch (``batch=True`` writes)."""
        return self._batcher.waiting(game_id)

    def run_batch(self, game_id: int, jobs: list[Job]) -> None:
        """One batch of a game's writes: one transaction and lock, each action in a savepoint
        (a refused or failing action leaves no trace and the others stand), then one build of
        the writes merged and one publish. Should the batch as a whole fail (the lock, the
        build), each job runs again alone, as it would have without the batch; a database that
        fails it (no connection in time, a lost server) fails each of its writes the same way,
        at once, rather than once per write. (Public: tests apply a batch of their choosing
        with it, in one thread, instead of racing threads to form one.)"""
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

    def states(self, w: Write) -> dict[str, dict]:
        """Settle the game, then build the states of the audiences the write may change."""
        return self.build(w, self.settle(w))

    def publish(self, w: Write) -> dict[str, int]:
        """Settle and build, compare with the stored states and store the changed ones with
        version + 1 (``live.store``), and push them after the commit; returns ``{audience: new
        version}`` of what changed."""
        game_id = w.game.pk
        changes = store.compare_and_store(game_id, self.states(w), w.read, w.asked)
        if changes:
            transaction.on_commit(functools.partial(messages.broadcast, [
                (self.group(game_id, audience), self.message(version, text, change))
                for audience, version, text, change in changes]))
        return {audience: version for audience, version, _t, _c in changes}

    # --- reads --------------------------------------------------------------------------------

    def read_by_id(self, game_id: int, audience: str) -> Stored | None:
        """A screen's stored state from the game's id alone, in one query (no game row: the
        projector's and statistics page's reads, the most frequent); None when there is no
        such game of this format or no such audience."""
        game_format = registry.format_of(self.name)
        if game_format is not None:
            return stored_many(game_id, [audience], game_format=game_format).get(audience)
        if not self.model.objects.filter(pk=game_id).exists():
            return None
        return self.read(game_id, audience)

    def read(self, game_id: int, audience: str) -> Stored | None:
        """The stored state of one audience; None when the game has no such audience (a team
        that does not play). A read only reads: a game is published when it is created, and
        one created before the live core stored states is published at ``migrate``
        (``live.registry.publish_unpublished``), never by a GET."""
        return stored_one(game_id, audience)
