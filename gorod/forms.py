"""Forms of the GoRoD set-up page, and the parser of the level codes an organizer types.

The forms only parse input; the rules and their messages come from ``gorod.services``.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.forms import IdChoiceField
from gorod import rules
from teams.models import Game


class CodesTextError(ValueError):
    """The codes text cannot be read; the message says which line and why."""


def parse_codes_text(text: str) -> dict:
    """The codes of a level typed one per line → the spec ``level_codes_from_dict`` takes.

    - ``CODE`` — one required code (its sector is named by its place: ``1``, ``2``, …);
    - ``sector name: CODE1 | CODE2`` — a named required sector, any of the alternatives closes it;
    - blank lines are skipped.

    A single plain code gives the short form ``{"code": ...}``; anything else gives
    ``{"sectors": [...]}``. [decision] The first ``:`` of a line starts its codes, so a plain
    code cannot contain ``:``; ``A | B`` without a name is one sector with alternatives.

    >>> parse_codes_text("G1R1D")
    {'code': 'G1R1D'}
    >>> parse_codes_text("north: G1R11D | G1R12D\\nG1R2D")["sectors"][0]
    {'name': 'north', 'codes': ['G1R11D', 'G1R12D']}
    """
    sectors: list[dict] = []
    for number, raw in enumerate(str(text).splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        name, colon, rest = line.partition(":")
        if colon:
            name = name.strip()
            if not name:
                raise CodesTextError(_("Line %(n)d: the sector name before “:” is empty.")
                                     % {"n": number})
        else:
            name, rest = str(len(sectors) + 1), line
        codes = [code.strip() for code in rest.split("|")]
        if not any(codes):
            raise CodesTextError(_("Line %(n)d: no code after “%(name)s:”.")
                                 % {"n": number, "name": name})
        if not all(codes):
            raise CodesTextError(_("Line %(n)d: an empty alternative between “|”.")
                                 % {"n": number})
        if any(s["name"] == name for s in sectors):
            raise CodesTextError(_("Line %(n)d: the sector “%(name)s” is already named above.")
                                 % {"n": number, "name": name})
        sectors.append({"name": name, "codes": codes})
    if not sectors:
        raise CodesTextError(_("Type at least one code."))
    if len(sectors) == 1 and sectors[0]["name"] == "1" and len(sectors[0]["codes"]) == 1:
        return {"code": sectors[0]["codes"][0]}
    return {"sectors": sectors}


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
            codes = f"{codes} ({kind})"
        parts.append(f"{sector.get('name')}: {codes}")
    return "; ".join(parts)


class GorodCreateForm(forms.Form):
    game = IdChoiceField(label=gettext_lazy("Game"), queryset=Game.objects.none(),
                                  empty_label=None)
    hint1_min = forms.FloatField(label=gettext_lazy("Hint 1 after (min)"), min_value=0,
                                 initial=25)
    hint2_min = forms.FloatField(label=gettext_lazy("Hint 2 after (min)"), min_value=0,
                                 initial=50)
    sliv_penalty_min = forms.FloatField(label=gettext_lazy("Penalty per failed level (min)"),
                                        min_value=0, initial=15)
    max_duration_h = forms.FloatField(label=gettext_lazy("Maximum duration (h)"), min_value=0.1,
                                      max_value=168, initial=24)
    max_wrong = forms.IntegerField(label=gettext_lazy("Wrong codes allowed per window"),
                                   min_value=1, max_value=1000, initial=10)
    wrong_window_s = forms.IntegerField(label=gettext_lazy("Brute-force window (s)"),
                                        min_value=1, max_value=3600, initial=60)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].queryset = Game.objects.filter(
            format=Game.Format.GOROD, status=Game.Status.SCHEDULED,
            gorod__isnull=True).order_by("starts_at")

    def clean(self):
        data = super().clean()
        first, second = data.get("hint1_min"), data.get("hint2_min")
        if first is not None and second is not None and second < first:
            raise forms.ValidationError(_("Hint 2 comes after hint 1."))
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
    codes = forms.CharField(
        label=gettext_lazy("Codes"), widget=forms.Textarea(attrs={"rows": 4}),
        help_text=gettext_lazy("One code per line; a sector with alternatives: "
                               "“sector name: CODE1 | CODE2”."))

    def clean_codes(self) -> dict:
        try:
            return parse_codes_text(self.cleaned_data["codes"])
        except CodesTextError as exc:
            raise forms.ValidationError(str(exc)) from None
