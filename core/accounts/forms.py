"""Account forms: they parse and validate input; the writes are ``core.accounts.services``."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from core.models import RoleChange


class SignupForm(UserCreationForm):
    """Username, e-mail and the password twice; Django's validators judge the password."""

    email = forms.EmailField(label=_("E-mail"), help_text=_(
        "We send a link to this address: open it to activate the account."))

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")


class ProfileForm(forms.Form):
    last_name = forms.CharField(label=_("Surname"), max_length=150, required=False)
    first_name = forms.CharField(label=_("First name"), max_length=150, required=False,
                                 help_text=_("The King of the Hill players' rating shows your "
                                             "surname and first name."))
    email = forms.EmailField(label=_("E-mail"))


class RoleForm(forms.Form):
    user = forms.ModelChoiceField(queryset=User.objects.filter(is_active=True))
    role = forms.ChoiceField(choices=RoleChange.Role.choices)
    granted = forms.TypedChoiceField(choices=[("1", "grant"), ("0", "revoke")],
                                     coerce=lambda value: value == "1")
