"""`make bench`'s settings: BENCH_FANOUT sets how many sockets one change goes to (issue 34
measures 5 000), BENCH_ONLY which families of set-ups run; a value the bench cannot use is one
`error:` line before any server starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.run import BadSetting, fanout_sockets, only_families

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("environ", "sockets"), [
    ({}, 2000),
    ({"BENCH_FANOUT": ""}, 2000),
    ({"BENCH_FANOUT": "5000"}, 5000),
    ({"BENCH_FANOUT": " 40 "}, 40),
])
def test_the_fanout_takes_bench_fanout_or_its_default(environ, sockets):
    assert fanout_sockets(environ, 2000) == sockets


@pytest.mark.parametrize("text", ["many", "5e3", "1", "0", "-5", "20001"])
def test_a_fanout_size_the_bench_cannot_use_is_refused_with_its_value(text):
    with pytest.raises(BadSetting, match="BENCH_FANOUT"):
        fanout_sockets({"BENCH_FANOUT": text}, 2000)


@pytest.mark.parametrize(("environ", "families"), [
    ({}, {"sqlite", "postgres"}),
    ({"BENCH_ONLY": "replay"}, {"replay"}),
    ({"BENCH_ONLY": " postgres , replay "}, {"postgres", "replay"}),
])
def test_bench_only_names_the_families_that_run(environ, families):
    assert only_families(environ) == families


def test_a_misspelt_family_is_refused_instead_of_running_only_the_replays():
    with pytest.raises(BadSetting, match="BENCH_ONLY names sqllite: choose from sqlite"):
        only_families({"BENCH_ONLY": "sqllite"})


@pytest.mark.parametrize(("environ", "message"), [
    ({"BENCH_FANOUT": "lots"}, "error: BENCH_FANOUT='lots' is not a whole number of sockets"),
    ({"BENCH_ONLY": "pg"}, "error: BENCH_ONLY names pg: choose from sqlite, postgres, replay"),
])
def test_the_bench_stops_with_one_error_line_before_starting_anything(tmp_path, environ,
                                                                       message):
    results = tmp_path / "results.json"
    done = subprocess.run([sys.executable, "-m", "bench"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60,
                          env={**os.environ, **environ, "BENCH_RESULTS": str(results)})
    assert done.returncode == 2
    assert done.stderr.strip() == message
    assert not results.exists()
