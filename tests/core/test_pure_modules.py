"""The rules modules are pure: they import without Django and never read the clock."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE = ["core.records", "live.delta", "kingofhill.rules", "gorod.rules", "gorod.codes", "rating.rules", "teams.rules"]


@pytest.mark.parametrize("module", PURE)
def test_a_rules_module_imports_with_django_made_unimportable(module):
    # sys.modules[name] = None makes any "import django..." raise ImportError in that process.
    code = f"import sys; sys.modules['django'] = None; import {module}"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("module", PURE)
def test_a_rules_module_never_reads_the_clock(module):
    source = (ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
    for call in ("datetime.now(", "datetime.utcnow(", "time.time(", "timezone.now(", "date.today("):
        assert call not in source, f"{module} calls {call}: the current time must be an argument"
