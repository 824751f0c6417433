"""Text no database column stores (NUL, lone surrogates) is refused with 400 wherever it comes
in, on SQLite as on PostgreSQL: query strings, form fields, JSON bodies (file imports: tests/kingofhill/test_bank.py,
tests/gorod/test_scenario.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from core.text import find_unstorable_text

pytestmark = pytest.mark.django_db


def test_unstorable_text_is_found_however_deep_it_is_nested():
    assert find_unstorable_text([{"a": ["ok", ("x\x00",)]}]) is not None
    assert find_unstorable_text({"k\ud800": 1}) is not None
    assert find_unstorable_text({"ok": ["fine", 1, None]}) is None


def test_a_nul_in_a_query_string_is_a_400():
    response = Client().get("/teams/", {"q": "a\x00b"})
    assert response.status_code == 400 and "NUL" in response.content.decode()


def test_a_nul_deep_in_a_json_body_is_a_400_with_detail():
    client = Client()
    client.force_login(User.objects.create_user("captain"))
    response = client.post("/teams/api/teams/", '{"name": ["A", {"x": "B\\u0000"}]}',
                             content_type="application/json")
    assert response.status_code == 400 and "NUL" in response.json()["detail"]
