"""``manage.py replay`` and the pure ``replay`` on King of the Hill records (``docs/spec/record-format.md``)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from kingofhill.rules import replay

RECORDS = Path(__file__).resolve().parent.parent / "fixtures" / "records"
EXAMPLES = sorted(RECORDS.glob("koth-*.in.json"))
CONTRACT = ("format", "finished", "finish_reason", "winner", "king", "king_holds", "teams")


def expected(path: Path) -> dict:
    return json.loads(path.with_name(path.name.replace(".in.json", ".out.json")).read_text("utf-8"))


def contract_fields(out: dict, reference: dict) -> dict:
    # The examples' outputs name the contract's fields; "moves" is compared where they give it.
    return {key: out[key] for key in reference}


def test_the_examples_are_there():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_pure_replay_reproduces_the_example_output(path):
    reference = expected(path)
    out = replay(json.loads(path.read_text("utf-8")))
    assert contract_fields(out, reference) == reference
    assert set(CONTRACT) <= set(out) and "moves" in out


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_replay_command_prints_the_example_output(path, capsys):
    call_command("replay", str(path))
    captured = capsys.readouterr()
    assert captured.err == ""
    reference = expected(path)
    assert contract_fields(json.loads(captured.out), reference) == reference


def test_every_move_of_the_output_says_what_counted_for_the_rating(capsys):
    path = RECORDS / "koth-revolution.in.json"
    call_command("replay", str(path))
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert [m["question"] for m in moves] == [1, 2, 3]
    assert moves[0]["ignored"] == {"Альфа": "jump not allowed on the first question"}
    assert moves[1]["effective"] == {"Альфа": "jump"}
    assert moves[1]["ignored"] == {"Гамма": "jump not allowed after a failed move"}
    assert moves[2]["effective"] == {"Бета": "revolution"}
    assert moves[2]["correct"] == ["Бета", "Гамма"]
    assert all(m["partner"] is False for m in moves)


def test_a_late_jump_is_reported_as_ignored(capsys):
    call_command("replay", str(RECORDS / "koth-late-jump.in.json"))
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert moves[1]["ignored"] == {"B": "declared after the question was announced"}


def test_standard_input_is_read_for_a_dash(monkeypatch, capsys):
    path = RECORDS / "koth-king-held.in.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(path.read_text("utf-8")))
    call_command("replay", "-")
    assert contract_fields(json.loads(capsys.readouterr().out), expected(path)) == expected(path)


def base() -> dict:
    return {"format": "kingofhill", "summit": 3, "teams": ["A", "B"], "moves": []}


BAD = [
    pytest.param({**base(), "moves": [{"answers": {"Z": {"correct": True}}}]},
                 "moves[0].answers.Z: unknown team 'Z'", id="an answer from an unknown team"),
    pytest.param({**base(), "moves": [{"declarations": {"A": {"kind": "hop"}}}]},
                 'moves[0].declarations.A.kind: expected "jump" or "revolution", got "hop"',
                 id="an unknown declaration kind"),
    pytest.param({**base(), "moves": [{"announced_at": "2026-12-05T19:00:00"}]},
                 "moves[0].announced_at: '2026-12-05T19:00:00' has no UTC offset", id="a naive time"),
    pytest.param(["not", "an", "object"], "the record must be a JSON object", id="a record that is not an object"),
    pytest.param({**base(), "main_questions": 1, "moves": [{}, {}]},
                 "moves[1]: only 1 questions", id="more moves than questions"),
    pytest.param({**base(), "moves": [{"answers": {"A": {"correct": True}}}] * 6},
                 "moves[4]: the game already finished after question 4 (no_challenger)", id="a move after the game finished"),
    pytest.param({**base(), "teams": ["A", "A"]}, "teams[1]: duplicate team name 'A'", id="a duplicate team"),
    pytest.param({**base(), "summit": 1}, "summit: must be at least 2", id="a summit below 2"),
    pytest.param({**base(), "teams": ["A"]}, "teams: at least 2 teams are needed", id="a single team"),
    pytest.param({**base(), "moves": [{"answers": {"A": {"correct": 1}}}]},
                 "moves[0].answers.A.correct: expected true or false, got a number", id="a numeric verdict"),
]


@pytest.mark.parametrize(("record", "message"), BAD)
def test_an_invalid_record_prints_one_error_line_and_exits_2(record, message, tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record), "utf-8")
    with pytest.raises(SystemExit) as exit_:
        call_command("replay", str(path))
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: ")
    assert message in lines[0]
    assert captured.out == ""


def test_an_invalid_record_on_standard_input_is_refused_the_same_way(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({**base(), "summit": "high"})))
    with pytest.raises(SystemExit) as exit_:
        call_command("replay", "-")
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == "error: summit: expected a number, got a string"
