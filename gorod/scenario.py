"""GoRoD scenario files: a whole night — settings, levels with texts, hints, codes and danger
grades, routes — in one YAML or JSON file, to prepare a night away from the site, keep it, and
import it into a game in set-up.

The file (``gorod/scenarios/demo-night.yaml`` is a complete example)::

    format: gorod-scenario
    version: 1
    title: Ночь в городе              # informative; the game keeps its own title
    settings:                         # every key optional (the defaults of the rules)
      hint_offsets_min: [25, 50]
      sliv_penalty_min: 15
      max_duration_h: 24
      max_wrong: 10
      wrong_window_s: 60
    levels:
      - id: "1"
        task: ...
        hint1: ...
        hint2: ...
        duration_min: 70
        danger: 2                     # 1–4 (rules 8.8) or absent
        photo_proof: true             # 3.23: closed by a photo the organizer accepts too
        images: [bridge.jpg]          # task images by file name, uploaded to the game first
        codes: {code: G1R12345D}      # or {sectors: [{name, kind, codes, personal}]}
    routes:                           # optional: a non-linear game
      Альфа: ["2", "3", "1"]
    messages: [...]                   # the export of a played night: what was sent

[decision] The export of a started game also writes what the organizer sent during the night:
each level's ``bonus_hints`` and the ``messages`` (each with its moment, its text, the teams it
reached and those whose phones showed it). They are the night's account, not its set-up: a file
carrying them is read (checked for shape) but an import sends nothing; the night's own messages
are sent live.

[decision] Routes name teams by their name at the file boundary; on import each name must be an
approved team of the game (``gorod.services.scenario_import``). Teams are not part of a
scenario otherwise: they apply to the game as usual, and routes can also be generated on the
set-up page after the import.

Checking (``parse_scenario``) is pure and collects every problem, each a "where: what" line,
so ``manage.py gorod_scenario check`` and the set-up page list them all at once. It asks the
engine for the rules (``gorod.rules.check_settings``, ``gorod.codes.level_codes_from_dict``,
and finally ``gorod.rules.parse_record`` on a record made of the scenario), so a scenario that
passes is a game the engine plays. ``scenario_of`` (the export) is the one function here that
reads the database.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from core.errors import DomainError
from core.parsers import json_depth_exceeds
from core.records import RecordError
from core.text import find_unstorable_text
from gorod import reads, rules, selectors
from gorod.codes import CodeSpecError, level_codes_from_dict
from gorod.models import Route

FORMAT = "gorod-scenario"
VERSION = 1
TOP_KEYS = ("format", "version", "title", "settings", "levels", "routes", "messages")
SETTING_KEYS = ("hint_offsets_min", "sliv_penalty_min", "max_duration_h", "max_wrong",
                "wrong_window_s", "checkin_every_min")
#: Safety check-ins (``GorodGame.checkin_every_min``): not the engine's; written only when on.
CHECKIN_MAX_MIN = 240
DEFAULT_SETTINGS = {"hint_offsets_min": list(rules.DEFAULT_HINT_OFFSETS_MIN),
                    "sliv_penalty_min": rules.DEFAULT_SLIV_PENALTY_MIN,
                    "max_duration_h": rules.DEFAULT_MAX_DURATION_H,
                    "max_wrong": 10, "wrong_window_s": 60, "checkin_every_min": 0}
LEVEL_KEYS = ("id", "task", "hint1", "hint2", "duration_min", "danger", "images", "photo_proof",
              "codes", "bonus_hints")
MAX_BYTES = 2 * 1024 * 1024
#: a scenario is four levels deep (levels → level → codes → sectors → sector → codes); past
#: this a file is not a scenario, and the parsers would recurse until Python gives up
MAX_DEPTH = 16
#: YAML nodes read, an alias counting as everything it repeats ("a billion laughs")
MAX_NODES = 200_000


class ScenarioError(DomainError):
    """A scenario that cannot be imported; ``problems`` lists every reason, one line each."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = [str(p) for p in problems]
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True)
class Scenario:
    settings: dict  # every key of SETTING_KEYS
    levels: tuple[dict, ...]  # each: id, task, hint1, hint2, duration_min, danger, images, codes
    routes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # team name → level ids
    title: str = ""
    messages: tuple[dict, ...] = ()  # sent during a played night (the export); never imported


