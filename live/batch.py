"""Group commit: the writes of one game that arrive while one of its writes is running are run
together next, in one transaction, by one of their own threads.

One game's writes are serialised by its row lock, so at a busy moment (a GoRoD night's code
rush, 64 phones answering one question) they queue there one by one, and each pays in full for
what every write repeats: the lock, building and comparing the audiences' states, storing them,
the commit and the push. A ``Batcher`` lets the first caller of a key run at once; callers that
arrive meanwhile wait in the key's queue, and when the running batch ends the oldest of them
takes the lead and runs everything queued by then as the next batch. A caller alone is never
delayed (no timer, no waiting for company); under load one batch's cost is shared by all its
writes.

The batcher knows nothing of databases: ``run(key, jobs)`` does the work (``live``: one
transaction, each action in its own savepoint, one build and one publish) and sets every job's
``result`` or ``error``. Each caller gets its own job's outcome back, in its own thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any


class Job:
    """One caller's work in a batch: what ``run`` needs (``payload``) and its outcome."""

    __slots__ = ("payload", "result", "error", "_wake", "_leads")

    def __init__(self, payload: Any):
        self.payload = payload
        self.result: Any = None
        self.error: BaseException | None = None
        self._wake = threading.Event()
        self._leads = False

    def outcome(self) -> Any:
        """The job's result, or its error raised (in the caller's thread)."""
        if self.error is not None:
            raise self.error
        return self.result


class Batcher:
    """Runs the jobs of one key one batch at a time, each batch by one of its callers.

    >>> seen = []
    >>> b = Batcher(lambda key, jobs: seen.append([j.payload for j in jobs]) or [
    ...     setattr(j, "result", j.payload * 2) for j in jobs])
    >>> b.submit("game 7", 21)
    42
    >>> seen  # alone: a batch of one, run at once
    [[21]]
    """

    def __init__(self, run: Callable[[Hashable, list[Job]], None], *, most: int = 64):
        self._run = run
        self.most = most  # jobs in one batch at the most (the rest wait for the next one)
        self._mutex = threading.Lock()
        self._queues: dict[Hashable, list[Job]] = {}  # a key is here while its batch runs

    def submit(self, key: Hashable, payload: Any) -> Any:
        """Run ``payload`` in a batch of ``key`` and return its result (or raise its error)."""
        job = Job(payload)
        with self._mutex:
            queue = self._queues.get(key)
            if queue is None:
                self._queues[key] = []
                lead = True
            else:
                queue.append(job)
                lead = False
        if not lead:
            job._wake.wait()
            if not job._leads:
                return job.outcome()
        self._lead(key, job)
        return job.outcome()

    def waiting(self, key: Hashable) -> int:
        """How many jobs of ``key`` wait for the batch running now to end (0: none runs)."""
        with self._mutex:
            return len(self._queues.get(key, ()))

    def _lead(self, key: Hashable, job: Job) -> None:
        with self._mutex:
            queue = self._queues[key]
            batch = [job, *queue[:self.most - 1]]
            del queue[:self.most - 1]
        try:
            self._run(key, batch)
        except BaseException as exc:  # noqa: BLE001 - every waiting caller must hear of it
            for each in batch:
                if each.error is None:
                    each.error = exc
        finally:
            for each in batch:
                if each is not job:
                    each._wake.set()
            with self._mutex:
                queue = self._queues[key]
                if queue:
                    # The oldest waiting caller runs the next batch, with what is queued then.
                    following = queue.pop(0)
                    following._leads = True
                    following._wake.set()
                else:
                    del self._queues[key]
