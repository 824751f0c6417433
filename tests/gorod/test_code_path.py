"""A GoRoD write's path goes one way: the callers (views, API, sockets, clock, exports) use the
services, the services' actions go through the live adapter, whose ``settle``
(``gorod.settle``) and ``build`` (``gorod.states``) sit on the reads (``gorod.selectors``,
``gorod.reads``); no module imports one above it, inside a function or not."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ["config", "core", "live", "teams", "kingofhill", "gorod", "rating"]
# Top to bottom; ``:`` siblings may import each other, ``|`` siblings may not.
LAYERS = [
    "gorod.api : gorod.views : gorod.consumers : gorod.clock : gorod.exports : gorod.outcome"
    " : gorod.demo : gorod.management : gorod.proposal_views",
    "gorod.proposals",
    "gorod.services",
    "gorod.level_fix",
    "gorod.editing | gorod.rulings | gorod.timeouts | gorod.photos | gorod.messages | gorod.pauses"
    " | gorod.safety | gorod.testruns",
    "gorod.guards",
    "gorod.live",
    "gorod.states",
    "gorod.settle",
    "gorod.selectors",
    "gorod.reads",
]


def lint(root: Path) -> subprocess.CompletedProcess:
    config = root / "gorod-path.ini"
    config.write_text("[importlinter]\nroot_package = gorod\ninclude_external_packages = false\n"
                      "\n[importlinter:contract:path]\nname = A GoRoD write's path goes one way\n"
                      "type = layers\nlayers =\n"
                      + "".join(f"    {layer}\n" for layer in LAYERS), encoding="utf-8")
    lint_imports = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(lint_imports), "--no-cache", "--config", str(config)], cwd=root,
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)})


def copy_of_the_project(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "migrations"))
    return tmp_path


def test_a_gorod_writes_path_goes_one_way(tmp_path):
    result = lint(copy_of_the_project(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


def test_a_read_importing_the_live_adapter_inside_a_function_breaks_the_path(tmp_path):
    root = copy_of_the_project(tmp_path)
    selectors = root / "gorod" / "selectors.py"
    selectors.write_text(selectors.read_text(encoding="utf-8")
                         + "\n\ndef _sneaky():\n    from gorod.live import LIVE\n",
                         encoding="utf-8")
    result = lint(root)
    assert result.returncode != 0
    assert "gorod.selectors -> gorod.live" in result.stdout
