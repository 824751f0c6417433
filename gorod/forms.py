"""Forms of the GoRoD set-up page, and the parser of the level codes an organizer types.

The forms only parse input; the rules and their messages come from ``gorod.services``.
"""

from __future__ import annotations

import json
import re

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from gorod import rules
from gorod.models import Level
from teams.models import Game


class CodesTextError(ValueError):
    """The codes text cannot be read; the message says which line and why."""


#: the kinds a sector line may name in brackets: ``gate (personal): R7D``
KIND_WORDS = {"personal": "personal", "личный": "personal", "личная": "personal",
              "digit": "personal_digit", "цифра": "personal_digit"}
#: how the codes text writes each kind back
KIND_NAMES = {"personal": "personal", "personal_digit": "digit"}
_KIND = re.compile(r"^(?P<name>.*?)\s*\((?P<kind>[^()]+)\)$")


def parse_codes_text(text: str) -> dict:
    """The codes of a level typed one per line → the spec ``level_codes_from_dict`` takes.

    - ``CODE`` — one required code (its sector is named by its place: ``1``, ``2``, …);
    - ``sector name: CODE1 | CODE2`` — a named required sector, any of the alternatives closes it;
    - ``sector name (personal): COMMON`` — a personal code (3.24): each team's part, then the
      common part (which may be empty); ``sector name (digit): COMMON`` — the common code with
      the team's personal digit appended (3.25). The teams' parts are typed in the table of
      personal codes on the set-up page (``personal_parts``);
    - blank lines are skipped.

    A single plain code gives the short form ``{"code": ...}``; anything else gives
    ``{"sectors": [...]}``. [decision] The first ``:`` of a line starts its codes, so a plain
    code cannot contain ``:``; ``A | B`` without a name is one sector with alternatives.

    >>> parse_codes_text("G1R1D")
    {'code': 'G1R1D'}
    >>> parse_codes_text("north: G1R11D | G1R12D\\nG1R2D")["sectors"][0]
    {'name': 'north', 'codes': ['G1R11D', 'G1R12D']}
    >>> parse_codes_text("tower (digit): G1R5D")
    {'sectors': [{'name': 'tower', 'kind': 'personal_digit', 'codes': ['G1R5D'], 'personal': {}}]}
    """
    sectors: list[dict] = []
    for number, raw in enumerate(str(text).splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        name, colon, rest = line.partition(":")
        kind = "common"
        if colon:
            name = name.strip()
            marked = _KIND.match(name)
            if marked:
                kind = KIND_WORDS.get(marked["kind"].strip().casefold())
                if kind is None:
                    raise CodesTextError(
                        _("Line %(n)d: unknown kind “%(kind)s” (personal or digit).")
                        % {"n": number, "kind": marked["kind"].strip()})
                name = marked["name"].strip()
            if not name:
                raise CodesTextError(_("Line %(n)d: the sector name before “:” is empty.")
                                     % {"n": number})
        else:
            name, rest = str(len(sectors) + 1), line
        codes = [code.strip() for code in rest.split("|")]
        if kind == "personal" and codes == [""]:
            codes = []  # 3.24: the personal part alone may be the code
        elif not any(codes):
            raise CodesTextError(_("Line %(n)d: no code after “%(name)s:”.")
                                 % {"n": number, "name": name})
        elif not all(codes):
            raise CodesTextError(_("Line %(n)d: an empty alternative between “|”.")
                                 % {"n": number})
        if any(s["name"] == name for s in sectors):
            raise CodesTextError(_("Line %(n)d: the sector “%(name)s” is already named above.")
                                 % {"n": number, "name": name})
        sector = {"name": name, "codes": codes}
        if kind != "common":
            sector = {"name": name, "kind": kind, "codes": codes, "personal": {}}
        sectors.append(sector)
    if not sectors:
        raise CodesTextError(_("Type at least one code."))
    if (len(sectors) == 1 and sectors[0]["name"] == "1" and len(sectors[0]["codes"]) == 1
            and "kind" not in sectors[0]):
        return {"code": sectors[0]["codes"][0]}
    return {"sectors": sectors}


def codes_to_text(spec: dict) -> str:
    """A level's stored codes as the text ``parse_codes_text`` reads (the edit form).

    >>> codes_to_text({"sectors": [{"name": "1", "codes": ["A"]}, {"name": "t", "kind": "personal_digit", "codes": ["B"]}]})
    '1: A\\nt (digit): B'
    """
    if not isinstance(spec, dict):
        return ""
    if "code" in spec:
        return str(spec["code"])
    words = KIND_NAMES
    lines = []
    for sector in spec.get("sectors") or ():
        kind = sector.get("kind", "common")
        name = sector.get("name")
        if kind != "common":
            name = f"{name} ({words.get(kind, kind)})"
        lines.append(f"{name}: {' | '.join(str(c) for c in sector.get('codes') or ())}".rstrip())
    return "\n".join(lines)


def keep_personal(new: dict, old: dict) -> dict:
    """Edited codes keep the teams' personal parts of the sectors that stay personal under the
    same name (they are typed in their own table, not in the codes text).

    >>> keep_personal({"sectors": [{"name": "t", "kind": "personal_digit", "codes": ["B"], "personal": {}}]},
    ...               {"sectors": [{"name": "t", "kind": "personal_digit", "codes": ["A"], "personal": {"X": "1"}}]})["sectors"][0]["personal"]
    {'X': '1'}
    """
    before = {(s.get("name"), s.get("kind", "common")): s.get("personal") or {}
              for s in (old or {}).get("sectors") or ()}
    for sector in new.get("sectors") or ():
        if sector.get("kind", "common") != "common" and not sector.get("personal"):
            sector["personal"] = dict(before.get((sector["name"], sector["kind"]), {}))
    return new


def codes_as_text(spec: dict) -> str:
    """A level's stored codes shown back in one line (the list of levels on the set-up page).

    >>> codes_as_text({"sectors": [{"name": "north", "codes": ["A", "B"]}, {"name": "2", "codes": ["C"]}]})
    'north: A | B; 2: C'
    """
    if not isinstance(spec, dict):
        return ""
    if "code" in spec:
        return str(spec["code"])
    parts = []
    for sector in spec.get("sectors") or ():
        codes = " | ".join(str(c) for c in sector.get("codes") or ())
        kind = sector.get("kind", "common")
        if kind != "common":
            codes = f"{codes} ({KIND_NAMES.get(kind, kind)})"
        parts.append(f"{sector.get('name')}: {codes}")
    return "; ".join(parts)


def _whole(value):
    # 15 reads better than 15.0 in a field (the database keeps minutes as floats).
    return int(value) if isinstance(value, float) and value.is_integer() else value


class SettingsForm(forms.Form):
    """The game's settings; only their types are read here, the engine judges the values
    (``gorod.rules.check_settings``, through the set-up services)."""

    hint1_min = forms.FloatField(label=gettext_lazy("Hint 1 after (min)"), initial=25)
    hint2_min = forms.FloatField(label=gettext_lazy("Hint 2 after (min)"), initial=50)
    sliv_penalty_min = forms.FloatField(label=gettext_lazy("Penalty per failed level (min)"),
                                        initial=15)
    max_duration_h = forms.FloatField(label=gettext_lazy("Maximum duration (h)"), initial=24)
    max_wrong = forms.IntegerField(label=gettext_lazy("Wrong codes allowed per window"),
                                   initial=10)
    wrong_window_s = forms.IntegerField(label=gettext_lazy("Brute-force window (s)"),
                                        initial=60)

    @classmethod
    def of(cls, gg) -> SettingsForm:
        offsets = [*(gg.hint_offsets_min or []), None, None]
        return cls(initial={
            "hint1_min": _whole(offsets[0]), "hint2_min": _whole(offsets[1]),
            "sliv_penalty_min": _whole(gg.sliv_penalty_min),
            "max_duration_h": _whole(gg.max_duration_h),
            "max_wrong": gg.max_wrong, "wrong_window_s": gg.wrong_window_s})

    def settings(self) -> dict:
        """The cleaned values as the services take them."""
        data = self.cleaned_data
        return {"hint_offsets_min": [data["hint1_min"], data["hint2_min"]],
                "sliv_penalty_min": data["sliv_penalty_min"],
                "max_duration_h": data["max_duration_h"], "max_wrong": data["max_wrong"],
                "wrong_window_s": data["wrong_window_s"]}


class GorodCreateForm(SettingsForm):
    """A new night: a new GoRoD game published here (title and start), or the set-up of a
    GoRoD game already published in the teams app."""

    game = forms.ModelChoiceField(label=gettext_lazy("Game already published"),
                                  queryset=Game.objects.none(), required=False,
                                  empty_label=gettext_lazy("— a new game —"))
    title = forms.CharField(label=gettext_lazy("Title of the new game"), max_length=200,
                            required=False)
    starts_at = forms.DateTimeField(
        label=gettext_lazy("Start of the new game"), required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"])
    field_order = ["title", "starts_at", "game"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].queryset = Game.objects.filter(
            format=Game.Format.GOROD, status=Game.Status.SCHEDULED,
            gorod__isnull=True).order_by("starts_at")

    def clean(self):
        data = super().clean()
        if not data.get("game") and not (data.get("title") or "").strip():
            raise forms.ValidationError(_("Give the new game's title and start, or choose a "
                                          "game already published."))
        return data


class LevelForm(forms.Form):
    label = forms.CharField(label=gettext_lazy("Level id (empty: its number)"), max_length=40,
                            required=False)
    task = forms.CharField(label=gettext_lazy("Task"), widget=forms.Textarea(attrs={"rows": 4}),
                           required=False)
    hint1 = forms.CharField(label=gettext_lazy("Hint 1"),
                            widget=forms.Textarea(attrs={"rows": 2}), required=False)
    hint2 = forms.CharField(label=gettext_lazy("Hint 2"),
                            widget=forms.Textarea(attrs={"rows": 2}), required=False)
    duration_min = forms.FloatField(label=gettext_lazy("Time limit (min)"),
                                    initial=rules.DEFAULT_LIMIT_MIN)
    danger = forms.TypedChoiceField(
        label=gettext_lazy("Danger grade (rules 8.8)"), required=False, coerce=int,
        empty_value=None, choices=[("", gettext_lazy("not stated"))] + Level.Danger.choices)
    images = forms.MultipleChoiceField(
        label=gettext_lazy("Task images"), required=False, widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("Upload images under “Task images” below; teams see them with "
                               "the task."))
    codes = forms.CharField(
        label=gettext_lazy("Codes"), widget=forms.Textarea(attrs={"rows": 4}),
        help_text=gettext_lazy("One code per line; a sector with alternatives: "
                               "“sector name: CODE1 | CODE2”; a personal code: “sector name "
                               "(personal): COMMON PART”; a personal digit: “sector name "
                               "(digit): CODE” (the teams' parts go in the table below)."))

    def __init__(self, *args, images: list[str] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["images"].choices = [(name, name) for name in images]
        if not images:
            del self.fields["images"]

    def clean(self):
        data = super().clean()
        data.setdefault("images", [])
        return data

    @classmethod
    def of(cls, level: Level, data=None, *, images: list[str] = ()) -> LevelForm:
        return cls(data, prefix="edit", images=images, initial={
            "label": level.label, "task": level.task, "hint1": level.hint1,
            "hint2": level.hint2, "duration_min": _whole(level.duration_min),
            "danger": level.danger, "images": list(level.images or []),
            "codes": codes_to_text(level.codes)})

    def clean_codes(self) -> dict:
        try:
            return parse_codes_text(self.cleaned_data["codes"])
        except CodesTextError as exc:
            raise forms.ValidationError(str(exc)) from None


def personal_sectors(spec: dict) -> list[tuple[int, dict]]:
    """The sectors of a level's codes that need a part or digit per team, with their index."""
    if not isinstance(spec, dict):
        return []
    return [(i, sector) for i, sector in enumerate(spec.get("sectors") or ())
            if sector.get("kind", "common") != "common"]


class PersonalPartsForm(forms.Form):
    """One text per team and personal sector of a level (3.24 parts, 3.25 digits)."""

    def __init__(self, level: Level, teams: list[str], data=None):
        super().__init__(data, prefix=f"personal-{level.pk}")
        self.level, self.rows = level, []
        for index, sector in personal_sectors(level.codes):
            for number, team in enumerate(teams):
                name = f"s{index}_t{number}"
                self.fields[name] = forms.CharField(
                    label=team, required=False, max_length=100,
                    initial=(sector.get("personal") or {}).get(team, ""))
                self.rows.append((sector, team, name))

    def table(self) -> list[dict]:
        """Sector by sector, its teams' fields (the template's rows)."""
        by_sector: dict[str, dict] = {}
        for sector, team, name in self.rows:
            entry = by_sector.setdefault(sector["name"], {
                "name": sector["name"], "digit": sector.get("kind") == "personal_digit",
                "codes": " | ".join(sector.get("codes") or ()), "fields": []})
            entry["fields"].append((team, self[name]))
        return list(by_sector.values())

    def codes(self) -> dict:
        """The level's codes with the typed parts (an empty field: no part for that team)."""
        spec = json.loads(json.dumps(self.level.codes))
        sectors = spec.get("sectors") or []
        for sector, team, name in self.rows:
            target = next(s for s in sectors if s.get("name") == sector["name"])
            personal = dict(target.get("personal") or {})
            value = (self.cleaned_data.get(name) or "").strip()
            if value:
                personal[team] = value
            else:
                personal.pop(team, None)
            target["personal"] = personal
        return spec


class ImageUploadForm(forms.Form):
    # Not "file": the scenario form on the same page has that field (and its HTML id).
    image = forms.FileField(label=gettext_lazy("Image (PNG, JPEG, GIF or WebP, at most 5 MB)"))


class ScenarioUploadForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("Scenario file (YAML or JSON)"))
