"""The replay bench's yardsticks (``bench/reference_koth.py``, ``bench/reference_gorod.py``):
independent, straightforward implementations of the rules that ``make bench`` times the engines
against. They print what ``manage.py replay`` prints, byte for byte, on every example and on the
bench's own records — which cross-checks the engines too — and the bench's table carries each
figure's spread and a trivial request as a second baseline beside ``/healthz``."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from bench import reference_gorod, reference_koth, replays
from bench.bench_kingofhill import build_record
from core import replay as command

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "tests/fixtures/records").glob("*.in.json"))
REFERENCES = {"kingofhill": reference_koth, "gorod": reference_gorod}


def reference_for(record: dict):
    return REFERENCES[record["format"]]


@pytest.mark.parametrize("path", [p for p in EXAMPLES if not p.name.startswith("season")],
                         ids=lambda p: p.name)
def test_the_reference_prints_what_the_replay_command_prints_for_every_example(path):
    reference = reference_for(json.loads(path.read_text("utf-8")))
    assert reference.run(str(path)) == command.run(str(path))


def test_every_game_example_has_a_reference():
    formats = {json.loads(p.read_text("utf-8"))["format"] for p in EXAMPLES}
    assert formats - {"season"} == set(REFERENCES)


def test_the_references_print_what_the_replay_command_prints_for_the_benchs_records(tmp_path):
    records = replays.records(replays.FULL)
    assert [name.split(" ")[0] for name in records] == ["King", "GoRoD"]
    for name, (record, reference) in records.items():
        path = tmp_path / "record.json"
        path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
        assert reference.run(str(path)) == command.run(str(path)), name


def test_the_benchs_king_of_the_hill_record_plays_to_the_end_with_every_rule_at_work():
    # A yardstick is only as good as the record it reads: revolutions, jumps, several Kings
    # and no early end (the examples hold the refused declarations).
    out = reference_koth.replay(build_record(64, 500, seed=64, main_questions=None))
    moves = out["moves"]
    assert len(moves) == 500 and out["finished"] is False
    effective = [kind for m in moves for kind in m["effective"].values()]
    assert {"jump", "revolution"} <= set(effective)
    assert len({m["king"] for m in moves}) > 5


def test_a_replay_in_process_pauses_the_collector_as_the_process_does(tmp_path):
    # 24 teams × 60 moves: 1 440 answers, enough containers for the collector to run several
    # times if it were left on.
    path = tmp_path / "club.json"
    path.write_text(json.dumps(build_record(24, 60, seed=24, main_questions=60)))
    collections = []

    def seen(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    was = gc.isenabled()
    gc.enable()
    gc.callbacks.append(seen)
    try:
        command.run(str(path))
        assert gc.isenabled()
    finally:
        gc.callbacks.remove(seen)
        (gc.enable if was else gc.disable)()
    assert collections == []


def test_every_bench_row_carries_the_spread_of_its_runs_and_the_table_prints_it():
    from bench import run as bench

    entry = bench.row("replay", "a figure", 2.0, "ms", spread=(1.5, 3.25), baseline="b",
                      base=4.0, goal="<= 1.0x", met=True)
    bench.ROWS.remove(entry)
    assert entry["spread"] == [1.5, 3.25] and entry["ratio"] == 0.5
    lines = bench.table([entry], 2).splitlines()
    head = [c.strip() for c in lines[1].split(" | ")]
    assert head[:5] == ["setup", "measure", "median", "spread", "unit"]
    assert [c.strip() for c in lines[3].split(" | ")][2:5] == ["2.0", "1.5–3.2", "ms"]


@pytest.mark.django_db
def test_the_trivial_baseline_request_crosses_every_middleware_and_reads_nothing(
        client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/favicon.ico")
    assert response.status_code == 301
    # Marks of middleware from both ends of the stack are on the response: it went through.
    assert "X-Frame-Options" in response and "Content-Security-Policy" in response
