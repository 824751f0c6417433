"""The season rating rules package itself (``docs/rules/rating.md``): its worked examples,
the calendar it names, and that it loads alone."""

import doctest
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

from core import deadlines
from rating import rules

REPO = Path(__file__).resolve().parents[2]


def rules_modules():
    """Every module of the ``rating.rules`` package (the rules read by topic)."""
    return [importlib.import_module(f"rating.rules.{m.name}")
            for m in pkgutil.iter_modules(rules.__path__)]


def test_the_worked_examples_in_the_docstrings_hold():
    # The examples use the rules' public names, whichever module of the package they are in.
    results = [doctest.testmod(module, extraglobs=vars(rules)) for module in rules_modules()]
    assert sum(r.failed for r in results) == 0
    assert sum(r.attempted for r in results) >= 33  # every example of the single-file rules
    assert doctest.testmod(deadlines).failed == 0


def test_the_calendar_is_one_definition_the_rating_names_too():
    assert rules.protest_deadline is deadlines.protest_deadline
    assert rules.FINAL_DUE is deadlines.FINAL_DUE


def test_the_rules_module_loads_without_django():
    code = ("import sys; import rating.rules; "
            "assert not [m for m in sys.modules if m.split('.')[0] in ('django', 'kingofhill')]")
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
