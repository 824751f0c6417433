"""The GoRoD set-up pages' tests share these: an organizer's logged-in client and the messages
a page shows."""

from __future__ import annotations

from django.test import Client


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]
