"""A leading underscore means "this module's own": no production module imports another
module's underscore name, or reaches one through the module (``services._entry``). A check two
modules share lives under a public name in the module that owns it (``kingofhill.guards``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("config", "core", "live", "teams", "kingofhill", "gorod", "rating")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _ours(module: str | None) -> bool:
    return bool(module) and module.split(".")[0] in PACKAGES


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def private_uses(source: str, where: str) -> list[str]:
    """Every place ``source`` takes another project module's underscore name."""
    tree = ast.parse(source)
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _ours(node.module):
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{where}:{node.lineno}: from {node.module} import {alias.name}")
                elif _is_module(f"{node.module}.{alias.name}"):  # ``from kingofhill import services``
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _ours(alias.name):
                    modules.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and _private(node.attr)
                and isinstance(node.value, ast.Name) and node.value.id in modules):
            found.append(f"{where}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def production_modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def test_no_production_module_takes_another_modules_underscore_names():
    found = [use for path in production_modules()
             for use in private_uses(path.read_text(encoding="utf-8"),
                                     str(path.relative_to(ROOT)))]
    assert found == []


def test_the_check_sees_an_imported_underscore_name_and_one_reached_through_the_module():
    source = ("from kingofhill.services import _entry, answer_submit\n"
              "from kingofhill import services\n"
              "import gorod.rules.instants as instants\n"
              "services._set_verdicts()\ninstants._from_us(0)\nservices.set_verdicts()\n")
    assert private_uses(source, "m.py") == [
        "m.py:1: from kingofhill.services import _entry",
        "m.py:4: services._set_verdicts",
        "m.py:5: instants._from_us",
    ]


def test_the_check_leaves_a_modules_own_names_and_other_libraries_alone():
    source = ("from django.middleware.csrf import _get_new_csrf_string\n"
              "from __future__ import annotations\n"
              "def _mine():\n    return _mine\nself._cache = 1\nmodel._meta.get_field('x')\n")
    assert private_uses(source, "m.py") == []
