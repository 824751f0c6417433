"""``live.batch.Batcher``: group commit for one key's callers, each in its own thread."""

from __future__ import annotations

import threading
import time

import pytest

from live.batch import Batcher


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


def start(batcher: Batcher, key, payload, outcomes: dict) -> threading.Thread:
    """One caller in its own thread (named ``t-<payload>``); its outcome lands in ``outcomes``."""
    def call():
        try:
            outcomes[payload] = batcher.submit(key, payload)
        except Exception as exc:  # noqa: BLE001 - the outcome under test
            outcomes[payload] = exc

    thread = threading.Thread(target=call, name=f"t-{payload}")
    thread.start()
    return thread


def runs_at_once(batcher: Batcher, runner: Recorder, key="game") -> bool:
    """The key is free: a new caller's batch runs at once, alone, in the caller's thread."""
    outcomes: dict = {}
    thread = start(batcher, key, "next", outcomes)
    thread.join(5)
    return (not thread.is_alive() and outcomes["next"] == (key, "next")
            and runner.batches[-1] == (["next"], "t-next"))


def wait_until(condition, seconds: float = 5) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


def behind_a_held_batch(batcher: Batcher, runner: Recorder, payloads: list, key="game") -> dict:
    """A first caller's batch held open while ``payloads``' callers queue behind it, in this
    order; then everything runs. Returns every caller's outcome by payload."""
    runner.hold.clear()
    outcomes: dict = {}
    threads = [start(batcher, key, "first", outcomes)]
    assert runner.started.wait(5)
    for count, payload in enumerate(payloads, start=1):
        threads.append(start(batcher, key, payload, outcomes))
        wait_until(lambda count=count: batcher.waiting(key) == count)
    runner.hold.set()
    for thread in threads:
        thread.join(10)
    return outcomes


def test_a_caller_alone_runs_at_once_in_a_batch_of_its_own_in_its_own_thread():
    runner = Recorder()
    batcher = Batcher(runner)

    assert batcher.submit("game", 1) == ("game", 1)

    assert runner.batches == [([1], threading.current_thread().name)]
    assert batcher.waiting("game") == 0 and runs_at_once(batcher, runner)


def test_callers_arriving_while_a_batch_runs_are_run_together_next_by_the_oldest_of_them():
    runner = Recorder()
    batcher = Batcher(runner)

    outcomes = behind_a_held_batch(batcher, runner, ["b", "c", "d"])

    assert runner.batches == [(["first"], "t-first"), (["b", "c", "d"], "t-b")]
    assert outcomes == {p: ("game", p) for p in ("first", "b", "c", "d")}
    assert batcher.waiting("game") == 0 and runs_at_once(batcher, runner)


def test_one_callers_error_reaches_that_caller_alone():
    runner = Recorder()
    batcher = Batcher(runner)

    outcomes = behind_a_held_batch(batcher, runner, ["b", "boom", "c"])

    assert outcomes["b"] == ("game", "b") and outcomes["c"] == ("game", "c")
    assert isinstance(outcomes["boom"], ValueError) and str(outcomes["boom"]) == "game: boom"


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
    assert batcher.waiting("game") == 0
    assert batcher.submit("game", 2) == 2  # at once, alone


def test_keys_do_not_wait_for_each_other():
    runner = Recorder()
    runner.hold.clear()
    batcher = Batcher(lambda key, jobs: runner(key, jobs) if key == "slow" else [
        setattr(job, "result", job.payload) for job in jobs])
    outcomes: dict = {}
    slow = start(batcher, "slow", 1, outcomes)
    assert runner.started.wait(5)

    assert batcher.submit("other game", 2) == 2  # while "slow" is still running

    runner.hold.set()
    slow.join(10)
    assert outcomes == {1: ("slow", 1)}


def test_a_batch_takes_at_most_most_jobs_and_the_rest_run_in_the_next():
    runner = Recorder()
    batcher = Batcher(runner, most=2)

    outcomes = behind_a_held_batch(batcher, runner, [1, 2, 3])

    assert [payloads for payloads, _thread in runner.batches] == [["first"], [1, 2], [3]]
    assert outcomes == {p: ("game", p) for p in ("first", 1, 2, 3)}
