"""Snapshots (core.backups): `manage.py backup`, `manage.py restore`, the organizer's button, the
scheduler's minute, on SQLite and on PostgreSQL (pg_dump/pg_restore)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from core import backups
from tests.conftest import need, on_postgresql, sqlite_copy
from tests.servers import manage

MODE_VARIABLES = {"DATABASE_URL", "PGDATABASE", "PGHOST", "PGPORT", "PGUSER", "PGPASSWORD",
                  "REDIS_URL", "DEBUG", "HALL", "SECRET_KEY", "BACKUP_DIR", "BACKUP_INTERVAL_S",
                  "BACKUP_KEEP"}


def night_env(tmp_path: Path, **extra) -> dict[str, str]:
    """A night's own SQLite database in ``tmp_path`` (never the test database)."""
    env = {k: v for k, v in os.environ.items() if k not in MODE_VARIABLES}
    return env | {"SQLITE_PATH": str(tmp_path / "night.sqlite3"),
                  "BACKUP_DIR": str(tmp_path / "backups")} | extra


def run(*args, env) -> tuple[int, str, str]:
    result = manage(*args, env=env, timeout=120)
    return result.returncode, result.stdout, result.stderr


def users_in(path: Path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {name for (name,) in db.execute("SELECT username FROM auth_user")}
    finally:
        db.close()


def add_user(env, name: str) -> None:
    code, _, err = run("shell", "-c", f"from django.contrib.auth.models import User; "
                                      f"User.objects.create_user({name!r})", env=env)
    assert code == 0, err


@pytest.fixture(scope="module")
def migrated_night(migrated_sqlite, tmp_path_factory) -> Path:
    """One migrated database with the user "before", made once: each test gets a copy."""
    folder = tmp_path_factory.mktemp("template")
    sqlite_copy(migrated_sqlite, folder / "night.sqlite3")
    add_user(night_env(folder), "before")
    return folder / "night.sqlite3"


@pytest.fixture
def night(migrated_night, tmp_path):
    sqlite_copy(migrated_night, tmp_path / "night.sqlite3")
    return night_env(tmp_path)


def test_backup_writes_a_consistent_sqlite_snapshot_and_prints_its_path(night, tmp_path):
    code, out, err = run("backup", "--to", str(tmp_path / "usb"), env=night)
    assert code == 0, err
    path = Path(out.strip())
    assert path.parent == tmp_path / "usb" and path.name.startswith("clubgames-")
    assert path.read_bytes()[:16] == b"SQLite format 3\x00"
    assert users_in(path) == {"before"}
    code, out, _ = run("backup", env=night)
    assert Path(out.strip()).parent == tmp_path / "backups"


def test_only_the_newest_snapshots_are_kept(night, tmp_path):
    env = night | {"BACKUP_KEEP": "2"}
    written = [Path(run("backup", env=env)[1].strip()) for _ in range(3)]
    assert sorted(p.name for p in (tmp_path / "backups").iterdir()) == sorted(
        p.name for p in written[1:])


def test_a_backup_into_a_folder_that_cannot_be_made_is_one_error_line(night, tmp_path):
    (tmp_path / "file").write_text("x")
    code, out, err = run("backup", "--to", str(tmp_path / "file" / "sub"), env=night)
    assert code == 2 and out == ""
    assert err.startswith("error: cannot write a snapshot into") and len(err.splitlines()) == 1


def test_restore_puts_the_snapshot_back_and_keeps_the_replaced_database_aside(night, tmp_path):
    snapshot = Path(run("backup", env=night)[1].strip())
    add_user(night, "after")
    code, out, err = run("restore", str(snapshot), env=night)
    assert code == 0, err
    assert users_in(tmp_path / "night.sqlite3") == {"before"}
    aside = Path(out.strip().splitlines()[-1].rsplit(" ", 1)[1])
    assert aside.parent == tmp_path / "backups" and users_in(aside) == {"before", "after"}


def test_restore_into_a_fresh_machine_makes_the_database(night, tmp_path):
    snapshot = Path(run("backup", env=night)[1].strip())
    fresh = night_env(tmp_path / "other", SQLITE_PATH=str(tmp_path / "other" / "db.sqlite3"))
    code, out, err = run("restore", str(snapshot), env=fresh)
    assert code == 0, err
    assert "kept" not in out
    assert users_in(tmp_path / "other" / "db.sqlite3") == {"before"}


def refused(env, path) -> str:
    code, out, err = run("restore", str(path), env=env)
    assert code == 2 and out == "", (code, out, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_restore_refuses_what_is_not_a_snapshot_of_this_app(night, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    assert "is not a snapshot of this app" in refused(night, text)
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    assert "is not a snapshot of this app" in refused(night, other)
    assert "cannot read" in refused(night, tmp_path / "missing.sqlite3")
    assert users_in(tmp_path / "night.sqlite3") == {"before"}  # nothing was touched


def test_restore_refuses_a_snapshot_made_by_a_newer_version(night, tmp_path):
    snapshot = Path(run("backup", env=night)[1].strip())
    db = sqlite3.connect(snapshot)
    db.execute("INSERT INTO django_migrations (app, name, applied) "
               "VALUES ('gorod', '9999_from_the_future', '2030-01-01')")
    db.commit()
    db.close()
    err = refused(night, snapshot)
    assert "newer version" in err and "gorod.9999_from_the_future" in err


# --- in the running site -----------------------------------------------------------------------


@pytest.fixture
def snapshots_here(settings, tmp_path):
    settings.BACKUP_DIR = tmp_path / "backups"
    return settings.BACKUP_DIR


def organizer_client() -> Client:
    user = User.objects.create_user("org")
    user.groups.add(Group.objects.get_or_create(name="organizer")[0])
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_the_organizers_back_up_button_writes_a_snapshot_and_downloads_it(snapshots_here):
    client = organizer_client()
    assert 'action="/backup/"' in client.get("/").content.decode()  # in the organizer's menu
    reply = client.post("/backup/")
    assert reply.status_code == 200
    (written,) = backups.snapshots(snapshots_here)
    assert f'filename="{written.name}"' in reply["Content-Disposition"]
    assert b"".join(reply.streaming_content) == written.read_bytes()


@pytest.mark.django_db
def test_only_an_organizer_backs_up_and_only_by_post(snapshots_here):
    user = User.objects.create_user("player")
    client = Client()
    client.force_login(user)
    assert client.post("/backup/").status_code == 403
    assert organizer_client().get("/backup/").status_code == 405
    assert backups.snapshots(snapshots_here) == []


@pytest.mark.django_db
def test_the_scheduler_takes_a_snapshot_every_interval(snapshots_here, settings):
    from datetime import timedelta

    from django.utils import timezone

    from core import scheduler

    settings.BACKUP_INTERVAL_S = 60
    # A day ahead of any round an earlier test ran: this one starts a new interval.
    start = timezone.now() + timedelta(days=1)
    scheduler.run_jobs(start)
    scheduler.run_jobs(start + timedelta(seconds=59))  # within the minute: no second one
    assert len(backups.snapshots(snapshots_here)) == 1
    scheduler.run_jobs(start + timedelta(seconds=61))
    assert len(backups.snapshots(snapshots_here)) == 2


@pytest.mark.django_db
def test_a_clock_set_back_takes_a_snapshot_rather_than_wait(snapshots_here, settings):
    from datetime import timedelta

    from django.utils import timezone

    from core import scheduler

    settings.BACKUP_INTERVAL_S = 60
    start = timezone.now() + timedelta(days=2)
    scheduler.run_jobs(start)
    scheduler.run_jobs(start - timedelta(hours=1))
    assert len(backups.snapshots(snapshots_here)) == 2


@pytest.mark.django_db
def test_without_an_interval_the_scheduler_takes_none(snapshots_here, settings):
    from core import scheduler

    settings.BACKUP_INTERVAL_S = 0
    scheduler.run_jobs()
    assert backups.snapshots(snapshots_here) == []


# --- PostgreSQL --------------------------------------------------------------------------------


@pytest.fixture
def pg_night(django_db_setup, django_db_blocker, tmp_path):
    """A scratch PostgreSQL database of its own beside the test database (restore replaces a
    whole database)."""
    need(on_postgresql(), "PostgreSQL (DATABASE_URL)")
    from django.conf import settings
    from django.db import connection

    name = f"{settings.DATABASES['default']['NAME']}_night"
    db = settings.DATABASES["default"]
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cursor.execute(f'CREATE DATABASE "{name}"')
    env = {k: v for k, v in os.environ.items() if k not in MODE_VARIABLES}
    env |= {"PGDATABASE": name, "PGHOST": db["HOST"] or "localhost", "PGPORT": str(db["PORT"] or ""),
            "PGUSER": db["USER"] or "", "PGPASSWORD": db["PASSWORD"] or "",
            "BACKUP_DIR": str(tmp_path / "backups"), "DB_POOL": "false"}
    code, _, err = run("migrate", "--noinput", "-v", "0", env=env)
    assert code == 0, err
    add_user(env, "before")
    yield env
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pg_users(env) -> set[str]:
    code, out, err = run("shell", "-v", "0", "-c",
                         "import json; from django.contrib.auth.models import User; "
                         "print(json.dumps(list(User.objects.values_list('username', flat=True))))",
                         env=env)
    assert code == 0, err
    return set(json.loads(out.strip().splitlines()[-1]))


def test_on_postgresql_backup_and_restore_use_pg_dump_and_pg_restore(pg_night, tmp_path):
    code, out, err = run("backup", env=pg_night)
    assert code == 0, err
    snapshot = Path(out.strip())
    assert snapshot.suffix == ".pgdump" and snapshot.read_bytes()[:5] == b"PGDMP"
    add_user(pg_night, "after")
    code, out, err = run("restore", str(snapshot), env=pg_night)
    assert code == 0, err
    assert pg_users(pg_night) == {"before"}
    aside = Path(out.strip().splitlines()[-1].rsplit(" ", 1)[1])
    assert aside.read_bytes()[:5] == b"PGDMP"
    sqlite_file = tmp_path / "x.sqlite3"
    sqlite3.connect(sqlite_file).execute("CREATE TABLE t (x)").connection.commit()
    err = refused(pg_night, sqlite_file)
    assert "is a SQLite snapshot; this site runs on PostgreSQL" in err
