"""Time-driven jobs (the GoRoD clock, queued announcements) and where they run.

Each app registers a job from its ``ready()``: a function ``job(now) -> None`` that does what is
due at ``now``. ``run_jobs`` runs every job once, each behind its own error boundary. They run in
one of two places:

- ``manage.py gorod_clock``: a process of its own, beside several workers (run exactly one; a
  second copy is harmless but useless);
- inside the ASGI server (``InProcessScheduler``), the embedded default: with the in-memory
  channel layer only the server's own process can reach its pages' sockets, so the jobs run as
  a task on the server's event loop (``SCHEDULER_IN_PROCESS``, on by default exactly when the
  channel layer is the in-memory one).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

log = logging.getLogger(__name__)

Job = Callable[[datetime], object]
JOBS: dict[str, Job] = {}
#: Longest pause between two rounds.
POLL_S = 1.0


def register(name: str, job: Job) -> None:
    JOBS[name] = job


def run_jobs(now: datetime | None = None) -> None:
    # A long-lived process must drop a connection a database restart broke (requests get this
    # from Django's request signals; the scheduler has none).
    _drop_broken_connections()
    now = now or timezone.now()
    for name, job in list(JOBS.items()):
        try:
            job(now)
        except Exception:  # noqa: BLE001 - one failing job must not stop the others
            log.exception("scheduled job %s failed", name)
    _drop_broken_connections()


def _drop_broken_connections() -> None:
    if not connection.in_atomic_block:  # never inside a caller's transaction
        close_old_connections()


def run_forever(*, once: bool = False, poll_s: float = POLL_S, sleep=time.sleep) -> None:
    """The loop of ``manage.py gorod_clock``."""
    while True:
        started = time.monotonic()
        run_jobs()
        if once:
            return
        sleep(max(0.0, poll_s - (time.monotonic() - started)))


class InProcessScheduler:
    """ASGI middleware that starts the jobs' loop on the server's event loop with the first
    connection or request (daphne has no lifespan events), once per process."""

    def __init__(self, app, *, poll_s: float = POLL_S):
        self.app = app
        self.poll_s = poll_s
        self.task: asyncio.Task | None = None

    async def __call__(self, scope, receive, send):
        if self.task is None and scope["type"] in ("http", "websocket") and in_process():
            self.task = asyncio.get_running_loop().create_task(self.loop())
        return await self.app(scope, receive, send)

    async def loop(self) -> None:
        run = database_sync_to_async(run_jobs)
        while True:
            try:
                await run()
            except Exception:  # noqa: BLE001 - the loop must outlive any failure
                log.exception("in-process scheduler round failed")
            await asyncio.sleep(self.poll_s)


def in_process() -> bool:
    return bool(getattr(settings, "SCHEDULER_IN_PROCESS", False))
