"""King of the Hill answers applied in batches (``live.batch`` through
``LiveGame.write(batch=True)``): answers that arrive while the game's previous write runs are
applied together and leave exactly what applying them one by one would."""

from __future__ import annotations

import json
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.errors import DomainError
from kingofhill import guards, realtime, selectors, services
from kingofhill.live import LIVE
from kingofhill.models import Answer, Question
from tests.live_checks import HeldBatch, rebuilt, screens_moved_once_per_batch
from tests.live_checks import stored as versions

pytestmark = pytest.mark.django_db(transaction=True)


def answer(game_id: int, application, text: str, client_id=None, queries=None):
    """One answer, as a write to send; ``queries`` collects the SQL its thread ran (a batch
    runs in the thread of its first write)."""
    def call():
        # The connection is the thread's own: these are this thread's queries.
        with CaptureQueriesContext(connection) as ran:
            try:
                return services.answer_submit(game=game_id, application=application, text=text,
                                              client_id=client_id or uuid.uuid4())
            finally:
                if queries is not None:
                    queries.extend(q["sql"] for q in ran.captured_queries)
    return call


def test_answers_that_queue_behind_an_answer_are_applied_together_as_one_by_one(
        running, host, entries, monkeypatch, pushed):
    alpha, beta, gamma = entries
    services.question_announce(actor=host, game=running.pk, answer_key="Пушкин")
    before = versions(running.pk)
    pushed.clear()  # the announcement's
    held = HeldBatch(monkeypatch, LIVE, running.pk, selectors, "team_answer")
    retried = uuid.uuid4()

    held.send("alpha", answer(running.pk, alpha, "Пушкин", retried))
    held.send("beta", answer(running.pk, beta, "Лермонтов"))
    held.send("alpha again", answer(running.pk, alpha, "Гоголь"))
    held.send("alpha retried", answer(running.pk, alpha, "Пушкин", retried))
    held.send("gamma", answer(running.pk, gamma, "  пушкин "))
    held.release()

    out = held.outcomes
    assert isinstance(out["alpha again"], DomainError)
    assert "already answered" in str(out["alpha again"]) or "уже ответила" in str(
        out["alpha again"])
    assert out["alpha retried"].pk == out["alpha"].pk  # the stored answer, counted once
    assert (out["alpha"].verdict, out["beta"].verdict, out["gamma"].verdict) == (
        True, None, True)
    assert Answer.objects.filter(question__koth=running).count() == 3
    after = screens_moved_once_per_batch(LIVE, running.pk, before, pushed)
    # The held answer alone, then beta's and gamma's together (alpha's retry and refusal
    # changed nothing).
    assert after[realtime.HOST][0] == before[realtime.HOST][0] + 2
    assert after[f"team:{gamma.pk}"][0] == before[f"team:{gamma.pk}"][0] + 1
    host_state = json.loads(after[realtime.HOST][1])
    assert "Лермонтов" in json.dumps(host_state, ensure_ascii=False)
    fresh = rebuilt(LIVE, running.pk, None)
    assert fresh == {a: t for a, (_v, t) in after.items() if a in fresh}


def test_a_batch_of_answers_reads_the_open_question_once_and_never_its_every_answer(
        running, host, entries, monkeypatch, pushed):
    alpha, beta, gamma = entries
    services.question_announce(actor=host, game=running.pk, answer_key="Пушкин")
    question = Question.objects.get(koth=running, closed_at__isnull=True)
    with CaptureQueriesContext(connection) as probe:
        selectors.read_open(question)
    every = {q["sql"] for q in probe.captured_queries}  # the answers', the declarations'
    with CaptureQueriesContext(connection) as probe:
        guards.current(running)
    (current,) = {q["sql"] for q in probe.captured_queries}
    queries: list[str] = []
    held = HeldBatch(monkeypatch, LIVE, running.pk, selectors, "team_answer")

    held.send("alpha", answer(running.pk, alpha, "Пушкин", queries=queries))
    held.send("beta", answer(running.pk, beta, "Лермонтов", queries=queries))
    # Refused: beta's answer, stored with the batch, stands.
    held.send("alpha again", answer(running.pk, alpha, "Гоголь", queries=queries))
    held.send("gamma", answer(running.pk, gamma, "пушкин", queries=queries))
    held.release()

    assert isinstance(held.outcomes["alpha again"], DomainError)
    assert held.outcomes["gamma"].verdict is True
    # The held answer's read of the open question, then the batch's first: the others reuse
    # it. Each answer reads its own team's answer alone, and the build adds the new ones to
    # the host's stored groups: the question's every answer is never read.
    assert len(every) == 2 and not every & set(queries)
    assert queries.count(current) == 2
    # Every answer stands and the stored states equal a rebuild from the rows.
    assert Answer.objects.filter(question__koth=running).count() == 3
    fresh = rebuilt(LIVE, running.pk, None)
    after = versions(running.pk)
    assert fresh == {a: t for a, (_v, t) in after.items() if a in fresh}
