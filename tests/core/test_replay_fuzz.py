"""The replay contract for every input: exit 0 with JSON on stdout, or exit 2 with exactly one
line ``error: ...`` on stderr and no traceback. Random JSON, random records of each format,
mutated example records (tests/fixtures/records) and raw text; plus the messages the contract
promises for names that would break the line."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.properties import examples

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "tests/fixtures/records").glob("*.in.json"))
FUZZ = settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-2**80, max_value=2**80)
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.text() | st.sampled_from(["", "\ud800", "a\nb", "2026-12-05T22:00:00+03:00",
                                          "2026-12-05T22:00:00", "Альфа", "\x00", "\u2028"]))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=5), max_leaves=25)


class _Stdin:
    def __init__(self, data: bytes):
        self.buffer = io.BytesIO(data)


def run(data: bytes) -> tuple[int, str, str]:
    """``manage.py replay -`` in-process with ``data`` on standard input."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdin", _Stdin(data))
        try:
            call_command("replay", "-", stdout=out, stderr=err)
            code = 0
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def assert_contract(code: int, out: str, err: str) -> None:
    if code == 0:
        json.loads(out)
        assert err == ""
        out.encode("utf-8")
    else:
        assert code == 2
        assert out == ""
        assert err.startswith("error: ") and err.endswith("\n")
        assert err.count("\n") == 1, err
        assert "Traceback" not in err
        err.encode("utf-8")  # printable: no lone surrogate reached the terminal


def encoded(value) -> bytes:
    return json.dumps(value).encode()  # ASCII: lone surrogates travel as \\ud800 escapes


@FUZZ
@given(value=json_values)
def test_random_json_keeps_the_contract(value):
    assert_contract(*run(encoded(value)))


@FUZZ
@given(fmt=st.sampled_from(["kingofhill", "gorod", "season"]),
       fields=st.dictionaries(st.sampled_from(["teams", "moves", "summit", "levels", "events",
                                               "start", "games", "scale", "routes", "end",
                                               "organizer", "main_questions"]), json_values))
def test_random_records_of_each_format_keep_the_contract(fmt, fields):
    assert_contract(*run(encoded({"format": fmt, **fields})))


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*path, i))


@FUZZ
@given(data=st.data())
def test_mutated_example_records_keep_the_contract(data):
    record = json.loads(data.draw(st.sampled_from(EXAMPLES)).read_text(encoding="utf-8"))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = list(_paths(record))[1:]
        path = data.draw(st.sampled_from(paths))
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(data.draw(json_values))
    assert_contract(*run(encoded(record)))


@FUZZ
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_raw_bytes_keep_the_contract(raw):
    assert_contract(*run(raw))


def test_the_examples_still_replay():
    for path in EXAMPLES:
        code, out, _err = run(path.read_bytes())
        assert code == 0, path.name


# --- the messages, through the real process ------------------------------------------------


def replay_process(record) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", "replay", "-"], cwd=ROOT,
                          input=encoded(record), capture_output=True, timeout=60)


def _koth(**changes):
    record = json.loads((ROOT / "tests/fixtures/records/koth-revolution.in.json").read_text())
    record.update(changes)
    return record


@pytest.mark.parametrize(
    ("record", "line"),
    [
        pytest.param(_koth(teams=["Аль\ud800фа", "Бета", "Гамма"]),
                     "error: teams[0]: holds an unpaired surrogate (broken Unicode, e.g. \\ud800)",
                     id="a lone surrogate in a name"),
        pytest.param(_koth(teams=["Альфа\nerror: forged", "Бета", "Гамма"]),
                     'error: teams[0]: a team name must not hold control characters (a newline, a '
                     'tab): "\\u0410\\u043b\\u044c\\u0444\\u0430\\nerror: forged"',
                     id="a newline in a name"),
        pytest.param(_koth(summit=2.5), "error: summit: expected a whole number, got 2.5",
                     id="a fraction where a whole number belongs"),
        pytest.param(_koth(format=["kingofhill"]),
                     "error: format: expected one of gorod, kingofhill, season, got list",
                     id="a format that is a list"),
    ],
)
def test_the_error_line_says_what_and_where(record, line):
    result = replay_process(record)
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.decode("utf-8") == line + "\n"


def test_nan_and_infinity_are_refused_not_printed():
    result = subprocess.run([sys.executable, "manage.py", "replay", "-"], cwd=ROOT,
                            input=b'{"format": "kingofhill", "summit": NaN}', capture_output=True,
                            timeout=60)
    assert result.returncode == 2
    assert result.stderr == b"error: not valid JSON: NaN is not a number JSON allows\n"
