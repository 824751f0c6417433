"""The GoRoD benchmark script still runs and reports the figures issue 4 asks for."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bench_gorod.py"


def test_the_benchmark_reports_full_results_and_one_submissions_cost_on_a_small_night(capsys):
    spec = importlib.util.spec_from_file_location("bench_gorod", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    figures = bench.main(n_teams=12, n_levels=6, attempts=800, runs=1)
    out = capsys.readouterr().out
    assert "12 teams × 6 levels, 800 code attempts" in out
    assert "full results + statistics table" in out and "one code submission" in out
    assert "→ OK" in out
    assert set(figures) == {"attempts", "full", "parsed", "submission"}
    assert all(0 < seconds < 5 for seconds in figures.values())
