"""Hypothesis runs few examples on every run and each property's full count on request."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = ("from hypothesis import settings; from tests.properties import examples; "
         "print(settings.default.max_examples, examples(400), examples(5), "
         "settings.default.deadline)")


def profile(value: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_PROFILE"}
    if value is not None:
        env["HYPOTHESIS_PROFILE"] = value
    return subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize(("value", "shown"), [
    pytest.param(None, "15 15 5 None", id="unset means quick"),
    pytest.param("quick", "15 15 5 None", id="quick caps every property at 15"),
    pytest.param("thorough", "100 400 5 None", id="thorough runs each property's own count"),
])
def test_the_hypothesis_profile_follows_the_environment(value, shown):
    result = profile(value)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == shown


def test_an_unknown_hypothesis_profile_is_one_clear_error():
    result = profile("through")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: HYPOTHESIS_PROFILE='through' is not one of quick, thorough")


def test_this_run_s_properties_use_the_loaded_profile():
    from hypothesis import settings

    from tests.properties import PROFILE, QUICK_EXAMPLES

    expected = QUICK_EXAMPLES if PROFILE == "quick" else 100
    assert settings.default.max_examples == expected and settings.default.deadline is None
