"""Django's SQLite backend with one write lock per database file inside the process.

The embedded default runs every request's database work in threads of one process. Every
transaction begins IMMEDIATE (``config.env.sqlite_config``), so two writers queue; but SQLite's
busy handler makes the waiting one sleep and retry with growing naps (up to 100 ms), and under a
burst of writes most of a write's time was spent asleep while the file was free (``make bench``:
a GoRoD code at 32 connections waited ~40 % of its time in ``BEGIN``). Here a thread takes the
file's lock before ``BEGIN`` and gives it back when the transaction ends, so the next writer
starts the moment the last one commits. Other processes on the same file (the clock, a
management command) still meet SQLite's own lock and busy timeout.

It overrides the transaction internals of Django's backend, so it sits behind
``STOCK_INTERNALS`` (``config.settings``): with it on, ``config.env.sqlite_config`` names
Django's own ``django.db.backends.sqlite3``.
"""

from __future__ import annotations

import threading

from django.db import OperationalError
from django.db.backends.sqlite3 import base

_LOCKS: dict[str, threading.RLock] = {}
_GUARD = threading.Lock()


def _file_lock(name: str) -> threading.RLock:
    with _GUARD:
        return _LOCKS.setdefault(name, threading.RLock())


class DatabaseWrapper(base.DatabaseWrapper):
    _write_lock: threading.RLock | None = None
    _holding = False

    def _start_transaction_under_autocommit(self):
        if self._write_lock is None:
            self._write_lock = _file_lock(str(self.settings_dict["NAME"]))
        timeout = float(self.settings_dict.get("OPTIONS", {}).get("timeout", 5))
        if not self._write_lock.acquire(timeout=timeout):
            raise OperationalError("database is locked")
        self._holding = True
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._release()
            raise

    def _set_autocommit(self, autocommit):
        super()._set_autocommit(autocommit)
        if autocommit:  # the end of a transaction, committed or rolled back
            self._release()

    def close(self):
        try:
            super().close()
        finally:
            self._release()

    def _release(self):
        if self._holding:
            self._holding = False
            self._write_lock.release()
