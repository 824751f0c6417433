"""Data built once for all the tests of a module, instead of once for each.

A module whose many tests need the same rows (a permission matrix: hundreds of requests against
one world) builds them in a module-scoped fixture inside ``built_once``: one transaction holds
them for the module's tests, each test's own transaction (pytest-django's ``db``) is a savepoint
inside it, so what a test writes is rolled back with it, and the rows go when the module's
tests are done. Only for tests that do not flush the database (``transaction=True``).

Model instances and test clients keep state in Python that a rollback does not undo (a field
a service set, a session cookie a response replaced): hand each test fresh ones, read by
primary key and made from saved cookies (``fresh_client``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.cookies import SimpleCookie

from django.test import Client


@contextmanager
def built_once(django_db_blocker) -> Iterator[None]:
    """Database access for a module-scoped fixture, inside a transaction rolled back when the
    fixture is torn down."""
    from django.db import transaction

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


def fresh_client(cookies: SimpleCookie, client_class: type[Client] = Client) -> Client:
    """A client holding a copy of ``cookies`` (a logged-in user's or a joined phone's session
    made once for the module)."""
    client = client_class()
    client.cookies = SimpleCookie()
    client.cookies.load({key: morsel.value for key, morsel in cookies.items()})
    return client


@contextmanager
def committed_once(django_db_blocker) -> Iterator[None]:
    """Database access for a module-scoped fixture whose rows a server in another process must
    read (browser tests): they are committed, and the database is flushed when the fixture is
    torn down, as a transactional test's end does. The module's tests take no database mark;
    what they write through the server goes with the flush."""
    from django.core.management import call_command

    from tests.conftest import settle_server

    with django_db_blocker.unblock():
        try:
            yield
        finally:
            # A phone's closing socket removes its presence row: not while the flush runs.
            settle_server()
            call_command("flush", interactive=False, verbosity=0)
