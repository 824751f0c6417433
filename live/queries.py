"""The live core's constant SQL: the hot reads and the write's comparison and statements.

Every read (a projector's poll, a resync, a socket's first message) and every write runs one,
and the ORM spent more time building these joins than the database spent answering them (a
third of a public read)."""

from __future__ import annotations

import functools

from core import sql
from live.models import LivePart, LiveStream

_Q, _marks = sql.q, sql.marks  # the same quoting on SQLite and PostgreSQL (``core.sql``)
_STREAM, _PART = LiveStream._meta.db_table, LivePart._meta.db_table


def _keys_sql(n: int) -> str:
    """The parts of ``n`` keys: the keys' own and their rows (``Rows``); parameters: the keys,
    then their ``like`` patterns."""
    rows = " OR ".join([f"p.{_Q('key')} LIKE %s ESCAPE '!'"] * n)
    return f"(p.{_Q('key')} IN ({_marks(n)}) OR {rows})"


@functools.lru_cache(maxsize=256)
def parts_sql(key_counts: tuple[int, ...]) -> str:
    which = " OR ".join(f"(s.{_Q('audience')} = %s AND {_keys_sql(n)})" for n in key_counts)
    return (f"SELECT s.{_Q('audience')}, p.{_Q('key')}, p.{_Q('text')} FROM {_Q(_PART)} p "
            f"INNER JOIN {_Q(_STREAM)} s ON s.{_Q('id')} = p.{_Q('stream_id')} "
            f"WHERE s.{_Q('game_id')} = %s AND ({which})")


def compared(game_id: int, whole: list[str], partial: list[str], keys: list[str]
              ) -> list[tuple]:
    """The streams of a write's audiences and the parts it compares with: every part of a
    whole state, only ``keys`` of a partial one (a stream whose asked keys are all new still
    comes back, with no part)."""
    if not whole and not partial:
        return []
    return sql.rows(_compared_sql(len(whole), len(partial), len(keys)),
                 [*whole, *keys, game_id, *whole, *partial])


@functools.lru_cache(maxsize=256)
def _compared_sql(whole: int, partial: int, keys: int) -> str:
    joined = []
    if whole:
        joined.append(f"s.{_Q('audience')} IN ({_marks(whole)})")
    if keys:
        joined.append(f"p.{_Q('key')} IN ({_marks(keys)})")
    on = f" AND ({' OR '.join(joined)})" if joined else " AND 1 = 0"
    return (f"SELECT s.{_Q('id')}, s.{_Q('audience')}, s.{_Q('version')}, p.{_Q('id')}, "
            f"p.{_Q('key')}, p.{_Q('position')}, p.{_Q('text')} FROM {_Q(_STREAM)} s "
            f"LEFT OUTER JOIN {_Q(_PART)} p ON p.{_Q('stream_id')} = s.{_Q('id')}{on} "
            f"WHERE s.{_Q('game_id')} = %s AND s.{_Q('audience')} IN ({_marks(whole + partial)})")


# A write's own statements, constant too (the ORM's delete alone collected the rows first).
INSERT_BATCH = 200  # 800 parameters: under SQLite's limit of 999 on old builds


@functools.lru_cache(maxsize=64)
def delete_parts_sql(n: int) -> str:
    return f"DELETE FROM {_Q(_PART)} WHERE {_Q('id')} IN ({_marks(n)})"


def _rows_where(n: int, like: bool) -> str:
    key = f"{_Q('key')} LIKE %s ESCAPE '!'" if like else f"{_Q('key')} = %s"
    return " OR ".join([f"({_Q('stream_id')} = %s AND {key})"] * n)


@functools.lru_cache(maxsize=64)
def rows_sql(n: int) -> str:
    """The row parts of ``n`` row-by-row values: ``(stream, like(key))`` each."""
    return (f"SELECT {_Q('stream_id')}, {_Q('key')}, {_Q('text')} FROM {_Q(_PART)} "
            f"WHERE {_rows_where(n, True)}")


@functools.lru_cache(maxsize=64)
def some_rows_sql(n: int) -> str:
    """Some row parts of one stream: its id, then ``n`` part keys."""
    return (f"SELECT {_Q('key')}, {_Q('text')} FROM {_Q(_PART)} "
            f"WHERE {_Q('stream_id')} = %s AND {_Q('key')} IN ({_marks(n)})")


@functools.lru_cache(maxsize=64)
def delete_rows_sql(n: int) -> str:
    """Delete ``n`` row parts: ``(stream, "key/slot")`` each."""
    return f"DELETE FROM {_Q(_PART)} WHERE {_rows_where(n, False)}"


