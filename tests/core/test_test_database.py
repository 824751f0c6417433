"""A test that commits its data itself (``tests.shared_data.committed_once``) uses no
``django_db`` mark; when nothing marked runs with it, the session still makes the test
database for it, never pointing it at the real one."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import connection


def test_an_unmarked_test_gets_the_migrated_test_database_not_the_real_one(
        django_db_setup, django_db_blocker, django_db_modify_db_settings):
    with django_db_blocker.unblock():
        assert connection.settings_dict["NAME"] != django_db_modify_db_settings
        assert get_user_model().objects.filter(username="nobody-made-me").count() == 0
