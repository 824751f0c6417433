"""``core.sql``: constant SQL that answers what the ORM would (values, instances, prefetches)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from core import sql
from core.models import AuditEntry
from gorod import reads, services
from gorod.models import CodeAttempt, Ruling
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import T0, minutes

pytestmark = pytest.mark.django_db


def fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def test_a_loader_gives_the_instances_the_orm_gives_field_for_field(running, alpha, organizer):
    services.code_submit(game=running, application=alpha, text="nope", now=minutes(1),
                         client_id=uuid.uuid4())
    services.code_submit(game=running, application=alpha, text="G1R1D", now=minutes(2))
    services.ruling_add(game=running, actor=organizer, application=alpha, type="penalty",
                        minutes=5, reason="late", now=minutes(3))
    for model in (CodeAttempt, Ruling):
        loaded = sql.Loader(model).load(f"t.{sql.column(model, 'gorod')} = %s", [running.pk],
                                        f"t.{sql.column(model, 'pk')}")
        expected = list(model.objects.filter(gorod=running).order_by("pk"))
        assert [fields(o) for o in loaded] == [fields(o) for o in expected]
        assert all(o._state.adding is False for o in loaded)


def test_prefetched_objects_are_what_the_relation_answers_without_a_query(
        running, alpha, django_assert_num_queries):
    services.code_submit(game=running, application=alpha, text="nope", now=minutes(1))
    level = running.levels.get(label="1")
    attempts = list(CodeAttempt.objects.filter(level=level))
    sql.prefetched(level, "attempts", attempts)
    with django_assert_num_queries(0):
        assert list(level.attempts.all()) == attempts
        assert all(a.level is level for a in attempts)


def test_a_teams_rows_stay_bounded_however_many_attempts_it_made(running, alpha):
    level = running.levels.get(label="1")
    CodeAttempt.objects.bulk_create([
        CodeAttempt(gorod=running, application=alpha, level=level, text=f"old {k}",
                    normalized=f"OLD{k}", at=T0 + timedelta(seconds=k + 1),
                    verdict=CodeAttempt.Verdict.WRONG) for k in range(300)])
    found = reads.team_rows(running.pk, alpha.pk, since=minutes(30))
    assert len(found.attempts) == reads.RECENT
    assert [a.text for a in found.recent()] == [f"old {k}" for k in range(299, 279, -1)]


def test_a_loader_reads_related_rows_in_the_same_query_as_select_related_does(
        running, alpha, django_assert_num_queries):
    from teams.models import Application, Game

    loader = sql.Loader(Application, "team", "game")
    with django_assert_num_queries(1):
        (entry,) = loader.load(f"{loader.pk} = %s AND {sql.q('game')}."
                               f"{sql.column(Game, 'status')} <> %s", [alpha.pk, "cancelled"])
        team, game = entry.team, entry.game
    expected = Application.objects.select_related("team", "game").get(pk=alpha.pk)
    assert fields(entry) == fields(expected)
    assert fields(team) == fields(expected.team) and fields(game) == fields(expected.game)


@pytest.mark.django_db(transaction=True)
def test_a_locked_read_holds_the_row_until_the_transaction_ends(running):
    """On PostgreSQL another transaction cannot lock the game row meanwhile (``NOWAIT``
    fails at once); SQLite locks the whole database per write transaction instead."""
    import threading

    from django.db import OperationalError, connection, connections, transaction

    from gorod.models import GorodGame
    from tests.conftest import need

    # Rows are locked only by PostgreSQL; SQLite serialises whole write transactions.
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    outcome = []

    def other():
        try:
            with transaction.atomic():
                GorodGame.objects.select_for_update(nowait=True).get(pk=running.pk)
            outcome.append("got it")
        except OperationalError:
            outcome.append("locked")
        finally:
            connections.close_all()

    with transaction.atomic():
        loader = sql.Loader(GorodGame, "game")
        loader.load(f"{loader.pk} = %s", [running.pk], lock=True)
        thread = threading.Thread(target=other)
        thread.start()
        thread.join(10)
    assert outcome == ["locked"]


def test_an_inserter_stores_what_objects_create_stores_field_for_field(
        running, alpha, django_assert_num_queries):
    level = running.levels.get(label="1")
    given = {"gorod": running, "application": alpha, "level": level, "text": "Код ß",
             "normalized": "КОДSS", "at": minutes(4), "verdict": CodeAttempt.Verdict.WRONG}
    with django_assert_num_queries(1):
        inserted = sql.Inserter(CodeAttempt).insert(**given, client_id=uuid.uuid4())
    created = CodeAttempt.objects.create(**given, client_id=uuid.uuid4())
    assert inserted.pk is not None and inserted.pk != created.pk
    assert inserted._state.adding is False and inserted._state.db == "default"
    stored = {o.pk: fields(o) for o in CodeAttempt.objects.filter(pk__in=[inserted.pk,
                                                                          created.pk])}
    # The same row but for the id and the client id; defaults (sector, closes_level) applied.
    for obj in (inserted, created):
        assert stored[obj.pk] == fields(obj)
        assert stored[obj.pk]["sector"] == "" and stored[obj.pk]["closes_level"] is False
    assert ({k: v for k, v in stored[inserted.pk].items() if k not in ("id", "client_id")}
            == {k: v for k, v in stored[created.pk].items() if k not in ("id", "client_id")})
    assert stored[inserted.pk]["at"] == minutes(4)


def test_inserting_many_stores_what_bulk_create_stores_in_one_statement(
        running, organizer, django_assert_num_queries):
    def entries(action: str) -> list[AuditEntry]:
        return [AuditEntry(app="gorod", game_id=running.pk, actor=organizer if i % 2 else None,
                           action=action, before={"n": i, "text": "ß"}, after=None if i else [i],
                           reason="why" * i, at=minutes(i)) for i in range(5)]

    with django_assert_num_queries(1):
        sql.Inserter(AuditEntry).insert_many(entries("gorod.many"))
    AuditEntry.objects.bulk_create(entries("gorod.bulk"))

    def stored(action: str) -> list[dict]:
        return [{k: v for k, v in fields(e).items() if k not in ("id", "action")}
                for e in AuditEntry.objects.filter(action=action).order_by("id")]

    assert stored("gorod.many") == stored("gorod.bulk") and len(stored("gorod.many")) == 5
    assert stored("gorod.many")[0]["after"] == [0] and stored("gorod.many")[1]["after"] is None
