"""Refused input says why: an unconfirmed account is told to confirm its e-mail (with a new
link), and text longer than its field is refused with the limit, never silently cut."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group, User
from django.core import mail
from django.utils import translation

from core.errors import DomainError
from core.roles import ORGANIZER
from rating import services as rating_services
from rating.models import Season

pytestmark = pytest.mark.django_db
PASSWORD = "Ночной-город-2026"


@pytest.fixture
def unconfirmed(django_capture_on_commit_callbacks, client):
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/accounts/signup/", {"username": "lisa", "email": "lisa@example.org",
                                          "password1": PASSWORD, "password2": PASSWORD})
    mail.outbox.clear()
    return User.objects.get(username="lisa")


@pytest.fixture
def organizer():
    user = User.objects.create_user("boss", "boss@example.org", "pw-boss-2026")
    user.groups.add(Group.objects.get(name=ORGANIZER))
    return user


def log_in(client, username, password, language="en") -> str:
    response = client.post("/accounts/login/", {"username": username, "password": password},
                           HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200  # the form again, with the reason
    return re.sub(r"\s+", " ", response.content.decode())


def test_an_unconfirmed_account_is_told_to_confirm_its_email_not_that_the_password_is_wrong(
        client, unconfirmed):
    page = log_in(client, "lisa", PASSWORD)
    assert "Your e-mail address is not confirmed yet" in page
    assert "lisa@example.org" in page
    assert "correct username and password" not in page


def test_an_unconfirmed_login_mails_a_new_link_that_confirms_and_logs_in(client, unconfirmed):
    log_in(client, "lisa", PASSWORD)
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["lisa@example.org"]
    link = re.search(r"https?://\S+", mail.outbox[0].body).group(0)
    response = client.get(link.replace("http://testserver", ""), follow=True)
    assert response.context["user"].username == "lisa"
    assert User.objects.get(username="lisa").is_active


def test_the_unconfirmed_login_message_is_russian_on_the_russian_site(client, unconfirmed):
    page = log_in(client, "lisa", PASSWORD, language="ru")
    assert "не подтверждён" in page and "lisa@example.org" in page
    assert "not confirmed" not in page


def test_a_wrong_password_of_an_unconfirmed_account_tells_nothing_and_mails_nothing(
        client, unconfirmed):
    page = log_in(client, "lisa", "wrong-password")
    assert "not confirmed" not in page and "correct username and password" in page
    assert mail.outbox == []


def test_an_account_switched_off_after_using_the_site_is_not_sent_a_confirmation(client):
    user = User.objects.create_user("gone", "gone@example.org", PASSWORD)
    assert client.login(username="gone", password=PASSWORD)
    client.logout()
    user.refresh_from_db()
    user.is_active = False
    user.save()
    page = log_in(client, "gone", PASSWORD)
    assert "not confirmed" not in page and mail.outbox == []


# --- too long is refused, not cut ---------------------------------------------------------------


def test_a_201_character_season_title_is_refused_with_the_limit(organizer):
    with pytest.raises(DomainError) as refused:
        rating_services.season_create(actor=organizer, title="С" * 201, format="kingofhill")
    assert "at most 200 characters" in refused.value.message
    assert not Season.objects.exists()


def test_a_200_character_season_title_is_kept_whole(organizer):
    season = rating_services.season_create(actor=organizer, title="С" * 200, format="kingofhill")
    assert season.title == "С" * 200


def test_the_season_page_shows_the_too_long_title_refusal_in_russian(client, organizer):
    client.force_login(organizer)
    response = client.post("/rating/seasons/new/",
                           {"title": "С" * 201, "format": "kingofhill"}, follow=True,
                           HTTP_ACCEPT_LANGUAGE="ru")
    text = response.content.decode()
    assert "не более 200 символов" in text
    assert not Season.objects.exists()


def test_the_api_refuses_a_too_long_season_title_with_a_detail(client, organizer):
    client.force_login(organizer)
    response = client.post("/rating/api/seasons/", {"title": "С" * 201, "format": "kingofhill"},
                           content_type="application/json")
    assert response.status_code == 400
    assert "200" in str(response.json())
    assert not Season.objects.exists()


def test_a_too_long_ban_reason_is_refused_not_cut(organizer):
    from datetime import timedelta

    from django.utils import timezone

    from teams import services as teams_services
    from teams.models import Ban, Team

    team = Team.objects.create(name="Совы", name_key="совы", captain=organizer)
    with translation.override("en"), pytest.raises(teams_services.TeamsError) as refused:
        teams_services.ban_create(team=team, actor=organizer, reason="x" * 2001,
                                  until=timezone.now() + timedelta(days=1))
    assert refused.value.message == "Reason is too long: at most 2000 characters, got 2001."
    assert not Ban.objects.exists()
