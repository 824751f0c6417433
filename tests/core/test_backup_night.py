"""A laptop dies mid-night: the minute's snapshot, restored into a fresh database, serves the
same games, their records replay to the state at the snapshot, and the night goes on.

The server runs as `make hall` runs it (HALL=true, its own SQLite file, the in-process
scheduler taking the snapshots), whatever database the rest of the run uses."""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import sqlite_copy
from tests.servers import Browser, manage, start_workers

NOT_HERE = {"DATABASE_URL", "REDIS_URL", "PGDATABASE", "PGHOST", "PGPORT", "PGUSER", "PGPASSWORD",
            "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "PUBLIC_URL", "BACKUP_DIR", "BACKUP_INTERVAL_S"}
DEMO_PASSWORD = "demo-pass-2026"


def hall_env(db: Path, backups: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in NOT_HERE}
    return env | {"HALL": "true", "SQLITE_PATH": str(db), "BACKUP_DIR": str(backups),
                  "BACKUP_INTERVAL_S": "1", "SCHEDULER_IN_PROCESS": "true",
                  "PRESENCE_REFRESH_MS": "0"}


def ok(result) -> str:
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def replayed(record: dict, tmp_path: Path, env) -> dict:
    path = tmp_path / f"record-{uuid.uuid4().hex}.json"
    path.write_text(json.dumps(record))
    return json.loads(ok(manage("replay", str(path), env=env)))


def newest_snapshot_after(backups: Path, moment: float, timeout: float = 30) -> Path:
    """Wait for the scheduler's first snapshot taken wholly after ``moment``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = [p for p in backups.glob("clubgames-*.sqlite3") if p.stat().st_mtime > moment + 0.01]
        if done:
            return max(done, key=lambda p: p.stat().st_mtime)
        time.sleep(0.1)
    raise AssertionError(f"no snapshot in {backups} after the last move within {timeout} s")


@pytest.mark.slow
def test_a_night_killed_mid_game_goes_on_from_its_snapshot_on_a_fresh_database(
        migrated_sqlite, tmp_path):
    first_db, backups = tmp_path / "laptop" / "db.sqlite3", tmp_path / "laptop" / "backups"
    sqlite_copy(migrated_sqlite, first_db)  # the laptop's database, migrated
    env = hall_env(first_db, backups)
    screens = ok(manage("demo", "--host", "0.0.0.0", "--port", "8000", "--if-empty", env=env))
    gorod = int(re.search(r"GoRoD live game \(organizer\):\s+\S+/gorod/(\d+)/", screens)[1])
    koth = int(re.search(r"King of the Hill host:\s+\S+/koth/(\d+)/host/", screens)[1])
    gorod_tokens = re.findall(r"GoRoD live team .*?/teams/j/([^/\s]+)/", screens)
    koth_tokens = re.findall(r"King of the Hill team .*?/teams/j/([^/\s]+)/", screens)

    server = start_workers(1, env, name="hall-night")
    try:
        host = Browser(server).log_in("host", DEMO_PASSWORD)
        organizer = Browser(server).log_in("organizer", DEMO_PASSWORD)
        walkers = [Browser(server) for _ in gorod_tokens[:2]]
        for phone, token in zip(walkers, gorod_tokens, strict=False):
            phone.join_team(token)
        players = [Browser(server) for _ in koth_tokens[:2]]
        for phone, token in zip(players, koth_tokens, strict=False):
            phone.join_team(token)

        # GoRoD: the first team takes level 1, the second misses once.
        code = walkers[0].ok("POST", f"/gorod/api/games/{gorod}/code/", {"text": "G7R11111D"})
        assert code["verdict"] == "accepted" and code["closed"], code
        walkers[1].ok("POST", f"/gorod/api/games/{gorod}/code/", {"text": "G7R00000D"})
        # King of the Hill: question 1 answered, judged and closed.
        host.ok("POST", f"/koth/api/games/{koth}/start/")
        host.ok("POST", f"/koth/api/games/{koth}/announce/", {"answer_key": "Гоголь"})
        for phone, text in zip(players, ("Гоголь", "Пушкин"), strict=True):
            phone.ok("POST", f"/koth/api/games/{koth}/answer/",
                     {"text": text, "client_id": str(uuid.uuid4())})
        for normalized, verdict in (("гоголь", True), ("пушкин", False)):
            host.ok("POST", f"/koth/api/games/{koth}/judge/",
                    {"question": 1, "normalized": normalized, "verdict": verdict})
        host.ok("POST", f"/koth/api/games/{koth}/close/")
        last_move = time.time()
        records = {"gorod": organizer.ok("GET", f"/gorod/api/games/{gorod}/record/"),
                   "kingofhill": organizer.ok("GET", f"/koth/api/games/{koth}/record/")}
        snapshot = newest_snapshot_after(backups, last_move)
    finally:
        server.procs[0].kill()  # kill -9: no shutdown, no last write
        server.procs[0].wait(timeout=10)

    # On another machine: a fresh database path, the backups folder copied over.
    second_db = tmp_path / "spare" / "db.sqlite3"
    second_db.parent.mkdir()
    spare = hall_env(second_db, tmp_path / "spare" / "backups")
    restored = ok(manage("restore", str(snapshot), env=spare, timeout=180))
    assert f"into {second_db}" in restored

    server = start_workers(1, spare, name="hall-night-restored")
    try:
        # The organizer and the host stay logged in too.
        organizer.urls = host.urls = list(server.urls)
        for name, path in (("gorod", f"/gorod/api/games/{gorod}/record/"),
                           ("kingofhill", f"/koth/api/games/{koth}/record/")):
            record = organizer.ok("GET", path)
            # The same record, but for the live view's "now" (GoRoD computes its state then).
            record["now"] = records[name].get("now")
            record = {k: v for k, v in record.items() if v is not None or k != "now"}
            assert record == records[name]
            assert replayed(record, tmp_path, spare) == replayed(records[name], tmp_path, spare)
        koth_result = replayed(records["kingofhill"], tmp_path, spare)
        assert len(records["kingofhill"]["moves"]) == 1
        assert sorted(t["step"] for t in koth_result["teams"])[-2:] == [0, 1]  # Гоголь: right
        gorod_events = [e for e in records["gorod"]["events"] if e["type"] == "code"]
        assert len(gorod_events) == 1
        standings = replayed(records["gorod"], tmp_path, spare)["teams"]
        assert sorted(t["levels_closed"] for t in standings)[-1] == 1

        # The night goes on: the same phone (its session came back with the night's key)
        # enters the next level's code, and the host asks question 2.
        walkers[0].urls = list(server.urls)
        code = walkers[0].ok("POST", f"/gorod/api/games/{gorod}/code/", {"text": "G7R22222D"})
        assert code["verdict"] == "accepted" and code["closed"], code
        host.ok("POST", f"/koth/api/games/{koth}/announce/", {"answer_key": "Толстой"})
        after = organizer.ok("GET", f"/gorod/api/games/{gorod}/record/")
        assert len([e for e in after["events"] if e["type"] == "code"]) == len(gorod_events) + 1
    finally:
        server.stop()
