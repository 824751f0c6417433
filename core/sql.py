"""Constant SQL for the hot paths, on SQLite and PostgreSQL alike.

The ORM spent more time building a hot query's SQL and model instances than the database spent
answering it (a GoRoD code made twenty small queries: two thirds of its time was Django's). The
few queries every write and read runs are written once here as text (cached by shape) and
answer plain tuples; ``value`` turns a column back into what the ORM would give.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from django.db import connection


def q(name: str) -> str:
    """A quoted table or column name (the same quoting on SQLite and PostgreSQL)."""
    return f'"{name}"'


def table(model) -> str:
    return q(model._meta.db_table)


def column(model, field: str) -> str:
    """The quoted column of a model's field (``application`` → ``"application_id"``)."""
    return q((model._meta.pk if field == "pk" else model._meta.get_field(field)).column)


def marks(n: int) -> str:
    """``%s, %s, …``: ``n`` placeholders."""
    return ", ".join(["%s"] * n)


def rows(sql: str, params: list | tuple = ()) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def execute(sql: str, params: list | tuple = ()) -> int:
    """Run a statement; the number of rows it changed."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def param(model, field: str, value: Any) -> Any:
    """``value`` as the database takes it for that field (a datetime or a UUID is spelt
    differently on SQLite and PostgreSQL)."""
    return model._meta.get_field(field).get_db_prep_value(value, connection, prepared=False)


def moment(value: Any) -> datetime | None:
    """A datetime column as the ORM gives it with ``USE_TZ``: aware, in UTC (SQLite answers
    a naive UTC datetime or the stored text, PostgreSQL an aware datetime)."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def loaded(value: Any) -> Any:
    """A JSON column's value (both backends answer its text to a plain cursor here)."""
    return json.loads(value) if isinstance(value, str | bytes) else value
