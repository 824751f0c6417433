"""The live core (``live``): one pipeline for both games — lock first, then the moment,
store only what changed with its version, push after the commit, never fail a committed write
because a push failed, and serve reads from what was stored."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from core.errors import DomainError
from gorod import services as gorod_services
from kingofhill.models import KothGame
from live import store as live_store
from live.codec import decode, encode
from live.models import LiveStream
from live.store import stored_texts, stream_versions
from live.write import LiveGame
from teams.models import Game
from teams.services import team_rename
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import join_session
from tests.properties import examples

pytestmark = pytest.mark.django_db

STATES: dict[str, dict] = {}


def toy_build(w, _settled):
    return {audience: dict(state) for audience, state in STATES.items()}


TOY = LiveGame(name="toy", model=KothGame, settle=lambda w: None, build=toy_build,
               missing=lambda game_id: DomainError(f"no game {game_id}"))


@TOY.write
def toy_set(w, **states):
    STATES.update(states)


@pytest.fixture
def toy_game(db):
    game = Game.objects.create(title="toy", format=Game.Format.KINGOFHILL,
                               starts_at=timezone.now() + timedelta(days=1))
    STATES.clear()
    STATES.update({"public": {"n": 0}, "team:1": {"n": 0}, "team:2": {"n": 0}})
    return KothGame.objects.create(game=game).pk


def captured(monkeypatch):
    sent = []
    monkeypatch.setattr("live.messages.send_to_groups", lambda messages: sent.extend(messages))
    return sent


def test_only_the_audiences_whose_state_changed_get_a_new_version_and_one_push(
        toy_game, monkeypatch, django_capture_on_commit_callbacks):
    sent = captured(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        TOY.refresh(game=toy_game)
    assert stream_versions(toy_game) == {"public": 1, "team:1": 1, "team:2": 1}
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        toy_set(game=toy_game, **{"team:2": {"n": 5}})
    assert stream_versions(toy_game) == {"public": 1, "team:1": 1, "team:2": 2}
    (group, message), = sent
    assert group == f"toy.{toy_game}.team.2"
    assert json.loads(message["text"]) == {"type": "toy.state", "version": 2,
                                           "state": {"n": 5}}
    # Version N is state N: the read answers exactly what was pushed.
    assert TOY.read(toy_game, "team:2").data() == {"version": 2, "state": {"n": 5}}


def test_a_write_that_changes_no_view_stores_and_pushes_nothing(
        toy_game, monkeypatch, django_capture_on_commit_callbacks):
    TOY.refresh(game=toy_game)
    sent = captured(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        toy_set(game=toy_game, public={"n": 0})
    assert callbacks == [] and sent == []
    assert set(stream_versions(toy_game).values()) == {1}


def test_nothing_is_pushed_before_the_commit_or_for_a_rolled_back_write(
        toy_game, monkeypatch, django_capture_on_commit_callbacks):
    TOY.refresh(game=toy_game)
    sent = captured(monkeypatch)

    @TOY.write
    def refused(w):
        STATES["public"] = {"n": 99}
        raise DomainError("no")

    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(DomainError):
        refused(game=toy_game)
    assert callbacks == [] and sent == []
    STATES["public"] = {"n": 0}
    assert TOY.read(toy_game, "public").data()["state"] == {"n": 0}


def test_a_write_takes_its_moment_only_after_it_holds_the_game_lock(toy_game, monkeypatch):
    order = []
    real_now = timezone.now

    def watch(execute, sql, params, many, context):
        # The game's row, read locked (``FOR NO KEY UPDATE`` on PostgreSQL), or another query
        # (the transaction's own savepoints aside).
        if params is not None:
            locks = KothGame._meta.db_table in sql.split(" WHERE ")[0] and list(params) == [
                toy_game]
            order.append("lock" if locks else "query")
        return execute(sql, params, many, context)

    monkeypatch.setattr("live.write.timezone.now", lambda: order.append("now") or real_now())
    with connection.execute_wrapper(watch):
        toy_set(game=toy_game, public={"n": 1})
    assert order[:2] == ["lock", "now"] and order.count("now") == 1


def test_a_push_that_fails_after_the_commit_is_logged_and_never_raised(
        toy_game, monkeypatch, caplog, django_capture_on_commit_callbacks):
    def down(messages):
        raise ConnectionError("Redis is down")

    monkeypatch.setattr("live.messages.send_to_groups", down)
    with caplog.at_level(logging.ERROR, logger="live.messages"), \
            django_capture_on_commit_callbacks(execute=True):
        toy_set(game=toy_game, public={"n": 2})
    assert TOY.read(toy_game, "public").data() == {"version": 1, "state": {"n": 2}}
    assert "live broadcast" in caplog.text and "Redis is down" in caplog.text


@pytest.mark.parametrize("game", [987654, 2 ** 63, 0, -5])
def test_an_unknown_game_is_a_clear_refusal(db, game):
    with pytest.raises(DomainError, match=f"no game {game}"):
        toy_set(game=game, public={})


def test_a_read_of_a_game_never_published_only_reads(toy_game, django_assert_num_queries):
    with django_assert_num_queries(1):
        assert TOY.read(toy_game, "team:1") is None
    assert not LiveStream.objects.filter(game_id=toy_game).exists()


def test_an_audience_the_game_does_not_have_reads_as_none(toy_game):
    TOY.refresh(game=toy_game)
    assert TOY.read(toy_game, "team:1").data() == {"version": 1, "state": {"n": 0}}
    assert TOY.read(toy_game, "team:9") is None


def test_a_game_never_published_is_published_once_after_migrate(gorod, live):
    from django.core.management import call_command

    LiveStream.objects.filter(game_id__in=[gorod.pk, live.pk]).delete()
    call_command("migrate", verbosity=0)
    assert stream_versions(gorod.pk)["public"] == 1
    assert stream_versions(live.pk)["organizer"] == 1
    before = stream_versions(live.pk)
    call_command("migrate", verbosity=0)  # a published game is left as it is
    assert stream_versions(live.pk) == before


# --- through the apps ---------------------------------------------------------------------------


class FailingLayer:
    async def group_send(self, group, message):
        raise ConnectionError("the channel layer is down")


@pytest.mark.django_db(transaction=True)
def test_a_code_is_stored_and_answered_200_when_the_channel_layer_fails_after_the_commit(
        live, alpha, monkeypatch, caplog):
    monkeypatch.setattr("core.realtime.get_channel_layer", lambda: FailingLayer())
    client = Client()
    join_session(client, alpha)
    with caplog.at_level(logging.ERROR, logger="live.messages"):
        response = client.post(f"/gorod/api/games/{live.pk}/code/", {"text": "G1R1D"},
                               content_type="application/json")
    assert response.status_code == 200, response.content
    assert response.json()["verdict"] == "accepted"
    assert response.json()["state"]["me"]["level"]["label"] == "2"
    assert live.attempts.filter(closes_level=True).count() == 1
    assert "the channel layer is down" in caplog.text


def test_state_reads_serve_the_stored_state_without_recomputing(
        live, organizer, alpha, django_assert_max_num_queries):
    """A read is the stored state at its stored version, in a few queries however large the
    game (a recomputation reads the whole record; tests/gorod/test_query_budgets.py pins each
    read's count) and writes nothing."""
    before = stream_versions(live.pk)
    client = Client()
    client.force_login(organizer)
    client.get(f"/gorod/api/games/{live.pk}/organizer/state/")  # the session and user are warm
    with django_assert_max_num_queries(5):
        body = client.get(f"/gorod/api/games/{live.pk}/organizer/state/").json()
    assert body["version"] == before["organizer"]
    assert body["state"]["teams"][0]["name"] == "Alpha"
    phone = Client()
    join_session(phone, alpha)
    phone.get(f"/gorod/api/games/{live.pk}/team/state/")
    with django_assert_max_num_queries(3):
        state = phone.get(f"/gorod/api/games/{live.pk}/team/state/").json()["state"]
    assert state["me"]["level"]["label"] == "1"
    assert stream_versions(live.pk) == before


def test_renaming_a_team_shows_the_new_name_on_every_screen_of_its_games_at_once(
        live, alpha, monkeypatch, django_capture_on_commit_callbacks):
    sent = captured(monkeypatch)
    before = stream_versions(live.pk)
    with django_capture_on_commit_callbacks(execute=True):
        team_rename(team=alpha.team, name="Альфа-2")
    organizer = live_state(live.pk, "organizer")
    assert [t["name"] for t in organizer["teams"]][0] == "Альфа-2"
    assert live_state(live.pk, f"team:{alpha.pk}")["me"]["team"] == "Альфа-2"
    after = stream_versions(live.pk)
    assert after["organizer"] == before["organizer"] + 1
    assert {group for group, _ in sent} >= {f"gorod.{live.pk}.organizer",
                                             f"gorod.{live.pk}.team.{alpha.pk}"}
    # The identity did not move: the attempts and the record still belong to that entry.
    gorod_services.code_submit(game=live.pk, application=alpha, text="G1R1D")
    assert gorod_services.game_record(live)["events"][0]["team"] == "Альфа-2"


def live_state(game_id: int, audience: str) -> dict:
    return json.loads(stored_texts(game_id, [audience])[audience])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.text(max_size=5) | st.integers(-99, 99), inner, max_size=4),
    max_leaves=20)


