"""The one live pipeline of both games (King of the Hill, GoRoD): write, store, broadcast, read.

Every live write goes through ``LiveGame.write``: it opens the game's transaction, locks the game
row, and only then takes ``now`` (so a write that waited for the lock is stamped when it really
happens, never before a write that was applied earlier). The app's action appends its event;
then the app's ``build`` settles the game with its pure rules module and returns the states of
the audiences the write can change (every audience, or only the few it touched: the others
keep their stored text). Each state is encoded once and compared with the audience's stored text
(``core.models.LiveStream``): only the changed ones are stored with ``version + 1`` — version N
always means state N — and only they are broadcast, after the commit — each as the patch from its previous version
(``core.delta``) when that is smaller than the state, so a push carries what changed. Which streams changed is
never listed at a call site. A broadcast that fails is logged and never turns a committed write
into an error: screens catch up on their next push or resync.

Reads (HTTP resync, a socket's first message) serve the stored text; they never recompute.

An app supplies only its adapter (``LiveGame``): its name (group and message prefix), its game
model, its ``build`` and the error for an unknown game; it registers the adapter for its
``teams.Game`` format so a change outside the game (a team renamed) can refresh its screens.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from core import delta
from core.errors import DomainError
from core.models import LiveStream
from core.realtime import send_to_groups

log = logging.getLogger(__name__)

PUBLIC = "public"


def team_audience(application_id: int) -> str:
    """The audience of one team's phones."""
    return f"team:{application_id}"


def group_name(app_name: str, game_id: int, audience: str) -> str:
    """``koth.7.public``, ``gorod.7.team.12``: the channel-layer group of one audience (group
    names allow no colon)."""
    return f"{app_name}.{game_id}.{audience.replace(':', '.')}"


def encode(value: Any) -> str:
    """The one JSON encoding of states: compact, UTF-8 kept, deterministic for equal dicts
    built in the same order (which is what the comparison relies on)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass
class Write:
    """One live write in progress: the locked game row, the moment it happens (taken after the
    lock), and what the action computed that the app's ``build`` may reuse (``memo``)."""

    game: Any
    now: datetime
    memo: dict = field(default_factory=dict)
    # The action found nothing to change (a retried submission): no build, no version.
    unchanged: bool = False


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
        return {"version": self.version, "state": json.loads(self.text)}


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

    def message(self, version: int, text: str, change: str | None = None) -> dict:
        """The channel-layer message of one push; ``text`` is the client's JSON, built once
        per group rather than once per socket. With ``change`` (``core.delta``'s patch from
        version - 1, as JSON text) the push carries that patch instead of the whole state: a
        client at version - 1 applies it, any other reads the whole state over HTTP."""
        body = f'"state":{text}' if change is None else f'"delta":{change}'
        return {"type": self.state_type, "version": version,
                "text": f'{{"type":"{self.state_type}","version":{version},{body}}}'}

    # --- writes -------------------------------------------------------------------------------

    def lock(self, game) -> Any:
        game_id = game if isinstance(game, int) else game.pk
        try:
            # NO KEY UPDATE: writes still queue behind each other, but a row that merely
            # references the game (an attempt, a notice, a phone's socket) is inserted by another
            # transaction without waiting for the lock, so FK inserts cannot deadlock with it.
            return (self.model.objects.select_for_update(no_key=True).select_related("game")
                    .get(pk=game_id))
        except (self.model.DoesNotExist, ValueError, TypeError, OverflowError):
            raise self.missing(game_id) from None

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

    def refresh(self, *, game, now: datetime | None = None) -> list[Stored]:
        """Rebuild and store every audience's state (a change made outside the game, a game
        never published yet); pushes what changed."""
        with transaction.atomic():
            w = Write(game=self.lock(game), now=now)
            w.now = now or timezone.now()
            return self.publish(w)

    def publish(self, w: Write) -> list[Stored]:
        """Build, compare with the stored states, store the changed ones with version + 1 and
        broadcast them after the commit; returns what changed."""
        game_id = w.game.pk
        states = self.build(w)
        texts = {audience: encode(state) for audience, state in states.items()}
        # A build may return only the audiences the write touched: the others keep their
        # stored text and version, and their rows are not even read.
        stored = {row.audience: row for row in LiveStream.objects.filter(
            game_id=game_id, audience__in=list(texts))}
        created, updated = [], []
        deltas: dict[str, str] = {}
        for audience, text in texts.items():
            row = stored.get(audience)
            if row is None:
                created.append(LiveStream(game_id=game_id, audience=audience, version=1,
                                          text=text))
            elif row.text != text:
                change = encode(delta.diff(json.loads(row.text), states[audience]))
                if len(change) < len(text):
                    deltas[audience] = change
                row.version += 1
                row.text = text
                updated.append(row)
        if updated:
            # Replaced rather than updated: two queries however many streams changed (a close
            # changes every team's), where bulk_update's CASE over large texts is slow and
            # one UPDATE per stream is a query per team.
            LiveStream.objects.filter(pk__in=[row.pk for row in updated]).delete()
            created += [LiveStream(game_id=game_id, audience=row.audience, version=row.version,
                                   text=row.text) for row in updated]
        if created:
            LiveStream.objects.bulk_create(created)
        changed = [Stored(row.audience, row.version, row.text) for row in created]
        if changed:
            messages = [(self.group(game_id, s.audience),
                         self.message(s.version, s.text, deltas.get(s.audience)))
                        for s in changed]
            transaction.on_commit(functools.partial(broadcast, messages))
        return changed

    # --- reads --------------------------------------------------------------------------------

    def read(self, game_id: int, audience: str) -> Stored | None:
        """The stored state of one audience; None when the game has no such audience (a team
        that does not play). A game never published (created before the live core stored
        states) is published once first."""
        row = _stored(game_id, audience)
        if row is None and not LiveStream.objects.filter(game_id=game_id).exists():
            self.refresh(game=game_id)
            row = _stored(game_id, audience)
        return row


def stored_texts(game_id: int, audiences) -> dict[str, str]:
    """The stored state texts of these audiences (one query): what a build that touches a few
    audiences reuses of the others'."""
    return dict(LiveStream.objects.filter(game_id=game_id, audience__in=list(audiences))
                .values_list("audience", "text"))


def stream_versions(game_id: int) -> dict[str, int]:
    """Every audience's current version (tests, the admin, benchmarks)."""
    return dict(LiveStream.objects.filter(game_id=game_id).values_list("audience", "version"))


def _stored(game_id: int, audience: str) -> Stored | None:
    found = (LiveStream.objects.filter(game_id=game_id, audience=audience)
             .values_list("version", "text").first())
    return None if found is None else Stored(audience, found[0], found[1])


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


def register(game_format: str, app: LiveGame) -> None:
    """Called by each game app's ``ready()``: its adapter for ``teams.Game.format``."""
    _BY_FORMAT[game_format] = app


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
