"""The time-driven jobs (``core.scheduler``): each behind its own error boundary, and a loop
that outlives any failure — a database or Redis hiccup must not stop the night's clock."""

from __future__ import annotations

import pytest

from core import scheduler

# The loop closes broken database connections between rounds, so it may touch the connection.
pytestmark = pytest.mark.django_db


class Stop(Exception):
    pass


@pytest.fixture
def jobs(monkeypatch):
    registry: dict = {}
    monkeypatch.setattr(scheduler, "JOBS", registry)
    return registry


def test_a_failing_job_is_logged_and_the_others_still_run(jobs, caplog):
    ran = []
    jobs["broken"] = lambda now: 1 / 0
    jobs["fine"] = lambda now: ran.append(now)
    scheduler.run_jobs()
    assert len(ran) == 1
    assert "scheduled job broken failed" in caplog.text


def test_the_loop_keeps_going_after_a_round_where_everything_failed(jobs):
    calls = []

    def flaky(now):
        calls.append(now)
        if len(calls) == 1:
            raise ConnectionError("PostgreSQL restarted")

    jobs["flaky"] = flaky
    rounds = []

    def sleep(seconds):
        rounds.append(seconds)
        if len(rounds) == 3:
            raise Stop

    with pytest.raises(Stop):
        scheduler.run_forever(poll_s=0.01, sleep=sleep)
    assert len(calls) == 3  # the failure of the first round stopped nothing


def test_every_app_registers_its_job(db):
    from django.apps import apps

    assert apps.ready
    assert {"gorod.clock", "core.announcements"} <= set(scheduler.JOBS)
