"""The apps' layering (``[tool.importlinter]`` in pyproject.toml): the games and the rating
above teams above core, none of the games and the rating importing another (they meet through
``core.formats``). Imports inside functions count."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ["config", "core", "teams", "kingofhill", "gorod", "rating"]


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    lint = Path(sys.executable).with_name("lint-imports")
    # The project's directory first on the path: the venv may hold another checkout.
    return subprocess.run([str(lint), "--no-cache"], cwd=root, capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)})


def test_the_apps_keep_their_layers():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


def test_a_game_importing_the_rating_inside_a_function_breaks_the_layers(tmp_path):
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "migrations"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    services = tmp_path / "kingofhill" / "services.py"
    services.write_text(services.read_text(encoding="utf-8")
                        + "\n\ndef _sneaky():\n    import rating.services\n", encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "kingofhill.services -> rating.services" in result.stdout
