"""The host's countdown (``kingofhill.timer``): pause, resume, seconds added or removed, every
refusal, what each screen's state says, and whether an answer after the countdown's end is
taken (the game's choice), through the services and the API. Moments are given to the
services (``now=``) so that nothing here waits for the clock."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from core.models import AuditEntry
from kingofhill import selectors, services, timer
from kingofhill.models import Answer, KothGame, Question
from kingofhill.services import DomainError, NotAllowed
from live.store import stream_versions
from tests.kingofhill.conftest import join_session
from tests.kingofhill.play import announce

pytestmark = pytest.mark.django_db

SECOND = timedelta(seconds=1)


def countdown_of(koth, **kw) -> dict | None:
    kind = kw.pop("kind", "public")
    return selectors.read_state(koth, kind=kind, **kw)["state"]["question"]["countdown"]


@pytest.fixture
def answering(running, host) -> Question:
    """Question 1 announced: its answers are open, without a countdown yet."""
    return announce(running, host)


@pytest.fixture
def started(running, host, answering):
    """A countdown of 30 s started at ``t0``."""
    t0 = answering.announced_at + SECOND
    services.countdown_set(actor=host, game=running, seconds=30, now=t0)
    return t0


def question_1(koth) -> Question:
    return Question.objects.get(koth=koth, number=1)


# --- pause and resume ---------------------------------------------------------------------------


def test_a_paused_countdown_keeps_the_seconds_the_screens_showed_and_every_screen_says_paused(
        running, host, alpha, started):
    before = stream_versions(running.pk)
    # 7.4 s after the start the screens show 0:23 (rounded up): the pause keeps 23.
    services.countdown_pause(actor=host, game=running, now=started + timedelta(seconds=7.4))
    question = question_1(running)
    assert (question.countdown_paused_left, question.countdown_ends_at) == (23, None)
    paused = {"seconds": 30, "paused_left": 23}
    assert countdown_of(running) == paused
    assert countdown_of(running, kind="host") == paused
    assert countdown_of(running, kind="team", application_id=alpha.pk) == paused
    after = stream_versions(running.pk)
    assert all(after[k] == before[k] + 1 for k in before)  # the projector, console and phones


def test_a_resumed_countdown_ends_its_seconds_left_after_the_resume(running, host, started):
    services.countdown_pause(actor=host, game=running, now=started + 10 * SECOND)
    resumed_at = started + 300 * SECOND  # however long the pause lasted
    question = services.countdown_resume(actor=host, game=running, now=resumed_at)
    assert question.countdown_ends_at == resumed_at + 20 * SECOND
    assert question.countdown_paused_left is None
    assert countdown_of(running) == {"seconds": 30,
                                     "ends_at": question.countdown_ends_at.isoformat()}


def test_pausing_a_paused_countdown_or_resuming_a_running_one_changes_nothing(
        running, host, started):
    services.countdown_pause(actor=host, game=running, now=started + SECOND)
    versions = stream_versions(running.pk)
    services.countdown_pause(actor=host, game=running, now=started + 2 * SECOND)
    assert stream_versions(running.pk) == versions
    assert question_1(running).countdown_paused_left == 29
    services.countdown_resume(actor=host, game=running, now=started + 3 * SECOND)
    versions = stream_versions(running.pk)
    services.countdown_resume(actor=host, game=running, now=started + 4 * SECOND)
    assert stream_versions(running.pk) == versions
    assert question_1(running).countdown_ends_at == started + 32 * SECOND


def test_a_countdown_that_has_run_out_cannot_be_paused(running, host, started):
    with pytest.raises(DomainError, match="has run out: add seconds or start it again"):
        services.countdown_pause(actor=host, game=running, now=started + 30 * SECOND)


def test_restarting_or_stopping_a_paused_countdown_forgets_the_pause(running, host, started):
    services.countdown_pause(actor=host, game=running, now=started + SECOND)
    restarted = services.countdown_set(actor=host, game=running, seconds=45,
                                       now=started + 2 * SECOND)
    assert restarted.countdown_paused_left is None
    assert restarted.countdown_ends_at == started + 47 * SECOND
    services.countdown_pause(actor=host, game=running, now=started + 3 * SECOND)
    services.countdown_set(actor=host, game=running, seconds=0)
    question = question_1(running)
    assert (question.countdown_ends_at, question.countdown_paused_left) == (None, None)
    assert countdown_of(running) is None


# --- seconds added or removed -------------------------------------------------------------------


def test_seconds_added_or_removed_move_a_running_countdowns_end(running, host, started):
    later = services.countdown_adjust(actor=host, game=running, seconds=10, now=started)
    assert later.countdown_ends_at == started + 40 * SECOND
    sooner = services.countdown_adjust(actor=host, game=running, seconds=-15, now=started)
    assert sooner.countdown_ends_at == started + 25 * SECOND
    assert countdown_of(running)["ends_at"] == sooner.countdown_ends_at.isoformat()


def test_what_is_left_stays_between_zero_and_the_longest_countdown(running, host, started):
    now = started + 5 * SECOND
    services.countdown_adjust(actor=host, game=running, seconds=-60, now=now)
    assert question_1(running).countdown_ends_at == now  # time is up at once
    services.countdown_set(actor=host, game=running, seconds=timer.COUNTDOWN_MAX - 5, now=now)
    services.countdown_adjust(actor=host, game=running, seconds=10, now=now)
    assert question_1(running).countdown_ends_at == now + timer.COUNTDOWN_MAX * SECOND


def test_adjusting_a_paused_countdown_changes_its_seconds_left_within_the_limits(
        running, host, started):
    services.countdown_pause(actor=host, game=running, now=started + 10 * SECOND)
    services.countdown_adjust(actor=host, game=running, seconds=10)
    assert countdown_of(running) == {"seconds": 30, "paused_left": 30}
    services.countdown_adjust(actor=host, game=running, seconds=timer.COUNTDOWN_MAX)
    assert question_1(running).countdown_paused_left == timer.COUNTDOWN_MAX
    services.countdown_adjust(actor=host, game=running, seconds=-timer.COUNTDOWN_MAX)
    question = question_1(running)
    assert (question.countdown_paused_left, question.countdown_ends_at) == (0, None)


def test_seconds_added_after_the_end_count_from_now_and_removed_ones_change_nothing(
        running, host, started):
    late = started + 100 * SECOND
    versions = stream_versions(running.pk)
    services.countdown_adjust(actor=host, game=running, seconds=-10, now=late)
    assert stream_versions(running.pk) == versions
    assert question_1(running).countdown_ends_at == started + 30 * SECOND
    question = services.countdown_adjust(actor=host, game=running, seconds=10, now=late)
    assert question.countdown_ends_at == late + 10 * SECOND


# --- refusals -----------------------------------------------------------------------------------


ACTIONS = {
    "pause": lambda koth, actor: services.countdown_pause(actor=actor, game=koth),
    "resume": lambda koth, actor: services.countdown_resume(actor=actor, game=koth),
    "adjust": lambda koth, actor: services.countdown_adjust(actor=actor, game=koth, seconds=10),
}


@pytest.mark.parametrize("action", ACTIONS)
def test_the_timer_is_refused_before_the_game_and_before_the_announcement(
        koth, host, action):
    with pytest.raises(DomainError, match="has not started"):
        ACTIONS[action](koth, host)
    services.game_start(actor=host, game=koth)
    with pytest.raises(DomainError, match="Question 1 has not been announced: it has no "
                                          "countdown yet"):
        ACTIONS[action](koth, host)


@pytest.mark.parametrize("action", ACTIONS)
def test_the_timer_is_refused_without_a_countdown_and_to_anyone_but_a_host(
        running, host, outsider, answering, action):
    with pytest.raises(DomainError, match="Question 1 has no countdown: start one first"):
        ACTIONS[action](running, host)
    services.countdown_set(actor=host, game=running, seconds=30)
    with pytest.raises(NotAllowed):
        ACTIONS[action](running, outsider)


def test_the_countdown_of_a_closed_question_is_gone_with_it(running, host, started):
    services.question_close(actor=host, game=running)
    with pytest.raises(DomainError, match="Question 2 has not been announced"):
        services.countdown_pause(actor=host, game=running)


@pytest.mark.parametrize("bad", [0, timer.COUNTDOWN_MAX + 1, -timer.COUNTDOWN_MAX - 1, 2.5,
                                 True, "10"])
def test_seconds_to_add_are_a_whole_nonzero_number_within_the_limit(
        running, host, started, bad):
    with pytest.raises(DomainError, match="whole number from -600 to 600, not 0"):
        services.countdown_adjust(actor=host, game=running, seconds=bad)


# --- answers after zero -------------------------------------------------------------------------


def test_by_default_an_answer_at_or_after_the_end_is_refused_and_one_before_it_is_taken(
        running, host, alpha, beta, gamma, started):
    end = started + 30 * SECOND
    assert running.answers_after_zero is False
    services.answer_submit(game=running, application=alpha, text="рано",
                           client_id=uuid.uuid4(), now=end - timedelta(microseconds=1))
    # At the end exactly the screens show 0:00: time is up.
    for entry, at in ((beta, end), (gamma, end + 5 * SECOND)):
        with pytest.raises(DomainError, match="Time is up for question 1"):
            services.answer_submit(game=running, application=entry, text="поздно",
                                   client_id=uuid.uuid4(), now=at)
    assert list(Answer.objects.values_list("text", flat=True)) == ["рано"]


def test_a_resent_answer_after_the_end_gets_the_stored_one_back(running, host, alpha, started):
    client_id = uuid.uuid4()
    first = services.answer_submit(game=running, application=alpha, text="успели",
                                   client_id=client_id, now=started + SECOND)
    again = services.answer_submit(game=running, application=alpha, text="успели",
                                   client_id=client_id, now=started + 60 * SECOND)
    assert again.pk == first.pk


def test_a_game_that_takes_answers_after_zero_takes_them(running, host, alpha, started):
    services.answers_after_zero_set(actor=host, game=running, taken=True)
    services.answer_submit(game=running, application=alpha, text="поздно",
                           client_id=uuid.uuid4(), now=started + 90 * SECOND)
    assert Answer.objects.get().text == "поздно"


def test_a_paused_countdown_never_runs_out(running, host, alpha, started):
    services.countdown_pause(actor=host, game=running, now=started + 29 * SECOND)
    services.answer_submit(game=running, application=alpha, text="на паузе",
                           client_id=uuid.uuid4(), now=started + 3600 * SECOND)
    assert Answer.objects.get().text == "на паузе"


def test_without_a_countdown_answers_are_taken_until_the_close(running, host, alpha, started):
    services.countdown_set(actor=host, game=running, seconds=0, now=started + SECOND)
    services.answer_submit(game=running, application=alpha, text="без отсчёта",
                           client_id=uuid.uuid4(), now=started + 3600 * SECOND)
    assert Answer.objects.get().text == "без отсчёта"


def test_the_hosts_choice_is_in_every_screens_state_and_in_the_audit_log(
        running, host, alpha):
    services.answers_after_zero_set(actor=host, game=running, taken=True)
    running.refresh_from_db()
    assert running.answers_after_zero is True
    for kind, kw in (("public", {}), ("host", {}), ("team", {"application_id": alpha.pk})):
        state = selectors.read_state(running, kind=kind, **kw)["state"]
        assert state["game"]["answers_after_zero"] is True, kind
    entry = AuditEntry.objects.get(action="kingofhill.answers_after_zero")
    assert (entry.before, entry.after) == ({"answers_after_zero": False},
                                           {"answers_after_zero": True})
    versions = stream_versions(running.pk)
    services.answers_after_zero_set(actor=host, game=running, taken=True)
    assert stream_versions(running.pk) == versions


def test_the_choice_is_the_hosts_a_yes_or_no_and_closed_with_the_game(
        running, host, outsider):
    with pytest.raises(NotAllowed):
        services.answers_after_zero_set(actor=outsider, game=running, taken=True)
    with pytest.raises(DomainError, match="true or false"):
        services.answers_after_zero_set(actor=host, game=running, taken="yes")
    KothGame.objects.filter(pk=running.pk).update(status=KothGame.Status.FINISHED)
    with pytest.raises(DomainError, match="has finished"):
        services.answers_after_zero_set(actor=host, game=running, taken=True)


def test_the_admin_shows_the_choice_but_leaves_it_to_the_console(client, running):
    # An edit there would skip the live write: every screen would keep the old choice.
    client.force_login(User.objects.create_superuser("boss", "boss@example.org", "pw-boss"))
    page = client.get(reverse("admin:kingofhill_kothgame_change", args=[running.pk]))
    assert page.status_code == 200
    assert b'name="answers_after_zero"' not in page.content
    assert "Answers taken after the countdown" in page.content.decode()


def test_a_new_board_may_take_answers_after_zero_from_the_start(scheduled, organizer, entries):
    koth = services.koth_create(actor=organizer, game=scheduled, answers_after_zero=True)
    assert koth.answers_after_zero is True
    state = selectors.read_state(koth, kind="public")["state"]
    assert state["game"]["answers_after_zero"] is True


def test_the_create_form_sets_answers_after_zero(client, scheduled, organizer, entries):
    client.force_login(organizer)
    client.post(reverse("kingofhill:create"), {"game": scheduled.pk, "summit": 5,
                                               "answers_after_zero": "on"})
    assert KothGame.objects.get(pk=scheduled.pk).answers_after_zero is True


# --- the API ------------------------------------------------------------------------------------


def url(name, koth):
    return reverse(f"kingofhill:{name}", args=[koth.pk])


def post(client, name, koth, body=None, **kw):
    return client.post(url(name, koth), body or {}, content_type="application/json", **kw)


def test_the_host_pauses_extends_and_resumes_through_the_api(client, host, running, answering):
    client.force_login(host)
    assert post(client, "api_countdown", running, {"seconds": 30}).status_code == 200
    paused = post(client, "api_countdown_pause", running).json()["state"]
    left = paused["question"]["countdown"]["paused_left"]
    assert 29 <= left <= 30
    more = post(client, "api_countdown_adjust", running, {"seconds": 10}).json()["state"]
    assert more["question"]["countdown"]["paused_left"] == left + 10
    resumed = post(client, "api_countdown_resume", running).json()["state"]
    assert set(resumed["question"]["countdown"]) == {"seconds", "ends_at"}
    assert question_1(running).countdown_paused_left is None


def test_the_timers_api_refuses_with_a_detail(client, host, running, answering, alpha):
    phone = Client()
    join_session(phone, alpha)
    for name in ("api_countdown_pause", "api_countdown_resume", "api_countdown_adjust",
                 "api_answers_after_zero"):
        assert post(phone, name, running, {"seconds": 10, "taken": True}).status_code == 403
    client.force_login(host)
    none = post(client, "api_countdown_pause", running)
    assert none.status_code == 400
    assert none.json()["detail"] == "Question 1 has no countdown: start one first."
    post(client, "api_countdown", running, {"seconds": 30})
    for body in ({}, {"seconds": "soon"}, {"seconds": 0}, {"seconds": 601}):
        refused = post(client, "api_countdown_adjust", running, body)
        assert refused.status_code == 400 and refused.json()["detail"], body
    refused = post(client, "api_answers_after_zero", running, {"taken": "maybe"})
    assert refused.status_code == 400 and refused.json()["detail"]


def test_the_hosts_choice_goes_through_the_api(client, host, running):
    client.force_login(host)
    state = post(client, "api_answers_after_zero", running, {"taken": True}).json()["state"]
    assert state["game"]["answers_after_zero"] is True
    state = post(client, "api_answers_after_zero", running, {"taken": False}).json()["state"]
    assert state["game"]["answers_after_zero"] is False


def test_a_phone_answering_after_the_end_is_told_in_russian(running, host, alpha, answering):
    services.countdown_set(actor=host, game=running, seconds=1,
                           now=answering.announced_at - 10 * SECOND)
    phone = Client()
    join_session(phone, alpha)
    refused = post(phone, "api_answer", running, {"text": "Пушкин", "client_id": str(uuid.uuid4())},
                   HTTP_ACCEPT_LANGUAGE="ru")
    assert refused.status_code == 400
    assert refused.json()["detail"] == "Время на вопрос 1 вышло."
    assert not Answer.objects.exists()
