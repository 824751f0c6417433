"""``manage.py replay`` on season records: the example reproduces, bad records are one line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from core.records import RecordError
from rating.rules import replay

RECORDS = Path(__file__).resolve().parents[1] / "fixtures" / "records"


def load(name):
    return json.loads((RECORDS / name).read_text(encoding="utf-8"))


def test_the_season_example_reproduces_through_manage_py_replay(capsys):
    call_command("replay", str(RECORDS / "season-organizer.in.json"))
    out = capsys.readouterr()
    assert out.err == ""
    assert json.loads(out.out) == load("season-organizer.out.json")


def test_the_season_example_reproduces_through_the_pure_replay():
    assert replay(load("season-organizer.in.json")) == load("season-organizer.out.json")


def test_the_example_organizer_gets_94_for_game_one_from_eight_votes():
    # 650 / 8 = 81.25 → 66 + 34 · 0.8125 = 93.625 → 94; then 9th place in game 2 is 72.
    table = {row["team"]: row for row in replay(load("season-organizer.in.json"))["teams"]}
    assert table["Организаторы"]["points"] == 94 + 72
    assert table["Команда 2"]["points"] == 96 - 10


def game(**fields):
    return {"format": "season", "games": [{"results": ["Alpha", "Beta"], **fields}]}


BAD_RECORDS = [
    pytest.param(game(organizer={"team": "Omega", "votes": {"Alpha": 100, "Beta": 60}}),
                 "games[0].organizer.votes.Beta: expected one of 0, 25, 50, 75, 100, got 60",
                 id="a vote that is not 0 25 50 75 or 100"),
    pytest.param(game(organizer={"team": "Omega", "votes": {"Beta": "75"}}),
                 "games[0].organizer.votes.Beta: expected one of 0, 25, 50, 75, 100, got '75'",
                 id="a vote written as text"),
    pytest.param(game(organizer={"team": "Omega", "votes": {"Gamma": 50}}),
                 "games[0].organizer.votes.Gamma: only a team that played this game votes",
                 id="a vote from a team that did not play"),
    pytest.param(game(organizer={"team": "Alpha"}),
                 "games[0].organizer.team: 'Alpha' organizes this game, so it cannot also play "
                 "it (it is in results)", id="the organizing team also in the results"),
    pytest.param(game(disqualified=["Omega"], organizer={"team": "Omega"}),
                 "games[0].organizer.team: 'Omega' organizes this game, so it cannot also play "
                 "it (it is in disqualified)", id="the organizing team also disqualified"),
    pytest.param({"format": "season", "games": [{"results": ["Alpha", "Beta", "Alpha"]}]},
                 "games[0].results[2]: 'Alpha' is in this game twice (also in results)",
                 id="a team twice in the results"),
    pytest.param(game(disqualified=["Beta"]),
                 "games[0].disqualified[0]: 'Beta' is in this game twice (also in results)",
                 id="a team both placed and disqualified"),
    pytest.param(game(organizer={"votes": {}}), "games[0].organizer.team: missing",
                 id="an organizer without a team"),
    pytest.param({"format": "season", "games": [{"results": ["Alpha", ""]}]},
                 "games[0].results[1]: a name may not be empty", id="an empty team name"),
    pytest.param({"format": "season", "games": [{"results": ["  "]}]},
                 "games[0].results[0]: a name may not be empty", id="a blank team name"),
    pytest.param({"format": "season", "games": [{"results": ["Alpha", 7]}]},
                 "games[0].results[1]: expected a string, got a number",
                 id="a team name that is a number"),
    pytest.param({"format": "season", "games": [{}]}, "games[0].results: missing",
                 id="a game without results"),
    pytest.param({"format": "season", "games": [{"results": "Alpha"}]},
                 "games[0].results: expected a list, got a string", id="results that are text"),
    pytest.param({"format": "season", "games": ["Alpha"]},
                 "games[0]: expected an object, got a string", id="a game that is not an object"),
    pytest.param({"format": "season"}, "games: missing", id="a season without games"),
    pytest.param({"format": "season", "games": {}}, "games: expected a list, got an object",
                 id="games that are not a list"),
    pytest.param(game(deductions={"Beta": -10}),
                 "games[0].deductions.Beta: write a deduction as the positive number of points "
                 "to subtract, got -10", id="a negative deduction"),
    pytest.param(game(deductions={"Beta": 2.5}),
                 "games[0].deductions.Beta: expected a whole number, got 2.5",
                 id="a fractional deduction"),
    pytest.param(game(deductions={"Gamma": 4}),
                 "games[0].deductions.Gamma: 'Gamma' did not play or organize this game",
                 id="a deduction for a team not in the game"),
    pytest.param(game(players={"Alpha": ["ann"], "Beta": ["ann"]}),
                 "games[0].players.Beta[0]: 'ann' is listed twice in this game (also for 'Alpha')",
                 id="a player listed for two teams in one game"),
    pytest.param(game(players={"Gamma": ["ann"]}),
                 "games[0].players.Gamma: 'Gamma' did not play or organize this game",
                 id="players of a team not in the game"),
    pytest.param(game(players={"Alpha": [""]}), "games[0].players.Alpha[0]: a name may not be "
                 "empty", id="an empty player name"),
    pytest.param(game(kingofhill={"format": "gorod", "teams": []}),
                 "games[0].kingofhill.format: expected 'kingofhill', got 'gorod'",
                 id="a King of the Hill record of the wrong format"),
    pytest.param({**game(), "scale": [100, -5]},
                 "scale[1]: points may not be negative, got -5", id="a negative scale value"),
    pytest.param({**game(), "scale": [90, 95]},
                 "scale[1]: 95 is more than the place before (90); a scale may not increase",
                 id="a scale that rewards a lower place more"),
    pytest.param({**game(), "scale": []}, "scale: a scale needs points for at least 1st place",
                 id="an empty scale"),
    pytest.param({**game(), "format": "gorod"}, "format: expected 'season', got 'gorod'",
                 id="a record of another format given to the season rules"),
]


@pytest.mark.parametrize("record, message", BAD_RECORDS)
def test_a_bad_season_record_is_a_record_error_saying_what_and_where(record, message):
    with pytest.raises(RecordError) as exc:
        replay(record)
    assert str(exc.value).startswith(message)


@pytest.mark.parametrize("record, message", [
    param for param in BAD_RECORDS if param.values[0].get("format") == "season"
])
def test_a_bad_season_record_prints_one_error_line_and_exits_2(record, message, tmp_path, capsys):
    path = tmp_path / "season.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        call_command("replay", str(path))
    out = capsys.readouterr()
    assert exc.value.code == 2
    assert out.out == ""
    lines = out.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"error: {message}")


REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("record, message", [
    pytest.param(game(organizer={"team": "Omega", "votes": {"Alpha": 60}}),
                 "games[0].organizer.votes.Alpha: expected one of 0, 25, 50, 75, 100, got 60",
                 id="a vote that is not 0 25 50 75 or 100"),
    pytest.param(game(organizer={"team": "Beta"}),
                 "games[0].organizer.team: 'Beta' organizes this game, so it cannot also play it",
                 id="the organizing team also playing"),
    pytest.param({"format": "season", "games": [{"results": ["Alpha"], "disqualified": ["Alpha"]}]},
                 "games[0].disqualified[0]: 'Alpha' is in this game twice",
                 id="a team twice in one game"),
])
def test_the_real_manage_py_replay_prints_one_error_line_and_exits_2(record, message, tmp_path):
    path = tmp_path / "season.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    done = subprocess.run([sys.executable, "manage.py", "replay", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith(f"error: {message}")
