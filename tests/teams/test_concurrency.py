"""The PIN and log-in limits against two real daphne workers on PostgreSQL + Redis, with real
parallel HTTP: forged forwarded addresses do not dodge them and parallel guesses all count.

The workers trust one proxy (``TRUSTED_PROXIES=1``), as behind a reverse proxy; the test talks
to them directly, so the last ``X-Forwarded-For`` entry plays the address the proxy saw and
everything left of it is what an attacker chose.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from core import limits
from teams import joins, selectors
from teams.models import Game
from tests.conftest import need_postgresql_and_redis
from tests.kingofhill.conftest import make_teams, make_user
from tests.servers import Browser, parallel, server_env, start_workers

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

PER_ADDRESS = joins.PIN_MAX_FAILURES_PER_ADDRESS
# A small log-in limit for the workers: each log-in hashes a password, and one worker runs its
# views one at a time, so the default 10 would make the test slow, not stronger.
LOGIN_LIMIT = 4


@pytest.fixture(scope="module")
def workers(django_db_setup):
    need_postgresql_and_redis()
    server = start_workers(2, server_env(DEBUG="true", TRUSTED_PROXIES="1",
                                         LOGIN_FAILURE_LIMIT=str(LOGIN_LIMIT),
                                         SCHEDULER_IN_PROCESS="false"), name="limits")
    yield server
    server.stop()


def a_game() -> tuple[Game, str]:
    """A game with one approved team; its counters start at zero (Redis outlives test runs)."""
    organizer = make_user(f"org-{uuid.uuid4().hex[:6]}")
    game = Game.objects.create(title="Лимиты", format="gorod",
                               starts_at=timezone.now() + timedelta(days=2))
    (entry,) = make_teams(game, [f"Team {uuid.uuid4().hex[:6]}"], organizer)
    limits.clear(selectors.pin_budget_key(game.pk))
    return game, entry.join_pin


def clear_address(game: Game, address: str) -> None:
    # Redis outlives test runs and game ids repeat in a new test database: the counters a
    # run finds must be its own.
    limits.clear(joins.pin_address_key(game.pk, address))


def wrong(pin: str) -> str:
    return f"{(int(pin) + 1) % 10**6:06d}"


def browsers(workers, count: int) -> list[Browser]:
    """``count`` new browsers (no session count to hit), each with the join page's CSRF
    cookie, ready before the guesses start so that the guesses really run together."""
    ready = [Browser(workers) for _ in range(count)]
    for i, browser in enumerate(ready):
        assert browser.get("/teams/join/", worker=i).status == 200
    return ready


def guess(browser: Browser, game: Game, pin: str, i: int, forwarded: str):
    """One PIN guess through worker ``i % 2``, claiming ``forwarded`` as X-Forwarded-For."""
    def call():
        return browser.request("POST", f"/teams/api/games/{game.pk}/join/", {"pin": pin},
                               worker=i, headers={"X-Forwarded-For": forwarded})
    return call


def guesses(workers, game: Game, pin: str, forwarded) -> list:
    count = len(forwarded)
    return [guess(b, game, pin, i, forwarded[i])
            for i, b in enumerate(browsers(workers, count))]


def test_rotating_forged_forwarded_addresses_across_workers_still_hits_the_address_limit(
        workers):
    game, pin = a_game()
    real = "203.0.113.77"
    clear_address(game, real)
    calls = guesses(workers, game, wrong(pin),
                    [f"10.{i}.{i}.{i}, {real}" for i in range(PER_ADDRESS + 6)])
    replies = parallel(calls, timeout=90)
    statuses = sorted(r.status for r in replies)
    assert statuses == [400] * PER_ADDRESS + [429] * 6, [r.body for r in replies]
    # The right PIN from that address is refused too until the window passes.
    last = guesses(workers, game, pin, [f"198.51.100.1, {real}"])[0]()
    assert last.status == 429 and "Too many wrong PINs" in last.detail
    # Another address still joins with the right PIN.
    clear_address(game, "203.0.113.78")
    assert guesses(workers, game, pin, ["203.0.113.78"])[0]().status == 200


@pytest.mark.parametrize("header", ["unknown", "", "not-an-address, also-not"])
def test_a_bad_forwarded_header_never_switches_the_limit_off(workers, header):
    """Nothing usable in the header: the address is the peer's (the proxy's), one key for all."""
    game, pin = a_game()
    clear_address(game, "127.0.0.1")
    replies = parallel(guesses(workers, game, wrong(pin), [header] * (PER_ADDRESS + 4)),
                       timeout=90)
    assert sorted(r.status for r in replies) == [400] * PER_ADDRESS + [429] * 4


def test_parallel_guesses_from_many_addresses_stop_at_the_games_hourly_budget(workers):
    """The budget of a game is shared by every address and worker: guesses past it pause PIN
    joins for the game (429) whatever address they claim."""
    budget = 100  # the workers' PIN_GAME_BUDGET_PER_HOUR (the default)
    game, pin = a_game()
    calls = guesses(workers, game, wrong(pin),
                    [f"192.0.2.{i}, 198.18.0.{i}" for i in range(budget + 10)])
    replies = parallel(calls, timeout=120)
    assert sorted(r.status for r in replies) == [400] * budget + [429] * 10
    paused = guesses(workers, game, pin, ["198.18.9.9"])[0]()
    assert paused.status == 429 and "paused" in paused.detail


def test_parallel_wrong_passwords_over_two_workers_lock_the_name_at_that_address_only(workers):
    """Lock-outs are keyed by user name and address together (issue 30): wrong passwords
    hammered from one address through both workers lock the name there, and the real user
    still logs in from another address."""
    name = f"victim-{uuid.uuid4().hex[:6]}"
    make_user(name, "organizer")
    limit = LOGIN_LIMIT

    def attempt(browser: Browser, worker: int, password: str, address: int):
        def call():
            return browser.request("POST", "/accounts/login/", {
                "username": name, "password": password,
                "csrfmiddlewaretoken": browser.cookie("csrftoken"), "next": "/"},
                worker=worker, form=True,
                headers={"X-Forwarded-For": f"10.9.{address}.{address}, 192.0.2.{address}"})
        return call

    def ready(count: int) -> list[Browser]:
        found = [Browser(workers) for _ in range(count)]
        for i, browser in enumerate(found):
            assert browser.get("/accounts/login/", worker=i).status == 200
        return found

    tries = 2 * limit
    replies = parallel([attempt(b, i, f"wrong-{i}", 7) for i, b in enumerate(ready(tries))],
                       timeout=90)
    assert sum(r.status == 429 for r in replies) >= tries - limit, [r.status for r in replies]
    # At that address even the right password is refused now ...
    assert attempt(ready(1)[0], 0, "pw-" + name, 7)().status == 429
    # ... but from any other address the organizer logs in (the client follows the redirect
    # to the page asked for, where no log-in form is left).
    other = attempt(ready(1)[0], 0, "pw-" + name, 8)()
    assert other.status == 200 and 'name="password"' not in other.body
