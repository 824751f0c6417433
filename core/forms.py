"""Page forms and form fields of core: they only parse; the rules and their messages are the
services'. The fields refuse out-of-range ids and implausible dates before the database sees
them."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from core.announcements import MAX_LENGTH
from core.converters import ID_MAX
from core.validators import validate_plausible_datetime


def show_form_errors(request, form) -> None:
    """A refused page form's errors as page messages, each after its field's label."""
    for field, errors in form.errors.items():
        label = form.fields[field].label if field in form.fields else ""
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else error)


def _in_range(value) -> bool:
    try:
        return 1 <= int(str(value).strip()) <= ID_MAX
    except (TypeError, ValueError):
        return True  # not a number at all: Django's own message says so


class IdChoiceField(forms.ModelChoiceField):
    """A ``ModelChoiceField`` whose out-of-range id is "not one of the choices", not an
    ``OverflowError`` (SQLite) or ``DataError`` (PostgreSQL) from the lookup."""

    def to_python(self, value):
        if value not in self.empty_values and not _in_range(value):
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice")
        return super().to_python(value)


class IdMultipleChoiceField(forms.ModelMultipleChoiceField):
    def _check_values(self, value):
        for item in value or []:
            if not _in_range(item):
                raise ValidationError(self.error_messages["invalid_choice"],
                                      code="invalid_choice", params={"value": item})
        return super()._check_values(value)


class PlausibleDateTimeField(forms.DateTimeField):
    default_validators = [validate_plausible_datetime]




class AnnouncementForm(forms.Form):
    text = forms.CharField(
        label=_("Announcement"), required=False, strip=False,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": MAX_LENGTH}),
        help_text=_("Shown at once on every open page: the projector, the host console, organizer screens and team phones."),
    )
