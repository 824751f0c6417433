"""Snapshots of a running night, and putting one back on another machine.

A laptop that dies mid-night must not take the night with it. A snapshot is a whole copy of
the database taken while the server runs: on SQLite with its online backup API (a consistent
copy even while requests write, WAL included), on PostgreSQL with ``pg_dump`` in its custom
format. They go to ``BACKUP_DIR``, every ``BACKUP_INTERVAL_S`` seconds from the scheduler
(``core.scheduler``; hall mode: every minute), on demand with ``manage.py backup`` and from the
organizer's menu; the newest ``BACKUP_KEEP`` are kept.

``manage.py restore FILE`` puts one back (the server stopped): it refuses a file that is not a
snapshot of this app or was made by a newer version of it (migrations this code does not have),
keeps the database it replaces aside as a snapshot of its own, and migrates the restored one.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import subprocess
import tempfile
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.db import connections
from django.utils import timezone

log = logging.getLogger(__name__)

PREFIX = "clubgames-"
SQLITE_SUFFIX = ".sqlite3"
PG_SUFFIX = ".pgdump"
SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"
#: apps whose migrations every snapshot of this app has applied
OUR_APPS = {"core", "teams", "kingofhill", "gorod", "rating"}


class BackupError(Exception):
    """A snapshot could not be taken or restored; the message says why, for one line."""


def _database() -> dict:
    return settings.DATABASES["default"]


def _is_sqlite(database: dict) -> bool:
    return database["ENGINE"].endswith("sqlite3")


# --- taking snapshots ------------------------------------------------------------------------


def snapshot(directory: Path | None = None, *, now: datetime | None = None) -> Path:
    """Write a snapshot of the database into ``directory`` (``BACKUP_DIR``) and return its
    path; older ones beyond ``BACKUP_KEEP`` are removed."""
    directory = Path(directory or settings.BACKUP_DIR)
    database = _database()
    suffix = SQLITE_SUFFIX if _is_sqlite(database) else PG_SUFFIX
    try:
        directory.mkdir(parents=True, exist_ok=True)
        target = _new_name(directory, suffix, now or timezone.now())
        part = target.with_name(target.name + ".part")  # never a half-written snapshot
        if _is_sqlite(database):
            _sqlite_copy(database["NAME"], part)
        else:
            _pg_dump(database, part)
        os.replace(part, target)
        _keep_hall_key(directory)
    except OSError as exc:
        raise BackupError(f"cannot write a snapshot into {directory}: {exc.strerror or exc}") from None
    prune(directory, settings.BACKUP_KEEP)
    return target


#: beside the snapshots in hall mode: the night's secret key, so phones restored on another
#: machine stay joined (their sessions are signed with it)
KEY_FILE = "secret-key"


def _hall_key_path() -> Path | None:
    return Path(settings.HALL_KEY_FILE) if settings.HALL and settings.HALL_KEY_FILE else None


def _keep_hall_key(directory: Path) -> None:
    key = _hall_key_path()
    copy = directory / KEY_FILE
    if key is None or not key.exists() or (copy.exists() and copy.read_bytes() == key.read_bytes()):
        return
    fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key.read_bytes())


def _restore_hall_key(snapshot: Path) -> bool:
    key, copy = _hall_key_path(), snapshot.parent / KEY_FILE
    if key is None or not copy.exists():
        return False
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(copy.read_bytes())
    return True


def _new_name(directory: Path, suffix: str, now: datetime) -> Path:
    stamp = now.astimezone(tz=None).strftime("%Y%m%d-%H%M%S")
    target = directory / f"{PREFIX}{stamp}{suffix}"
    n = 1
    while target.exists():  # two snapshots in one second (a button next to the minute's)
        target = directory / f"{PREFIX}{stamp}-{n}{suffix}"
        n += 1
    return target


def snapshots(directory: Path | None = None) -> list[Path]:
    """The snapshots in ``directory``, oldest first."""
    directory = Path(directory or settings.BACKUP_DIR)
    if not directory.is_dir():
        return []
    found = [p for p in directory.iterdir() if p.name.startswith(PREFIX)
             and p.suffix in (SQLITE_SUFFIX, PG_SUFFIX)]
    return sorted(found, key=lambda p: (p.stat().st_mtime, p.name))


def prune(directory: Path, keep: int) -> None:
    for old in snapshots(directory)[:-keep]:
        old.unlink(missing_ok=True)


def _sqlite_copy(source: str | Path, target: Path) -> None:
    # The server's writers hold the lock for moments; wait for them as its requests do.
    src = sqlite3.connect(source, timeout=20)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    except sqlite3.Error as exc:
        Path(target).unlink(missing_ok=True)
        raise BackupError(f"cannot copy {source}: {exc}") from None
    finally:
        src.close()


def _pg_env(database: dict) -> dict[str, str]:
    env = dict(os.environ)
    for key, var in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER"),
                     ("PASSWORD", "PGPASSWORD"), ("NAME", "PGDATABASE")):
        if database.get(key):
            env[var] = str(database[key])
    sslmode = database.get("OPTIONS", {}).get("sslmode")
    if sslmode:
        env["PGSSLMODE"] = sslmode
    return env


def _pg_tool(args: list[str], database: dict) -> subprocess.CompletedProcess:
    if shutil.which(args[0]) is None:
        raise BackupError(f"{args[0]} is not installed (install the PostgreSQL client tools)")
    result = subprocess.run(args, env=_pg_env(database), capture_output=True, text=True)
    if result.returncode != 0:
        message = " ".join(result.stderr.split()) or f"exit status {result.returncode}"
        raise BackupError(f"{args[0]} failed: {message}")
    return result


def _pg_dump(database: dict, target: Path) -> None:
    _pg_tool(["pg_dump", "--format=custom", "--no-owner", "--file", str(target)], database)


# --- the scheduler's job ---------------------------------------------------------------------

_last_run: datetime | None = None


def scheduled(now: datetime) -> None:
    """A snapshot every ``BACKUP_INTERVAL_S`` seconds of ``now`` (the first with the first
    round; a clock set back also takes one rather than wait for the lost time)."""
    global _last_run
    interval = settings.BACKUP_INTERVAL_S
    if not interval or (_last_run is not None
                        and 0 <= (now - _last_run).total_seconds() < interval):
        return
    _last_run = now
    path = snapshot(now=now)
    log.info("snapshot written: %s", path)


# --- restoring -------------------------------------------------------------------------------


def check(path: Path) -> None:
    """Refuse, with the reason, a file that is not a snapshot this code can run on."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(16)
    except OSError as exc:
        raise BackupError(f"cannot read {path}: {exc.strerror or exc}") from None
    sqlite = _is_sqlite(_database())
    if head.startswith(SQLITE_MAGIC if sqlite else PG_MAGIC):
        applied = _sqlite_migrations(path) if sqlite else _pg_migrations(path)
    elif head.startswith(PG_MAGIC if sqlite else SQLITE_MAGIC):
        here, there = ("SQLite", "PostgreSQL") if sqlite else ("PostgreSQL", "SQLite")
        raise BackupError(f"{path} is a {there} snapshot; this site runs on {here}")
    else:
        raise BackupError(f"{path} is not a snapshot of this app (neither SQLite nor pg_dump)")
    if not OUR_APPS <= {app for app, _ in applied}:
        raise BackupError(f"{path} is not a snapshot of this app (it has no club games tables)")
    from django.db.migrations.loader import MigrationLoader

    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    newer = sorted(f"{app}.{name}" for app, name in applied - known if app in OUR_APPS
                   or app in {a for a, _ in known})
    if newer:
        raise BackupError(f"{path} was made by a newer version of the app (migrations "
                          f"{', '.join(newer[:3])}{'…' if len(newer) > 3 else ''}); "
                          "update this copy first")


