"""``core.sessions``: the database sessions (the engine with Redis) read with constant SQL
answer what Django's own database sessions answer."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.utils import timezone

from core.sessions import SessionStore

pytestmark = pytest.mark.django_db


def stored(data: dict) -> str:
    session = db.SessionStore()
    session.update(data)
    session.create()
    return session.session_key


def test_a_stored_session_reads_back_its_data_in_one_query(django_assert_num_queries):
    key = stored({"joined": {"7": {"application": 3, "join_version": 1}}, "n": 1})
    with django_assert_num_queries(1):
        session = SessionStore(key)
        assert session["joined"] == {"7": {"application": 3, "join_version": 1}}
    assert session.session_key == key
    assert dict(session.items()) == dict(db.SessionStore(key).items())


def test_an_expired_or_unknown_session_reads_empty_and_forgets_its_key():
    key = stored({"n": 1})
    Session.objects.filter(session_key=key).update(
        expire_date=timezone.now() - timedelta(seconds=1))
    for missing in (key, "nosuchsessionkey0123456789"):
        session = SessionStore(missing)
        assert dict(session.items()) == {}
        assert session.session_key is None  # a new one is made if the request stores data


def test_a_session_saved_through_it_is_one_djangos_store_reads():
    session = SessionStore()
    session["team"] = "Полуночники"
    session.save()
    assert db.SessionStore(session.session_key)["team"] == "Полуночники"
