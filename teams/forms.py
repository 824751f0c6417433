"""Page forms: they only parse input; rules and their messages come from the services."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from core.forms import IdChoiceField, IdMultipleChoiceField, PlausibleDateTimeField
from teams.models import DEFAULT_FEE, Game


class NameForm(forms.Form):
    name = forms.CharField(label=_("Team name"), required=False, strip=False)


class MemberForm(forms.Form):
    nickname = forms.CharField(label=_("Nickname"), required=False, strip=False)
    full_name = forms.CharField(label=_("Full name"), required=False)
    phone = forms.CharField(label=_("Phone"), required=False)
    email = forms.CharField(label=_("E-mail"), required=False)


class GameForm(forms.Form):
    title = forms.CharField(label=_("Title"), required=False, strip=False)
    format = forms.ChoiceField(label=_("Format"), choices=Game.Format.choices)
    starts_at = PlausibleDateTimeField(
        label=_("Starts at"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
    )
    fee = forms.IntegerField(label=_("Fee, RUB"), min_value=0, max_value=2**31 - 1,
                             initial=DEFAULT_FEE)
    rated = forms.BooleanField(label=_("Rated"), required=False, initial=True)


class ApplicationForm(forms.Form):
    members = IdMultipleChoiceField(
        label=_("Roster"),
        queryset=None,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args, team, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["members"].queryset = team.members.all()
        self.fields["members"].label_from_instance = lambda m: m.nickname


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )


class BanForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    until = PlausibleDateTimeField(
        label=_("Until"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
    )


class PinForm(forms.Form):
    game = IdChoiceField(label=_("Game"), queryset=Game.objects.none())
    pin = forms.CharField(
        label=_("PIN"),
        max_length=20,
        widget=forms.TextInput(
            attrs={"inputmode": "numeric", "autocomplete": "one-time-code", "pattern": "[0-9 ]*"}
        ),
    )

    def __init__(self, *args, games, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].queryset = games


class ProfileLinkForm(forms.Form):
    email = forms.CharField(label=_("Player's account e-mail"), required=False)


class MemberMergeForm(forms.Form):
    into = IdChoiceField(label=_("Merge into"), queryset=None)

    def __init__(self, *args, member, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["into"].queryset = member.team.members.exclude(pk=member.pk)
