"""Forms of the GoRoD set-up page, and the parser of the level codes an organizer types.

The forms only parse input; the rules and their messages come from ``gorod.services``.
"""

from __future__ import annotations

import json

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from core.forms import IdChoiceField
from gorod import rules
from gorod.codes import (  # noqa: F401 - the views read them here
    CodesTextError,
    codes_as_text,
    codes_to_text,
    keep_personal,
    parse_codes_text,
    personal_sectors,
)
from gorod.models import Level
from teams.models import Game

#: The page's words for ``gorod.codes.CodesTextError`` reasons (the pure module's English,
#: translated).
CODES_TEXT_MESSAGES = {
    "unknown_kind": gettext_lazy("Line %(n)d: unknown kind “%(kind)s” (personal or digit)."),
    "empty_name": gettext_lazy("Line %(n)d: the sector name before “:” is empty."),
    "no_code": gettext_lazy("Line %(n)d: no code after “%(name)s:”."),
    "empty_alternative": gettext_lazy("Line %(n)d: an empty alternative between “|”."),
    "repeated_sector": gettext_lazy("Line %(n)d: the sector “%(name)s” is already named above."),
    "empty": gettext_lazy("Type at least one code."),
}


def codes_text_message(exc: CodesTextError) -> str:
    return str(CODES_TEXT_MESSAGES[exc.reason]) % exc.params


def kind_words() -> dict[str, str]:
    """The codes text's kind words in the page's language (``parse_codes_text`` reads the
    English and the Russian ones), so a Russian page shows «(цифра)», not «(digit)»."""
    return {"personal": pgettext("codes text kind", "personal"),
            "personal_digit": pgettext("codes text kind", "digit")}


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
    checkin_every_min = forms.IntegerField(
        label=gettext_lazy("Safety check-in every (min) on danger grade 3–4 levels"),
        required=False, initial=0,
        help_text=gettext_lazy("0 or empty: off. A missed check-in raises an alarm on the "
                               "organizer's screen."))

    @classmethod
    def of(cls, gg) -> SettingsForm:
        offsets = [*(gg.hint_offsets_min or []), None, None]
        return cls(initial={
            "hint1_min": _whole(offsets[0]), "hint2_min": _whole(offsets[1]),
            "sliv_penalty_min": _whole(gg.sliv_penalty_min),
            "max_duration_h": _whole(gg.max_duration_h),
            "max_wrong": gg.max_wrong, "wrong_window_s": gg.wrong_window_s,
            "checkin_every_min": gg.checkin_every_min})

    def settings(self) -> dict:
        """The cleaned values as the services take them."""
        data = self.cleaned_data
        return {"hint_offsets_min": [data["hint1_min"], data["hint2_min"]],
                "sliv_penalty_min": data["sliv_penalty_min"],
                "max_duration_h": data["max_duration_h"], "max_wrong": data["max_wrong"],
                "wrong_window_s": data["wrong_window_s"],
                "checkin_every_min": data.get("checkin_every_min") or 0}


class GorodCreateForm(SettingsForm):
    """A new night: a new GoRoD game published here (title and start), or the set-up of a
    GoRoD game already published in the teams app."""

    game = IdChoiceField(label=gettext_lazy("Game already published"),
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
    photo_proof = forms.BooleanField(
        label=gettext_lazy("Photo proof (3.23): a team may close the level by a photo you accept"),
        required=False)
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
            "photo_proof": level.photo_proof, "codes": codes_to_text(level.codes, kind_words())})

    def clean_codes(self) -> dict:
        try:
            return parse_codes_text(self.cleaned_data["codes"])
        except CodesTextError as exc:
            raise forms.ValidationError(codes_text_message(exc)) from None


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


class ProposalForm(forms.Form):
    """A captain's scenario proposal: the file, the game it is for (or any), a note."""

    file = forms.FileField(label=gettext_lazy("Scenario file (YAML or JSON)"))
    game = forms.ModelChoiceField(queryset=None, required=False,
                                  label=gettext_lazy("For the game"),
                                  empty_label=gettext_lazy("Any future game"))
    note = forms.CharField(label=gettext_lazy("Note for the organizers"), required=False,
                           max_length=2000, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args, games, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].queryset = games
