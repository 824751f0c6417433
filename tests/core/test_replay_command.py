import json

import pytest
from django.core.management import call_command


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
