"""Query budgets of King of the Hill's hot paths: an answer, judging, the close and every state
read cost a fixed number of queries, the same for 5 teams after one question as for 40 teams
after three (nothing is read per team or per played question)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client, TestCase
from django.utils import timezone

from core.models import AuditEntry
from core.roles import HOST, ORGANIZER
from kingofhill import selectors, services
from kingofhill.models import Answer, KothGame, VerdictChange
from kingofhill.services import DomainError
from teams.models import Application, Game
from tests.kingofhill.conftest import join_session, make_teams, make_user
from tests.shared_data import built_once

pytestmark = pytest.mark.django_db

# The budgets: each path's exact count, the same for every size of game. A stored state is
# written key by key (``live.store.Parts``): old parts deleted, versions bumped, new ones inserted.
# An answer: the open question and the team's own answer read for the check (no savepoint
# around the insert: the game's lock serialises a team's answers), and only the stored keys it
# changes read: the new answer joins the host's stored groups, and the question's other
# answers, the host's bank and connected phones are not read.
ANSWER = 9
# A judgement: the verdict changes, their audit entries and the answers in one statement each,
# whatever the group's size (test_a_group_of_any_size_is_judged_in_the_same_queries); only
# the host's view is built (no team sees a verdict before the close), from the keys it stored.
JUDGE = 14
# A close reads the closed question alone and plays its move on the board this process kept
# (``settle.closed_snapshot``): no played question, no team row is read again.
CLOSE = 18
# The user, the stored state (public: only the state); the session too where it is read from
# the database (with Redis: config.settings.SESSION_ENGINE).
SESSION = int(not settings.SESSION_ENGINE.endswith(".cached_db"))
READ = {"public": 1, "host": 5 + SESSION, "team": 2 + SESSION}

SIZES = [pytest.param((5, 1), id="5-teams-1-question"),
         pytest.param((40, 3), id="40-teams-3-questions")]


@pytest.fixture(scope="module", params=SIZES)
def played(request, django_db_setup, django_db_blocker):
    """A running game with ``played`` questions closed and the next one announced, played once
    per size for the module (``tests.shared_data``: each test's writes roll back). The writes'
    after-commit work runs as in production, so this process keeps the board as a server
    would."""
    n_teams, played = request.param
    with built_once(django_db_blocker):
        selectors.forget_closed()
        organizer, host = make_user("organizer", ORGANIZER), make_user("host", HOST)
        scheduled = Game.objects.create(title="Царь Горы, декабрь", format=Game.Format.KINGOFHILL,
                                        starts_at=timezone.now() + timedelta(days=5),
                                        created_by=organizer)
        entries = make_teams(scheduled, [f"Team {i:02d}" for i in range(n_teams)], organizer)
        with TestCase.captureOnCommitCallbacks(execute=True):
            koth = services.koth_create(actor=host, game=scheduled, summit=7, main_questions=30)
            services.game_start(actor=host, game=koth)
            for number in range(1, played + 1):
                services.question_announce(actor=host, game=koth, answer_key="да")
                for i, entry in enumerate(entries):
                    services.answer_submit(game=koth, application=entry,
                                           text="да" if i % 3 else "нет", client_id=uuid.uuid4())
                services.answers_judge(actor=host, game=koth, question=number, normalized="нет",
                                       verdict=False)
                services.question_close(actor=host, game=koth)
            services.question_announce(actor=host, game=koth, answer_key="да")
        yield koth.pk, [entry.pk for entry in entries], played + 1, host.pk
    selectors.forget_closed()


@pytest.fixture
def hall(played, db):
    """The module's game for one test, and its host: fresh instances read by primary key (the
    entries with their teams, as a phone's session reads them)."""
    koth, entries, number, host = played
    by_pk = Application.objects.select_related("team").in_bulk(entries)
    return (KothGame.objects.get(pk=koth), [by_pk[pk] for pk in entries], number,
            User.objects.get(pk=host))


def test_an_answer_judging_and_the_close_cost_the_same_queries_for_any_game(
        hall, django_assert_num_queries, django_capture_on_commit_callbacks):
    koth, entries, number, host = hall
    capture = django_capture_on_commit_callbacks
    # The hall was built by another process: this one keeps no head of the host's history
    # (``live.rows``), so its first answer reads the history's rows once, to keep them.
    with django_assert_num_queries(ANSWER + 1), capture(execute=True):
        services.answer_submit(game=koth.pk, application=entries[0], text="нет",
                               client_id=uuid.uuid4())
    with django_assert_num_queries(ANSWER), capture(execute=True):
        services.answer_submit(game=koth.pk, application=entries[1], text="нет",
                               client_id=uuid.uuid4())
    with capture(execute=True):
        services.answer_submit(game=koth.pk, application=entries[2], text="нет",
                               client_id=uuid.uuid4())
    with django_assert_num_queries(JUDGE), capture(execute=True):
        assert services.answers_judge(actor=host, game=koth.pk, question=number,
                                      normalized="нет", verdict=False) == 3
    with django_assert_num_queries(CLOSE), capture(execute=True):
        services.question_close(actor=host, game=koth.pk)


@pytest.mark.parametrize("group", [1, 4])
def test_a_group_of_any_size_is_judged_in_the_same_queries(
        hall, group, django_assert_num_queries, django_capture_on_commit_callbacks):
    koth, entries, number, host = hall
    with django_capture_on_commit_callbacks(execute=True):
        for entry in entries[:group]:
            services.answer_submit(game=koth.pk, application=entry, text="нет",
                                   client_id=uuid.uuid4())
    audited = AuditEntry.objects.filter(action="kingofhill.verdict").count()
    with django_assert_num_queries(JUDGE), django_capture_on_commit_callbacks(execute=True):
        assert services.answers_judge(actor=host, game=koth.pk, question=number,
                                      normalized="нет", verdict=False) == group
    assert AuditEntry.objects.filter(action="kingofhill.verdict").count() == audited + group
    assert VerdictChange.objects.filter(answer__question__koth=koth,
                                        answer__question__number=number,
                                        new=False).count() == group
    assert set(Answer.objects.filter(question__number=number, question__koth=koth)
               .values_list("verdict", "judged_by")) == {(False, host.pk)}


def test_every_state_read_costs_the_same_queries_for_any_game(
        hall, django_assert_max_num_queries):
    koth, entries, _number, host = hall
    for kind, url in (("public", "state/"), ("host", "host/state/"), ("team", "team/state/")):
        client = Client()
        if kind == "host":
            client.force_login(host)
        elif kind == "team":
            join_session(client, entries[0])
        client.get(f"/koth/api/games/{koth.pk}/{url}")  # the session and the user are warm
        with django_assert_max_num_queries(READ[kind]) as captured:
            response = client.get(f"/koth/api/games/{koth.pk}/{url}")
        assert response.status_code == 200, response.content
        assert response.json()["version"] >= 1
        assert len(captured) == READ[kind], kind


def test_a_running_countdown_adds_no_query_to_an_answer_and_a_late_answer_costs_less(
        hall, django_assert_num_queries, django_assert_max_num_queries,
        django_capture_on_commit_callbacks):
    koth, entries, _number, host = hall
    capture = django_capture_on_commit_callbacks
    with capture(execute=True):
        question = services.countdown_set(actor=host, game=koth.pk, seconds=60)
    with django_assert_num_queries(ANSWER), capture(execute=True):
        services.answer_submit(game=koth.pk, application=entries[0], text="нет",
                               client_id=uuid.uuid4())
    with django_assert_max_num_queries(ANSWER - 1), capture(execute=True):
        with pytest.raises(DomainError, match="Time is up"):
            services.answer_submit(game=koth.pk, application=entries[1], text="нет",
                                   client_id=uuid.uuid4(), now=question.countdown_ends_at)
