"""Forms of the King of the Hill pages (form only: the checks are ``kingofhill.bank`` and the
services')."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from kingofhill import bank


class BankQuestionForm(forms.Form):
    text = forms.CharField(label=_("Question text"), widget=forms.Textarea(attrs={"rows": 3}),
                           max_length=bank.TEXT_MAX)
    answer_key = forms.CharField(label=_("Answer key"), required=False,
                                 max_length=bank.ANSWER_MAX)
    variants = forms.CharField(label=_("Accepted variants, one per line"), required=False,
                               widget=forms.Textarea(attrs={"rows": 2}))
    partner = forms.BooleanField(label=_("Partner question"), required=False)
    note = forms.CharField(label=_("Note for the host"), required=False,
                           widget=forms.Textarea(attrs={"rows": 2}), max_length=bank.NOTE_MAX)

    @staticmethod
    def initial_of(question: dict) -> dict:
        """The form's fields as a stored question fills them (``selectors.bank_listing``)."""
        return {"text": question["text"], "answer_key": question["answer_key"],
                "variants": "\n".join(question["variants"]), "partner": question["partner"],
                "note": question["note"]}

    def question(self) -> dict:
        data = dict(self.cleaned_data)
        data["variants"] = bank.split_variants(data["variants"])
        return data


class BankEditForm(BankQuestionForm):
    """A prepared question's fields, filled, beside the add form on the same page."""

    prefix = "edit"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The page opens at the form (its link has no #fragment, which would cancel autofocus):
        # typing goes to the text at once.
        self.fields["text"].widget.attrs["autofocus"] = True


class BankImportForm(forms.Form):
    # An empty file is the bank's to refuse, with the same message as every other bad file.
    file = forms.FileField(label=_("File (CSV, XLSX or plain text)"), allow_empty_file=True)
