"""``verify_action`` for the live core (in the spirit of zulip's): run one write, capture what it
pushed after its commit, and check the core's promises:

- every audience whose stored state changed got exactly one push, with its next version and
  exactly the stored state (version N is state N), whole or as the delta from the previous one;
- every other audience got nothing and kept its version;
- a refused write changed and pushed nothing;
- the stored states equal a rebuild from scratch at the same moment (nothing kept stale).
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager

from django.db import connections, transaction
from django.utils import translation

from core.errors import DomainError
from live.codec import encode
from live.delta import patch
from live.store import stored_many
from live.write import LiveGame, Write


def stored_streams(game_id: int):
    """Every audience's stored state of a game."""
    return stored_many(game_id, None)


class _Rollback(Exception):
    pass


def stored(game_id: int) -> dict[str, tuple[int, str]]:
    return {audience: (row.version, row.text)
            for audience, row in stored_streams(game_id).items()}


def rebuilt(app: LiveGame, game_id: int, now) -> dict[str, str]:
    """Every audience's state built from nothing at ``now``, without storing anything."""
    texts: dict[str, str] = {}
    try:
        with transaction.atomic():
            w = Write(game=app.lock(game_id), now=now)  # no change: a refresh
            texts = {audience: encode(state) for audience, state in app.states(w).items()}
            raise _Rollback
    except _Rollback:
        pass
    return texts


@contextmanager
def pushes(monkeypatch, capture):
    """Collect ``(group, message)`` pairs the writes inside send after their commit."""
    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr("live.messages.send_to_groups", lambda messages: sent.extend(messages))
    with capture(execute=True):
        yield sent


def verify_action(app: LiveGame, game_id: int, write, *, now, monkeypatch, capture) -> bool:
    """Run ``write()`` and check the promises above; returns whether the write was accepted."""
    before = stored(game_id)
    accepted = True
    with pushes(monkeypatch, capture) as sent:
        try:
            write()
        except DomainError:
            accepted = False
    after = stored(game_id)
    by_audience: dict[str, list[dict]] = {}
    groups = {app.group(game_id, audience): audience for audience in after}
    for group, message in sent:
        by_audience.setdefault(groups[group], []).append(json.loads(message["text"]))
    if not accepted:
        assert sent == [] and after == before, "a refused write changed or pushed something"
        return False
    for audience, (version, text) in after.items():
        old = before.get(audience)
        got = by_audience.get(audience, [])
        if old is not None and old[1] == text:
            assert got == [] and version == old[0], f"{audience}: pushed without a change"
            continue
        assert len(got) == 1, f"{audience}: changed but pushed {len(got)} times"
        assert got[0]["version"] == version == (old[0] + 1 if old else 1), audience
        state = (patch(json.loads(old[1]), got[0]["delta"]) if "delta" in got[0]
                 else got[0]["state"])
        assert state == json.loads(text), f"{audience}: push is not the stored state"
    fresh = rebuilt(app, game_id, now)
    kept = {audience: text for audience, (_v, text) in after.items() if audience in fresh}
    assert fresh == kept, "a stored state differs from a rebuild: " + "; ".join(
        f"{audience}: {_differences(json.loads(kept[audience]), json.loads(text))}"
        for audience, text in fresh.items() if kept.get(audience) != text)
    return True


class HeldBatch:
    """Writes that queue behind a game's first one (``live.batch``): the first write is held
    inside its action (``module.name`` waits on its first call) while the writes given to
    ``send`` queue behind it, each in its own thread; ``release`` lets them all run as the next
    batch. ``outcomes``: each write's result or the error it raised, by name."""

    def __init__(self, monkeypatch, app: LiveGame, game_id: int, module, name: str):
        self.app, self.game_id = app, game_id
        self.open, self.inside = threading.Event(), threading.Event()
        self.outcomes: dict[str, object] = {}
        self.threads: list[threading.Thread] = []
        real, calls = getattr(module, name), []

        def held(*args, **kwargs):
            if not calls:
                calls.append(True)
                self.inside.set()
                assert self.open.wait(20)
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, held)

    def send(self, name: str, write, language: str = "ru") -> None:
        def call():
            with translation.override(language):
                try:
                    self.outcomes[name] = write()
                except Exception as exc:  # noqa: BLE001 - the outcome under test
                    self.outcomes[name] = exc
                finally:
                    # A thread's connection goes back to the pool only when closed: left open,
                    # each of these threads kept one, and a later threaded test of the same
                    # test worker waited for the PostgreSQL pool in vain.
                    connections.close_all()
        thread = threading.Thread(target=call, name=name)
        thread.start()
        self.threads.append(thread)
        if len(self.threads) == 1:
            assert self.inside.wait(20)
            return
        end = time.monotonic() + 20
        while self.app.waiting(self.game_id) < len(self.threads) - 1:
            assert time.monotonic() < end, f"{name} did not queue"
            time.sleep(0.005)

    def release(self) -> None:
        self.open.set()
        for thread in self.threads:
            thread.join(30)


