"""Account forms: they parse and validate input; the writes are ``core.accounts.services``."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from core.accounts import services
from core.models import RoleChange
from core.net import public_url


class LoginForm(AuthenticationForm):
    """Django's log-in form, which tells an account waiting for its e-mail confirmation so
    (and mails a new link) instead of calling the right password wrong."""

    def clean(self):
        try:
            return super().clean()
        except ValidationError as error:
            if error.code != "invalid_login" or self.request is None:
                raise
            user = services.unconfirmed_login(
                username=self.cleaned_data.get("username") or "",
                password=self.cleaned_data.get("password") or "",
                site_url=public_url(self.request, "/"))
            if user is None:
                raise
            raise ValidationError(
                _("Your e-mail address is not confirmed yet, so you cannot log in. We have "
                  "sent a new confirmation link to %(email)s: open it, and you are logged in."),
                code="unconfirmed", params={"email": user.email}) from None


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
