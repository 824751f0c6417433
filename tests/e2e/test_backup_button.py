"""The organizer's "Back up now" in real Chromium: one click in the menu downloads a snapshot of
the running night, and the same snapshot stays beside the database."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from tests.e2e.test_teams_join import log_in, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_organizer_downloads_a_snapshot_from_the_menu(asgi_server, new_page, tmp_path):
    from django.conf import settings

    from core.roles import ORGANIZER

    make_user("org-backup", ORGANIZER)
    page = new_page()
    log_in(page, asgi_server, "org-backup", "/")
    with translation.override("ru"):
        label = gettext("Back up now")
    page.locator("#organizer-menu summary").click()
    button = page.get_by_role("button", name=label)
    expect(button).to_be_visible()
    with page.expect_download() as download:
        button.click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name.startswith("clubgames-")
    head = saved.read_bytes()[:16]
    on_sqlite = settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
    assert head.startswith(b"SQLite format 3\x00" if on_sqlite else b"PGDMP")
