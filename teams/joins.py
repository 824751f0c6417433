"""Phones joining a team for a game: the application's join secrets (link and PIN), binding a
browser's session to its team, and the limits on wrong PINs (per browser, per address, per
game). The application's own writes, which issue and clear the secrets, are
``teams.services``.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from core import limits, rights
from core.net import UNKNOWN, address_bucket
from teams.errors import TeamsError, TooManyAttempts
from teams.models import Application, Game
from teams.selectors import (  # the session key and PIN budget are read there, written here
    JOIN_SESSION_KEY,
    PIN_BUDGET_WINDOW_SECONDS,
    application_by_join_token,
    pin_budget_key,
)

PIN_FAILURES_KEY = "teams_pin_failures"
PIN_MAX_FAILURES = 10
PIN_WINDOW_SECONDS = 10 * 60
# [decision] Phones at the briefing share the venue's Wi-Fi, so one address is many honest
# players: the per-address limit is three times the per-browser one. 30 guesses in 10 minutes
# against a million PINs still leaves brute force hopeless.
PIN_MAX_FAILURES_PER_ADDRESS = 30


def _new_pin(game_id: int, exclude: int | None) -> str:
    taken = set(
        Application.objects.filter(game_id=game_id)
        .exclude(pk=exclude)
        .exclude(join_pin=None)
        .values_list("join_pin", flat=True)
    )
    while True:
        pin = f"{secrets.randbelow(10**6):06d}"
        if pin not in taken:
            return pin


def issue_join(application: Application) -> None:
    application.join_token = secrets.token_urlsafe(24)
    application.join_pin = _new_pin(application.game_id, application.pk)
    application.join_version += 1


def clear_join(application: Application) -> None:
    """No link, no PIN, and every phone bound to the old version is out (its open sockets
    too: they check again after the commit, before any push of it)."""
    application.join_token = None
    application.join_pin = None
    application.join_version += 1
    rights.recheck_application(application.pk)


def _bind(session, application: Application) -> None:
    joined = dict(session.get(JOIN_SESSION_KEY) or {})
    joined[str(application.game_id)] = {
        "application": application.pk,
        "join_version": application.join_version,
    }
    session[JOIN_SESSION_KEY] = joined


def _check_joinable(application: Application) -> None:
    if application.game.status == Game.Status.CANCELLED:
        raise TeamsError(_("This game is cancelled."))


def join_by_token(*, session, token: str) -> Application:
    """Bind this browser (its session) to the team whose join link carries ``token``.

    Only ever called for a POST: opening the link shows the team and asks first, so a link or
    an image on someone else's page cannot attach a phone to a team.
    """
    application = application_by_join_token(token)
    if application is None:
        raise TeamsError(
            _("This join link is not valid (it may have been replaced). Ask your captain.")
        )
    _check_joinable(application)
    _bind(session, application)
    return application


def pin_address_key(game_id: int, client_ip: str | None) -> str:
    """The key counting wrong PINs from one address (``core.net.address_bucket``) for a game.
    A missing address is an address too: it never switches the limit off."""
    return f"teams:pin-failures:{game_id}:{address_bucket((client_ip or '').strip() or UNKNOWN)}"


def _recent(stamps: Any, moment: float) -> list[float]:
    if not isinstance(stamps, list):
        return []
    return [t for t in stamps if isinstance(t, (int, float)) and moment - t < PIN_WINDOW_SECONDS]


def _wait_message(seconds: float) -> TeamsError:
    return TooManyAttempts(
        _("Too many wrong PINs. Try again in %(minutes)d min or scan the QR code.")
        % {"minutes": int(seconds) // 60 + 1}
    )


def _too_many(failures: list[float], limit: int, moment: float) -> TeamsError | None:
    if len(failures) < limit:
        return None
    # The window frees a guess when the oldest counted failure leaves it.
    oldest = sorted(failures)[-limit]
    return _wait_message(PIN_WINDOW_SECONDS - (moment - oldest))


def _budget_spent() -> TeamsError:
    return TooManyAttempts(
        _(
            "PIN joins for this game are paused: too many wrong PINs in the last hour. "
            "Scan your team's QR code or open its link, or ask the organizer."
        )
    )


def join_by_pin(
    *, session, game: Game, pin: str, client_ip: str | None = None, now: datetime | None = None
) -> Application:
    """Bind this browser to the team with ``pin`` in ``game``.

    Wrong PINs are limited three times over: 10 per browser session and 30 per game and client
    address (``client_ip``, from ``core.net.client_address``) in 10 minutes, so a script that
    drops its cookie is still stopped; and ``PIN_GAME_BUDGET_PER_HOUR`` per game from all
    addresses together, so no number of addresses can walk the million PINs. When the game's
    budget is spent PIN joins for it pause (the join link and QR code still work) until the hour
    ends or an organizer lifts the pause (``game_pin_budget_lift``). The address and game counts
    are atomic cache counters (``core.limits``): an attempt is counted before the PIN is
    checked and given back when it was right, so parallel guesses all count.
    """
    moment = (now if now is not None else timezone.now()).timestamp()
    failures = _recent(session.get(PIN_FAILURES_KEY), moment)
    refusal = _too_many(failures, PIN_MAX_FAILURES, moment)
    if refusal is not None:
        raise refusal
    budget_key = pin_budget_key(game.pk)
    budget = settings.PIN_GAME_BUDGET_PER_HOUR
    if limits.peek(budget_key, limit=budget, window=PIN_BUDGET_WINDOW_SECONDS, now=moment).spent:
        raise _budget_spent()
    by_address = limits.reserve(
        pin_address_key(game.pk, client_ip),
        limit=PIN_MAX_FAILURES_PER_ADDRESS,
        window=PIN_WINDOW_SECONDS,
        now=moment,
    )
    if by_address.exceeded:
        raise _wait_message(by_address.retry_after)
    by_game = limits.reserve(budget_key, limit=budget, window=PIN_BUDGET_WINDOW_SECONDS, now=moment)
    if by_game.exceeded:
        limits.refund(by_address)
        raise _budget_spent()
    pin = "".join((pin or "").split()) if isinstance(pin, str) else ""
    application = None
    if len(pin) == 6 and pin.isascii() and pin.isdigit():
        application = (
            Application.objects.select_related("team", "game")
            .filter(game=game, join_pin=pin, status=Application.Status.APPROVED)
            .first()
        )
    if application is None:
        session[PIN_FAILURES_KEY] = [*failures, moment]
        raise TeamsError(_("Wrong PIN for this game."))
    # A right PIN costs nothing. Only this browser's own count is forgiven: an honest join from
    # the venue's shared address must not wipe the count of someone guessing from it.
    limits.refund(by_address)
    limits.refund(by_game)
    _check_joinable(application)
    session[PIN_FAILURES_KEY] = []
    _bind(session, application)
    return application


def game_pin_budget_lift(*, game: Game) -> None:
    """The organizer lifts a PIN pause: the game's budget of wrong PINs starts afresh."""
    limits.clear(pin_budget_key(game.pk))


def join_leave(*, session, game: Game) -> None:
    joined = dict(session.get(JOIN_SESSION_KEY) or {})
    if joined.pop(str(game.pk), None) is not None:
        session[JOIN_SESSION_KEY] = joined
