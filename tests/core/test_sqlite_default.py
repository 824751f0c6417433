"""The embedded default (SQLite, no services) under concurrent writes: queued, never a 500.

The site runs here as ``make run`` serves it, one daphne process on its own SQLite file and the
in-memory layer, whatever database the rest of the run uses, so this proves the default under
CI too. Django runs each request's sync view in its own thread, so simultaneous requests are
simultaneous writers on the file.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import uuid

import pytest

from tests.conftest import sqlite_copy
from tests.gorod.test_concurrency import LEVELS
from tests.servers import PYTHON, ROOT, Browser, parallel, start_workers

SETUP = """
import json
from datetime import timedelta

import django

django.setup()
from django.utils import timezone

from core.roles import HOST, ORGANIZER
from teams.models import Game
from tests.gorod.fixtures_live import make_teams, make_user

organizer = make_user("organizer", ORGANIZER)
host = make_user("host", HOST)
later = timezone.now() + timedelta(days=1)
gorod = Game.objects.create(title="GoRoD", format="gorod", starts_at=later, created_by=organizer)
koth = Game.objects.create(title="KotH", format="kingofhill", starts_at=later,
                           created_by=organizer)
print(json.dumps({
    "gorod": gorod.pk, "koth": koth.pk, "host": host.pk,
    "gorod_tokens": [a.join_token for a in make_teams(gorod, [f"G{i:02d}" for i in range(20)],
                                                      organizer)],
    "koth_tokens": [a.join_token for a in make_teams(koth, [f"K{i:02d}" for i in range(10)],
                                                     organizer)],
}))
"""


def embedded_env(path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "REDIS_URL", "PGDATABASE", "PGHOST", "PGPORT", "PGUSER",
                        "PGPASSWORD"}}
    return env | {"SQLITE_PATH": str(path), "DEBUG": "true",
                  "DJANGO_SETTINGS_MODULE": "config.settings"}


@pytest.fixture(scope="module")
def embedded(migrated_sqlite, tmp_path_factory):
    path = sqlite_copy(migrated_sqlite, tmp_path_factory.mktemp("embedded") / "db.sqlite3")
    env = embedded_env(path)
    made = subprocess.run([PYTHON, "-c", SETUP], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    servers = start_workers(1, env, name="sqlite-default")
    yield path, servers, json.loads(made.stdout)
    servers.stop()


def test_the_default_sqlite_file_runs_in_wal_mode(embedded):
    path, _servers, _data = embedded
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_thirty_writes_at_once_on_the_embedded_default_are_queued_and_all_stored(embedded):
    _path, servers, data = embedded
    organizer = Browser(servers).log_in("organizer", "pw-organizer")
    host = Browser(servers).log_in("host", "pw-host")
    gorod = organizer.ok("POST", "/gorod/api/games/", {"game": data["gorod"], "levels": LEVELS},
                         status=201)["id"]
    koth = organizer.ok("POST", "/koth/api/games/", {"game": data["koth"], "summit": 5,
                                                     "main_questions": 10}, status=201)["id"]
    organizer.ok("POST", f"/koth/api/games/{koth}/hosts/", {"user": data["host"], "assigned": True})
    tokens = data["gorod_tokens"] + data["koth_tokens"]
    phones = [Browser(servers) for _ in tokens]
    parallel([lambda p=p, t=t, i=i: p.join_team(t, worker=i)
              for i, (p, t) in enumerate(zip(phones, tokens, strict=True))])
    organizer.ok("POST", f"/gorod/api/games/{gorod}/start/")
    host.ok("POST", f"/koth/api/games/{koth}/start/")
    host.ok("POST", f"/koth/api/games/{koth}/announce/", {"answer_key": "Гоголь"})

    calls = [lambda p=p, i=i: p.post(f"/gorod/api/games/{gorod}/code/", {"text": "G1R1D"},
                                     worker=i)
             for i, p in enumerate(phones[:20])]
    calls += [lambda p=p, i=i: p.post(f"/koth/api/games/{koth}/answer/",
                                      {"text": ("Гоголь", "Пушкин")[i % 2],
                                       "client_id": str(uuid.uuid4())}, worker=i)
              for i, p in enumerate(phones[20:])]
    replies = parallel(calls)

    assert [(r.status, r.detail) for r in replies] == [(200, "")] * 30, [
        r.body if isinstance(r.body, dict) else r.body[:300] for r in replies]
    live = organizer.ok("GET", f"/gorod/api/games/{gorod}/organizer/state/")["state"]
    assert [t["current_level"] for t in live["teams"]] == ["2"] * 20
    assert len(live["attempts"]) == 20
    hall = host.ok("GET", f"/koth/api/games/{koth}/host/state/")["state"]["host"]
    assert hall["answered"] == 10 and hall["unanswered"] == []
    assert "database is locked" not in servers.log_text()
