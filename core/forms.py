"""Page forms of core: they only parse; the rules and their messages are the services'."""

from django import forms
from django.utils.translation import gettext_lazy as _

from core.announcements import MAX_LENGTH


class AnnouncementForm(forms.Form):
    text = forms.CharField(
        label=_("Announcement"), required=False, strip=False,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": MAX_LENGTH}),
        help_text=_("Shown at once on every open page: the projector, the host console, organizer screens and team phones."),
    )
