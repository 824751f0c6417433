"""Shared test wiring: real services when the environment names them, browser tests last.

Under CI (``CI=true``) a test that needs PostgreSQL, Redis or Chromium and does not find it
fails; on a developer machine it is skipped with the reason, so ``make test`` still works with
nothing but Python installed.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

import tests.properties  # noqa: F401 - the Hypothesis profile, loaded before any test module
from tests.servers import (
    artifacts_dir,  # noqa: F401 - the e2e tests import it from here
    manage,
    server_env,
    start_workers,
)

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def need(condition: bool, what: str) -> None:
    """Skip locally, fail under CI, when a real service or browser is missing."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{what} is required under CI but is not available", pytrace=False)
    pytest.skip(f"{what} is not available here (set it up or run .ci/run)")


def pytest_collection_modifyitems(session, config, items):
    # Browser tests run last: Playwright's event loop breaks pytest-asyncio tests after it.
    # Within each part the tests marked ``slow`` go first: the xdist workers take tests in
    # this order, and a long test taken near the end keeps one worker busy while the other
    # has nothing left to do.
    items.sort(key=lambda item: ("/e2e/" in str(item.fspath).replace(os.sep, "/"),
                                 item.get_closest_marker("slow") is None))


@pytest.fixture(autouse=True)
def no_scheduler_inside_the_test_process(settings):
    """In-process ASGI tests drive time themselves (``gorod.clock.run_due``); the servers that
    tests start as processes run the scheduler as ``make run`` does (``server_env``)."""
    settings.SCHEDULER_IN_PROCESS = False


@pytest.fixture(autouse=True)
def presence_refreshed_at_once(settings):
    """A phone's socket refreshes the host's console in its own call (no timer outlives a
    test); tests/kingofhill/test_presence.py sets a window and proves the coalescing."""
    settings.PRESENCE_REFRESH_MS = 0


@pytest.fixture(autouse=True)
def no_setup_cached_from_another_test():
    """A test's rolled-back game may leave its id, start and set-up version to the next test's
    game on SQLite (ids are reused): the process's kept set-ups and timelines start empty in
    every test."""
    from gorod.selectors import forget_kept
    from live.caches import forget_shared

    forget_kept()
    forget_shared()
    yield
    forget_kept()
    forget_shared()


@pytest.fixture(autouse=True)
def english_unless_a_test_says_otherwise(settings):
    """Tests assert on the English source messages. The site's Russian default is covered by
    tests/core/test_i18n.py (which sets LANGUAGE_CODE back to "ru") and the settings tests."""
    from django.utils import translation

    settings.LANGUAGE_CODE = "en"
    with translation.override("en"):
        yield


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """SQLite tests use a file database so a separate ASGI server process can share it.
    Gives the database's own name, as it is before any test database replaces it."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        db.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("db") / "test.sqlite3")
    return db["NAME"]


# The variables that would point a child process at this run's services instead of its file.
SERVICE_VARIABLES = {"DATABASE_URL", "REDIS_URL", "PGDATABASE", "PGHOST", "PGPORT", "PGUSER",
                     "PGPASSWORD"}


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """A SQLite file with every migration applied by ``manage.py migrate``, once per test
    process: the tests that run a site or a command on a file of their own (a night's database,
    the embedded default, a hall laptop) start from a copy (``sqlite_copy``) instead of each
    migrating a fresh file, several seconds of CPU apiece."""
    path = tmp_path_factory.mktemp("migrated") / "db.sqlite3"
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARIABLES}
    result = manage("migrate", "--noinput", "-v", "0", env=env | {"SQLITE_PATH": str(path)},
                    timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    return path


def sqlite_copy(source: Path, target: Path) -> Path:
    """``source`` copied to ``target`` through SQLite's backup API (a consistent copy)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(source)) as read, closing(sqlite3.connect(target)) as write:
        read.backup(write)
    return target


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("REDIS_URL", "")
    need(bool(url), "Redis (REDIS_URL)")
    return url


def on_postgresql() -> bool:
    from django.conf import settings

    return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


