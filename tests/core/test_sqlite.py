"""The embedded default's SQLite backend (``core.backends.sqlite3``): writers of one process queue on the
file's lock and start the moment the last one ends, instead of sleeping in SQLite's busy
handler. Runs on a file of its own whatever the suite's database is."""

from __future__ import annotations

import threading
import time

import pytest
from django.db.utils import ConnectionHandler

from config.env import sqlite_config


@pytest.fixture
def handler(tmp_path, django_db_blocker):
    """Connections of their own to a file of their own (not the suite's test database)."""
    config = sqlite_config(str(tmp_path / "own.sqlite3"))
    config["OPTIONS"] = {**config["OPTIONS"], "timeout": 5}
    connections = ConnectionHandler({"default": config})
    with django_db_blocker.unblock():
        conn = connections["default"]
        with conn.cursor() as cursor:
            cursor.execute("CREATE TABLE t (n integer)")
        conn.close()
        yield connections
        connections.close_all()


def _write_in_thread(connections, events: list, name: str, *, fail: bool = False) -> threading.Thread:
    def run():
        conn = connections["default"]

        def watch(execute, sql, params, many, context):
            if sql.startswith("BEGIN"):
                events.append(f"{name} sends BEGIN")
            return execute(sql, params, many, context)

        try:
            with conn.execute_wrapper(watch):
                # What ``transaction.atomic`` does on SQLite, on this handler's connection.
                conn.set_autocommit(False, force_begin_transaction_with_broken_autocommit=True)
                try:
                    events.append(f"{name} begins")
                    with conn.cursor() as cursor:
                        cursor.execute("INSERT INTO t VALUES (1)")
                    if fail:
                        raise ValueError("the write fails")
                    time.sleep(0.3)
                    conn.commit()
                    events.append(f"{name} commits")
                except ValueError:
                    conn.rollback()
                    events.append(f"{name} rolled back")
                finally:
                    conn.set_autocommit(True)
        finally:
            conn.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.fast_internals
def test_a_second_writer_waits_for_the_first_to_commit_before_it_even_asks_sqlite(handler):
    """Without the lock B's ``BEGIN`` goes to SQLite at once and sleeps in its busy handler,
    waking up to 100 ms after A committed."""
    events: list[str] = []
    first = _write_in_thread(handler, events, "A")
    time.sleep(0.1)
    second = _write_in_thread(handler, events, "B")
    first.join(5)
    second.join(5)
    assert events == ["A sends BEGIN", "A begins", "A commits", "B sends BEGIN", "B begins",
                      "B commits"]


@pytest.mark.fast_internals
def test_a_writer_that_fails_gives_the_lock_back(handler):
    events: list[str] = []
    _write_in_thread(handler, events, "A", fail=True).join(5)
    _write_in_thread(handler, events, "B").join(5)
    assert events == ["A sends BEGIN", "A begins", "A rolled back", "B sends BEGIN", "B begins",
                      "B commits"]


def test_the_default_database_uses_the_queued_backend():
    assert sqlite_config("/tmp/x.sqlite3")["ENGINE"] == "core.backends.sqlite3"
