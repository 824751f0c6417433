"""``STOCK_INTERNALS`` (config.settings): every override of Django's, Channels' and asgiref's
internals gives way to the stock part (the ASGI handler, the SQLite backend, the in-memory
layer, the sessions, a socket's dispatch, the push's hand-over), and the live guarantees hold
there: a write's pushes are delivered in order, and a failed push never fails the write."""

from __future__ import annotations

import asyncio
import json
import os
import runpy
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from asgiref.sync import SyncToAsync, sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels.testing import WebsocketCommunicator
from django.core.exceptions import ImproperlyConfigured

from core import realtime
from tests.core.test_realtime import _push

ROOT = Path(__file__).resolve().parents[2]
SERVICES = {"DATABASE_URL", "REDIS_URL", "PGDATABASE", "PGHOST", "PGPORT", "PGUSER",
            "PGPASSWORD", "STOCK_INTERNALS", "REQUEST_CHAIN_IN_ONE_CALL"}

# What a server process built from the settings serves: config.asgi's HTTP handler, the
# database wrapper's module and the channel layer's class.
PROBE = """
import json
from channels.layers import get_channel_layer
from django.db import connections
from config.asgi import application
name = lambda obj: f"{type(obj).__module__}.{type(obj).__qualname__}"
print(json.dumps([name(application.app.application_mapping["http"]), type(connections["default"]).__module__,
                  name(get_channel_layer())]))
"""


def served_parts(tmp_path, **env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if k not in SERVICES}
    clean |= {"DJANGO_SETTINGS_MODULE": "config.settings",
              "SQLITE_PATH": str(tmp_path / "probe.sqlite3"), **env}
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=clean,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_by_default_the_server_runs_the_fast_paths(tmp_path):
    assert served_parts(tmp_path) == ["core.handlers.PooledASGIHandler",
                                      "core.backends.sqlite3.base",
                                      "config.layers.InMemoryChannelLayer"]


def test_stock_internals_serves_djangos_handler_sqlite_backend_and_channels_layer(tmp_path):
    # REQUEST_CHAIN_IN_ONE_CALL only tunes the pooled handler: it brings none of it back.
    assert served_parts(tmp_path, STOCK_INTERNALS="true", REQUEST_CHAIN_IN_ONE_CALL="true") == [
        "django.core.handlers.asgi.ASGIHandler", "django.db.backends.sqlite3.base",
        "channels.layers.InMemoryChannelLayer"]


def settings_module(monkeypatch, **env: str) -> dict:
    """The settings module's names, evaluated afresh with exactly these services set."""
    for name in SERVICES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(ROOT / "config" / "settings.py"))


def test_stock_internals_keeps_the_sqlite_connection_per_request_as_django_advises(monkeypatch):
    # A persistent connection lives in its thread; Django's handler starts one per request.
    assert settings_module(monkeypatch)["DATABASES"]["default"]["CONN_MAX_AGE"] is None
    stock = settings_module(monkeypatch, STOCK_INTERNALS="true")["DATABASES"]["default"]
    assert stock["CONN_MAX_AGE"] == 0
    assert stock["OPTIONS"]["transaction_mode"] == "IMMEDIATE"  # a public option of Django's


def test_with_redis_stock_internals_reads_sessions_through_djangos_own_store(monkeypatch):
    redis = {"REDIS_URL": "redis://127.0.0.1:1/0"}
    assert settings_module(monkeypatch, **redis)["SESSION_ENGINE"] == "core.sessions"
    assert settings_module(monkeypatch, **redis, STOCK_INTERNALS="true")["SESSION_ENGINE"] == \
        "django.contrib.sessions.backends.db"


def test_a_misspelled_stock_internals_stops_the_site_with_its_name(monkeypatch):
    with pytest.raises(ImproperlyConfigured, match="STOCK_INTERNALS='ja' is not a boolean"):
        settings_module(monkeypatch, STOCK_INTERNALS="ja")


# --- pushes ----------------------------------------------------------------------------------


