"""``make bench``'s replays: ``manage.py replay`` of a 64-team × 500-move King of the Hill and a
200-team × 30-level GoRoD record, in process against the straightforward reference of the same
rules (``bench/reference_koth.py``, ``bench/reference_gorod.py``), and as a process against a
compact JSON round trip of the same record.

Run alone (no servers): ``BENCH_ONLY=replay .venv/bin/python -m bench`` prints the replay rows
of the table (``BENCH_QUICK=1``: the small records).

Each round times, one after the other: the round trip (read, ``json.loads``, compact
``json.dumps``), the replay in process (``core.replay.run``: read, parse, replay, encode — what
the command prints), the reference (read, ``json.loads``, its loops, the same encoder) and the
replay as a process. The reference runs with the collector paused as ``core.replay.run`` pauses
it, so the ratio compares the code's work alone. Figures are medians of the rounds, with their
spread (the fastest and the slowest round).
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import reference_gorod, reference_koth  # noqa: E402
from bench.bench_gorod import build as gorod_build  # noqa: E402
from bench.bench_kingofhill import build_record as koth_build  # noqa: E402
from core.replay import run  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
QUICK = os.environ.get("BENCH_QUICK") == "1"
FULL = {"repeats": 5, "koth": (64, 500), "gorod": (200, 30, 20_000)}
SIZES = {"repeats": 1, "koth": (16, 40), "gorod": (20, 10, 400)} if QUICK else FULL
# The replay process's goal against the compact round trip (issue 34).
PROCESS_GOAL = 8


def records(sizes: dict = SIZES) -> dict[str, tuple[dict, object]]:
    """The bench's records by their row name, each with its reference module."""
    teams, moves = sizes["koth"]
    g_teams, g_levels, g_attempts = sizes["gorod"]
    return {
        f"King of the Hill {teams} teams × {moves} moves":
            (koth_build(teams, moves, seed=64, main_questions=None), reference_koth),
        f"GoRoD {g_teams} teams × {g_levels} levels":
            (gorod_build(n_teams=g_teams, n_levels=g_levels, attempts=g_attempts)[0],
             reference_gorod),
    }


def _reference(module, path: str) -> bytes:
    collecting = gc.isenabled()
    gc.disable()
    try:
        return module.run(path)
    finally:
        if collecting:
            gc.enable()


def _round_trip(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return json.dumps(json.loads(handle.read()), ensure_ascii=False, separators=(",", ":"))


def measure(work: Path, env: dict[str, str], row, *, repeats: int = SIZES["repeats"],
            python: str = sys.executable) -> None:
    """Time every record's replay and add its rows with ``row`` (``bench.run.row``'s
    signature). ``env`` is the environment of the replay processes."""
    compile_sources(python)
    for name, (record, reference) in records().items():
        path = work / "record.json"
        text = json.dumps(record, ensure_ascii=False)
        path.write_text(text, encoding="utf-8")
        where = str(path)
        rounds: dict[str, list[float]] = {"trip": [], "replay": [], "reference": [],
                                          "process": [], "start": []}
        # Imported and warm before the first round, the engine and the reference alike.
        run(where)
        _reference(reference, where)
        for _ in range(repeats):
            for key, work_of, args in (("trip", _round_trip, (where,)), ("replay", run, (where,)),
                                       ("reference", _reference, (reference, where))):
                t = time.perf_counter()
                work_of(*args)
                rounds[key].append(time.perf_counter() - t)
            t = time.perf_counter()
            done = subprocess.run([python, "manage.py", "replay", where], cwd=ROOT, env=env,
                                  capture_output=True, timeout=120)
            rounds["process"].append(time.perf_counter() - t)
            if done.returncode != 0:
                raise RuntimeError(done.stderr.decode(errors="replace"))
            # What any process costs before it reads a byte: the interpreter's start.
            t = time.perf_counter()
            subprocess.run([python, "-c", "pass"], cwd=ROOT, env=env, check=True, timeout=60)
            rounds["start"].append(time.perf_counter() - t)
        median = {key: statistics.median(values) for key, values in rounds.items()}
        detail = {"record_kib": round(len(text.encode()) / 1024, 1), "rounds": repeats,
                  "reference_ms": _ms(rounds["reference"]), "round_trip_ms": _ms(rounds["trip"]),
                  "interpreter_start_ms": _ms(rounds["start"])}
        row("replay", f"replay {name}, in process", median["replay"] * 1000, "ms",
            spread=_spread(rounds["replay"]),
            baseline=f"straightforward reference ({Path(reference.__file__).name}), in process",
            base=median["reference"] * 1000, goal="<= 1.0x",
            met=median["replay"] <= median["reference"], extra=detail)
        row("replay", f"replay {name}, as a process", median["process"] * 1000, "ms",
            spread=_spread(rounds["process"]),
            baseline="compact JSON round trip (json.loads + json.dumps), in process",
            base=median["trip"] * 1000, goal=f"<= {PROCESS_GOAL}x",
            met=median["process"] <= PROCESS_GOAL * median["trip"], extra=detail)


def _ms(values: list[float]) -> list[float]:
    return [round(v * 1000, 2) for v in values]


def _spread(values: list[float]) -> tuple[float, float]:
    return (min(values) * 1000, max(values) * 1000)


def compile_sources(python: str = sys.executable) -> None:
    """As installed code runs: compiled to bytecode once. Where PYTHONDONTWRITEBYTECODE is set
    (these machines) every replay process would otherwise compile the engines from source
    again, 20 ms of a 200-team replay."""
    subprocess.run([python, "-m", "compileall", "-q", "core", "gorod", "kingofhill", "rating",
                    "teams", "config"], cwd=ROOT, check=True, capture_output=True, timeout=300)