def screens_moved_once_per_batch(app: LiveGame, game_id: int, before, pushed) -> dict:
    """Every push is its audience's next version and, applied in order from ``before``
    (``stored``), leads to exactly the stored states now, which it returns."""
    after = stored(game_id)
    groups = {app.group(game_id, audience): audience for audience in after}
    seen = {audience: (version, json.loads(text)) for audience, (version, text) in before.items()}
    for group, message in pushed:
        audience = groups[group]
        body = json.loads(message["text"])
        version, state = seen.get(audience, (0, None))
        assert body["version"] == version + 1, audience
        seen[audience] = (body["version"], patch(state, body["delta"]) if "delta" in body
                          else body["state"])
    assert seen == {a: (v, json.loads(t)) for a, (v, t) in after.items()}
    return after


def _differences(stored, fresh, path="") -> str:
    """Where two states differ, for the failure message."""
    if isinstance(stored, dict) and isinstance(fresh, dict):
        found = [_differences(stored.get(k), fresh.get(k), f"{path}.{k}")
                 for k in dict.fromkeys([*stored, *fresh]) if stored.get(k) != fresh.get(k)]
        return ", ".join(found) or f"{path}: the same keys in another order"
    if isinstance(stored, list) and isinstance(fresh, list) and len(stored) == len(fresh):
        return ", ".join(_differences(a, b, f"{path}[{i}]")
                         for i, (a, b) in enumerate(zip(stored, fresh, strict=True)) if a != b)
    return f"{path}: stored {str(stored)[:120]} rebuilt {str(fresh)[:120]}"


class Screen:
    """A test socket that follows its stream as ``static/js/live.js`` does: the first message
    is the whole state, a push with a ``delta`` is applied to the state it follows (and must be
    exactly its next version). ``receive_json_from`` answers every message with the state it
    leads to, so a test reads ``message["state"]`` whatever travelled."""

    def __init__(self, communicator):
        self.communicator = communicator
        self.version = None
        self.state = None

    async def receive_json_from(self, timeout=1):
        message = await self.communicator.receive_json_from(timeout=timeout)
        if "delta" in message:
            assert self.version is not None and message["version"] == self.version + 1, (
                "a delta that does not follow the version it patches")
            message = {**message, "state": patch(self.state, message.pop("delta"))}
        if "state" in message:
            self.version, self.state = message["version"], message["state"]
        return message

    async def receive_nothing(self, timeout=0.1):
        return await self.communicator.receive_nothing(timeout=timeout)

    async def disconnect(self, *args, **kwargs):
        return await self.communicator.disconnect(*args, **kwargs)


def public_read_checked(client, path: str, stored, *, monkeypatch, assert_num_queries):
    """A public state read as a projector polls it: one query, the stored text as it is (with
    its version), DRF's headers, and none of DRF's negotiation; then the same read through
    DRF's own steps (a query string sends it there) has the same headers and state."""
    from rest_framework.negotiation import DefaultContentNegotiation

    def negotiated(*_args, **_kwargs):
        raise AssertionError("a plain GET of a public state went through DRF's negotiation")

    with monkeypatch.context() as patched:
        patched.setattr(DefaultContentNegotiation, "select_renderer", negotiated)
        with assert_num_queries(1):
            response = client.get(path)
    assert response.status_code == 200, response.content
    assert response.content.decode().endswith(f',"state":{stored.text}}}')
    assert response.json()["version"] == stored.version
    through_drf = client.get(f"{path}?via=drf", HTTP_ACCEPT="application/xhtml+xml, */*")
    assert through_drf.status_code == 200
    assert through_drf.content.decode().endswith(f',"state":{stored.text}}}')
    apart = {"Content-Length"}  # server_time's digits may differ
    assert ({k: v for k, v in response.headers.items() if k not in apart}
            == {k: v for k, v in through_drf.headers.items() if k not in apart})
    assert response.headers["Content-Type"] == "application/json"
    return response


def unknown_public_read_checked(client, path: str, *, assert_num_queries):
    """An unknown game's public state: DRF's 404 ``{"detail"}`` after one query, the same as
    DRF's own steps answer it."""
    with assert_num_queries(1):
        response = client.get(path)
    through_drf = client.get(f"{path}?via=drf")
    assert response.status_code == through_drf.status_code == 404
    assert response.content == through_drf.content
    assert dict(response.headers) == dict(through_drf.headers)
    return response.json()
