"""The GoRoD live core: after any sequence of writes (codes, rulings, clock ticks, timeout
requests and answers, undone rulings, the leaderboard switch), every
audience's last push equals what a read returns and a rebuild from scratch, and exactly the
audiences whose view changed got one new version (``tests/live_checks.verify_action``)."""

from __future__ import annotations

import functools
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
from tests.properties import examples

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


def check_steps(running, entries, steps, act, monkeypatch, capture, then=None) -> None:
    """Each step ``(kind, team, choice, seconds)`` as ``act(kind, entry, choice, now)`` through
    ``verify_action``, ``seconds`` after the previous one, in a transaction rolled back at the
    end (every hypothesis example starts from the same game); ``then(now)``, if given, checks
    the game after the last step, before the rollback."""
    try:
        with transaction.atomic():
            now = T0
            for kind, team, choice, seconds in steps:
                now += timedelta(seconds=seconds)
                verify_action(LIVE, running.pk,
                              functools.partial(act, kind, entries[team], choice, now), now=now,
                              monkeypatch=monkeypatch, capture=capture)
            if then is not None:
                then(now)
            raise Rollback
    except Rollback:
        pass


@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=12))
def test_every_write_pushes_exactly_the_changed_views_and_they_equal_a_fresh_read(
        running, organizer, entries, monkeypatch, django_capture_on_commit_callbacks, steps):
    def act(kind, entry, choice, now):
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

    check_steps(running, entries, steps, act, monkeypatch, django_capture_on_commit_callbacks)


QUICK_STEPS = st.lists(st.tuples(
    st.sampled_from(["code", "code", "code", "wrong", "ruling", "tick"]),
    st.integers(0, 2),  # which team
    st.integers(0, 4),  # which level's code / ruling
    st.integers(1, 6 * 60),  # seconds since the previous step: mostly before any deadline
), min_size=1, max_size=14)
QUICK_RULINGS = ({"type": "penalty", "minutes": 5}, {"type": "bonus", "minutes": 3},
                 {"type": "disqualify"}, {"type": "average_time", "level": "1"},
                 {"type": "sliv"})


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=QUICK_STEPS)
def test_codes_and_ticks_minutes_apart_keep_every_view_equal_to_a_rebuild_on_the_cheap_paths(
        running, organizer, entries, monkeypatch, django_capture_on_commit_callbacks, steps):
    """Codes and clock ticks a few minutes apart go the paths that rebuild only some teams'
    timelines and re-rank the stored statistics (``states._attempt_states``,
    ``_moved_states``); whatever they mix with, what they store equals a rebuild of the whole
    game."""
    def act(kind, entry, choice, now):
        if kind == "tick":
            services.game_tick(game=running.pk, now=now)
            return
        if kind == "ruling":
            services.ruling_add(actor=organizer, game=running.pk,
                                application=entry, now=now, **QUICK_RULINGS[choice])
            return
        text = "nope" if kind == "wrong" else CODES[min(choice, 3)]
        services.code_submit(game=running.pk, application=entry, text=text, now=now)

    check_steps(running, entries, steps, act, monkeypatch, django_capture_on_commit_callbacks)


def test_a_closing_code_of_a_team_ahead_moves_it_on_without_recomputing_the_game(
        running, entries, monkeypatch, django_capture_on_commit_callbacks):
    """Alpha closes level 1 first (the game's earliest deadline was everybody's: the whole game
    is built); its code on level 2 then changes only its own timeline and the standings: the
    other teams' views keep their versions (nothing pushed to them), every view still equals a
    rebuild (verify_action), and its cost is the closing code's fixed budget
    (tests/gorod/test_query_budgets.py)."""
    alpha = entries[0]
    services.code_submit(game=running.pk, application=alpha, text="G1R1D",
                         now=T0 + timedelta(minutes=5))
    others = {f"team:{entry.pk}" for entry in entries[1:]}
    before = {key: LIVE.read(running.pk, key).version for key in others}

    def write():
        services.code_submit(game=running.pk, application=alpha, text="G1R2D",
                             now=T0 + timedelta(minutes=9))

    verify_action(LIVE, running.pk, write, now=T0 + timedelta(minutes=9),
                  monkeypatch=monkeypatch, capture=django_capture_on_commit_callbacks)
    assert {key: LIVE.read(running.pk, key).version for key in others} == before
    organizer = LIVE.read(running.pk, "organizer").data()["state"]
    first = organizer["statistics"]["rows"][0]
    assert (first["team"], first["place"], first["levels_closed"]) == (alpha.team.name, 1, 2)


def test_a_clock_tick_moves_on_only_the_teams_whose_deadline_passed_without_recomputing(
        running, entries, monkeypatch, django_capture_on_commit_callbacks):
    """Alpha got level 2 at minute 5, so its first hint is due at 30; at minute 26 the tick
    (the others' hint 1 at 25) changes Beta's and Gamma's views and the organizer's, not
    Alpha's (its version stays: nothing pushed to it); a tick's cost is its fixed budget
    (tests/gorod/test_query_budgets.py)."""
    alpha = entries[0]
    services.code_submit(game=running.pk, application=alpha, text="G1R1D",
                         now=T0 + timedelta(minutes=5))
    before = LIVE.read(running.pk, f"team:{alpha.pk}").version

    def write():
        assert services.game_tick(game=running.pk, now=T0 + timedelta(minutes=26)) == (
            T0 + timedelta(minutes=30))

    verify_action(LIVE, running.pk, write, now=T0 + timedelta(minutes=26),
                  monkeypatch=monkeypatch, capture=django_capture_on_commit_callbacks)
    assert LIVE.read(running.pk, f"team:{alpha.pk}").version == before
    beta = LIVE.read(running.pk, f"team:{entries[1].pk}").data()["state"]["me"]
    assert [h["n"] for h in beta["level"]["hints"]] == [1]
