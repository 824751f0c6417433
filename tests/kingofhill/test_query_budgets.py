"""Query budgets of King of the Hill's hot paths: an answer, judging, the close and every state
read cost a fixed number of queries, the same for 5 teams after one question as for 40 teams
after three (nothing is read per team or per played question)."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings
from django.test import Client

from core.models import AuditEntry
from kingofhill import selectors, services
from kingofhill.models import Answer, VerdictChange
from kingofhill.services import DomainError
from tests.kingofhill.conftest import join_session, make_teams

pytestmark = pytest.mark.django_db

# The budgets: each path's exact count, the same for every size of game. A stored state is
# written key by key (``live.store.Parts``): old parts deleted, versions bumped, new ones inserted.
# An answer: the open question with its answers and declarations read once for the check and
# the build (no savepoint around the insert: the game's lock serialises a team's answers).
ANSWER = 12
# A judgement: the verdict changes, their audit entries and the answers in one statement each,
# whatever the group's size (test_a_group_of_any_size_is_judged_in_the_same_queries).
JUDGE = 17
# A close reads the closed question alone and plays its move on the board this process kept
# (``settle.closed_snapshot``): no played question, no team row is read again.
CLOSE = 18
# The user, the stored state (public: only the state); the session too where it is read from
# the database (with Redis: config.settings.SESSION_ENGINE).
SESSION = int(not settings.SESSION_ENGINE.endswith(".cached_db"))
READ = {"public": 1, "host": 5 + SESSION, "team": 2 + SESSION}

SIZES = [pytest.param((5, 1), id="5-teams-1-question"),
         pytest.param((40, 3), id="40-teams-3-questions")]


@pytest.fixture(params=SIZES)
def hall(request, scheduled, organizer, host, django_capture_on_commit_callbacks):
    """A running game with ``played`` questions closed and the next one announced; the writes
    commit as in production, so this process keeps the board as a server would."""
    n_teams, played = request.param
    entries = make_teams(scheduled, [f"Team {i:02d}" for i in range(n_teams)], organizer)
    selectors.forget_closed()
    with django_capture_on_commit_callbacks(execute=True):
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
    yield koth, entries, played + 1
    selectors.forget_closed()


def test_an_answer_judging_and_the_close_cost_the_same_queries_for_any_game(
        hall, host, django_assert_num_queries, django_capture_on_commit_callbacks):
    koth, entries, number = hall
    capture = django_capture_on_commit_callbacks
    with django_assert_num_queries(ANSWER), capture(execute=True):
        services.answer_submit(game=koth.pk, application=entries[0], text="нет",
                               client_id=uuid.uuid4())
    with capture(execute=True):
        for entry in entries[1:3]:
            services.answer_submit(game=koth.pk, application=entry, text="нет",
                                   client_id=uuid.uuid4())
    with django_assert_num_queries(JUDGE), capture(execute=True):
        assert services.answers_judge(actor=host, game=koth.pk, question=number,
                                      normalized="нет", verdict=False) == 3
    with django_assert_num_queries(CLOSE), capture(execute=True):
        services.question_close(actor=host, game=koth.pk)


@pytest.mark.parametrize("group", [1, 4])
def test_a_group_of_any_size_is_judged_in_the_same_queries(
        hall, host, group, django_assert_num_queries, django_capture_on_commit_callbacks):
    koth, entries, number = hall
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
        hall, host, django_assert_max_num_queries):
    koth, entries, _number = hall
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
        hall, host, django_assert_num_queries, django_assert_max_num_queries,
        django_capture_on_commit_callbacks):
    koth, entries, _number = hall
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
