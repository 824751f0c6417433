"""Announcements: stored by the service, broadcast once after the commit, delivered later by
``deliver_pending`` when the sender could not reach the server."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import timezone

from core import announcements
from core.errors import DomainError, NotAllowed
from core.models import Announcement
from core.realtime import SITE_GROUP
from core.roles import ORGANIZER
from core.services import announcement_send
from tests.kingofhill.conftest import make_user

pytestmark = pytest.mark.django_db


class Listener:
    """A channel in the site group of the real (in-memory) channel layer: what a page hears."""

    def __init__(self):
        self.layer = get_channel_layer()
        self.channel = async_to_sync(self.layer.new_channel)()
        self.heard: list[str] = []
        async_to_sync(self.layer.group_add)(SITE_GROUP, self.channel)

    def __call__(self) -> list[str]:
        """Every announcement text heard so far."""
        async def drain():
            while True:
                try:
                    message = await asyncio.wait_for(self.layer.receive(self.channel), 0.05)
                except TimeoutError:
                    return
                assert message["type"] == "site.announce" and message["sent_at"]
                self.heard.append(message["text"])

        async_to_sync(drain)()
        return self.heard


@pytest.fixture
def sent(settings):
    # The in-memory layer, whatever the environment: a listener in the test thread reads it
    # across event loops; Redis delivery is covered by test_consumers.py and the command tests.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    listener = Listener()
    yield listener
    async_to_sync(listener.layer.group_discard)(SITE_GROUP, listener.channel)


@pytest.fixture
def organizer():
    return make_user("organizer", ORGANIZER)


def test_an_organizers_announcement_is_stored_and_broadcast_after_the_commit(
        organizer, sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        announcement = announcement_send(actor=organizer, text="  Перерыв 10 минут  ")
    assert sent() == []  # nothing leaves before the commit
    assert announcement.text == "Перерыв 10 минут" and announcement.created_by == organizer
    for callback in callbacks:
        callback()
    assert sent() == ["Перерыв 10 минут"]
    announcement.refresh_from_db()
    assert announcement.delivered_at is not None


def test_a_rolled_back_announcement_is_never_broadcast(organizer, sent):
    from django.db import transaction

    with pytest.raises(RuntimeError), transaction.atomic():
        announcement_send(actor=organizer, text="не будет")
        raise RuntimeError("the request failed later")
    assert sent() == [] and not Announcement.objects.exists()


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"), ("   \n ", "empty"), ("x" * 501, "too long: 501 characters, at most 500"),
])
def test_an_empty_or_too_long_announcement_is_refused_and_not_stored(organizer, sent, text, message):
    with pytest.raises(DomainError, match=message):
        announcement_send(actor=organizer, text=text)
    assert not Announcement.objects.exists()


def test_500_characters_are_accepted(organizer, sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        announcement_send(actor=organizer, text="я" * 500)
    assert sent() == ["я" * 500]


def test_only_organizers_and_the_command_line_may_announce(sent):
    from django.contrib.auth.models import AnonymousUser

    for actor in (make_user("player"), AnonymousUser()):
        with pytest.raises(NotAllowed):
            announcement_send(actor=actor, text="взлом")
    assert announcement_send(actor=None, text="из консоли", deliver=False).created_by is None


def test_an_undelivered_announcement_is_sent_once_by_deliver_pending(sent):
    announcement = announcement_send(actor=None, text="в очереди", deliver=False)
    assert announcement.delivered_at is None and sent() == []
    now = timezone.now()
    assert announcements.deliver_pending(now=now) == 1
    assert sent() == ["в очереди"]
    announcement.refresh_from_db()
    assert announcement.delivered_at == now
    assert announcements.deliver_pending() == 0  # the second round finds nothing
    assert sent() == ["в очереди"]


def test_an_announcement_claimed_by_another_process_is_not_sent_again(sent):
    announcement = announcement_send(actor=None, text="одна", deliver=False)
    # Another worker's scheduler claimed it between our read and our claim.
    Announcement.objects.filter(pk=announcement.pk).update(delivered_at=timezone.now())
    assert announcements.deliver(announcement.pk, announcement.text) is False
    assert sent() == []


def test_pending_announcements_go_out_oldest_first_and_stale_ones_not_at_all(sent):
    now = timezone.now()
    for text, age in (("вчерашнее", timedelta(days=1)), ("первое", timedelta(minutes=2)),
                      ("второе", timedelta(seconds=5))):
        Announcement.objects.create(text=text, created_at=now - age)
    assert announcements.deliver_pending(now=now) == 2
    assert sent() == ["первое", "второе"]
    assert Announcement.objects.get(text="вчерашнее").delivered_at is None


def test_a_failed_broadcast_is_logged_not_raised_and_retried_next_round(
        monkeypatch, caplog, sent, django_capture_on_commit_callbacks):
    layer = get_channel_layer()
    real = layer.group_send

    async def layer_down(group, message):
        raise ConnectionError("redis is down")

    monkeypatch.setattr(layer, "group_send", layer_down)
    with caplog.at_level(logging.ERROR, logger="core.announcements"), \
            django_capture_on_commit_callbacks(execute=True):
        announcement = announcement_send(actor=None, text="не дошло")  # no error for the sender
    assert "the broadcast failed" in caplog.text
    announcement.refresh_from_db()
    assert announcement.delivered_at is None
    monkeypatch.setattr(layer, "group_send", real)  # the layer is back
    assert announcements.deliver_pending() == 1
    assert sent() == ["не дошло"]


@pytest.mark.django_db(transaction=True)
def test_two_processes_delivering_at_once_send_each_announcement_exactly_once(sent):
    """The scheduler of two workers (or the request and a scheduler round) race for the same
    pending announcements; the conditional claim lets exactly one send each."""
    import threading

    from django.db import connection

    for text in ("раз", "два", "три"):
        announcement_send(actor=None, text=text, deliver=False)
    barrier = threading.Barrier(2)
    counts: list[int] = []

    def worker():
        try:
            barrier.wait()
            counts.append(announcements.deliver_pending())
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sum(counts) == 3 and len(counts) == 2
    assert sorted(sent()) == ["два", "раз", "три"]
    assert not Announcement.objects.filter(delivered_at__isnull=True).exists()
