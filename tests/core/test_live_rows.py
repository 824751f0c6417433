"""Values stored row by row (``live.rows.Rows``): a write that changes one row of a long list
writes that row and the list's small head, reads only the head when this process kept it, and
every read gives back byte for byte what encoding the value gives."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from core.errors import DomainError
from kingofhill.models import KothGame
from live import caches, delta, store
from live.caches import forget_shared
from live.codec import encode
from live.models import LivePart
from live.rows import Rows
from live.store import Parts, stored_parts, stored_texts
from live.write import LiveGame
from teams.models import Game
from tests.properties import examples

pytestmark = pytest.mark.django_db

STATE: dict = {}


def _build(w, _settled):
    return {"public": dict(STATE)}


TOY = LiveGame(name="toy", model=KothGame, settle=lambda w: None, build=_build,
               missing=lambda game_id: DomainError(f"no game {game_id}"))


@TOY.write
def toy_set(w, **keys):
    STATE.update(keys)


PARTS = LiveGame(name="toy", model=KothGame, settle=lambda w: None,
                 build=lambda w, _settled: {"public": Parts(w.change)},
                 missing=lambda game_id: DomainError(f"no game {game_id}"))


@PARTS.write
def parts_set(w, **keys):
    STATE.update(keys)
    w.change = keys  # this toy's change: the keys it sets


@pytest.fixture
def game(db):
    row = Game.objects.create(title="toy", format=Game.Format.KINGOFHILL,
                              starts_at=timezone.now() + timedelta(days=1))
    STATE.clear()
    forget_shared()
    yield KothGame.objects.create(game=row).pk
    forget_shared()


def team_rows(n: int, **changed) -> list[dict]:
    return [{"application": i, "name": f"Team {i}", "score": changed.get(str(i), 0)}
            for i in range(1, n + 1)]


def parts_of(game_id: int) -> dict[str, str]:
    return dict(LivePart.objects.filter(stream__game_id=game_id).values_list("key", "text"))


def writes(queries) -> list[str]:
    return [q["sql"] for q in queries
            if q["sql"].startswith(("INSERT INTO \"core_livepart\"", "DELETE FROM \"core_livepart\"",
                                    "INSERT INTO core_livepart", "DELETE FROM core_livepart"))]


def test_a_value_stored_row_by_row_reads_back_exactly_as_encoding_it_gives(game):
    STATE.update(teams=Rows(team_rows(3), by="application"),
                 table={"levels": ["1", "2"], "rows": Rows(team_rows(2), by="application"),
                        "share": 0.5},
                 title="night")
    TOY.refresh(game=game)
    text = stored_texts(game, ["public"])["public"]
    assert text == encode(dict(STATE))
    assert json.loads(text)["table"]["rows"][1]["name"] == "Team 2"
    # One part per row, plus each value's head and the plain key.
    assert sorted(parts_of(game)) == ["table", "table/0", "table/1", "teams", "teams/0",
                                      "teams/1", "teams/2", "title"]
    # A read of some keys joins the rows too.
    assert stored_parts(game, {"public": ["teams"]})["public"]["teams"] == encode(STATE["teams"])


def test_a_write_that_changes_one_row_writes_that_row_and_the_head_alone(game):
    STATE.update(teams=Rows(team_rows(50), by="application"))
    TOY.refresh(game=game)
    before = parts_of(game)
    STATE["teams"] = Rows(team_rows(50, **{"7": 3}), by="application")
    with CaptureQueriesContext(connection) as queries:
        TOY.refresh(game=game)
    after = parts_of(game)
    assert {key for key in after if after[key] != before.get(key)} == {"teams", "teams/6"}
    (insert,) = writes(queries.captured_queries)
    assert insert.count("teams/") == 1  # the changed row, not the 49 others
    assert json.loads(stored_texts(game, ["public"])["public"])["teams"][6]["score"] == 3


def test_a_new_row_takes_the_slot_a_dropped_row_left_and_nothing_is_deleted(game):
    log = [{"id": i, "text": f"code {i}"} for i in range(10, 0, -1)]  # newest first
    STATE.update(log=Rows(log, by="id"))
    TOY.refresh(game=game)
    STATE["log"] = Rows([{"id": 11, "text": "code 11"}, *log[:-1]], by="id")
    with CaptureQueriesContext(connection) as queries:
        TOY.refresh(game=game)
    sql = writes(queries.captured_queries)
    assert len(sql) == 1 and sql[0].startswith("INSERT")  # the head and one slot: no DELETE
    assert len([k for k in parts_of(game) if k.startswith("log/")]) == 10
    assert [row["id"] for row in json.loads(stored_texts(game, ["public"])["public"])["log"]] == [
        11, 10, 9, 8, 7, 6, 5, 4, 3, 2]


def test_a_shorter_list_deletes_the_slots_it_no_longer_uses(game):
    STATE.update(teams=Rows(team_rows(5), by="application"))
    TOY.refresh(game=game)
    STATE["teams"] = Rows(team_rows(2), by="application")
    TOY.refresh(game=game)
    assert sorted(k for k in parts_of(game) if k.startswith("teams/")) == ["teams/0", "teams/1"]
    assert stored_texts(game, ["public"])["public"] == encode(dict(STATE))


def test_a_value_that_stops_being_rows_or_goes_away_leaves_no_row_behind(game):
    STATE.update(teams=Rows(team_rows(3), by="application"), other=Rows(team_rows(2),
                                                                       by="application"))
    TOY.refresh(game=game)
    STATE["teams"] = team_rows(3)  # a plain list now: one text
    del STATE["other"]
    TOY.refresh(game=game)
    assert sorted(parts_of(game)) == ["teams"]
    assert stored_texts(game, ["public"])["public"] == encode(dict(STATE))
    STATE["teams"] = Rows(team_rows(3), by="application")  # and back
    TOY.refresh(game=game)
    assert sorted(parts_of(game)) == ["teams", "teams/0", "teams/1", "teams/2"]


@pytest.mark.parametrize("rows", [
    [{"application": 1}, {"application": 1}],  # the same id twice
    [{"application": 1}, {"name": "no id"}],
    [{"application": None}],
    [{"application": True}],
    ["not a dict"],
], ids=["repeated-id", "missing-id", "null-id", "boolean-id", "not-a-dict"])
def test_rows_without_a_usable_id_are_stored_as_one_text(game, rows):
    STATE.update(teams=Rows(rows, by="application"))
    TOY.refresh(game=game)
    assert sorted(parts_of(game)) == ["teams"]
    assert stored_texts(game, ["public"])["public"] == encode(dict(STATE))


def test_a_process_that_did_not_keep_the_head_reads_the_rows_and_gets_the_same_value(game):
    STATE.update(teams=Rows(team_rows(4), by="application"))
    TOY.refresh(game=game)
    forget_shared()  # another worker stored it

    @PARTS.write
    def read_then_change(w):
        found = w.read_values({"public": ["teams"]})["public"]["teams"]
        assert found == team_rows(4)
        w.change = {"teams": Rows([{**found[0], "score": 9}, *found[1:]], by="application")}

    with CaptureQueriesContext(connection) as queries:
        read_then_change(game=game)
    row_reads = [q["sql"] for q in queries.captured_queries if "LIKE" in q["sql"]]
    assert len(row_reads) == 1  # the rows once, for the head it did not keep
    assert json.loads(stored_texts(game, ["public"])["public"])["teams"][0]["score"] == 9


def test_a_process_that_kept_an_older_head_reads_only_the_rows_that_changed_since(game):
    STATE.update(teams=Rows(team_rows(30), by="application"))
    TOY.refresh(game=game)
    first = LivePart.objects.get(stream__game_id=game, key="teams")  # the rows' head
    kept = caches.head_kept(first.text)
    STATE["teams"] = Rows(team_rows(30, **{"5": 1, "9": 2}), by="application")
    TOY.refresh(game=game)
    # This process keeps what the first write left alone, as a worker that did not make the
    # second one would.
    forget_shared()
    caches.keep_head(first.text, kept.value, kept.marks, kept.rows, first.stream_id, "teams")

    @PARTS.write
    def read(w):
        w.read_values({"public": ["teams"]})
        w.unchanged = True

    with CaptureQueriesContext(connection) as queries:
        read(game=game)
    (rows_sql,) = [q["sql"] for q in queries.captured_queries if "teams/" in q["sql"]]
    assert rows_sql.count("teams/") == 2  # rows 5 and 9, not the 28 that stand
    assert stored_texts(game, ["public"])["public"] == encode(dict(STATE))


def test_a_push_of_a_row_by_row_value_is_the_patch_a_screen_applies(game, monkeypatch,
                                                                     django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr("live.messages.send_to_groups", lambda messages: sent.extend(messages))
    STATE.update(teams=Rows(team_rows(40), by="application"))
    with django_capture_on_commit_callbacks(execute=True):
        TOY.refresh(game=game)
    old = json.loads(stored_texts(game, ["public"])["public"])
    sent.clear()
    STATE["teams"] = Rows(team_rows(40, **{"3": 7}), by="application")
    with django_capture_on_commit_callbacks(execute=True):
        TOY.refresh(game=game)
    (_group, message), = sent
    pushed = json.loads(message["text"])
    assert "delta" in pushed and len(message["text"]) < 300
    assert delta.patch(old, pushed["delta"]) == json.loads(stored_texts(game, ["public"])["public"])


rows_strategy = st.lists(
    st.fixed_dictionaries({"application": st.integers(1, 12),
                           "score": st.integers(0, 3)}),
    max_size=10, unique_by=lambda row: row["application"])


@hypothesis_settings(max_examples=examples(40), deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=st.lists(st.tuples(rows_strategy, st.booleans()), min_size=1, max_size=6))
def test_any_sequence_of_lists_stores_exactly_each_list_in_as_many_parts_as_rows(game, history):
    """Rows added, dropped, reordered and changed, by whole builds and by ``Parts``, with the
    process keeping the heads or not: every read is the value encoded, and the key has one
    part per row and its head."""
    STATE.clear()
    LivePart.objects.filter(stream__game_id=game).delete()
    forget_shared()
    STATE.update(teams=Rows([], by="application"), title="t")
    TOY.refresh(game=game)
    for rows, forget in history:
        if forget:
            forget_shared()
        parts_set(game=game, teams=Rows([dict(r) for r in rows], by="application"))
        assert stored_texts(game, ["public"])["public"] == encode(dict(STATE))
        assert len([k for k in parts_of(game) if k.startswith("teams/")]) == len(rows)


def test_a_small_change_beside_a_long_row_by_row_value_does_not_encode_that_value_whole(
        game, monkeypatch, django_capture_on_commit_callbacks):
    history = Rows(team_rows(300), by="application")
    STATE.update(history=history, title="night", round=1)
    TOY.refresh(game=game)
    sent = []
    monkeypatch.setattr("live.messages.send_to_groups", lambda messages: sent.extend(messages))
    whole = []
    # A seam, not an outcome: sparing the encoding changes no query, push or stored text, so
    # the encoder, called through, is the only witness of the work not done.
    real = store.encode
    monkeypatch.setattr(store, "encode", lambda value: whole.append(value is history)
                        or real(value))
    with django_capture_on_commit_callbacks(execute=True):
        toy_set(game=game, round=2)
    # The push is the change; the whole state's text was not needed to choose it.
    assert True not in whole
    (_group, message), = sent
    assert json.loads(message["text"])["delta"] == {"d": {"round": {"=": 2}}}
    assert json.loads(stored_texts(game, ["public"])["public"])["history"] == history


def test_a_small_change_inside_a_value_with_long_rows_is_pushed_without_encoding_it_whole(
        game, monkeypatch, django_capture_on_commit_callbacks):
    # The host's console: a few fields beside every closed question's row. An answer changes
    # a field; its patch is chosen without encoding the console whole.
    STATE.update(host={"open": 1, "history": Rows(team_rows(300), by="application")})
    TOY.refresh(game=game)
    old = json.loads(stored_texts(game, ["public"])["public"])
    sent = []
    monkeypatch.setattr("live.messages.send_to_groups", lambda messages: sent.extend(messages))
    STATE["host"] = {"open": 2, "history": STATE["host"]["history"]}
    encoded = []
    real = store.encode
    monkeypatch.setattr(store, "encode", lambda value: encoded.append(value) or real(value))
    with django_capture_on_commit_callbacks(execute=True):
        TOY.refresh(game=game)
    assert not any(isinstance(v, dict) and isinstance(v.get("history"), Rows) for v in encoded)
    (_group, message), = sent
    pushed = json.loads(message["text"])["delta"]
    assert pushed == {"d": {"host": {"d": {"open": {"=": 2}}}}}
    assert delta.patch(old, pushed) == json.loads(stored_texts(game, ["public"])["public"])


@pytest.mark.parametrize(("before", "after", "whole"), [
    # A field of every row changes: the patch outgrows the bound (the rest and two characters
    # a row), so the value is measured exactly, and the patch is still the shorter.
    ({"a": "x" * 60, "n": 1}, {"a": "x" * 60, "n": 2}, False),
    # A patch longer than the value itself: the value is pushed whole.
    ({"a": 1}, {"b": [1, 2, 3], "c": "long enough to outgrow the value"}, True),
])
def test_a_patch_longer_than_the_bound_is_measured_against_the_encoded_value(
        game, monkeypatch, django_capture_on_commit_callbacks, before, after, whole):
    rows = lambda extra: Rows([{"application": i, **extra} for i in (1, 2)], by="application")  # noqa: E731
    # The rest of the state is long, so that the push is the change, not the whole state.
    STATE.update(host={"open": 1, "history": rows(before)}, rest="r" * 2000)
    TOY.refresh(game=game)
    old = json.loads(stored_texts(game, ["public"])["public"])
    sent = []
    monkeypatch.setattr("live.messages.send_to_groups", lambda messages: sent.extend(messages))
    STATE["host"] = {"open": 1, "history": rows(after)}
    with django_capture_on_commit_callbacks(execute=True):
        TOY.refresh(game=game)
    (_group, message), = sent
    pushed = json.loads(message["text"])["delta"]["d"]["host"]
    assert ("=" in pushed) is whole
    assert delta.patch(old, {"d": {"host": pushed}}) == json.loads(
        stored_texts(game, ["public"])["public"])
