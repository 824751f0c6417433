"""Every response carries the Content-Security-Policy, scripts from the site's files only; the
templates hold no inline script, event handler or ``javascript:`` link it would block (the
browser check: tests/e2e/test_csp.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from csp.exceptions import CSPNonceError
from csp.middleware import CSPMiddleware
from django.http import HttpResponse
from django.test import Client, RequestFactory, override_settings

from core.middleware import ContentSecurityPolicy

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


# --- the header built once (core.middleware.ContentSecurityPolicy) ---------------------------


def _respond(setup=None, status=200):
    def view(request):
        response = HttpResponse("ok", status=status)
        if setup is not None:
            setup(request, response)
        return response
    return view


def _nonce(request, response):
    str(request.csp_nonce)  # a template that asks for the nonce


RESPONSES = {
    "plain": _respond(),
    "exempt": _respond(lambda q, r: setattr(r, "_csp_exempt", True)),
    "header set by the view": _respond(lambda q, r: r.__setitem__(
        "Content-Security-Policy", "default-src 'none'")),
    "updated by a decorator": _respond(lambda q, r: setattr(
        r, "_csp_update", {"img-src": ["https://maps.example"]})),
    "replaced by a decorator": _respond(lambda q, r: setattr(
        r, "_csp_replace", {"script-src": None})),
    "its own policy": _respond(lambda q, r: setattr(r, "_csp_config", {"default-src": ["'none'"]})),
    "a nonce asked for": _respond(_nonce),
    "not found": _respond(status=404),
    "server error": _respond(status=500),
}
VARIANTS = {
    "the site's settings": {},
    "with a report-only policy": {"CONTENT_SECURITY_POLICY_REPORT_ONLY": {
        "DIRECTIVES": {"default-src": ["'self'"], "report-uri": "/csp-report/"}}},
    "an excluded prefix": {"CONTENT_SECURITY_POLICY": {
        "EXCLUDE_URL_PREFIXES": ["/koth/"], "DIRECTIVES": {"default-src": ["'self'"]}}},
    "debug pages": {"DEBUG": True},
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("kind", RESPONSES)
def test_the_header_is_the_one_django_csp_builds_for_every_kind_of_response(kind, variant):
    with override_settings(**VARIANTS[variant]):
        headers = []
        for middleware in (CSPMiddleware, ContentSecurityPolicy):
            request = RequestFactory().get("/koth/api/games/1/state/")
            response = middleware(RESPONSES[kind])(request)
            headers.append({name: response.get(name) for name in (
                "Content-Security-Policy", "Content-Security-Policy-Report-Only")})
        assert headers[0] == headers[1]
    if kind == "plain" and variant == "the site's settings":
        assert "script-src 'self'" in headers[1]["Content-Security-Policy"]


def test_the_policy_is_built_once_not_for_every_response():
    # Built once per process, every response carries the very text that was built (django-csp
    # builds a new text for each response); a new setting builds it again.
    texts = [Client().get(path)["Content-Security-Policy"] for path in ("/healthz", "/", "/healthz")]
    assert "script-src 'self'" in texts[0]
    assert texts[1] is texts[0] and texts[2] is texts[0]
    with override_settings(CONTENT_SECURITY_POLICY={"DIRECTIVES": {"default-src": ["'self'"],
                                                                   "img-src": ["'self'"]}}):
        changed = [Client().get("/healthz")["Content-Security-Policy"] for _ in range(2)]
    assert sorted(changed[0].split("; ")) == ["default-src 'self'", "img-src 'self'"]
    assert changed[1] is changed[0]


def test_a_changed_setting_changes_the_header():
    assert "script-src 'self'" in Client().get("/healthz")["Content-Security-Policy"]
    with override_settings(CONTENT_SECURITY_POLICY={"DIRECTIVES": {"default-src": ["'none'"]}}):
        assert Client().get("/healthz")["Content-Security-Policy"] == "default-src 'none'"
    assert "script-src 'self'" in Client().get("/healthz")["Content-Security-Policy"]


def test_a_nonce_asked_for_after_the_header_is_written_is_refused():
    request = RequestFactory().get("/")
    ContentSecurityPolicy(_respond())(request)
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)