@hypothesis_settings(max_examples=examples(300), deadline=None)
@given(value=JSON_VALUES)
def test_a_state_is_encoded_as_json_dumps_would_and_reads_back_as_the_same_value(value):
    text = encode(value)
    assert decode(text) == json.loads(json.dumps(value))
    plain = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if text != plain:  # only a tiny float is spelt otherwise, never another value
        assert json.loads(text) == json.loads(plain) and "e-" in plain


def test_a_push_past_the_limit_travels_as_its_version_and_the_state_is_read_over_http(
        toy_game, monkeypatch, django_capture_on_commit_callbacks):
    """No socket message carries more than ``PUSH_LIMIT``, whatever a write changed: past it
    the push says only its version with ``resync`` (the client reads the state over HTTP)."""
    from live.messages import PUSH_LIMIT

    sent = captured(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        TOY.refresh(game=toy_game)
    sent.clear()
    huge = {f"k{i}": "ж" * 100 for i in range(PUSH_LIMIT // 100)}  # 2 bytes a letter
    with django_capture_on_commit_callbacks(execute=True):
        toy_set(game=toy_game, public=huge)
    (_group, message), = sent
    assert json.loads(message["text"]) == {"type": "toy.state", "version": 2, "resync": True}
    assert TOY.read(toy_game, "public").data() == {"version": 2, "state": huge}
    sent.clear()
    small = {**huge, "k0": "и"}
    with django_capture_on_commit_callbacks(execute=True):
        toy_set(game=toy_game, public=small)
    (_group, message), = sent
    pushed = json.loads(message["text"])
    assert pushed["version"] == 3 and "delta" in pushed  # the next small change is a patch
    assert len(message["text"].encode()) <= PUSH_LIMIT


def test_a_public_read_by_id_answers_only_its_own_format_and_404_for_any_other_id(
        toy_game, gorod):
    """The projector's read is one query by the game's id; the id of the other format's game,
    or of none, is a 404 (never another game's state)."""
    from gorod.live import LIVE as GOROD_LIVE

    TOY.refresh(game=toy_game)
    client = Client()
    assert client.get(f"/koth/api/games/{toy_game}/state/").json()["state"] == {"n": 0}
    assert client.get(f"/gorod/api/games/{gorod.pk}/state/").status_code == 200
    for url in (f"/gorod/api/games/{toy_game}/state/", f"/koth/api/games/{gorod.pk}/state/",
                "/koth/api/games/987654/state/", "/gorod/api/games/987654/state/"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert "detail" in response.json()
    # A game never published yet is read as none, and the read writes nothing.
    LiveStream.objects.filter(game_id=gorod.pk).delete()
    assert GOROD_LIVE.read_by_id(gorod.pk, "public") is None
    assert client.get(f"/gorod/api/games/{gorod.pk}/state/").status_code == 404
    assert not LiveStream.objects.filter(game_id=gorod.pk).exists()


def test_parts_may_add_a_key_the_stored_state_lacks_and_it_goes_last(
        toy_game, monkeypatch, django_capture_on_commit_callbacks):
    from live.store import Parts

    sent = captured(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        TOY.refresh(game=toy_game)
    sent.clear()
    adds = LiveGame(name="toy", model=KothGame, settle=lambda w: None,
                    build=lambda w, _settled: {"public": Parts(extra=[1])},
                    missing=TOY.missing)
    with django_capture_on_commit_callbacks(execute=True):
        adds.refresh(game=toy_game)
    assert TOY.read(toy_game, "public").data() == {"version": 2,
                                                    "state": {"n": 0, "extra": [1]}}
    (_group, message), = sent
    assert json.loads(message["text"]) == {"type": "toy.state", "version": 2,
                                           "delta": {"d": {"extra": {"=": [1]}}}}


def test_a_value_every_audience_shares_is_encoded_once_per_write(
        toy_game, monkeypatch, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        TOY.refresh(game=toy_game)
    board = {"teams": [{"team": f"T{i}", "step": i % 7} for i in range(64)]}
    encoded = []
    # A seam, not an outcome: sparing the encoding changes no query, push or stored text, so
    # the encoder, called through, is the only witness of the work not done.
    real = live_store.encode
    monkeypatch.setattr(live_store, "encode",
                        lambda value: encoded.append(value is board) or real(value))
    with django_capture_on_commit_callbacks(execute=True):
        toy_set(game=toy_game, **{a: {"n": i, "board": board}
                                  for i, a in enumerate(["public", "team:1", "team:2"])})
    assert encoded.count(True) == 1
    assert json.loads(TOY.read(toy_game, "team:2").text)["board"] == board


def test_a_write_settles_the_game_before_its_states_are_built_from_what_settling_computed(
        toy_game, monkeypatch, django_capture_on_commit_callbacks):
    seen: list[str] = []

    def settle(w):
        seen.append("settle")
        return {"n": w.game.pk}

    def build(w, settled):
        seen.append("build")
        return {"public": settled}

    settled = LiveGame(name="toy", model=KothGame, settle=settle, build=build,
                       missing=TOY.missing)
    captured(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        settled.refresh(game=toy_game)
    assert seen == ["settle", "build"]
    assert settled.read(toy_game, "public").data()["state"] == {"n": toy_game}


def _served_as_stored(game_id: int, audience: str) -> str:
    """Marks one stored part of the audience's state with white space that decoding and
    encoding it again would drop; returns the marked text."""
    from live.models import LivePart

    part = LivePart.objects.filter(stream__game_id=game_id, stream__audience=audience,
                                   key__regex=r"^[^/]+$").order_by("position").first()
    part.text = f' {part.text}\n'
    part.save(update_fields=["text"])
    return part.text


@pytest.mark.parametrize("fmt", ["kingofhill", "gorod"])
def test_a_public_state_read_serves_the_stored_text_in_one_query_without_model_instances(
        fmt, toy_game, live, django_assert_num_queries):
    from django.db.models.signals import post_init

    TOY.refresh(game=toy_game)
    game_id, prefix = (toy_game, "koth") if fmt == "kingofhill" else (live.pk, "gorod")
    marked = _served_as_stored(game_id, "public")
    instances = []

    def built(sender, **_kwargs):
        instances.append(sender.__name__)

    post_init.connect(built)
    try:
        with django_assert_num_queries(1):
            response = Client().get(f"/{prefix}/api/games/{game_id}/state/")
    finally:
        post_init.disconnect(built)
    assert response.status_code == 200
    # The stored bytes, as they are: never parsed and encoded again, never an ORM row.
    assert marked in response.content.decode()
    assert instances == []


def test_a_stored_read_fetches_one_row_a_stream_and_gives_back_every_part_as_stored(
        toy_game, monkeypatch):
    """SQLite's read packs a stream's parts into one row (``live.queries``): keys and texts
    that look like its lengths, characters past the BMP, a stream with no part at all."""
    from core import sql
    from live.codec import joined
    from live.models import LivePart
    from live.queries import unpacked
    from live.rows import with_rows

    STATES.update({"public": {"1 2": "3 4 ", "ключ": ["☃ 😀 12 ", {"a b": 5}], "n": 0},
                   "team:1": {}, "team:2": {"x": "\u001e\u001f 0 0 "}})
    TOY.refresh(game=toy_game)
    marked = ' "3 4 " \n'  # white space that a parse and encode would drop
    assert LivePart.objects.filter(stream__game_id=toy_game, key="1 2").update(text=marked)
    fetched = []
    real = sql.rows

    def counted(*args):
        found = real(*args)
        fetched.append(len(found))
        return found

    monkeypatch.setattr(sql, "rows", counted)
    read = live_store.stored_many(toy_game, None)
    monkeypatch.undo()
    parts = LivePart.objects.filter(stream__game_id=toy_game).order_by("position", "key")
    expected = {stream.audience: (stream.version, joined(with_rows(
        [(p.key, p.text) for p in parts if p.stream_id == stream.pk])))
        for stream in LiveStream.objects.filter(game_id=toy_game)}
    assert {a: (s.version, s.text) for a, s in read.items()} == expected
    assert marked in read["public"].text and read["team:1"].text == "{}"
    assert json.loads(read["team:2"].text) == {"x": "\u001e\u001f 0 0 "}
    if connection.vendor == "sqlite":
        assert fetched == [3]
    assert unpacked(None) == unpacked("") == []


def test_an_organizers_state_read_with_rows_stored_one_by_one_serves_the_stored_texts(
        live, organizer):
    client = Client()
    client.force_login(organizer)
    marked = _served_as_stored(live.pk, "organizer")
    response = client.get(f"/gorod/api/games/{live.pk}/organizer/state/")
    assert response.status_code == 200
    assert marked in response.content.decode()
    assert response.json()["version"] >= 1 and response.json()["state"]
