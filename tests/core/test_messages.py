"""Every message a user can be shown has its Russian: the services' refusals, the forms'
errors, and the rules engines' messages (translated at the boundary, ``core.engine_messages``).

A walk over the source, not a list: a new message without its Russian fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.utils import translation

from core import engine_messages
from tests.core.test_i18n import messages as catalogue_entries
from tests.core.test_i18n import translations

ROOT = Path(__file__).resolve().parents[2]
APPS = ("core", "teams", "gorod", "rating", "kingofhill")
GETTEXT = {"_", "gettext", "gettext_lazy", "gettext_noop", "pgettext", "pgettext_lazy",
           "ngettext", "ngettext_lazy"}
#: what services, forms and views raise for the user to read
REFUSALS = {"DomainError", "NotAllowed", "NotFound", "NeedsConfirmation", "ValidationError",
            "TeamsError", "AccountError", "ScenarioError", "PermissionDenied"}
#: the engines and the errors they raise for users (``gorod.codes``' text errors have their own
#: table, ``gorod.forms.CODES_TEXT_MESSAGES``; ValueErrors there are programming errors)
ENGINES = {"gorod/rules": "RecordError", "gorod/codes.py": "CodeSpecError",
           "rating/rules": "RecordError"}


def sources():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def called(node: ast.Call) -> str | None:
    return getattr(node.func, "id", getattr(node.func, "attr", None))


def marked_strings() -> list[tuple[str, str | None, str]]:
    """(msgid, msgctxt, where) of every string literal passed to a gettext function."""
    found = []
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and called(node) in GETTEXT and node.args):
                continue
            args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
                    for a in node.args]
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            if called(node).startswith("pgettext") and len(args) >= 2 and args[1]:
                found.append((args[1], args[0], where))
            elif args[0]:
                found.append((args[0], None, where))
    return found


def russian_catalogue() -> dict[tuple[str | None, str], list[str]]:
    return {(e.get("msgctxt"), e["msgid"]): translations(e) for e in catalogue_entries()}


def engine_raises() -> list[tuple[str, str]]:
    found = []
    for name, error in ENGINES.items():
        path = ROOT / name
        files = [path] if path.is_file() else sorted(path.rglob("*.py"))
        for file in files:
            for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                        and called(node.exc) == error and node.exc.args):
                    shape = engine_messages.shape_of(node.exc.args[0])
                    if shape is not None:
                        found.append((shape, f"{file.relative_to(ROOT)}:{node.lineno}"))
    return found


#: Names Russian text spells in Latin letters too (README: «GoRoD»; the join PIN).
PROPER_NAMES = {"GoRoD", "PIN"}


def has_letters(text: str) -> bool:
    return sum(c.isascii() and c.isalpha() for c in text) >= 2


def test_every_marked_string_has_a_russian_translation_that_differs():
    catalogue = russian_catalogue()
    missing = []
    for msgid, context, where in marked_strings():
        russian = catalogue.get((context, msgid))
        if not has_letters(msgid) or msgid in PROPER_NAMES:
            continue
        if russian is None or any(not text or text == msgid for text in russian):
            missing.append(f"{where}: {msgid!r}")
    assert missing == [], "\n".join(missing)


def test_no_refusal_is_raised_with_an_untranslated_text():
    """A service's refusal passes its text through gettext: a bare literal or f-string would
    reach a Russian user in English."""
    bare = []
    for path in sources():
        if path.name in ("rules.py", "codes.py", "records.py"):
            continue  # the pure engines: their English is translated at the boundary
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                    and called(node.exc) in REFUSALS and node.exc.args
                    and isinstance(node.exc.args[0], ast.Constant | ast.JoinedStr)
                    and has_letters(ast.unparse(node.exc.args[0]))):
                bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert bare == [], "\n".join(bare)


def test_every_engine_message_has_a_shape_and_a_russian_translation():
    catalogue = russian_catalogue()
    shapes = set(engine_messages.SHAPES)
    missing = [f"{where}: {shape!r}" for shape, where in engine_raises()
               if engine_messages.literal_length(shape) >= engine_messages.MIN_LITERAL
               and (shape not in shapes or catalogue.get((None, shape), [shape])[0] == shape)]
    assert missing == [], "\n".join(missing)


def test_the_walk_finds_the_engines_messages():
    assert len(engine_raises()) > 50


@pytest.mark.parametrize(("english", "russian"), [
    ("hint_offsets_min: the hint times must increase",
     "время подсказок должно возрастать: вторая подсказка позже первой"),
    ("levels[2].id: level '3' is listed twice", "levels[2].id: уровень '3' указан дважды"),
    ("scale[2]: 90 is more than the place before (80); a scale may not increase",
     "scale[2]: 90 больше, чем за место выше (80); очки шкалы не могут расти"),
])
def test_an_engine_message_reaches_a_russian_user_in_russian_with_its_values(english, russian):
    with translation.override("ru"):
        assert engine_messages.translate(english) == russian
    with translation.override("en"):
        assert engine_messages.translate(english) == english


def test_an_unknown_text_passes_through_unchanged():
    with translation.override("ru"):
        assert engine_messages.translate("something else entirely") == "something else entirely"


@pytest.mark.django_db
def test_a_refused_gorod_setting_says_why_in_russian():
    from django.contrib.auth.models import Group, User

    from core.errors import DomainError
    from core.roles import ORGANIZER
    from gorod import services

    organizer = User.objects.create_user("org")
    organizer.groups.add(Group.objects.get(name=ORGANIZER))
    from datetime import timedelta

    from django.utils import timezone

    with translation.override("ru"), pytest.raises(DomainError) as refused:
        services.gorod_create(actor=organizer, title="Ночь", hint_offsets_min=[50, 25],
                              starts_at=timezone.now() + timedelta(days=7))
    assert "вторая подсказка позже первой" in refused.value.message
    assert "hint times" not in refused.value.message


def test_a_placeholder_named_with_a_double_underscore_keeps_its_value():
    english = ("events[3].at: 2026-12-05T22:40:00+03:00 is later than now "
               "(2026-12-05T22:30:00+03:00)")
    with translation.override("ru"):
        assert engine_messages.translate(english) == (
            "events[3].at: 2026-12-05T22:40:00+03:00 позже текущего момента "
            "(2026-12-05T22:30:00+03:00)")
    cap = "events[3].at: 23:10:00 is later than the 6 h cap (22:00:00)"
    with translation.override("ru"):
        assert engine_messages.translate(cap) == (
            "events[3].at: 23:10:00 позже, чем the 6 h cap (22:00:00)")
