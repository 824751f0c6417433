"""``core.batch.Batcher``: group commit for one key's callers, each in its own thread."""

from __future__ import annotations

import threading
import time

import pytest

from core.batch import Batcher


class Recorder:
    """A batch runner that records each batch (payloads, thread) and can be held open."""

    def __init__(self):
        self.batches: list[tuple[list, str]] = []
        self.hold = threading.Event()
        self.hold.set()
        self.started = threading.Event()

    def __call__(self, key, jobs):
        self.started.set()
        self.hold.wait(10)
        self.batches.append(([job.payload for job in jobs], threading.current_thread().name))
        for job in jobs:
            if job.payload == "boom":
                job.error = ValueError(f"{key}: boom")
            else:
                job.result = (key, job.payload)


def call_in_threads(batcher: Batcher, calls: list[tuple], names: list[str]) -> dict:
    """Start one thread per ``(key, payload)``, in order, each only once the previous one is
    queued or running; returns the threads (join them) and their outcomes by name."""
    outcomes: dict[str, object] = {}

    def call(key, payload, name):
        try:
            outcomes[name] = batcher.submit(key, payload)
        except Exception as exc:  # noqa: BLE001 - the outcome under test
            outcomes[name] = exc

    threads = [threading.Thread(target=call, args=(*args, name), name=name)
               for args, name in zip(calls, names, strict=True)]
    for thread in threads:
        thread.start()
        time.sleep(0.02)
    return {"threads": threads, "outcomes": outcomes}


def queued(batcher: Batcher, key) -> int:
    return len(batcher._queues.get(key, []))


def wait_until(condition, seconds: float = 5) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


def test_a_caller_alone_runs_at_once_in_a_batch_of_its_own_in_its_own_thread():
    runner = Recorder()
    batcher = Batcher(runner)

    assert batcher.submit("game", 1) == ("game", 1)

    assert runner.batches == [([1], threading.current_thread().name)]
    assert batcher._queues == {}


def test_callers_arriving_while_a_batch_runs_are_run_together_next_by_the_oldest_of_them():
    runner = Recorder()
    runner.hold.clear()
    batcher = Batcher(runner)
    first = call_in_threads(batcher, [("game", "a")], ["leader"])
    runner.started.wait(5)
    rest = call_in_threads(batcher, [("game", p) for p in "bcd"], ["t-b", "t-c", "t-d"])
    wait_until(lambda: queued(batcher, "game") == 3)

    runner.hold.set()
    for thread in first["threads"] + rest["threads"]:
        thread.join(10)

    assert runner.batches == [(["a"], "leader"), (["b", "c", "d"], "t-b")]
    assert first["outcomes"] == {"leader": ("game", "a")}
    assert rest["outcomes"] == {"t-b": ("game", "b"), "t-c": ("game", "c"),
                                "t-d": ("game", "d")}
    assert batcher._queues == {}


def test_one_callers_error_reaches_that_caller_alone():
    runner = Recorder()
    runner.hold.clear()
    batcher = Batcher(runner)
    first = call_in_threads(batcher, [("game", "a")], ["leader"])
    runner.started.wait(5)
    rest = call_in_threads(batcher, [("game", "b"), ("game", "boom"), ("game", "c")],
                           ["t-b", "t-boom", "t-c"])
    wait_until(lambda: queued(batcher, "game") == 3)

    runner.hold.set()
    for thread in first["threads"] + rest["threads"]:
        thread.join(10)

    outcomes = rest["outcomes"]
    assert outcomes["t-b"] == ("game", "b") and outcomes["t-c"] == ("game", "c")
    assert isinstance(outcomes["t-boom"], ValueError) and str(outcomes["t-boom"]) == "game: boom"


def test_a_runner_that_fails_fails_every_caller_of_its_batch_and_frees_the_key():
    calls = []

    def runner(key, jobs):
        calls.append(len(jobs))
        if len(calls) == 1:
            raise RuntimeError("the database went away")
        for job in jobs:
            job.result = job.payload

    batcher = Batcher(runner)

    with pytest.raises(RuntimeError, match="went away"):
        batcher.submit("game", 1)
    assert batcher._queues == {}
    assert batcher.submit("game", 2) == 2


def test_keys_do_not_wait_for_each_other():
    runner = Recorder()
    runner.hold.clear()
    batcher = Batcher(lambda key, jobs: runner(key, jobs) if key == "slow" else [
        setattr(job, "result", job.payload) for job in jobs])
    slow = call_in_threads(batcher, [("slow", 1)], ["slow"])
    runner.started.wait(5)

    assert batcher.submit("other game", 2) == 2  # while "slow" is still running

    runner.hold.set()
    slow["threads"][0].join(10)
    assert slow["outcomes"] == {"slow": ("slow", 1)}


def test_a_batch_takes_at_most_most_jobs_and_the_rest_run_in_the_next():
    runner = Recorder()
    runner.hold.clear()
    batcher = Batcher(runner, most=2)
    first = call_in_threads(batcher, [("game", 0)], ["leader"])
    runner.started.wait(5)
    rest = call_in_threads(batcher, [("game", i) for i in (1, 2, 3)], ["t1", "t2", "t3"])
    wait_until(lambda: queued(batcher, "game") == 3)

    runner.hold.set()
    for thread in first["threads"] + rest["threads"]:
        thread.join(10)

    assert [payloads for payloads, _thread in runner.batches] == [[0], [1, 2], [3]]
    assert rest["outcomes"] == {"t1": ("game", 1), "t2": ("game", 2), "t3": ("game", 3)}
