"""Query budgets of GoRoD's hot paths: a code (wrong, right, closing, refused by the attempt
limit), a ruling, a clock tick and every state read cost a fixed number of queries, the same
for 5 teams with a few attempts as for 40 teams with many (nothing is read per team)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client

from gorod import clock, services
from gorod.live import LIVE
from gorod.models import CodeAttempt
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import LEVELS, T0, join_session, make_teams, minutes

pytestmark = pytest.mark.django_db

NOW = minutes(10)  # every team on a level, before any hint is due (25 min)
# The budgets: each path's exact count, the same for every size of night.
# A write stores only the keys of a state it changed (``live.store.Parts``): the stream and parts
# read in one query, the old parts deleted, the versions bumped, the new parts inserted.
# A started game's levels and team names come from the process's cache (``selectors.setup``):
# a cold process reads them once more (``COLD_SETUP``, tests/gorod/test_setup_cache.py).
WRONG = RIGHT = 11  # the team's rows in three reads, its timeout requests and photos in one, its
# view and the organizer's log (read once for the build and the comparison), one upsert of the
# changed parts
CLOSING = 11  # its team's timeline again, and the stored standings re-ranked: no whole record
LIMITED = 11  # unchecked, but the refused try is stored for the organizer's log and pushed
RULING = {"penalty": 27, "average_time": 27}  # with the audit entry and the messages (one read
# for the organizer's list and the teams' own)
TICK = 17  # the due teams moved on from their own rows, in one batch, and re-ranked
COLD_SETUP = 3  # the levels, the team names, the bonus hints
# The user, the stored state (public: only the state); the session too where it is read from
# the database (with Redis: config.settings.SESSION_ENGINE).
SESSION = int(not settings.SESSION_ENGINE.endswith(".cached_db"))
READ = {"public": 1, "organizer": 4 + SESSION, "team": 2 + SESSION}

SIZES = [pytest.param((5, 2), id="5-teams-few-attempts"),
         pytest.param((40, 30), id="40-teams-many-attempts")]


@pytest.fixture(params=SIZES)
def night(request, scheduled, organizer):
    """A running night, stored in bulk and published once: team 0 on level 3 (two sectors),
    every other odd team past level 1, each team with ``attempts`` stored wrong codes, team 3 at
    its wrong-code limit."""
    n_teams, attempts = request.param
    entries = make_teams(scheduled, [f"Team {i:02d}" for i in range(n_teams)], organizer)
    gg = services.gorod_create(actor=organizer, game=scheduled, levels=LEVELS)
    services.game_start(actor=organizer, game=gg, now=T0)
    level = {lv.label: lv for lv in gg.levels.all()}

    def attempt(entry, label, text, at, closes=False):
        return CodeAttempt(gorod=gg, application=entry, level=level[label], text=text,
                           normalized=text.upper(), at=at, closes_level=closes,
                           verdict=(CodeAttempt.Verdict.ACCEPTED if closes
                                    else CodeAttempt.Verdict.WRONG))

    rows = [attempt(entry, "1", f"old {k}", T0 + timedelta(seconds=k + 1))
            for entry in entries for k in range(attempts)]
    rows += [attempt(entries[0], "1", "G1R1D", minutes(2), True),
             attempt(entries[0], "2", "G1R2D", minutes(3), True)]
    rows += [attempt(entries[i], "1", "G1R1D", minutes(4), True) for i in range(5, n_teams, 2)]
    rows += [attempt(entries[3], "1", f"nope {k}", NOW - timedelta(seconds=30 - k))
             for k in range(gg.max_wrong)]
    CodeAttempt.objects.bulk_create(rows)
    # Rows stored in bulk bypass the live core: rebuild every state from them once.
    LIVE.refresh(game=gg.pk, now=NOW - timedelta(seconds=10))
    return gg, entries


def test_a_wrong_code_costs_the_same_queries_for_any_night(night, django_assert_num_queries):
    gg, entries = night
    with django_assert_num_queries(WRONG):
        services.code_submit(game=gg.pk, application=entries[2], text="nope", now=NOW)


def test_a_right_code_that_leaves_the_level_open_costs_the_same_queries(
        night, django_assert_num_queries):
    gg, entries = night
    with django_assert_num_queries(RIGHT):
        assert services.code_submit(game=gg.pk, application=entries[0], text="G1R31D",
                                    now=NOW).remaining == 1


def test_a_closing_code_costs_the_same_queries_for_any_night(night, django_assert_num_queries):
    gg, entries = night
    with django_assert_num_queries(CLOSING):
        services.code_submit(game=gg.pk, application=entries[1], text="G1R1D", now=NOW)


def test_a_code_refused_by_the_attempt_limit_costs_the_same_queries(
        night, django_assert_num_queries):
    gg, entries = night
    with django_assert_num_queries(LIMITED):
        refused = services.code_submit(game=gg.pk, application=entries[3], text="again", now=NOW)
    assert refused.wait_s > 0 and refused.attempt.verdict == CodeAttempt.Verdict.LIMITED


def test_a_closing_code_onto_a_level_with_a_bonus_hint_costs_no_more_queries(
        night, organizer, django_assert_num_queries):
    gg, entries = night
    services.message_send(actor=organizer, game=gg.pk, text="Behind the tower", now=NOW,
                          kind="bonus_hint", audience="level", level="2", later=True)
    with django_assert_num_queries(CLOSING):
        services.code_submit(game=gg.pk, application=entries[1], text="G1R1D", now=NOW)
    me = LIVE.read(gg.pk, f"team:{entries[1].pk}").data()["state"]["me"]
    assert [hint["text"] for hint in me["level"]["bonus_hints"]] == ["Behind the tower"]


@pytest.mark.parametrize("ruling", [{"type": "penalty", "minutes": 5},
                                    {"type": "average_time", "level": "1"}])
def test_a_ruling_costs_the_same_queries_for_any_night(night, organizer, ruling,
                                                       django_assert_num_queries):
    gg, entries = night
    with django_assert_num_queries(RULING[ruling["type"]]):
        services.ruling_add(actor=organizer, game=gg.pk, application=entries[0], now=NOW,
                            **ruling)


def test_a_clock_tick_at_a_deadline_costs_the_same_queries_for_any_night(
        night, django_assert_num_queries):
    gg, _entries = night
    gg.refresh_from_db()
    assert gg.next_deadline == minutes(25)  # hint 1 of every team still on level 1
    with django_assert_num_queries(TICK):
        services.game_tick(game=gg.pk, now=minutes(25))


def test_a_clock_tick_with_nothing_due_is_one_query(night, django_assert_num_queries):
    with django_assert_num_queries(1):
        assert clock.run_due(NOW) == []


@pytest.mark.parametrize("kind", ["public", "organizer", "team"])
def test_every_state_read_costs_the_same_queries_for_any_night(
        night, organizer, kind, django_assert_max_num_queries):
    gg, entries = night
    client = Client()
    url = {"public": "state/", "organizer": "organizer/state/", "team": "team/state/"}[kind]
    if kind == "organizer":
        client.force_login(organizer)
    elif kind == "team":
        join_session(client, entries[0])
    client.get(f"/gorod/api/games/{gg.pk}/{url}")  # the session and the user are warm
    with django_assert_max_num_queries(READ[kind]) as captured:
        response = client.get(f"/gorod/api/games/{gg.pk}/{url}")
    assert response.status_code == 200, response.content
    assert response.json()["version"] >= 1
    assert len(captured) == READ[kind]


