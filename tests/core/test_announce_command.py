"""``manage.py announce``: stored always; broadcast at once only where the layer reaches the
server (Redis); with the in-memory layer it waits for the server's ``deliver_pending``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from core.models import Announcement
from tests.conftest import server_env

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)


def run_announce(*args: str, **env: str) -> subprocess.CompletedProcess:
    environ = server_env(**env)
    if "REDIS_URL" not in env:
        environ.pop("REDIS_URL", None)
    return subprocess.run([sys.executable, "manage.py", "announce", *args], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=60)


def test_on_the_in_memory_layer_the_command_queues_the_announcement_and_says_so():
    result = run_announce("Перерыв 10 минут")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "queued: the running server shows it within a second"
    announcement = Announcement.objects.get()
    assert (announcement.text, announcement.created_by, announcement.delivered_at) == ("Перерыв 10 минут", None, None)


@pytest.mark.parametrize("text", ["", "   ", "ы" * 501])
def test_a_bad_announcement_is_one_error_line_and_exit_2(text):
    result = run_announce(text)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert not Announcement.objects.exists()


@pytest.mark.services
def test_with_redis_the_command_broadcasts_at_once_and_marks_it_delivered(redis_url):
    result = run_announce("из консоли", REDIS_URL=redis_url, CHANNELS_PREFIX=os.environ.get("CHANNELS_PREFIX", "test"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "sent"
    assert Announcement.objects.get().delivered_at is not None


def test_the_command_in_process_uses_the_same_service(capsys, settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    call_command("announce", "в процессе")
    assert "queued" in capsys.readouterr().out
    assert Announcement.objects.get().text == "в процессе"
