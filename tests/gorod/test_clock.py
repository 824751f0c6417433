"""The GoRoD clock (``gorod.clock``): a scheduler of stored deadlines — only games due are
ticked, each behind its own error boundary with a growing backoff, and a game is claimed with a
conditional update so a second clock never ticks it again."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import OperationalError, connection
from django.utils import timezone

from gorod import clock, services
from gorod.models import GorodGame
from teams.models import Game
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import LEVELS, make_teams

pytestmark = pytest.mark.django_db


def night(organizer, title, started_min_ago):
    game = Game.objects.create(title=title, format=Game.Format.GOROD,
                               starts_at=timezone.now(), created_by=organizer)
    make_teams(game, [f"{title} A"], organizer)
    gg = services.gorod_create(actor=organizer, game=game, levels=LEVELS)
    services.game_start(actor=organizer, game=gg,
                        now=timezone.now() - timedelta(minutes=started_min_ago))
    return GorodGame.objects.get(pk=gg.pk)


@contextmanager
def once_the_clock_reaches(game_id: int, moment: str, then):
    """Runs ``then()`` once, as the database is asked a clock's claim of the game (its
    conditional update of the game's failures; ``moment`` "claim") or the first query of the
    game's tick, right after the claim ("tick")."""
    state = {"armed": False, "done": False}

    def watch(execute, sql, params, many, context):
        if state["armed"]:
            state["armed"], state["done"] = False, True
            then()
        # The claim sets the failures it counts (a tick sets 0); its last parameter is the id.
        claim = (not state["done"] and sql.startswith("UPDATE") and '"clock_failures" = %s' in sql
                 and list(params or ())[-1:] == [game_id])
        if claim and moment == "claim":
            state["done"] = True
            then()
        result = execute(sql, params, many, context)
        state["armed"] = claim and moment == "tick"
        return result

    with connection.execute_wrapper(watch):
        yield


def test_every_write_stores_the_engines_next_deadline_and_only_due_games_are_ticked(organizer):
    due = night(organizer, "due", 26)  # hint 1 at +25 min has passed
    later = night(organizer, "later", 1)
    assert due.next_deadline == due.started_at + timedelta(minutes=25)
    assert clock.run_due() == [due.pk]
    due.refresh_from_db()
    assert due.next_deadline == due.started_at + timedelta(minutes=50)  # hint 2 next
    assert GorodGame.objects.get(pk=later.pk).clock_failures == 0


def test_a_failing_game_is_retried_with_a_backoff_and_never_stops_the_others(
        organizer, caplog):
    bad, good = night(organizer, "bad", 26), night(organizer, "good", 26)

    def gone():
        raise OperationalError("the database went away")

    now = timezone.now()
    with once_the_clock_reaches(bad.pk, "tick", gone):
        assert clock.run_due(now) == [good.pk]
    bad.refresh_from_db()
    assert bad.clock_failures == 1
    assert bad.next_deadline == now + timedelta(seconds=clock.backoff_s(1))
    assert f"game {bad.pk} failed" in caplog.text
    # Not due again until its backoff has passed; then retried (and it recovers).
    assert clock.run_due(now + timedelta(seconds=1)) == []
    assert clock.run_due(now + timedelta(seconds=clock.backoff_s(1))) == [bad.pk]
    bad.refresh_from_db()
    assert bad.clock_failures == 0 and bad.next_deadline > now


def test_the_backoff_grows_and_is_capped():
    assert [clock.backoff_s(n) for n in (1, 2, 3, 10)] == [2, 4, 8, clock.MAX_BACKOFF_S]


@pytest.mark.parametrize("moment", ["claim", "tick"])
def test_a_second_clock_running_beside_the_first_does_not_tick_a_game_again(organizer, moment):
    gg = night(organizer, "twice", 26)
    inner = []
    # The second clock runs as the first one claims the game (both saw it due: one claim
    # wins), or while the first one ticks it (the claim moved its deadline on).
    with once_the_clock_reaches(gg.pk, moment, lambda: inner.extend(clock.run_due())):
        outer = clock.run_due()
    assert outer + inner == [gg.pk]