def need_postgresql_and_redis() -> None:
    """Locking is real only on PostgreSQL (``select_for_update`` is a no-op on SQLite) and
    several workers share pushes only through Redis."""
    need(on_postgresql(), "PostgreSQL (DATABASE_URL)")
    need(bool(os.environ.get("REDIS_URL")), "Redis (REDIS_URL)")


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker, django_db_modify_db_settings):
    """pytest-django's test database, dropped at the end only once nothing else holds a session
    on it (PostgreSQL refuses to drop it then: "being accessed by other users"):
    - the async tests' ``sync_to_async`` calls run in asgiref's one sync thread, which keeps
      the pooled connection it opened (nothing there returns it, as a request's end would):
      it is closed in that thread;
    - a server process that just exited leaves its backend a moment longer: this waits, up
      to 10 s, for every session that is not this process's own.

    pytest-django creates only the databases that marked tests use; a run of browser tests
    whose data is committed once for the module (``tests.shared_data.committed_once``, no mark)
    gets the default one here: the connection still names the database it had before
    (``django_db_modify_db_settings``), so none was made."""
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    made = None
    if connection.settings_dict["NAME"] == django_db_modify_db_settings:
        with django_db_blocker.unblock():
            made = setup_databases(verbosity=0, interactive=False, aliases={"default"})
    yield django_db_setup
    if made is not None:
        with django_db_blocker.unblock():
            teardown_databases(made, verbosity=0)
    if not on_postgresql():
        return
    import time

    import psutil
    from asgiref.sync import SyncToAsync
    from django.db import connection, connections

    SyncToAsync.single_thread_executor.submit(connections.close_all).result(timeout=10)
    with django_db_blocker.unblock():
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            # This process's pooled connections are Django's to close, with the pool.
            mine = {c.laddr.port for c in psutil.Process().net_connections("tcp") if c.laddr}
            with connection.cursor() as cursor:
                cursor.execute("SELECT client_port FROM pg_stat_activity "
                               "WHERE datname = current_database()")
                if not {port for (port,) in cursor.fetchall() if port and port > 0} - mine:
                    return
            time.sleep(0.1)


@pytest.fixture(scope="session")
def asgi_server(django_db_setup, django_db_blocker):
    """A real server (``config.server``, HTTP + WebSocket) on a free port, sharing the test database.
    Its clock ticks every due GoRoD game of that database, so only the browser tests (run last)
    use it: started earlier, it would race the other tests' clock."""
    server = start_workers(1, server_env(DEBUG="true"), name="asgi-server")
    yield server.url()
    server.stop()


WORKER_COUNT = 2


@pytest.fixture(scope="module")
def workers(request, django_db_setup, django_db_blocker):
    """``WORKER_COUNT`` workers on the test database (PostgreSQL) and the Redis layer,
    started once per module; tests create their data with ``transaction=True`` so the workers
    see it, and talk to them with ``tests.servers.Browser``."""
    need_postgresql_and_redis()
    # As a multi-worker deployment runs: no clock inside the workers (a test that needs the
    # clock starts `manage.py gorod_clock` beside them).
    env = server_env(DEBUG="true", SCHEDULER_IN_PROCESS="false")
    module = request.module.__name__.rsplit(".", 1)[-1]
    started = start_workers(WORKER_COUNT, env, name=f"workers-{module}")
    yield started
    started.stop()


def chromium_path() -> str | None:
    return os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    need(path is not None, "Chromium")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread; Django would then refuse
    # the database calls that set up and flush test data. They are not concurrent, so allow them.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=path,
            args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
        )
        yield browser
        browser.close()


@pytest.fixture
def new_page(browser):
    """Open pages in fresh contexts (separate cookies: a host, several phones, a projector)."""
    contexts = []

    def open_page(viewport=None):
        context = browser.new_context(viewport=viewport or {"width": 1280, "height": 800}, locale="ru-RU")
        contexts.append(context)
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()
    # tests/e2e/conftest.py then waits for the server to settle before the flush.


def settle_server(timeout: float = 5) -> None:
    """Wait until the server has handled what the closed pages left behind: a King of the Hill
    phone's socket removes its presence row when it closes, and a page's last request may still
    be reading; either must not run into the database flush that ends a transactional test (on
    PostgreSQL the two deadlock: seen with a GoRoD phone's state read against the TRUNCATE)."""
    import time

    from django.db import DatabaseError

    from kingofhill.models import KothGame, PhoneSocket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if not PhoneSocket.objects.exists():
                # The host's refresh after a phone left runs a presence window later; without
                # a King of the Hill game no phone socket was open (GoRoD, teams and rating
                # pages), so there is nothing to wait for.
                if KothGame.objects.exists():
                    time.sleep(0.5)
                _wait_for_other_sessions_idle(deadline)
                return
        except (DatabaseError, RuntimeError):  # a test without database access
            return
        time.sleep(0.05)


def _wait_for_other_sessions_idle(deadline: float) -> None:
    """On PostgreSQL, wait until no other session of this test database is running a statement
    or holds a transaction open (the server's requests; other workers use other databases)."""
    import time

    from django.db import connection

    if not on_postgresql():
        return
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                           " AND pid <> pg_backend_pid()"
                           " AND state IN ('active', 'idle in transaction')")
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.05)


@pytest.fixture
def pushed(monkeypatch) -> list[tuple[str, dict]]:
    """What the writes send after their commits, ``(group, message)`` (real commits: for tests
    whose writes run in other threads)."""
    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr("live.messages.send_to_groups", lambda messages: sent.extend(messages))
    return sent
