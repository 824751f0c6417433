"""Phone joins: the join link and PIN, revocation, and the limits on wrong PINs (per browser,
per address, per game)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.sessions.backends.db import SessionStore

from teams import selectors, services
from teams.models import Notice
from teams.services import TeamsError
from tests.teams.conftest import apply

pytestmark = pytest.mark.django_db


# --- joining ------------------------------------------------------------------------------------


def test_join_by_token_binds_the_session(approved_alpha):
    session = SessionStore()
    entry = services.join_by_token(session=session, token=approved_alpha.join_token)
    assert entry == approved_alpha
    assert selectors.team_entry_for_session(session, approved_alpha.game) == approved_alpha
    assert selectors.team_entry_for_session(session, approved_alpha.game_id) == approved_alpha


def test_a_session_binding_with_an_id_no_row_can_have_names_no_entry(approved_alpha):
    """A game id past 64 bits (a URL typed by hand) or a tampered binding matches nothing; it
    must not reach the database, which refuses such an integer as a parameter."""
    from teams.services import JOIN_SESSION_KEY

    session = SessionStore()
    services.join_by_token(session=session, token=approved_alpha.join_token)
    assert selectors.team_entry_for_session(session, 2 ** 63) is None
    binding = session[JOIN_SESSION_KEY][str(approved_alpha.game_id)]
    session[JOIN_SESSION_KEY] = {str(approved_alpha.game_id): {**binding, "application": 2 ** 64}}
    assert selectors.team_entry_for_session(session, approved_alpha.game_id) is None


def test_join_by_pin(approved_alpha, approved_beta):
    session = SessionStore()
    entry = services.join_by_pin(
        session=session, game=approved_beta.game, pin=f" {approved_beta.join_pin} "
    )
    assert entry.team.name == "Бета"


def test_pins_are_unique_within_a_game(game, organizer, django_user_model):
    pins = set()
    for i in range(12):
        team = services.team_create(
            captain=django_user_model.objects.create_user(f"c{i}"), name=f"Team {i}"
        )
        for nick in ("a", "b"):
            services.member_create(team=team, nickname=nick)
        application = services.application_approve(application=apply(team, game), actor=organizer)
        pins.add(application.join_pin)
    assert len(pins) == 12


def test_bad_token_is_refused():
    with pytest.raises(TeamsError, match="not valid"):
        services.join_by_token(session=SessionStore(), token="nope")


def test_pending_application_cannot_be_joined(game, team_alpha):
    apply(team_alpha, game)
    with pytest.raises(TeamsError, match="Wrong PIN"):
        services.join_by_pin(session=SessionStore(), game=game, pin="000000")


def test_revocation_logs_old_phones_out_and_new_link_works(approved_alpha):
    session = SessionStore()
    services.join_by_token(session=session, token=approved_alpha.join_token)
    old_token, old_pin = approved_alpha.join_token, approved_alpha.join_pin
    renewed = services.application_revoke_join(application=approved_alpha)
    assert renewed.join_token != old_token
    assert renewed.join_version == approved_alpha.join_version + 1
    assert selectors.team_entry_for_session(session, approved_alpha.game) is None
    with pytest.raises(TeamsError, match="not valid"):
        services.join_by_token(session=SessionStore(), token=old_token)
    if renewed.join_pin != old_pin:
        with pytest.raises(TeamsError, match="Wrong PIN"):
            services.join_by_pin(session=SessionStore(), game=renewed.game, pin=old_pin)
    services.join_by_token(session=session, token=renewed.join_token)
    assert selectors.team_entry_for_session(session, renewed.game) == renewed
    assert Notice.objects.filter(kind="join_revoked").count() == 1


def test_withdraw_logs_phones_out(approved_alpha):
    session = SessionStore()
    services.join_by_token(session=session, token=approved_alpha.join_token)
    services.application_withdraw(application=approved_alpha)
    assert selectors.team_entry_for_session(session, approved_alpha.game) is None


def test_pin_brute_force_is_limited_per_session(approved_alpha, now):
    session = SessionStore()
    wrong = "000000" if approved_alpha.join_pin != "000000" else "111111"
    for i in range(10):
        with pytest.raises(TeamsError, match="Wrong PIN"):
            services.join_by_pin(
                session=session, game=approved_alpha.game, pin=wrong, now=now + timedelta(seconds=i)
            )
    with pytest.raises(TeamsError, match="Too many wrong PINs"):
        services.join_by_pin(
            session=session, game=approved_alpha.game, pin=approved_alpha.join_pin, now=now
        )
    # ten minutes later the window has moved on
    entry = services.join_by_pin(
        session=session,
        game=approved_alpha.game,
        pin=approved_alpha.join_pin,
        now=now + timedelta(minutes=10, seconds=10),
    )
    assert entry == approved_alpha


def _wrong_pin(application) -> str:
    return "000000" if application.join_pin != "000000" else "111111"


def test_pin_guesses_from_one_address_are_limited_even_with_a_fresh_session_each_time(
    approved_alpha, now
):
    game, wrong = approved_alpha.game, _wrong_pin(approved_alpha)
    for i in range(services.PIN_MAX_FAILURES_PER_ADDRESS):
        with pytest.raises(TeamsError, match="Wrong PIN"):
            services.join_by_pin(
                session=SessionStore(),
                game=game,
                pin=wrong,
                client_ip="203.0.113.7",
                now=now + timedelta(seconds=i),
            )
    with pytest.raises(TeamsError, match=r"Too many wrong PINs\. Try again in 10 min"):
        services.join_by_pin(
            session=SessionStore(),
            game=game,
            pin=approved_alpha.join_pin,
            client_ip="203.0.113.7",
            now=now + timedelta(seconds=30),
        )
    # another address is not punished for it
    assert (
        services.join_by_pin(
            session=SessionStore(),
            game=game,
            pin=approved_alpha.join_pin,
            client_ip="198.51.100.1",
            now=now + timedelta(seconds=30),
        )
        == approved_alpha
    )
    # once the oldest guess leaves the 10-minute window the address may try again
    assert (
        services.join_by_pin(
            session=SessionStore(),
            game=game,
            pin=approved_alpha.join_pin,
            client_ip="203.0.113.7",
            now=now + timedelta(minutes=10, seconds=1),
        )
        == approved_alpha
    )


def test_the_address_limit_counts_per_game(approved_alpha, koth_game, team_beta, organizer, now):
    koth = services.application_approve(application=apply(team_beta, koth_game), actor=organizer)
    for _ in range(services.PIN_MAX_FAILURES_PER_ADDRESS):
        with pytest.raises(TeamsError, match="Wrong PIN"):
            services.join_by_pin(
                session=SessionStore(),
                game=approved_alpha.game,
                pin=_wrong_pin(approved_alpha),
                client_ip="203.0.113.7",
                now=now,
            )
    assert (
        services.join_by_pin(
            session=SessionStore(),
            game=koth_game,
            pin=koth.join_pin,
            client_ip="203.0.113.7",
            now=now,
        )
        == koth
    )


def test_an_ipv6_client_counts_as_its_whole_64_network(approved_alpha, now):
    for i in range(services.PIN_MAX_FAILURES_PER_ADDRESS):
        with pytest.raises(TeamsError, match="Wrong PIN"):
            services.join_by_pin(
                session=SessionStore(),
                game=approved_alpha.game,
                pin=_wrong_pin(approved_alpha),
                client_ip=f"2001:db8:1:2::{i + 1:x}",
                now=now,
            )
    with pytest.raises(TeamsError, match="Too many wrong PINs"):
        services.join_by_pin(
            session=SessionStore(),
            game=approved_alpha.game,
            pin=approved_alpha.join_pin,
            client_ip="2001:db8:1:2:ffff::1",
            now=now,
        )


def test_the_wait_shown_is_the_minutes_until_a_guess_frees_up(approved_alpha, now):
    session = SessionStore()
    for _ in range(services.PIN_MAX_FAILURES):
        with pytest.raises(TeamsError):
            services.join_by_pin(
                session=session,
                game=approved_alpha.game,
                pin=_wrong_pin(approved_alpha),
                now=now,
            )
    with pytest.raises(TeamsError, match="Try again in 4 min"):
        services.join_by_pin(
            session=session,
            game=approved_alpha.game,
            pin=approved_alpha.join_pin,
            now=now + timedelta(minutes=6, seconds=30),
        )


def test_a_successful_join_does_not_forgive_the_shared_address(approved_alpha, now):
    game, wrong = approved_alpha.game, _wrong_pin(approved_alpha)
    for _ in range(services.PIN_MAX_FAILURES_PER_ADDRESS - 1):
        with pytest.raises(TeamsError):
            services.join_by_pin(
                session=SessionStore(), game=game, pin=wrong, client_ip="203.0.113.7", now=now
            )
    services.join_by_pin(
        session=SessionStore(),
        game=game,
        pin=approved_alpha.join_pin,
        client_ip="203.0.113.7",
        now=now,
    )
    with pytest.raises(TeamsError, match="Wrong PIN"):
        services.join_by_pin(
            session=SessionStore(), game=game, pin=wrong, client_ip="203.0.113.7", now=now
        )
    with pytest.raises(TeamsError, match="Too many wrong PINs"):
        services.join_by_pin(
            session=SessionStore(),
            game=game,
            pin=approved_alpha.join_pin,
            client_ip="203.0.113.7",
            now=now,
        )


def test_one_session_can_join_different_games(approved_alpha, koth_game, team_beta, organizer):
    koth = services.application_approve(application=apply(team_beta, koth_game), actor=organizer)
    session = SessionStore()
    services.join_by_token(session=session, token=approved_alpha.join_token)
    services.join_by_token(session=session, token=koth.join_token)
    assert selectors.team_entry_for_session(session, approved_alpha.game) == approved_alpha
    assert selectors.team_entry_for_session(session, koth_game) == koth
    services.join_leave(session=session, game=koth_game)
    assert selectors.team_entry_for_session(session, koth_game) is None


def test_tampered_session_binding_is_ignored(approved_alpha):
    session = SessionStore()
    session[services.JOIN_SESSION_KEY] = {str(approved_alpha.game_id): {"application": "x"}}
    assert selectors.team_entry_for_session(session, approved_alpha.game) is None
    session[services.JOIN_SESSION_KEY] = "garbage"
    assert selectors.team_entry_for_session(session, approved_alpha.game) is None
    assert selectors.team_entry_for_session(None, approved_alpha.game) is None


def test_team_entry_query_count(approved_alpha, django_assert_num_queries):
    session = SessionStore()
    services.join_by_token(session=session, token=approved_alpha.join_token)
    with django_assert_num_queries(1):
        entry = selectors.team_entry_for_session(session, approved_alpha.game_id)
        assert entry.team.name and entry.game.title


# --- the game's budget of wrong PINs -------------------------------------------------------


def _guess(game, pin, address, now):
    return services.join_by_pin(
        session=SessionStore(), game=game, pin=pin, client_ip=address, now=now
    )


def test_many_addresses_together_spend_the_games_budget_and_pin_joins_pause(
    approved_alpha, settings, now
):
    settings.PIN_GAME_BUDGET_PER_HOUR = 5
    game, wrong = approved_alpha.game, _wrong_pin(approved_alpha)
    for i in range(5):
        with pytest.raises(TeamsError, match="Wrong PIN"):
            _guess(game, wrong, f"198.51.100.{i + 1}", now)
    assert selectors.game_pin_budget(game, now=now).spent
    # now even the right PIN from a fresh address is refused: a lucky guess must not get in
    with pytest.raises(services.TooManyAttempts, match="PIN joins for this game are paused"):
        _guess(game, approved_alpha.join_pin, "192.0.2.200", now)
    # ... while the team's link still works
    services.join_by_token(session=SessionStore(), token=approved_alpha.join_token)
    # an hour later the budget is whole again
    assert _guess(game, approved_alpha.join_pin, "192.0.2.200", now + timedelta(hours=1)) == (
        approved_alpha
    )


def test_the_organizer_lifts_the_pause_and_pin_joins_work_at_once(approved_alpha, settings, now):
    settings.PIN_GAME_BUDGET_PER_HOUR = 3
    game, wrong = approved_alpha.game, _wrong_pin(approved_alpha)
    for i in range(3):
        with pytest.raises(TeamsError):
            _guess(game, wrong, f"198.51.100.{i + 1}", now)
    with pytest.raises(services.TooManyAttempts):
        _guess(game, approved_alpha.join_pin, "192.0.2.1", now)
    services.game_pin_budget_lift(game=game)
    assert selectors.game_pin_budget(game, now=now).used == 0
    assert _guess(game, approved_alpha.join_pin, "192.0.2.1", now) == approved_alpha


def test_a_right_pin_does_not_spend_the_games_budget(approved_alpha, settings, now):
    settings.PIN_GAME_BUDGET_PER_HOUR = 2
    for i in range(5):
        _guess(approved_alpha.game, approved_alpha.join_pin, f"198.51.100.{i + 1}", now)
    assert selectors.game_pin_budget(approved_alpha.game, now=now).used == 0


def test_the_budget_counts_per_game(approved_alpha, koth_game, team_beta, organizer, settings, now):
    settings.PIN_GAME_BUDGET_PER_HOUR = 2
    koth = services.application_approve(application=apply(team_beta, koth_game), actor=organizer)
    for i in range(2):
        with pytest.raises(TeamsError):
            _guess(approved_alpha.game, _wrong_pin(approved_alpha), f"198.51.100.{i + 1}", now)
    assert _guess(koth_game, koth.join_pin, "198.51.100.1", now) == koth


def test_a_missing_client_address_is_counted_not_exempt(approved_alpha, now):
    for _ in range(services.PIN_MAX_FAILURES_PER_ADDRESS):
        with pytest.raises(TeamsError, match="Wrong PIN"):
            _guess(approved_alpha.game, _wrong_pin(approved_alpha), None, now)
    with pytest.raises(services.TooManyAttempts, match="Too many wrong PINs"):
        _guess(approved_alpha.game, approved_alpha.join_pin, "", now)


@pytest.mark.django_db(transaction=True)
def test_parallel_guesses_from_one_address_are_all_counted(approved_alpha):
    """Twice the limit fired at once: exactly the limit get an answer, the rest are refused."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    game, wrong = approved_alpha.game, _wrong_pin(approved_alpha)

    def guess(_):
        try:
            _guess(game, wrong, "203.0.113.50", None)
        except services.TooManyAttempts:
            return "limited"
        except TeamsError:
            return "wrong"
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(guess, range(2 * services.PIN_MAX_FAILURES_PER_ADDRESS)))
    assert outcomes.count("wrong") == services.PIN_MAX_FAILURES_PER_ADDRESS
    assert outcomes.count("limited") == services.PIN_MAX_FAILURES_PER_ADDRESS
