"""The GoRoD clock (``gorod.clock``): a scheduler of stored deadlines — only games due are
ticked, each behind its own error boundary with a growing backoff, and a game is claimed with a
conditional update so a second clock never ticks it again."""

from __future__ import annotations

from datetime import timedelta

import pytest
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


def test_every_write_stores_the_engines_next_deadline_and_only_due_games_are_ticked(organizer):
    due = night(organizer, "due", 26)  # hint 1 at +25 min has passed
    later = night(organizer, "later", 1)
    assert due.next_deadline == due.started_at + timedelta(minutes=25)
    assert clock.run_due() == [due.pk]
    due.refresh_from_db()
    assert due.next_deadline == due.started_at + timedelta(minutes=50)  # hint 2 next
    assert GorodGame.objects.get(pk=later.pk).clock_failures == 0


def test_a_failing_game_is_retried_with_a_backoff_and_never_stops_the_others(
        organizer, monkeypatch, caplog):
    bad, good = night(organizer, "bad", 26), night(organizer, "good", 26)
    real_tick = services.game_tick

    def tick(*, game, **kwargs):
        if game == bad.pk:
            raise ConnectionError("the database went away")
        return real_tick(game=game, **kwargs)

    monkeypatch.setattr(services, "game_tick", tick)
    now = timezone.now()
    assert clock.run_due(now) == [good.pk]
    bad.refresh_from_db()
    assert bad.clock_failures == 1
    assert bad.next_deadline == now + timedelta(seconds=clock.backoff_s(1))
    assert f"game {bad.pk} failed" in caplog.text
    # Not due again until its backoff has passed; then retried (and it recovers).
    assert clock.run_due(now + timedelta(seconds=1)) == []
    monkeypatch.setattr(services, "game_tick", real_tick)
    assert clock.run_due(now + timedelta(seconds=clock.backoff_s(1))) == [bad.pk]
    bad.refresh_from_db()
    assert bad.clock_failures == 0 and bad.next_deadline > now


def test_the_backoff_grows_and_is_capped():
    assert [clock.backoff_s(n) for n in (1, 2, 3, 10)] == [2, 4, 8, clock.MAX_BACKOFF_S]


def test_a_second_clock_running_beside_the_first_does_not_tick_a_game_again(
        organizer, monkeypatch):
    gg = night(organizer, "twice", 26)
    ticks, inner = [], []
    real_tick = services.game_tick

    def tick(*, game, **kwargs):
        ticks.append(game)
        # The second clock looks while the first one is ticking this game.
        inner.extend(clock.run_due())
        return real_tick(game=game, **kwargs)

    monkeypatch.setattr(services, "game_tick", tick)
    assert clock.run_due() == [gg.pk]
    assert ticks == [gg.pk] and inner == []
