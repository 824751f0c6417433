"""The King of the Hill live core: after any sequence of writes (declarations, announcements,
answers, judging, verdict and partner changes, closes), every audience's last push equals what
a read returns and a rebuild from scratch, and exactly the audiences whose view changed got one
new version (``tests/live_checks.verify_action``)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingofhill import grouping, rules, selectors, services
from kingofhill.live import LIVE
from kingofhill.models import Answer, Question
from live.models import LivePart
from live.store import stream_versions
from tests.live_checks import verify_action
from tests.properties import examples

pytestmark = pytest.mark.django_db

TEXTS = ("Пушкин", "пушкин!", "Лермонтов", "Тютчев")
step = st.tuples(
    st.sampled_from(["declare", "withdraw", "announce", "answer", "answer", "answer", "judge",
                     "judge", "close", "close", "flip", "partner", "merge", "split",
                     # The write reaches a worker that keeps no board (another one moved on).
                     "cold answer", "cold judge", "cold announce"]),
    st.integers(0, 2),  # which team
    st.integers(0, 3),  # which text / kind / verdict
)


class Rollback(Exception):
    pass


def act(koth, host, entries, kind, team, choice, now):
    if kind.startswith("cold "):
        selectors.forget_closed()
        kind = kind.removeprefix("cold ")
    entry = entries[team]
    current = Question.objects.filter(koth=koth).order_by("-number").first()
    if kind == "declare":
        services.declaration_submit(game=koth.pk, application=entry,
                                    kind=("jump", "revolution")[choice % 2], now=now)
    elif kind == "withdraw":
        services.declaration_withdraw(game=koth.pk, application=entry, now=now)
    elif kind == "announce":
        services.question_announce(actor=host, game=koth.pk, answer_key="Пушкин", now=now)
    elif kind == "answer":
        services.answer_submit(game=koth.pk, application=entry, text=TEXTS[choice],
                               client_id=uuid.uuid4(), now=now)
    elif kind == "judge":
        groups = sorted({a.normalized for a in Answer.objects.filter(question=current)})
        if groups:
            services.answers_judge(actor=host, game=koth.pk, question=current.number,
                                   normalized=groups[choice % len(groups)],
                                   verdict=choice < 2, now=now)
    elif kind in ("merge", "split"):
        # The host's groups of the open question: answers that come after a merge join the
        # merged group (``builds.grown_open``).
        groups = sorted({rules.group_of(current.merged or {}, a.normalized)
                         for a in Answer.objects.filter(question=current)})
        if kind == "merge" and len(groups) >= 2:
            grouping.groups_merge(actor=host, game=koth.pk, question=current.number,
                                  keys=groups[choice % 2:][:2], now=now)
        elif kind == "split" and groups:
            grouping.groups_split(actor=host, game=koth.pk, question=current.number,
                                  key=groups[choice % len(groups)], now=now)
    elif kind == "close":
        services.question_close(actor=host, game=koth.pk, now=now)
    elif kind == "flip":
        played = Answer.objects.filter(question__koth=koth, question__closed_at__isnull=False)
        target = played.order_by("pk")[choice % max(1, played.count()):].first()
        if target is not None:
            services.verdict_set(actor=host, game=koth.pk, answer=target.pk,
                                 verdict=not target.verdict, now=now)
    else:
        number = max(1, (current.number if current else 1) - choice % 2)
        question = Question.objects.filter(koth=koth, number=number).first()
        services.partner_set(actor=host, game=koth.pk, question=number,
                             partner=not (question and question.partner), now=now)


@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=14))
def test_every_write_pushes_exactly_the_changed_views_and_they_equal_a_fresh_read(
        running, host, entries, monkeypatch, django_capture_on_commit_callbacks, steps):
    try:
        with transaction.atomic():
            # What an earlier example kept was rolled back with it.
            selectors.forget_closed()
            now = timezone.now()
            for kind, team, choice in steps:
                now += timedelta(seconds=7)
                verify_action(LIVE, running.pk,
                              lambda k=kind, t=team, c=choice, n=now: act(
                                  running, host, entries, k, t, c, n),
                              now=now, monkeypatch=monkeypatch,
                              capture=django_capture_on_commit_callbacks)
            raise Rollback
    except Rollback:
        pass
    selectors.forget_closed()


def test_a_write_on_a_worker_that_keeps_no_board_stores_no_new_generation(
        running, host, entries, django_capture_on_commit_callbacks):
    now = timezone.now()
    services.question_announce(actor=host, game=running.pk, answer_key="Пушкин", now=now)
    for i, entry in enumerate(entries):
        services.answer_submit(game=running.pk, application=entry, text=TEXTS[i % 2],
                               client_id=uuid.uuid4(), now=now + timedelta(seconds=i + 1))
    for normalized in sorted(set(Answer.objects.filter(question__koth=running)
                                 .values_list("normalized", flat=True))):
        services.answers_judge(actor=host, game=running.pk, question=1, normalized=normalized,
                               verdict=True, now=now + timedelta(seconds=20))
    with django_capture_on_commit_callbacks(execute=True):
        services.question_close(actor=host, game=running.pk, now=now + timedelta(seconds=30))
    running.refresh_from_db()
    closed = running.board_generation
    # The host's history of closed questions is stored row by row (``live.rows.Rows``): one
    # part per question under the ``host`` head.
    history = LivePart.objects.filter(stream__game_id=running.pk, stream__audience="host",
                                      key__startswith="host/")
    assert history.count() == 1
    # Writes alternating between two workers, each keeping no board when its turn comes: each
    # recomputes the stored board and keeps it, and none stores a new generation (which made
    # the other worker recompute on its next write, and so on for every write of the round).
    writes = [
        lambda at: services.question_announce(actor=host, game=running.pk,
                                              answer_key="Тютчев", now=at),
        lambda at: services.answer_submit(game=running.pk, application=entries[0],
                                          text="Тютчев", client_id=uuid.uuid4(), now=at),
        lambda at: services.answer_submit(game=running.pk, application=entries[1],
                                          text="Фет", client_id=uuid.uuid4(), now=at),
    ]
    for i, write in enumerate(writes):
        selectors.forget_closed()
        with django_capture_on_commit_callbacks(execute=True):
            write(now + timedelta(seconds=40 + i))
        running.refresh_from_db()
        assert running.board_generation == closed
        assert selectors.kept_closed(running) is not None
    # What the cold writes stored is what a rebuild from scratch stores: a refresh changes
    # no screen.
    before = stream_versions(running.pk)
    with django_capture_on_commit_callbacks(execute=True):
        LIVE.refresh(game=running.pk)
    assert stream_versions(running.pk) == before


def test_a_batch_of_answers_is_one_typed_change_and_nothing_else_merges():
    from datetime import UTC, datetime

    from kingofhill import changes
    from kingofhill.live import merged
    from kingofhill.models import Question
    from live.write import Write

    first, last = Question(number=3), Question(number=3)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    answers = [Write(game=None, now=now, change=changes.AnswerAdded(team=7, current=first)),
               Write(game=None, now=now, change=changes.AnswerAdded(team=9, current=last))]
    assert merged(answers).change == changes.AnswersAdded(teams=frozenset({7, 9}), current=last)
    with pytest.raises(ValueError, match="only answers"):
        merged([*answers, Write(game=None, now=now, change=changes.BoardChanged())])