def _sqlite_migrations(path: Path) -> set[tuple[str, str]]:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return set(db.execute("SELECT app, name FROM django_migrations"))
        finally:
            db.close()
    except sqlite3.Error:
        raise BackupError(f"{path} is not a snapshot of this app (no migration table)") from None


def _pg_migrations(path: Path) -> set[tuple[str, str]]:
    listing = _pg_tool(["pg_restore", "--data-only", "--table=django_migrations", "--file=-",
                        str(path)], _database()).stdout
    applied: set[tuple[str, str]] = set()
    columns: list[str] | None = None
    for line in listing.splitlines():
        if line.startswith("COPY ") and "django_migrations" in line:
            columns = [c.strip() for c in line[line.index("(") + 1:line.index(")")].split(",")]
        elif columns is not None:
            if line == "\\.":
                break
            row = dict(zip(columns, line.split("\t"), strict=False))
            applied.add((row.get("app", ""), row.get("name", "")))
    if columns is None:
        raise BackupError(f"{path} is not a snapshot of this app (no migration table)")
    return applied


def restore(path: Path) -> Path | None:
    """Replace the database with the snapshot at ``path`` and migrate it; return where the
    replaced database was kept (None when there was none). In hall mode the night's secret key
    saved beside the snapshot comes back too: the phones' sessions stay valid."""
    path = Path(path)
    check(path)
    database = _database()
    connections.close_all()
    directory = Path(settings.BACKUP_DIR)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        aside = (_sqlite_restore(path, Path(database["NAME"]), directory) if _is_sqlite(database)
                 else _pg_restore(path, database, directory))
        _restore_hall_key(path)
    except OSError as exc:
        raise BackupError(f"cannot restore {path}: {exc.strerror or exc}") from None
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    return aside


def _aside_name(directory: Path, suffix: str) -> Path:
    stamp = timezone.now().astimezone(tz=None).strftime("%Y%m%d-%H%M%S")
    return directory / f"replaced-{stamp}{suffix}"


def _sqlite_restore(path: Path, target: Path, directory: Path) -> Path | None:
    aside = None
    if target.exists():
        # Through the backup API: the replaced database's WAL is part of it.
        aside = _aside_name(directory, SQLITE_SUFFIX)
        _sqlite_copy(target, aside)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, part = tempfile.mkstemp(prefix=target.name, suffix=".part", dir=target.parent)
    os.close(fd)
    _sqlite_copy(path, Path(part))
    for extra in ("-wal", "-shm"):
        Path(f"{target}{extra}").unlink(missing_ok=True)
    os.replace(part, target)
    return aside


def _pg_restore(path: Path, database: dict, directory: Path) -> Path:
    aside = _aside_name(directory, PG_SUFFIX)
    _pg_dump(database, aside)
    _pg_tool(["pg_restore", "--clean", "--if-exists", "--no-owner", "--single-transaction",
              "--dbname", database["NAME"], str(path)], database)
    return aside
