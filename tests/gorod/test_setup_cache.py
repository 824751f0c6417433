"""A started game's levels and team names come from the process's cache while its set-up version
stands (``selectors.setup``, ``gorod.signals``): every change of them is seen by the next code."""

from __future__ import annotations

import pytest

from gorod import selectors, services
from gorod.models import GorodGame, Level
from teams.services import team_rename
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import minutes
from tests.gorod.test_query_budgets import COLD_SETUP, WRONG

pytestmark = pytest.mark.django_db


def submit(game, entry, text, m):
    return services.code_submit(game=game, application=entry, text=text, now=minutes(m))


def organizer_log(game):
    return selectors.read_state(game, kind="organizer")["state"]["attempts"]


def test_a_level_changed_during_the_game_is_what_the_next_code_is_checked_against(
        running, alpha):
    assert submit(running, alpha, "WRONG1", 1).attempt.verdict == "wrong"  # the cache is warm
    level = Level.objects.get(gorod=running, label="1")
    level.codes = {"code": "NEWCODE"}
    level.save()  # as the admin saves it
    assert submit(running, alpha, "G1R1D", 2).attempt.verdict == "wrong"
    assert submit(running, alpha, "NEWCODE", 3).attempt.verdict == "accepted"


def test_a_team_renamed_during_the_game_appears_under_its_new_name_at_its_next_code(
        running, alpha):
    submit(running, alpha, "WRONG1", 1)
    team_rename(team=alpha.team, name="Alpha Prime")
    submit(running, alpha, "WRONG2", 2)
    assert organizer_log(running)[0]["team"] == "Alpha Prime"
    me = selectors.read_state(running, kind="team", application_id=alpha.pk)["state"]["me"]
    assert me["team"] == "Alpha Prime"


def test_every_change_of_a_level_or_a_playing_team_moves_the_set_up_version_on(
        running, alpha):
    def version():
        return GorodGame.objects.get(pk=running.pk).setup_version

    start = version()
    level = Level.objects.get(gorod=running, label="2")
    level.task = "Find the tower again"
    level.save()
    assert version() == start + 1
    team_rename(team=alpha.team, name="Alpha Prime")
    assert version() == start + 2
    level.delete()
    assert version() == start + 3


def test_a_warm_cache_spares_exactly_the_set_up_reads(running, alpha, beta,
                                                      django_assert_num_queries):
    submit(running, alpha, "WRONG1", 1)
    selectors.forget_kept()  # a process that has not seen the game yet
    with django_assert_num_queries(WRONG + COLD_SETUP):
        submit(running, beta, "WRONG1", 2)
    with django_assert_num_queries(WRONG):
        submit(running, beta, "WRONG2", 3)


def test_a_closing_code_changes_none_of_the_shared_stored_values_it_read(running, entries,
                                                                          monkeypatch):
    from live import caches
    from live.caches import shared
    from live.codec import decode
    from live.store import stored_parts

    monkeypatch.setattr(caches, "SHARED_MIN", 0)  # a small night's parts shared like a big one's
    alpha, beta, gamma = entries
    submit(running, beta, "G1R1D", 1)
    before = stored_parts(running.pk, {"organizer": ["statistics", "teams", "attempts"]})
    before = before["organizer"]
    values = {key: shared(text) for key, text in before.items()}
    submit(running, gamma, "G1R1D", 2)  # re-ranks the stored table it read: Alpha moves down
    after = stored_parts(running.pk, {"organizer": ["statistics"]})["organizer"]["statistics"]
    places = {row["team"]: row["place"] for row in decode(after)["rows"]}
    assert places["Gamma"] < places["Alpha"]
    for key, text in before.items():
        assert values[key] == decode(text), key
