"""Sockets follow permissions: a change of who may watch a stream reaches the sockets already
open, not only the next handshake.

Every team socket listens on its application's control group and every staff socket (a King
of the Hill host, a GoRoD organizer) on its user's. A service that takes a right away (a
binding revoked, an application rejected or withdrawn, a role or a host assignment removed, a
log-out) asks those sockets, after its commit, to check their right again
(``live.consumers.GameStateConsumer.control_recheck``): each re-reads its session from the
store and its user, authorises again, and closes with 4403 when the right is gone. Rechecking
rather than closing keeps the sockets that still have their right (a host's other games, the
same team's other phones after a PIN change are closed because their binding is stale, not
because of the message).

The message is sent before any state push of the same commit, so on one channel it arrives
first: a socket that loses its right never forwards the state that followed.
"""

from __future__ import annotations

from django.db import transaction

from core.realtime import send_to_groups

RECHECK = "control.recheck"


def application_group(application_id: int) -> str:
    """The control group of every socket of one team's phones for one game."""
    return f"control.application.{application_id}"


def user_group(user_id: int) -> str:
    """The control group of every staff socket of one user."""
    return f"control.user.{user_id}"


def _after_commit(groups: list[str], **extra) -> None:
    message = {"type": RECHECK, **extra}
    transaction.on_commit(lambda: send_to_groups([(group, message) for group in groups]))


def recheck_application(application_id: int) -> None:
    """After the commit, the team's sockets check their binding again."""
    _after_commit([application_group(application_id)])


def recheck_user(user_id: int, *, logged_out_session: str | None = None) -> None:
    """After the commit, the user's staff sockets check their right again; the sockets of
    ``logged_out_session`` close whatever their session still says (Django sends
    ``user_logged_out`` before it empties the session)."""
    extra = {"session": logged_out_session} if logged_out_session else {}
    _after_commit([user_group(user_id)], **extra)


def on_logged_out(sender, request, user, **kwargs) -> None:
    """``user_logged_out`` receiver: the session's staff sockets close."""
    if user is None:
        return
    session = getattr(request, "session", None)
    recheck_user(user.pk, logged_out_session=getattr(session, "session_key", None))