@functools.lru_cache(maxsize=64)
def delete_all_rows_sql(n: int) -> str:
    """Delete every row part of ``n`` keys: ``(stream, like(key))`` each."""
    return f"DELETE FROM {_Q(_PART)} WHERE {_rows_where(n, True)}"


@functools.lru_cache(maxsize=64)
def bump_sql(n: int) -> str:
    return (f"UPDATE {_Q(_STREAM)} SET {_Q('version')} = {_Q('version')} + 1 "
            f"WHERE {_Q('id')} IN ({_marks(n)})")


@functools.lru_cache(maxsize=256)
def insert_parts_sql(n: int) -> str:
    """New parts and changed ones in one statement: a stream's key that is stored already
    takes its new text and place (SQLite and PostgreSQL both upsert on the unique key)."""
    columns = ", ".join(_Q(c) for c in ("stream_id", "key", "position", "text"))
    return (f"INSERT INTO {_Q(_PART)} ({columns}) VALUES "
            + ", ".join(["(%s, %s, %s, %s)"] * n)
            + f" ON CONFLICT ({_Q('stream_id')}, {_Q('key')}) DO UPDATE SET "
            f"{_Q('position')} = excluded.{_Q('position')}, {_Q('text')} = excluded.{_Q('text')}")



@functools.lru_cache(maxsize=64)
def stored_sql(by_format: bool, audiences: int | None, packed: bool = False) -> str:
    """The streams' versions and parts; ``packed`` (SQLite only): one row of one column per
    stream, "<audience> <version> <its parts packed>" (``unpacked``; an audience holds no
    space)."""
    if packed:
        text = (f"SELECT s.{_Q('audience')} || ' ' || s.{_Q('version')} || ' ' "
                f"|| coalesce(group_concat({_PACKED}, ''), '') ")
    else:
        text = f"SELECT s.{_Q('audience')}, s.{_Q('version')}, p.{_Q('key')}, p.{_Q('text')} "
    text += (f"FROM {_Q(_STREAM)} s LEFT OUTER JOIN {_Q(_PART)} p "
             f"ON p.{_Q('stream_id')} = s.{_Q('id')} ")
    if by_format:
        game = LiveStream._meta.get_field("game").related_model._meta.db_table
        text += f"INNER JOIN {_Q(game)} g ON g.{_Q('id')} = s.{_Q('game_id')} "
    text += f"WHERE s.{_Q('game_id')} = %s "
    if by_format:
        text += f"AND g.{_Q('format')} = %s "
    if audiences is not None:
        text += f"AND s.{_Q('audience')} IN ({_marks(audiences)}) "
    if packed:
        return text + f"GROUP BY s.{_Q('id')}, s.{_Q('audience')}, s.{_Q('version')}"
    return text + f"ORDER BY s.{_Q('audience')}, p.{_Q('position')}"


# Python's sqlite3 gives up the interpreter's lock around each step of a statement (one per row
# fetched) and around each column's type of each row; in a server whose threads all want that
# lock, each give-up costs the read a wait and a switch. Under the bench's load (one uvicorn,
# 32 connections) fetching a 6-part state's six rows of four columns took a read's thread
# ~240 us of CPU, one packed row ~60 us, and the state's rate rose by a third.
#
# Each part is packed as "<position> <key length> <text length> <key><text>" (lengths in
# characters, as SQLite's ``length`` counts them up to a NUL, which no JSON text holds):
# whatever else a key or a text holds, nothing in it can be taken for a separator.
_PACKED = (f"p.{_Q('position')} || ' ' || length(p.{_Q('key')}) || ' ' "
           f"|| length(p.{_Q('text')}) || ' ' || p.{_Q('key')} || p.{_Q('text')}")


def unpacked(packed: str | None) -> list[tuple[str, str]]:
    """A packed stream's ``(key, text)`` parts in their order (``group_concat`` keeps none)."""
    parts: list[tuple[int, str, str]] = []
    at, end = 0, len(packed or "")
    while at < end:
        gap = packed.index(" ", at)
        position = int(packed[at:gap])
        at, gap = gap + 1, packed.index(" ", gap + 1)
        key_length = int(packed[at:gap])
        at, gap = gap + 1, packed.index(" ", gap + 1)
        key_at = gap + 1
        text_at = key_at + key_length
        at = text_at + int(packed[at:gap])
        parts.append((position, packed[key_at:text_at], packed[text_at:at]))
    parts.sort()
    return [(key, text) for _position, key, text in parts]


def like(key: str) -> str:
    """The LIKE pattern of ``key``'s row parts (``_`` is a wildcard there: escaped)."""
    return key.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "/%"