class RealtimeReads(threading.local):
    """asgiref's thread-local as it is, noting each attribute ``core.realtime`` reads of it."""

    reads: list[str] = []

    def __getattribute__(self, name):
        if sys._getframe(1).f_globals.get("__name__") == realtime.__name__:
            type(self).reads.append(name)
        return super().__getattribute__(name)


class Layer(InMemoryChannelLayer):
    """The in-memory layer; ``fail_next``: its next group send fails (Redis down a moment)."""

    fail_next = False

    async def group_send(self, group, message):
        if self.fail_next:
            self.fail_next = False
            raise ConnectionError("Redis is down")
        await super().group_send(group, message)


@pytest.fixture
def layer(monkeypatch):
    plain = Layer()
    monkeypatch.setattr(realtime, "get_channel_layer", lambda: plain)
    return plain


@pytest.mark.parametrize("stock", [False, True], ids=["fast paths", "stock internals"])
async def test_realtime_reads_asgirefs_thread_local_only_on_the_fast_path(
        stock, layer, settings, monkeypatch):
    settings.STOCK_INTERNALS = stock
    monkeypatch.setattr(RealtimeReads, "reads", [])
    monkeypatch.setattr(SyncToAsync, "threadlocal", RealtimeReads())
    channel = await layer.new_channel()
    await layer.group_add("koth.1.public", channel)
    # A write in a server's request thread (sync_to_async records the loop, as a handler's does).
    await sync_to_async(realtime.send_to_groups)([("koth.1.public", _push(1))])
    await realtime.flush()
    assert (await asyncio.wait_for(layer.receive(channel), 5))["version"] == 1
    assert bool(RealtimeReads.reads) is not stock


async def test_with_stock_internals_each_writes_pushes_are_delivered_in_order_before_it_returns(
        layer, settings):
    settings.STOCK_INTERNALS = True
    channel = await layer.new_channel()
    await layer.group_add("koth.1.public", channel)
    for version in (1, 2, 3):
        handed = await sync_to_async(realtime.send_to_groups)([("koth.1.public", _push(version))])
        assert handed == 1
        assert layer.channels[channel].qsize() == version  # the fast path hands it on and returns
    assert [(await layer.receive(channel))["version"] for _ in range(3)] == [1, 2, 3]


async def test_with_stock_internals_a_failed_push_is_logged_and_never_fails_the_write(
        layer, settings, caplog):
    settings.STOCK_INTERNALS = True
    layer.fail_next = True
    channel = await layer.new_channel()
    await layer.group_add("koth.1.public", channel)
    assert await sync_to_async(realtime.send_to_groups)([("koth.1.public", _push(1))]) == 0
    assert "live broadcast of 1 messages failed" in caplog.text
    assert await sync_to_async(realtime.send_to_groups)([("koth.1.public", _push(2))]) == 1
    assert (await layer.receive(channel))["version"] == 2


# --- sockets ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_with_stock_internals_a_socket_dispatches_through_channels_own_dispatch(settings):
    """Channels' dispatch sweeps old connections in the worker's one sync thread before each
    message: a push waits while that thread is busy (core.sockets.ThreadFreeDispatch does not)."""
    from config.asgi import application

    settings.STOCK_INTERNALS = True
    communicator = WebsocketCommunicator(application, "/ws/site/", headers=[
        (b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")])
    assert (await communicator.connect())[0]
    assert (await communicator.receive_json_from(timeout=5))["type"] == "site.hello"
    release = threading.Event()
    busy = asyncio.ensure_future(sync_to_async(release.wait)(10))  # thread_sensitive: that thread
    try:
        await get_channel_layer().group_send(realtime.SITE_GROUP,
                                             realtime.announce_message("после запроса"))
        assert await communicator.receive_nothing(timeout=0.3)
    finally:
        release.set()
        await busy
    assert (await communicator.receive_json_from(timeout=5))["text"] == "после запроса"
    await communicator.disconnect()
