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


def is_key(value: Any) -> bool:
    """Whether ``value`` can be a row's id (a positive 64-bit integer): anything else matches
    no row, and PostgreSQL refuses a larger integer as a parameter instead of matching none."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2 ** 63


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


class Loader:
    """Model instances of one model from constant SQL: every concrete column, turned into what
    the ORM gives (its own converters), built with ``Model.from_db``, without compiling a query
    each time. ``load(where, params, order)`` answers the instances; the SQL of one shape is
    built once.

    ``related`` names foreign keys to read in the same query, as ``select_related`` does (an
    inner join: the keys must be non-null); in ``where`` the model's columns are ``t."column"``
    and a related model's ``<name>."column"`` (``Loader(Application, "game")``: ``game."status"``).
    """

    def __init__(self, model, *related: str):
        self.model = model
        self.pk = f"t.{q(model._meta.pk.column)}"  # the model's id column, for ``where``
        self.parts = [(None, model, "t")]  # (foreign key, model, alias)
        joins = []
        for name in related:
            fk = model._meta.get_field(name)
            target = fk.related_model
            self.parts.append((fk, target, q(name)))
            joins.append(f" JOIN {table(target)} {q(name)} ON {q(name)}."
                         f"{q(target._meta.pk.column)} = t.{q(fk.column)}")
        self.joins = "".join(joins)
        self.select = ", ".join(f"{alias}.{q(f.column)}" for _fk, m, alias in self.parts
                                for f in m._meta.concrete_fields)
        self._converters: dict[str, list] = {}
        self._sql: dict[tuple, str] = {}

    def _convert(self) -> list[tuple[Any, Any, list[str], list[tuple[list, Any]]]]:
        """Per model read: its foreign key, its model, its field names and per column the
        converters the ORM applies on this connection."""
        found = self._converters.get(connection.vendor)
        if found is None:
            found = []
            for fk, model, _alias in self.parts:
                fields = list(model._meta.concrete_fields)
                steps = []
                for f in fields:
                    col = f.get_col(model._meta.db_table)
                    steps.append(([*connection.ops.get_db_converters(col),
                                   *col.get_db_converters(connection)], col))
                found.append((fk, model, [f.attname for f in fields], steps))
            self._converters[connection.vendor] = found
        return found

    def load(self, where: str, params: list | tuple, order: str = "", *,
             lock: bool = False) -> list:
        """Instances of the rows ``WHERE <where>``, in ``order``; with ``lock`` the rows read
        (joined ones too) are locked until the transaction ends, as
        ``select_for_update(no_key=True)`` locks them (where the database locks rows)."""
        key = (where, order, lock, connection.vendor)
        text = self._sql.get(key)
        if text is None:
            text = f"SELECT {self.select} FROM {table(self.model)} t{self.joins} WHERE {where}"
            if order:
                text += f" ORDER BY {order}"
            if lock and connection.features.has_select_for_no_key_update:
                text += " FOR NO KEY UPDATE"
            elif lock and connection.features.has_select_for_update:
                text += " FOR UPDATE"
            self._sql[key] = text
        parts = self._convert()
        found = []
        for row in rows(text, params):
            start, main = 0, None
            for fk, model, names, steps in parts:
                values = list(row[start:start + len(names)])
                start += len(names)
                for i, (convert, col) in enumerate(steps):
                    for step in convert:
                        values[i] = step(values[i], col, connection)
                obj = model.from_db(connection.alias, names, values)
                if fk is None:
                    main = obj
                else:
                    fk.set_cached_value(main, obj)
            found.append(main)
        return found


def prefetched(instance, name: str, objects: list) -> None:
    """Hand ``instance.<name>.all()`` these objects (each knowing ``instance``), as
    ``prefetch_related`` would."""
    cache = instance.__dict__.setdefault("_prefetched_objects_cache", {})
    cache.pop(name, None)
    manager = getattr(instance, name)
    for obj in objects:
        manager.field.set_cached_value(obj, instance)
    queryset = manager.get_queryset()  # filtered, never evaluated
    queryset._result_cache = list(objects)
    queryset._prefetch_done = True
    cache[name] = queryset


class Inserter:
    """Rows of one model inserted with constant SQL: ``insert(**fields)`` answers the saved
    instance, as ``objects.create`` would, without compiling the ``INSERT`` each time (on the
    hot paths compiling is a real share of a GoRoD code's time). Only for models with an automatic id
    whose saving runs no code of their own (no overridden ``save``, no ``pre_save`` /
    ``post_save`` receivers): those are skipped here."""

    def __init__(self, model):
        self.model = model
        self.fields = [f for f in model._meta.concrete_fields if not f.primary_key]
        self._sql: dict[str, str] = {}

    def _text(self, returning: bool) -> str:
        key = f"{connection.vendor}:{returning}"
        text = self._sql.get(key)
        if text is None:
            columns = ", ".join(q(f.column) for f in self.fields)
            text = (f"INSERT INTO {table(self.model)} ({columns}) "
                    f"VALUES ({marks(len(self.fields))})")
            if returning:
                text += f" RETURNING {q(self.model._meta.pk.column)}"
            self._sql[key] = text
        return text

    def insert(self, **values: Any):
        obj = self.model(**values)
        params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in self.fields]
        returning = connection.features.can_return_columns_from_insert
        text = self._text(returning)
        with connection.cursor() as cursor:
            cursor.execute(text, params)
            obj.pk = (cursor.fetchone()[0] if returning else connection.ops.last_insert_id(
                cursor, self.model._meta.db_table, self.model._meta.pk.column))
        obj._state.adding = False
        obj._state.db = connection.alias
        return obj

    def insert_many(self, objs: list) -> None:
        """Insert unsaved instances in one statement run for each (``executemany``), without
        reading their ids back: what ``bulk_create`` stores, without compiling an ``INSERT``
        of that many rows (a host judging 64 answers at once spent a fifth of it there)."""
        if not objs:
            return
        rows = [[f.get_db_prep_save(f.pre_save(obj, True), connection) for f in self.fields]
                for obj in objs]
        with connection.cursor() as cursor:
            cursor.executemany(self._text(False), rows)
