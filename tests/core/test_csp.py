"""Every response carries the Content-Security-Policy, scripts from the site's files only; the
templates hold no inline script, event handler or ``javascript:`` link it would block (the
browser check: tests/e2e/test_csp.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def directives(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.mark.parametrize("path, status", [
    ("/", 200), ("/accounts/login/", 200), ("/api/docs/", 200), ("/api/docs/?script=", 200),
    ("/healthz", 200), ("/teams/api/teams/", 403), ("/no-such-page/", 404),
    ("/teams/?q=a%00b", 400), ("/static/js/site.js", 200),
])
def test_every_response_has_a_policy_with_scripts_from_the_site_only(path, status):
    response = Client().get(path)
    assert response.status_code == status
    policy = directives(response)
    assert policy["script-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in policy["default-src"]


def test_swagger_ui_starts_from_a_script_file_not_an_inline_script():
    html = Client().get("/api/docs/").content.decode()
    assert "<script>" not in html and "/api/docs/?script=" in html
    script = Client().get("/api/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in script.content


def test_no_template_has_an_inline_script_handler_or_javascript_link():
    inline_script = re.compile(r'<script(?![^>]*(\bsrc=|type="application/json"))[^>]*>')
    handler = re.compile(r"\son[a-z]+\s*=", re.IGNORECASE)
    found = []
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text(encoding="utf-8")
        for pattern in (inline_script, handler, re.compile("javascript:", re.IGNORECASE)):
            found += [f"{template.relative_to(TEMPLATES)}: {m.group(0)}"
                      for m in pattern.finditer(text)]
    assert found == []
