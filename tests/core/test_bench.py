"""`make bench` in its quick mode on the default set-up: it starts its own servers, prints one
table and writes the JSON the README and the issue's note are made from. Only the shape is
checked here — the figures depend on the machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Its own CI step (`make bench-smoke`): half a minute of servers that `make test` need not wait for.
pytestmark = pytest.mark.bench

ROOT = Path(__file__).resolve().parents[2]
ROW_KEYS = {"setup", "measure", "value", "spread", "unit", "p50_ms", "p95_ms", "baseline",
            "baseline_value", "ratio", "goal", "met"}


def test_the_quick_bench_prints_one_table_and_writes_every_figure_as_json(tmp_path):
    results = tmp_path / "results.json"
    env = {**os.environ, "BENCH_QUICK": "1", "BENCH_ONLY": "sqlite", "BENCH_RESULTS": str(results)}
    done = subprocess.run([sys.executable, "-m", "bench"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(results.read_text())
    assert data["quick"] is True and data["error"] is None
    assert data["cores"] == os.cpu_count()
    rows = data["rows"]
    assert rows and all(ROW_KEYS <= set(row) for row in rows)
    setups = {row["setup"] for row in rows}
    assert {"SQLite/in-memory, 1 daphne", "SQLite/in-memory, 1 uvicorn", "uvicorn vs daphne",
            "replay"} <= setups
    measures = " / ".join(row["measure"] for row in rows)
    for expected in ("GET /healthz", "a trivial view through every middleware",
                     "GoRoD code (POST)", "King of the Hill answer (POST)",
                     "King of the Hill public state (GET)", "GoRoD public state (GET)",
                     "GoRoD night", "organizer socket shows an accepted code",
                     "largest pushed message", "reconnect storm", "fan-out", "peak RSS",
                     "server errors logged", "replay King of the Hill", "replay GoRoD",
                     "in process", "as a process",
                     "server CPU per request: GoRoD code (POST)"):
        assert expected in measures, expected
    for row in rows:
        if row["ratio"] is not None:  # every ratio is against a baseline of the same run
            assert row["ratio"] == row["value"] / row["baseline_value"]
        assert row["met"] in (True, False, None)
    # One table: the header once, then a line per row, each naming its set-up and measure.
    lines = done.stdout.splitlines()
    assert lines[0].startswith("make bench — ") and f"{os.cpu_count()} CPU cores" in lines[0]
    assert [c.strip() for c in lines[1].split(" | ")] == [
        "setup", "measure", "median", "spread", "unit", "p50 ms", "p95 ms", "ratio", "baseline",
        "goal", "met"]
    # Every figure taken over several runs says how far apart they were.
    for row in rows:
        if row["setup"] == "replay" or row["measure"].startswith(("GET", "server CPU")):
            low, high = row["spread"]
            assert low <= row["value"] <= high, row["measure"]
    body = lines[3:3 + len(rows)]
    assert [(c.split(" | ")[0].strip(), c.split(" | ")[1].strip()) for c in body] == [
        (row["setup"], row["measure"]) for row in rows]
