"""The GoRoD live core: after any sequence of writes (codes, rulings, clock ticks, timeout
requests and answers, undone rulings, the leaderboard switch), every
audience's last push equals what a read returns and a rebuild from scratch, and exactly the
audiences whose view changed got one new version (``tests/live_checks.verify_action``)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gorod import services
from gorod.live import LIVE
from gorod.models import Ruling, TimeoutRequest
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import T0
from tests.live_checks import verify_action

pytestmark = pytest.mark.django_db

CODES = ("G1R1D", "G1R2D", "G1R31D", "G1R32D", "wrong", "G1R1D")
RULINGS = (
    {"type": "penalty", "minutes": 5}, {"type": "bonus", "minutes": 3},
    {"type": "sliv"}, {"type": "timeout", "minutes": 2}, {"type": "disqualify"},
    {"type": "average_time", "level": "1"},
)
step = st.tuples(
    st.sampled_from(["code", "code", "code", "ruling", "tick", "end", "ask", "decide", "undo",
                     "board"]),
    st.integers(0, 2),  # which team
    st.integers(0, 5),  # which code / ruling
    st.integers(1, 40 * 60),  # seconds since the previous step
)


class Rollback(Exception):
    pass


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=12))
def test_every_write_pushes_exactly_the_changed_views_and_they_equal_a_fresh_read(
        running, organizer, entries, monkeypatch, django_capture_on_commit_callbacks, steps):
    try:
        with transaction.atomic():
            now = T0
            for kind, team, choice, seconds in steps:
                now += timedelta(seconds=seconds)
                entry = entries[team]

                def write(kind=kind, entry=entry, choice=choice, now=now):
                    if kind == "code":
                        services.code_submit(game=running.pk, application=entry,
                                             text=CODES[choice], now=now)
                    elif kind == "ruling":
                        services.ruling_add(actor=organizer, game=running.pk,
                                            application=entry, now=now, **RULINGS[choice])
                    elif kind == "tick":
                        services.game_tick(game=running.pk, now=now)
                    elif kind == "ask":
                        services.timeout_request(game=running.pk, application=entry,
                                                 minutes=5, reason="rain", now=now)
                    elif kind == "decide":
                        asked = TimeoutRequest.objects.filter(status="pending").last()
                        services.timeout_decide(actor=organizer, game=running.pk,
                                                request=asked.pk if asked else 0,
                                                confirm=choice % 2 == 0, now=now)
                    elif kind == "undo":
                        ruling = Ruling.objects.filter(undone_at=None).last()
                        services.ruling_undo(actor=organizer, game=running.pk,
                                             ruling=ruling.pk if ruling else 0, reason="why",
                                             now=now)
                    elif kind == "board":
                        services.leaderboard_set(actor=organizer, game=running.pk,
                                                 public=choice % 2 == 0, now=now)
                    else:
                        services.game_end(actor=organizer, game=running.pk, now=now)

                verify_action(LIVE, running.pk, write, now=now, monkeypatch=monkeypatch,
                              capture=django_capture_on_commit_callbacks)
            raise Rollback
    except Rollback:
        pass
