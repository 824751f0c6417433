"""The announcement page (organizers only, clear errors) and the banner every page renders."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.models import Announcement
from core.roles import ORGANIZER
from tests.kingofhill.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer_client(client):
    client.force_login(make_user("organizer", ORGANIZER))
    return client


def test_an_organizer_sends_an_announcement_from_the_page(organizer_client, django_capture_on_commit_callbacks):
    page = organizer_client.get("/announce/")
    assert page.status_code == 200 and 'name="text"' in page.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = organizer_client.post("/announce/", {"text": "Перерыв 10 минут"}, follow=True)
    assert response.redirect_chain == [("/announce/", 302)]
    announcement = Announcement.objects.get()
    assert announcement.text == "Перерыв 10 минут" and announcement.delivered_at is not None
    assert "The announcement is sent to every open page." in response.content.decode()
    recent = organizer_client.get("/announce/").content.decode()
    assert "Перерыв 10 минут" in recent and "delivered" in recent


@pytest.mark.parametrize(("text", "error"), [
    ("", "The announcement is empty: write what to show."),
    ("щ" * 501, "The announcement is too long: 501 characters, at most 500."),
])
def test_an_empty_or_too_long_announcement_gets_a_clear_error_on_the_page(organizer_client, text, error):
    response = organizer_client.post("/announce/", {"text": text})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'role="alert"' in html and error in html
    assert not Announcement.objects.exists()


def test_the_announcement_page_is_for_organizers_only(client):
    assert client.get("/announce/").status_code == 302  # to the log in page
    client.force_login(make_user("player"))
    assert client.get("/announce/").status_code == 403
    assert client.post("/announce/", {"text": "взлом"}).status_code == 403
    assert not Announcement.objects.exists()


def test_the_header_and_home_link_the_announcement_page_for_organizers_only(client, organizer_client):
    assert 'href="/announce/"' in organizer_client.get("/").content.decode()
    client.logout()
    assert 'href="/announce/"' not in client.get("/").content.decode()


def test_a_page_opened_within_ten_minutes_of_an_announcement_shows_it(client):
    Announcement.objects.create(text="старое", created_at=timezone.now() - timedelta(minutes=30))
    html = client.get("/teams/games/").content.decode()
    assert 'id="site-announcement" role="status" aria-live="polite" data-text="" hidden' in html
    Announcement.objects.create(text="Начинаем через 5 минут", created_at=timezone.now() - timedelta(minutes=9))
    html = client.get("/teams/games/").content.decode()
    assert 'data-text="Начинаем через 5 минут">' in html
    assert "старое" not in html
