"""The rules modules are pure: they import without Django and never read the clock."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ["gorod.rules", "kingofhill.rules", "rating.rules"]  # pure packages: the package and each of its modules
PURE = ["core.records", "live.delta", "core.deadlines", "gorod.codes",
        "teams.rules",
        *PACKAGES, *sorted(f"{package}.{path.stem}" for package in PACKAGES
                           for path in (ROOT / package.replace(".", "/")).glob("*.py")
                           if path.stem != "__init__")]


def source_of(module: str) -> Path:
    path = ROOT / module.replace(".", "/")
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def test_every_module_of_a_pure_package_is_guarded():
    assert "gorod.rules.engine" in PURE and "gorod.rules.output" in PURE
    assert "kingofhill.rules.board" in PURE and "kingofhill.rules.past" in PURE
    assert "rating.rules.standings" in PURE and "rating.rules.bonuses" in PURE


@pytest.mark.parametrize("module", PURE)
def test_a_rules_module_imports_with_django_made_unimportable(module):
    # sys.modules[name] = None makes any "import django..." raise ImportError in that process.
    code = f"import sys; sys.modules['django'] = None; import {module}"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("module", PURE)
def test_a_rules_module_never_reads_the_clock(module):
    source = source_of(module).read_text(encoding="utf-8")
    for call in ("datetime.now(", "datetime.utcnow(", "time.time(", "timezone.now(", "date.today("):
        assert call not in source, f"{module} calls {call}: the current time must be an argument"
