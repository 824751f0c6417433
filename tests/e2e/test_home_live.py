"""Real Chromium against a real ASGI server: the page loads and a WebSocket message arrives."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.conftest import server_env

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_home_page_goes_live_over_a_websocket(asgi_server, new_page):
    page = new_page()
    page.goto(asgi_server + "/")
    expect(page.locator("h1")).to_have_text("Клубные игры")
    # site.hello arrives over the socket and flips the status to live
    expect(page.locator("#live-status")).to_have_attribute("data-status", "online", timeout=15000)


def test_an_announcement_from_another_process_reaches_the_open_page(asgi_server, new_page):
    if not os.environ.get("REDIS_URL"):
        # The in-memory layer lives inside the server process; only Redis crosses processes.
        from tests.conftest import need

        need(False, "Redis (REDIS_URL) for a cross-process broadcast")
    page = new_page()
    page.goto(asgi_server + "/")
    expect(page.locator("#live-status")).to_have_attribute("data-status", "online", timeout=15000)
    result = subprocess.run([sys.executable, "manage.py", "announce", "Начинаем через 5 минут"], cwd=ROOT,
                            env=server_env(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    expect(page.locator("#site-announcement-text")).to_have_text("Начинаем через 5 минут", timeout=15000)
