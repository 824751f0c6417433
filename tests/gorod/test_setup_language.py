"""The set-up page speaks its page's language in the codes it shows back: a Russian page writes
a personal digit's sector as «(цифра)», and the codes text it offers for editing reads back."""

from __future__ import annotations

import pytest
from django.test import Client

from gorod.forms import parse_codes_text
from gorod.models import Level
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)

pytestmark = pytest.mark.django_db


def setup_page(organizer, gorod, language: str, **extra) -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(organizer)
    return client.get(f"/gorod/{gorod.pk}/setup/", extra).content.decode()


@pytest.fixture
def digit_level(gorod, organizer):
    client = Client()
    client.force_login(organizer)
    client.post(f"/gorod/{gorod.pk}/setup/", {
        "action": "add", "label": "tower", "task": "", "hint1": "", "hint2": "",
        "duration_min": "70", "codes": "tower (digit): G1R5D\ngate (personal): R7D"})
    return Level.objects.get(gorod=gorod, label="tower")


def test_the_russian_setup_page_names_the_code_kinds_in_russian(organizer, gorod, digit_level):
    page = setup_page(organizer, gorod, "ru")
    assert "tower: G1R5D (цифра)" in page and "gate: R7D (личный)" in page
    assert "(digit)" not in page and "(personal)" not in page


def test_the_english_setup_page_keeps_the_english_kinds(organizer, gorod, digit_level):
    page = setup_page(organizer, gorod, "en")
    assert "tower: G1R5D (digit)" in page and "gate: R7D (personal)" in page


def test_the_russian_codes_text_offered_for_editing_reads_back_the_same(organizer, gorod,
                                                                        digit_level):
    page = setup_page(organizer, gorod, "ru", edit=digit_level.pk)
    assert "tower (цифра): G1R5D\ngate (личный): R7D" in page
    assert parse_codes_text("tower (цифра): G1R5D\ngate (личный): R7D") == {"sectors": [
        {"name": "tower", "kind": "personal_digit", "codes": ["G1R5D"], "personal": {}},
        {"name": "gate", "kind": "personal", "codes": ["R7D"], "personal": {}}]}
