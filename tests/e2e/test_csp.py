"""The Content-Security-Policy in real Chromium: the main pages, Swagger UI and the admin run
with it and report no violation (a blocked inline script, handler, style source or socket);
the print buttons, once inline handlers, still print."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.e2e.test_site_pages import LAPTOP, open_as, pages, site  # noqa: F401 (the fixture)
from tests.e2e.waits import loaded

# No database mark: the site's data is committed once for the module (``committed_once``, as
# in test_site_pages); a transactional test's flush would take it from the next test.
pytestmark = pytest.mark.e2e

# Runs before any script of the page (Playwright injects it; the policy does not apply to it).
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
    `${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
window.print = () => { window.__printed = (window.__printed || 0) + 1; };
"""


def visit(page, url: str, started: str | None = None) -> list[str]:
    """The violations of ``url`` once it has loaded, and, for a page that starts more after
    that (Swagger UI), once the ``started`` selector shows."""
    response = page.goto(url)
    assert response.status == 200, (url, response.status)
    assert "script-src 'self'" in response.headers["content-security-policy"]
    try:
        loaded(page)
    except PlaywrightTimeoutError:  # e.g. its socket was refused: say so beside the violations
        return [*page.evaluate("window.__violations"), "the page's sockets or live state never came"]
    if started:
        page.locator(started).wait_for()
    return page.evaluate("window.__violations")


@pytest.mark.slow
def test_the_main_pages_swagger_ui_and_the_admin_report_no_policy_violation(new_page, site):  # noqa: F811
    found = []
    for who, paths in pages(site).items():
        page = open_as(new_page, site, who, LAPTOP)
        page.add_init_script(RECORD_VIOLATIONS)
        console = []
        page.on("console", lambda m, console=console: console.append(m.text)
                if "Content Security Policy" in m.text else None)
        extra = ["/api/docs/", "/admin/", "/admin/teams/team/add/"] if who == "organizer" else []
        for path in paths + extra:
            # Swagger UI has started (its start-up script is a file) once its title shows.
            started = ".swagger-ui .info .title" if path == "/api/docs/" else None
            found += [f"{who} {path}: {v}" for v in visit(page, site["base"] + path, started)]
        found += [f"{who} console: {text}" for text in console]
    assert found == []


def test_the_print_button_prints_without_an_inline_handler(new_page, site):  # noqa: F811
    page = open_as(new_page, site, "organizer", LAPTOP)
    page.add_init_script(RECORD_VIOLATIONS)
    visit(page, f"{site['base']}/gorod/{site['gorod']}/statistics/")
    page.locator("#stats-exports [data-print]").click()
    page.wait_for_function("() => window.__printed === 1")
    assert page.evaluate("window.__violations") == []
