"""Login limits: per user name at one address and per address, through the ASGI handler
too, cleared by an organizer; the page says why (in Russian by default)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import AsyncClient, Client
from django.utils import translation

pytestmark = pytest.mark.django_db(transaction=True)
LIMIT = 10


@pytest.fixture(autouse=True)
def login_limit(settings):
    """(Passwords hash fast in every test: tests/settings.py.)"""
    settings.AXES_FAILURE_LIMIT = LIMIT


@pytest.fixture
def boss(db):
    return User.objects.create_superuser("boss", password="right-password-2026")


def _try(client, username, password, **extra):
    return client.post("/accounts/login/", {"username": username, "password": password}, **extra)


def test_a_user_name_is_locked_at_the_address_it_failed_from_even_for_the_right_password(boss):
    client = Client(REMOTE_ADDR="203.0.113.1")
    for _ in range(LIMIT - 1):
        assert _try(client, "boss", "wrong").status_code == 200
    assert _try(client, "boss", "wrong").status_code == 429  # the limit-th failure locks
    response = _try(client, "boss", "right-password-2026")
    assert response.status_code == 429
    assert "Too many failed log-ins for this name or from this address" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_wrong_passwords_from_one_address_do_not_lock_the_organizer_out_from_another(boss):
    for _ in range(LIMIT):
        _try(Client(REMOTE_ADDR="203.0.113.1"), "boss", "wrong")
    assert _try(Client(REMOTE_ADDR="203.0.113.1"), "boss", "right-password-2026").status_code == 429
    elsewhere = Client(REMOTE_ADDR="198.51.100.2")
    assert _try(elsewhere, "boss", "right-password-2026").status_code == 302
    assert elsewhere.session["_auth_user_id"] == str(boss.pk)


async def test_the_limit_holds_through_the_asgi_handler(boss):
    client = AsyncClient(REMOTE_ADDR="203.0.113.1")
    for _ in range(LIMIT - 1):
        assert (await _try(client, "boss", "wrong")).status_code == 200
    assert (await _try(client, "boss", "wrong")).status_code == 429
    response = await _try(client, "boss", "right-password-2026")
    assert response.status_code == 429
    assert 'class="warning login-locked"' in response.content.decode()
    # The views ran in asgiref's shared thread: close the connection they opened there, or the
    # next async test (which may not use the database) finds it open.
    from asgiref.sync import sync_to_async
    from django.db import connections

    await sync_to_async(connections.close_all)()


def test_one_address_trying_many_names_is_locked(boss):
    for i in range(LIMIT):
        _try(Client(REMOTE_ADDR="203.0.113.7"), f"guess{i}", "wrong")
    assert _try(Client(REMOTE_ADDR="203.0.113.7"), "boss", "right-password-2026").status_code == 429
    response = _try(Client(REMOTE_ADDR="198.51.100.8"), "boss", "right-password-2026")
    assert response.status_code == 302


def test_a_forged_x_forwarded_for_does_not_reset_the_address(boss, settings):
    settings.TRUSTED_PROXIES = 1
    for i in range(LIMIT):
        _try(Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"10.0.{i}.1, 203.0.113.7"),
             f"guess{i}", "wrong")
    response = _try(Client(REMOTE_ADDR="127.0.0.1",
                           HTTP_X_FORWARDED_FOR="1.1.1.1, 203.0.113.7"), "boss", "right-password-2026")
    assert response.status_code == 429


def test_the_lock_out_message_reads_in_russian(boss, settings):
    settings.LANGUAGE_CODE = "ru"
    client = Client(REMOTE_ADDR="203.0.113.1")
    with translation.override("ru"):
        for _ in range(LIMIT):
            _try(client, "boss", "wrong")
        body = _try(client, "boss", "wrong").content.decode()
    assert "Слишком много неудачных попыток входа" in body


def test_an_organizer_clears_the_lock_and_the_user_logs_in(boss):
    organizer = User.objects.create_user("org")
    organizer.groups.add(Group.objects.get_or_create(name="organizer")[0])
    for _ in range(LIMIT):
        _try(Client(REMOTE_ADDR="203.0.113.1"), "boss", "wrong")
    assert _try(Client(REMOTE_ADDR="203.0.113.1"), "boss", "right-password-2026"
                ).status_code == 429
    staff = Client()
    staff.force_login(organizer)
    page = staff.get("/accounts/lockouts/").content.decode()
    assert "boss" in page and "203.0.113.1" in page and "<strong>locked</strong>" in page
    staff.post("/accounts/lockouts/", {"username": "boss", "ip_address": "203.0.113.1"})
    assert _try(Client(REMOTE_ADDR="203.0.113.1"), "boss", "right-password-2026").status_code == 302


def test_an_organizer_clears_a_lock_on_a_user_name_of_any_length_the_list_shows(boss):
    from axes.models import AccessAttempt

    # Axes keeps names up to 255 characters, longer than the log-in form's 150.
    long_name = "ы" * 200
    AccessAttempt.objects.create(username=long_name, ip_address="203.0.113.9",
                                 failures_since_start=LIMIT, user_agent="", path_info="/",
                                 http_accept="", get_data="", post_data="")
    organizer = User.objects.create_user("org")
    organizer.groups.add(Group.objects.get_or_create(name="organizer")[0])
    staff = Client()
    staff.force_login(organizer)
    assert long_name in staff.get("/accounts/lockouts/").content.decode()
    staff.post("/accounts/lockouts/", {"username": long_name, "ip_address": ""})
    assert not AccessAttempt.objects.filter(username=long_name).exists()


def test_only_organizers_see_the_lockouts_page(boss):
    assert Client().get("/accounts/lockouts/").status_code == 302
    outsider = Client()
    outsider.force_login(User.objects.create_user("nobody"))
    assert outsider.get("/accounts/lockouts/").status_code == 403
    assert outsider.post("/accounts/lockouts/", {"username": "boss"}).status_code == 403
