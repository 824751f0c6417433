import gc
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.properties import examples


def run_replay(capsys, path):
    with pytest.raises(SystemExit) as exc:
        call_command("replay", str(path))
    return exc.value.code, capsys.readouterr()


def test_an_unknown_format_is_one_error_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "chess"}))
    code, out = run_replay(capsys, path)
    assert code == 2
    assert out.err.strip().startswith("error: format:")
    assert len(out.err.strip().splitlines()) == 1


def test_text_that_is_not_json_is_one_error_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text("{not json")
    code, out = run_replay(capsys, path)
    assert code == 2
    assert out.err.startswith("error: not valid JSON")


def test_a_missing_file_is_an_error_not_a_traceback(tmp_path, capsys):
    code, out = run_replay(capsys, tmp_path / "nope.json")
    assert code == 2
    assert out.err.startswith("error: cannot read")


# --- the process: `manage.py replay FILE` runs without Django ---------------------------------

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests/fixtures/records"
# manage.py as a process, reporting on exit whether Django was imported at all.
PROBE = ("import atexit, runpy, sys; "
         "atexit.register(lambda: sys.stderr.write('django loaded' if 'django' in sys.modules "
         "else 'no django')); sys.argv = ['manage.py', *sys.argv[1:]]; "
         "runpy.run_path('manage.py', run_name='__main__')")


def probe(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, input=stdin,
                          capture_output=True, timeout=60)


@pytest.mark.parametrize("name", ["gorod-live", "koth-king-held"])
def test_the_process_replays_without_django_and_prints_what_the_command_prints(name, capsys):
    path = RECORDS / f"{name}.in.json"
    done = probe("replay", str(path))
    assert done.returncode == 0 and done.stderr == b"no django"
    call_command("replay", str(path))
    assert json.loads(done.stdout) == json.loads(capsys.readouterr().out)
    # Standard input too.
    done = probe("replay", "-", stdin=path.read_bytes())
    assert done.returncode == 0 and done.stderr == b"no django"


def test_a_bad_record_through_the_process_is_one_error_line_and_exit_2_without_django():
    done = probe("replay", "-", stdin=b'{"format": "chess"}')
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr == (b"error: format: expected one of gorod, kingofhill, season, "
                           b"got 'chess'\nno django")


def test_other_arguments_go_to_django_as_before():
    done = probe("replay", "--help")
    assert done.returncode == 0 and b"Replay a game record" in done.stdout
    assert done.stderr.endswith(b"django loaded")


def test_an_engine_failure_is_still_one_line(monkeypatch):
    from core import replay as command

    def broken(record, **_options):
        raise ZeroDivisionError("division by zero")

    # A seam: no known record makes an engine fail so (their fuzz tests hold them to
    # RecordError); the command must still answer in one line should one slip.
    monkeypatch.setattr(command, "replay", broken)
    err = io.StringIO()
    assert command.main("-", stdin=io.StringIO('{"format": "gorod"}'), stderr=err) == 2
    assert err.getvalue() == ("error: cannot replay this gorod record: an internal error "
                              "(ZeroDivisionError: division by zero); please report it with the "
                              "record\n")


# --- what the process does for speed, exactly -------------------------------------------------

# Strings and keys with a lone surrogate (category Cs) or none; big ints, tuples, datetimes
# and int keys too, which one of orjson and json refuses and the other writes.
_text = st.text(max_size=6) | st.tuples(st.text(max_size=3), st.characters(categories=["Cs"]),
                                        st.text(max_size=3)).map("".join)
_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**80, 2**80) | st.floats(allow_nan=False) | _text
    | st.datetimes(), lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(_text | st.integers(0, 9), inner, max_size=4), max_leaves=20)


@settings(max_examples=examples(400), deadline=None)
@given(_values)
def test_the_fast_surrogate_check_finds_what_find_unstorable_text_finds(value):
    from core.records import find_unstorable_text
    from core.replay import unstorable_text

    assert unstorable_text(value) == find_unstorable_text(value)


@pytest.mark.parametrize("enabled", [True, False])
def test_a_replay_leaves_the_garbage_collector_as_it_found_it(enabled):
    from core import replay as command

    path = RECORDS / "gorod-live.in.json"
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        out = io.BytesIO()
        assert command.main(str(path), stdout=out) == 0
        assert gc.isenabled() is enabled
        assert command.main("-", stdin=io.StringIO("{"), stderr=io.StringIO()) == 2
        assert gc.isenabled() is enabled
        # The Django command (call_command, in process) runs the same ``run``.
        assert json.loads(command.run(str(path))) == json.loads(out.getvalue())
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert json.loads(out.getvalue()) == command.replay(json.loads(path.read_text("utf-8")))


@pytest.mark.parametrize("text", [
    pytest.param('{"format": "kingofhill", "teams": ["A\\ud800", "B"]}', id="an escape"),
    pytest.param('{"format": "kingofhill", "teams": ["A\ud800", "B"]}', id="a raw one in a text"),
    pytest.param('{"format": "kingofhill", "teams": ["A", "B"], "x": {"\\ud800": 1}}',
                 id="an escape in a key the engine never reads"),
])
def test_a_lone_surrogate_is_refused_saying_so_whichever_way_the_text_carries_it(text):
    from core import replay as command
    from core.records import RecordError

    with pytest.raises(RecordError, match="unpaired surrogate"):
        command.run("-", stdin=io.StringIO(text))


def test_a_record_without_a_backslash_replays_without_looking_for_surrogates_in_it():
    from core import replay as command

    path = RECORDS / "koth-revolution.in.json"
    text = path.read_text("utf-8")
    assert "\\" not in text and not command.may_hold_surrogates(text)
    assert command.may_hold_surrogates(text.replace("Бета", "Б\\u0435та"))
    assert command.run(str(path)) == command.run("-", stdin=io.StringIO(text))
