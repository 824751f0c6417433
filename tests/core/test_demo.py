import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from core.demo import DEMO_PASSWORD
from core.roles import is_host, is_organizer

pytestmark = pytest.mark.django_db


def test_the_demo_creates_working_organizer_and_host_logins_and_prints_the_urls(capsys):
    call_command("demo", "--port", "8123")
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8123/admin/" in out
    organizer = authenticate(username="organizer", password=DEMO_PASSWORD)
    host = authenticate(username="host", password=DEMO_PASSWORD)
    assert is_organizer(organizer) and is_host(host) and not is_organizer(host)


def test_loading_the_demo_twice_changes_nothing(capsys):
    from django.contrib.auth.models import User

    call_command("demo")
    count = User.objects.count()
    call_command("demo")
    assert User.objects.count() == count