# --- reading the file ---------------------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """YAML 1.1 as PyYAML reads it, minus the readings that silently change a code: ``0123``
    (octal 83), ``1:20`` (sexagesimal 80), ``yes``/``no``/``on``/``off`` (booleans), ``1_000``.
    Numbers are plain decimals; booleans only ``true``/``false``; anything else is text."""


    def __init__(self, stream) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0
        self._anchored: dict[str, int] = {}

    def compose_node(self, parent, index):
        # PyYAML composes a node by recursion: the depth and the size are bounded here, while
        # the file is read, before a deep one exhausts the stack or an alias bomb the memory.
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            self._count(self._anchored.get(event.anchor, 1), event)
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise ScenarioError([f"the file is nested deeper than {MAX_DEPTH} levels "
                                 f"(line {event.start_mark.line + 1})"])
        before = self._nodes
        self._count(1, event)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if event.anchor is not None:
            self._anchored[event.anchor] = self._nodes - before
        return node

    def _count(self, nodes: int, event) -> None:
        self._nodes += nodes
        if self._nodes > MAX_NODES:
            raise ScenarioError([f"the file holds more than {MAX_NODES} values "
                                 f"(line {event.start_mark.line + 1})"])


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
                           "tag:yaml.org,2002:bool")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"),
                              list("tf"))
_Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"),
                              list("-+0123456789"))
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:(?:0|[1-9][0-9]*)\.[0-9]*(?:[eE][-+][0-9]+)?|\.[0-9]+)$"),
    list("-+0123456789."))


def loads(content: str | bytes) -> Any:
    """The data of a scenario file's text (YAML; JSON is read as JSON).

    >>> loads("levels:\\n  - id: 1\\n    codes: {code: 0123}\\n")
    {'levels': [{'id': 1, 'codes': {'code': '0123'}}]}
    """
    if isinstance(content, bytes):
        if len(content) > MAX_BYTES:
            raise ScenarioError([f"the file is larger than {MAX_BYTES // 1024 // 1024} MB"])
        try:
            content = content.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ScenarioError([f"the file is not UTF-8 text (byte {exc.start})"]) from None
    if len(content) > MAX_BYTES:
        raise ScenarioError([f"the file is larger than {MAX_BYTES // 1024 // 1024} MB"])
    data = _parse(content)
    reason = find_unstorable_text(data)
    if reason:
        raise ScenarioError([f"a text value: {reason}"])
    return data


def _parse(content: str) -> Any:
    if content.lstrip().startswith(("{", "[")):
        if json_depth_exceeds(content, MAX_DEPTH):
            raise ScenarioError([f"the file is nested deeper than {MAX_DEPTH} levels"])
        try:
            return json.loads(content)
        except json.JSONDecodeError as exc:
            raise ScenarioError([f"not valid JSON: {exc.msg} at line {exc.lineno}, "
                                 f"column {exc.colno}"]) from None
    try:
        return yaml.load(content, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        what = getattr(exc, "problem", None) or str(exc)
        raise ScenarioError([f"not valid YAML: {what}{where}"]) from None


class _Dumper(yaml.SafeDumper):
    pass


def _text_block(dumper: yaml.SafeDumper, value: str):
    # Task texts read as written: several lines become a literal block (PyYAML falls back to a
    # quoted scalar by itself where a block cannot hold the text exactly).
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text_block)


def dumps(data: dict, fmt: str = "yaml") -> str:
    """The text of a scenario file (``fmt``: ``yaml`` or ``json``)."""
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False,
                     default_flow_style=False, width=100)


# --- checking -----------------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _label(value: Any) -> str | None:
    # [decision] A level id may be written as a number (YAML: id: 1); it is the text "1".
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def parse_scenario(data: Any) -> Scenario:
    """Check a scenario's data and return it canonical, or raise ``ScenarioError`` with every
    problem found.

    >>> s = parse_scenario({"format": "gorod-scenario", "levels": [{"id": 1, "codes": {"code": "G1R1D"}}]})
    >>> s.levels[0]["id"], s.levels[0]["duration_min"], s.settings["hint_offsets_min"]
    ('1', 70, [25, 50])
    >>> parse_scenario({"format": "gorod-scenario", "levels": [{"id": "1", "codes": {"code": None}},
    ...     {"id": "1", "codes": {"code": "X"}, "danger": 7}]})
    Traceback (most recent call last):
    ...
    gorod.scenario.ScenarioError: levels[0].codes: code: expected a text, got None; levels[1].id: level '1' is listed twice; levels[1].danger: expected 1, 2, 3 or 4, got 7
    """
    problems: list[str] = []
    if not isinstance(data, Mapping):
        raise ScenarioError(["the file must hold a mapping (format, settings, levels, routes)"])
    if data.get("format") != FORMAT:
        problems.append(f"format: expected {FORMAT!r}, got {data.get('format')!r}")
    if data.get("version", VERSION) != VERSION:
        problems.append(f"version: this site reads version {VERSION}, got {data.get('version')!r}")
    problems += [f"{key}: unknown key (expected one of {', '.join(TOP_KEYS)})"
                 for key in data if key not in TOP_KEYS]
    title = data.get("title") or ""
    if not isinstance(title, str):
        problems.append("title: expected a text")
        title = ""

    settings = dict(DEFAULT_SETTINGS)
    raw_settings = data.get("settings") or {}
    if not isinstance(raw_settings, Mapping):
        problems.append("settings: expected a mapping")
    else:
        problems += [f"settings.{key}: unknown setting (expected one of "
                     f"{', '.join(SETTING_KEYS)})" for key in raw_settings
                     if key not in SETTING_KEYS]
        settings.update({k: v for k, v in raw_settings.items() if k in SETTING_KEYS})
        checkin = settings.pop("checkin_every_min")
        if checkin is None:
            checkin = 0
        if isinstance(checkin, bool) or not isinstance(checkin, int) or not (
                0 <= checkin <= CHECKIN_MAX_MIN):
            problems.append(f"settings.checkin_every_min: expected whole minutes from 0 to "
                            f"{CHECKIN_MAX_MIN}, got {checkin!r}")
        try:
            settings = rules.check_settings(**settings)
        except RecordError as exc:
            problems.append(f"settings.{exc}")
        settings["checkin_every_min"] = checkin

    levels, level_problems = _levels(data.get("levels"))
    problems += level_problems
    ids = [level["id"] for level in levels]
    routes, route_problems = _routes(data.get("routes"), ids)
    problems += route_problems
    messages, message_problems = _sent(data.get("messages"), "messages")
    problems += message_problems

    if not problems:
        # The engine has the last word: a record of this scenario must parse.
        teams = list(routes) or ["team"]
        try:
            rules.parse_record({
                "format": "gorod", "start": "2026-01-01T00:00:00+00:00", "teams": teams,
                "levels": [{"id": lv["id"], "duration_min": lv["duration_min"]} for lv in levels],
                "routes": {team: list(route) for team, route in routes.items()},
                **{k: settings[k] for k in ("hint_offsets_min", "sliv_penalty_min",
                                            "max_duration_h")}})
        except RecordError as exc:  # pragma: no cover - the checks above are the engine's
            problems.append(str(exc))
    if problems:
        raise ScenarioError(problems)
    return Scenario(settings=settings, levels=tuple(levels), routes=routes, title=title,
                    messages=tuple(messages))


def _sent(raw: Any, where: str) -> tuple[list[dict], list[str]]:
    """What was sent during a played night (``messages``, a level's ``bonus_hints``): a list
    of mappings, each with its text; kept as it is."""
    if raw is None:
        return [], []
    if not isinstance(raw, list):
        return [], [f"{where}: expected a list"]
    problems = [f"{where}[{i}]: expected a mapping with a text"
                for i, item in enumerate(raw)
                if not isinstance(item, Mapping) or not isinstance(item.get("text"), str)]
    return ([] if problems else [_plain(item) for item in raw]), problems


def _levels(raw: Any) -> tuple[list[dict], list[str]]:
    problems: list[str] = []
    if not isinstance(raw, list) or not raw:
        return [], ["levels: a scenario needs a list of at least one level"]
    levels: list[dict] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        where = f"levels[{i}]"
        if not isinstance(item, Mapping):
            problems.append(f"{where}: expected a mapping (id, task, hints, codes, …)")
            continue
        problems += [f"{where}.{key}: unknown key (expected one of {', '.join(LEVEL_KEYS)})"
                     for key in item if key not in LEVEL_KEYS]
        label = _label(item.get("id"))
        if label is None:
            problems.append(f"{where}.id: expected the level's id (a text or number)")
        elif len(label) > 40:
            problems.append(f"{where}.id: at most 40 characters")
        elif label in seen:
            problems.append(f"{where}.id: level {label!r} is listed twice")
        seen.add(label or "")
        level = {"id": label}
        for key in ("task", "hint1", "hint2"):
            value = item.get(key)
            if value is None:
                value = ""
            if not isinstance(value, str):
                problems.append(f"{where}.{key}: expected a text")
            level[key] = value if isinstance(value, str) else ""
        limit = item.get("duration_min", rules.DEFAULT_LIMIT_MIN)
        if not _is_number(limit) or not 0 < limit <= 10080:
            problems.append(f"{where}.duration_min: expected minutes more than 0 and at most "
                            f"10080, got {limit!r}")
        level["duration_min"] = limit
        danger = item.get("danger")
        if danger is not None and (not _is_number(danger) or danger not in (1, 2, 3, 4)):
            problems.append(f"{where}.danger: expected 1, 2, 3 or 4, got {danger!r}")
        level["danger"] = int(danger) if _is_number(danger) else None
        images = item.get("images") or []
        if not isinstance(images, list):
            problems.append(f"{where}.images: expected a list of file names")
            images = []
        for j, name in enumerate(images):
            if not isinstance(name, str) or not name.strip() or len(name) > 100 or "/" in name:
                problems.append(f"{where}.images[{j}]: expected a file name, got {name!r}")
            elif name in images[:j]:
                problems.append(f"{where}.images[{j}]: {name!r} is listed twice")
        level["images"] = [name for name in images if isinstance(name, str)]
        photo = item.get("photo_proof", False)
        if not isinstance(photo, bool):
            problems.append(f"{where}.photo_proof: expected true or false, got {photo!r}")
        level["photo_proof"] = photo is True
        codes = item.get("codes")
        if codes is None:
            problems.append(f"{where}.codes: the level has no code")
        elif not isinstance(codes, Mapping):
            problems.append(f"{where}.codes: expected {{code: ...}} or {{sectors: [...]}}")
        else:
            try:
                level_codes_from_dict(codes)
            except CodeSpecError as exc:
                problems.append(f"{where}.codes: {exc}")
        level["codes"] = _plain(codes)
        hints, hint_problems = _sent(item.get("bonus_hints"), f"{where}.bonus_hints")
        problems += hint_problems
        if hints:
            level["bonus_hints"] = hints
        levels.append(level)
    return levels, problems


def _routes(raw: Any, ids: list[str]) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    if raw is None or raw == {}:
        return {}, []
    if not isinstance(raw, Mapping):
        return {}, ["routes: expected a mapping team name → list of level ids"]
    problems: list[str] = []
    routes: dict[str, tuple[str, ...]] = {}
    for team, route in raw.items():
        where = f"routes.{team}"
        if not isinstance(team, str) or not team.strip():
            problems.append(f"routes: {team!r} is not a team name")
            continue
        if not isinstance(route, list):
            problems.append(f"{where}: expected a list of level ids")
            continue
        labels = [_label(x) for x in route]
        for j, label in enumerate(labels):
            if label is None or label not in ids:
                problems.append(f"{where}[{j}]: unknown level {route[j]!r}")
            elif label in labels[:j]:
                problems.append(f"{where}[{j}]: level {label!r} is visited twice "
                                "(a route visits every level exactly once)")
        missing = [i for i in ids if i not in labels]
        if missing:
            problems.append(f"{where}: the route misses level(s) {', '.join(missing)} "
                            "(a route visits every level exactly once)")
        routes[team.strip()] = tuple(label or "" for label in labels)
    return routes, problems


def _plain(value: Any) -> Any:
    """Mappings and lists as plain dicts and lists (what the JSON field stores)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


# --- writing ------------------------------------------------------------------------------------


def scenario_dict(scenario: Scenario) -> dict:
    """The canonical data of a scenario, as the export writes it (``parse_scenario`` of it gives
    the same scenario back)."""
    data: dict = {"format": FORMAT, "version": VERSION}
    if scenario.title:
        data["title"] = scenario.title
    # Check-ins off is the default: a scenario without them reads as it always did.
    data["settings"] = {key: scenario.settings[key] for key in SETTING_KEYS
                        if key != "checkin_every_min" or scenario.settings.get(key)}
    data["levels"] = []
    for level in scenario.levels:
        row = {"id": level["id"]}
        for key in ("task", "hint1", "hint2"):
            if level.get(key):
                row[key] = level[key]
        row["duration_min"] = level["duration_min"]
        if level.get("danger") is not None:
            row["danger"] = level["danger"]
        if level.get("images"):
            row["images"] = list(level["images"])
        if level.get("photo_proof"):
            row["photo_proof"] = True
        row["codes"] = _plain(level["codes"])
        if level.get("bonus_hints"):
            row["bonus_hints"] = _plain(level["bonus_hints"])
        data["levels"].append(row)
    if scenario.routes:
        data["routes"] = {team: list(route) for team, route in scenario.routes.items()}
    if scenario.messages:
        data["messages"] = _plain(scenario.messages)
    return data


def summary(scenario: Scenario) -> list[str]:
    """What ``gorod_scenario check`` prints for a playable scenario."""
    s = scenario.settings
    lines = [
        f"playable: {len(scenario.levels)} level(s): "
        + ", ".join(level["id"] for level in scenario.levels),
        f"hints at {', '.join(f'{m:g}' for m in s['hint_offsets_min'])} min; "
        f"{s['sliv_penalty_min']:g} min per failed level; at most {s['max_duration_h']:g} h; "
        f"{s['max_wrong']} wrong codes per {s['wrong_window_s']} s",
        (f"non-linear: routes for {', '.join(scenario.routes)}" if scenario.routes
         else "linear: every team plays the levels in this order"),
    ]
    images = list(dict.fromkeys(n for level in scenario.levels for n in level["images"]))
    if images:
        lines.append(f"images to upload to the game before the import: {', '.join(images)}")
    for w in rules.setup_warnings(levels=list(scenario.levels),
                                  hint_offsets_min=s["hint_offsets_min"],
                                  teams=list(scenario.routes), routes=scenario.routes or None):
        lines.append("warning: " + describe_warning(w))
    return lines


def describe_warning(w: rules.SetupWarning) -> str:
    """A set-up warning in plain English (the command line; the page has its translations)."""
    if w.kind == "hint_after_limit":
        return (f"level {w.level}: hint {w.hint} is due at {w.minutes:g} min, not before the "
                f"level's {w.limit_min:g} min limit: it never appears")
    if w.kind == "no_code":
        return f"level {w.level} has no usable code"
    if w.kind == "no_personal_code":
        return f"level {w.level} has no personal code for: {', '.join(w.teams)}"
    if w.kind == "duplicate_code":
        return f"the code {w.code} closes levels {' and '.join(w.levels)}"
    if w.kind == "no_route":
        return f"team {w.team} has no route"
    return (f"the route of {w.team} does not visit every level once"
            + (f" (misses {', '.join(w.levels)})" if w.levels else "")
            + (f" (unknown or repeated: {', '.join(w.extra)})" if w.extra else ""))


def _whole(value: float) -> float | int:
    # The database keeps minutes as floats; a file reads better with 70 than 70.0.
    return int(value) if float(value).is_integer() else value


def _sent_row(note: reads.MessageRow, names: dict[int, str]) -> dict:
    row: dict[str, Any] = {"sent_at": selectors.iso(note.sent_at)}
    if not note.bonus:
        row["to"] = note.audience
        if note.level:
            row["level"] = note.level
        if note.application_id:
            row["team"] = names.get(note.application_id, "")
    elif note.later:
        row["later"] = True
    row["text"] = note.text
    row["teams"] = [names.get(pk, "") for pk in note.receipts]
    row["seen_by"] = [names.get(pk, "") for pk, moment in note.receipts.items()
                      if moment is not None]
    return row


def scenario_of(gg) -> Scenario:
    """The scenario of a GoRoD game as it is set up now (the export), with what was sent
    during a started one (its bonus hints by level, its messages)."""
    gg = selectors.gorod_game(gg.pk)  # as committed, not as some caller last saw it
    notes = reads.messages(gg.pk) if gg.started_at else []
    names = selectors.team_names(gg) if notes else {}
    levels = tuple({"id": lv.label, "task": lv.task, "hint1": lv.hint1, "hint2": lv.hint2,
                    "duration_min": _whole(lv.duration_min), "danger": lv.danger,
                    "images": list(lv.images or []), "photo_proof": lv.photo_proof,
                    "codes": _plain(lv.codes),
                    **({"bonus_hints": hints} if (hints := [
                        _sent_row(n, names) for n in notes if n.bonus and n.level == lv.label])
                       else {})} for lv in selectors.levels(gg))
    routes = {r.application.team.name: tuple(r.levels) for r in
              Route.objects.filter(gorod=gg).select_related("application__team")
              .order_by("application_id")}
    settings = {"hint_offsets_min": [_whole(m) for m in gg.hint_offsets_min],
                "sliv_penalty_min": _whole(gg.sliv_penalty_min),
                "max_duration_h": _whole(gg.max_duration_h),
                "max_wrong": gg.max_wrong, "wrong_window_s": gg.wrong_window_s,
                "checkin_every_min": gg.checkin_every_min}
    return Scenario(settings=settings, levels=levels, routes=routes, title=gg.game.title,
                    messages=tuple(_sent_row(n, names) for n in notes if not n.bonus))
