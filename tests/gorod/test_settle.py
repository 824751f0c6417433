"""Settling a GoRoD write is the live core's ``settle`` hook (``gorod.settle``): it finishes the
game and stores the clock's next deadline before the states are built, and the build
(``gorod.states.build_states``) only renders: whatever the write, it issues no INSERT, UPDATE
or DELETE."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from gorod import reads, services
from gorod.live import LIVE
from gorod.models import GorodGame
from gorod.settle import Attempts, Moved, Whole
from teams.models import Game
from tests.gorod.fixtures_live import *  # noqa: F401,F403
from tests.gorod.fixtures_live import minutes
from tests.live_checks import HeldBatch

WRITES = ("INSERT", "UPDATE", "DELETE")


@pytest.fixture
def builds(monkeypatch) -> list[tuple[object, list[str]]]:
    """Each build of a GoRoD write: what ``settle`` handed it and the SQL it issued."""
    seen = []
    real = LIVE.build

    def build(w, settled):
        # ``connection`` is the calling thread's: a batch builds in its writer's thread.
        with CaptureQueriesContext(connection) as captured:
            states = real(w, settled)
        seen.append((settled, [query["sql"] for query in captured.captured_queries]))
        return states

    # The adapter is a frozen dataclass: its field is swapped where ``publish`` looks it up.
    monkeypatch.setitem(vars(LIVE), "build", build)
    return seen


@pytest.fixture
def settled_rows(monkeypatch) -> list[dict]:
    """The stored game row (and its ``teams.Game`` status) as each ``settle`` left it, read
    inside the write's transaction before the build."""
    seen = []
    real = LIVE.settle

    def settle(w):
        settled = real(w)
        row = GorodGame.objects.values("status", "ended_at", "next_deadline",
                                       "clock_failures").get(pk=w.game.pk)
        seen.append({**row, "game": Game.objects.get(pk=w.game.pk).status})
        return settled

    monkeypatch.setitem(vars(LIVE), "settle", settle)
    return seen


def writes_in(sql: list[str]) -> list[str]:
    return [query for query in sql if query.lstrip().upper().startswith(WRITES)]


@pytest.mark.django_db
@pytest.mark.parametrize(("write", "path"), [
    pytest.param(lambda g, e, o: services.code_submit(
        game=g.pk, application=e[0], text="NOPE", now=minutes(10)), Attempts, id="wrong-code"),
    pytest.param(lambda g, e, o: services.code_submit(
        game=g.pk, application=e[0], text="G1R1D", now=minutes(10)), Moved, id="closing-code"),
    pytest.param(lambda g, e, o: services.game_tick(game=g.pk, now=minutes(25)), Moved,
                 id="tick-past-a-deadline"),
    pytest.param(lambda g, e, o: services.ruling_add(
        actor=o, game=g.pk, application=e[1], type="penalty", minutes=5, now=minutes(10)),
        Whole, id="ruling"),
])
def test_the_build_of_any_write_only_renders(running, entries, organizer, builds, write, path):
    write(running, entries, organizer)
    assert [type(settled) for settled, _sql in builds] == [path]
    assert writes_in(builds[0][1]) == []


@pytest.mark.django_db(transaction=True)
def test_the_build_of_a_batch_of_codes_only_renders(live, entries, monkeypatch, builds):
    alpha, beta, gamma = entries
    held = HeldBatch(monkeypatch, LIVE, live.pk, reads, "team_rows")
    held.send("alpha wrong", lambda: services.code_submit(game=live.pk, application=alpha,
                                                          text="NOPE1"))
    held.send("beta closes", lambda: services.code_submit(game=live.pk, application=beta,
                                                          text="G1R1D"))
    held.send("gamma wrong", lambda: services.code_submit(game=live.pk, application=gamma,
                                                          text="NOPE2"))
    held.release()
    # The held code alone, then the two that queued behind it as one write.
    assert [type(settled) for settled, _sql in builds] == [Attempts, Moved]
    assert {attempt.text for attempt in builds[1][0].attempts} == {"G1R1D", "NOPE2"}
    assert [writes_in(sql) for _settled, sql in builds] == [[], []]


@pytest.mark.django_db
def test_the_next_deadline_is_stored_by_settle_before_the_build(running, builds,
                                                                settled_rows):
    # A failed tick pending: settling a write forgets it with the deadline it stores.
    GorodGame.objects.filter(pk=running.pk).update(clock_failures=2)
    assert services.game_tick(game=running.pk, now=minutes(25)) == minutes(50)
    assert settled_rows == [{"status": "running", "ended_at": None,
                             "next_deadline": minutes(50), "clock_failures": 0,
                             "game": Game.Status.RUNNING}]
    assert writes_in(builds[0][1]) == []
    running.refresh_from_db()
    assert (running.next_deadline, running.clock_failures) == (minutes(50), 0)


@pytest.mark.django_db
def test_a_game_the_engine_says_is_over_is_finished_by_settle_before_the_build(
        running, builds, settled_rows):
    end = minutes(running.max_duration_h * 60) + timedelta(minutes=1)
    assert services.game_tick(game=running.pk, now=end) is None
    [row] = settled_rows
    assert (row["status"], row["next_deadline"], row["game"]) == (
        GorodGame.Status.FINISHED, None, Game.Status.FINISHED)
    assert row["ended_at"] is not None and row["ended_at"] <= end
    [(settled, sql)] = builds
    assert isinstance(settled, Whole) and not settled.running
    assert writes_in(sql) == []
    running.refresh_from_db()
    assert (running.status, running.ended_at) == (GorodGame.Status.FINISHED, row["ended_at"])
    assert Game.objects.get(pk=running.pk).status == Game.Status.FINISHED
