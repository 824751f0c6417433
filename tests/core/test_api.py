"""Hostile input at the edges every app shares: size, depth, text, ids, unknown paths, errors.
Every refusal is a 4xx with JSON {"detail"} for the API and a short page otherwise."""

from __future__ import annotations

import json

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

API_POSTS = ["/teams/api/join/", "/teams/api/games/1/join/", "/koth/api/games/",
             "/gorod/api/games/", "/teams/api/teams/"]


def _detail(response) -> str:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    body = response.json()
    assert isinstance(body.get("detail"), str) and body["detail"]
    return body["detail"]


@pytest.mark.parametrize("path", API_POSTS)
def test_deeply_nested_json_is_a_400_detail_for_anonymous_callers(path):
    body = "[" * 100_000 + "]" * 100_000
    response = Client().post(path, body, content_type="application/json")
    assert response.status_code in (400, 403, 404)  # 404: no game 1; never a 500
    detail = _detail(response)
    if response.status_code == 400:
        assert "nested deeper than 32 levels" in detail


def test_nesting_inside_strings_does_not_count():
    body = json.dumps({"token": "[" * 1000})
    response = Client().post("/teams/api/join/", body, content_type="application/json")
    assert response.status_code == 400 and "token: Ensure this field" in _detail(response)


def test_a_50_mb_body_is_a_413_json_for_the_api_not_an_html_400():
    body = b'{"token": "' + b"x" * (50 * 1024 * 1024) + b'"}'
    response = Client().post("/teams/api/join/", body, content_type="application/json")
    assert response.status_code == 413
    assert "too large" in _detail(response)


def test_a_big_form_post_to_a_page_is_a_413_page():
    response = Client().post("/teams/join/", {"pin": "1" * (7 * 1024 * 1024)})
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/html")
    assert "too large" in response.content.decode()


@pytest.mark.parametrize("value", ["a\x00b", "\ud800"], ids=["NUL", "lone surrogate"])
def test_nul_and_lone_surrogates_in_json_text_are_a_400_detail(value):
    body = json.dumps({"token": value})  # json.dumps writes \\u0000 / \\ud800 escapes
    response = Client().post("/teams/api/join/", body, content_type="application/json")
    assert response.status_code == 400
    assert "cannot be stored" in _detail(response)


def test_nul_in_a_plain_form_field_is_a_400_page_naming_the_field():
    response = Client().post("/teams/join/", {"game": "1", "pin": "12\x0034"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "pin" in page and "NUL" in page


@pytest.mark.parametrize("path", [
    "/teams/api/games/9223372036854775808/", "/teams/api/games/99999999999999999999999/",
    "/koth/api/games/0/state/", "/gorod/api/games/9223372036854775808/state/",
    "/rating/api/games/9223372036854775808/results/",
])
def test_ids_past_the_bigautofield_range_are_a_404_detail(path):
    response = Client().get(path)
    assert response.status_code == 404
    _detail(response)


def test_the_largest_id_is_still_a_plain_404():
    response = Client().get("/teams/api/games/9223372036854775807/")
    assert response.status_code == 404
    _detail(response)


@pytest.mark.parametrize("path", ["/teams/999999999999999999999/", "/koth/0/play/"])
def test_out_of_range_ids_in_page_urls_are_a_404_page(path):
    response = Client().get(path)
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")


def test_an_unknown_api_path_is_a_404_detail():
    response = Client().get("/teams/api/nothing-here/")
    assert response.status_code == 404
    _detail(response)


def test_a_bad_content_length_is_a_400():
    response = Client().generic("POST", "/teams/api/join/", b"{}", content_type="application/json",
                                CONTENT_LENGTH="many")
    assert response.status_code == 400
    _detail(response)


def _failing_public_read(monkeypatch, exc: Exception) -> list:
    from live.write import LiveGame

    reads = []

    def read_by_id(*_args):
        reads.append(1)
        raise exc

    monkeypatch.setattr(LiveGame, "read_by_id", read_by_id)
    return reads


def test_a_public_read_out_of_database_connections_is_a_503_detail_after_one_try(monkeypatch):
    from django.db import OperationalError

    class PoolTimeout(Exception):
        pass

    busy = OperationalError("no connection in time")
    busy.__cause__ = PoolTimeout()
    reads = _failing_public_read(monkeypatch, busy)
    response = Client().get("/koth/api/games/1/state/")
    assert response.status_code == 503 and response["Retry-After"]
    assert "busy" in _detail(response)
    assert reads == [1]  # answered as DRF answers it, without reading again


@pytest.mark.parametrize("debug", [False, True])
def test_a_public_read_that_fails_otherwise_raises_its_own_error(monkeypatch, settings, debug):
    settings.DEBUG = debug
    _failing_public_read(monkeypatch, RuntimeError("the disk is gone"))
    with pytest.raises(RuntimeError, match="the disk is gone"):
        Client().get("/koth/api/games/1/state/")


@pytest.mark.parametrize(("accept", "plain"), [
    (None, True), ("*/*", True), ("application/json", True),
    ("text/html, application/json;q=0.9", True), ("application/*; q=0.1", True),
    ("text/html", False), ("application/xml", False), ("", False)])
def test_a_public_read_skips_drf_only_for_an_accept_drf_answers_in_json(accept, plain):
    from core.api import takes_json

    assert takes_json(accept) is plain


def test_a_public_read_cannot_be_given_a_check_it_would_skip():
    from rest_framework.permissions import IsAuthenticated

    from core.api import PublicReadAPIView

    with pytest.raises(TypeError, match="checks no permission"):
        type("Guarded", (PublicReadAPIView,), {"permission_classes": [IsAuthenticated]})
    with pytest.raises(TypeError, match="says what it answers"):
        type("Mute", (PublicReadAPIView,), {})
