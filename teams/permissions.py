"""Who may do what with teams, for pages and the API.

- Organizers (``core.roles.is_organizer``) may do everything.
- A team's captain manages that team: name, roster with private data, applications, ledger,
  the join link and PIN. [decision] The captain sees and edits their own members' private data.
- A team phone (a browser joined with the link or PIN) acts for its team in one game only:
  ``get_team_entry(request, game)``; it never sees private data.
- Hosts have no extra rights here; everybody else sees public data only (team names and
  nicknames, game list).
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import AllowAny, BasePermission

from core.api import ServiceAPIView
from core.permissions import IsOrganizer  # noqa: F401 - re-exported for the teams API
from core.roles import is_organizer
from teams.models import Application, Game, Team
from teams.selectors import team_entry_for_session


def can_manage_team(user, team: Team) -> bool:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return team.captain_id == user.pk or is_organizer(user)


can_see_private = can_manage_team


def can_manage_application(user, application: Application) -> bool:
    return can_manage_team(user, application.team)


def redirect_to_join(request, game: Game):
    """A game's team page opened by a phone that has not joined: the join page, with the game
    chosen and a message saying why (rather than a bare 403)."""
    messages.info(request, _("This phone has not joined a team of «%(game)s» yet. Open your "
                             "team's link (or scan its QR code), or enter the team's PIN here.")
                  % {"game": game.title})
    return redirect(f"{reverse('teams:join')}?game={game.pk}")


def get_team_entry(request, game: Game | int) -> Application | None:
    """The approved application the requesting browser plays for in ``game`` (cached on the
    request), or None."""
    game_id = game if isinstance(game, int) else game.pk
    cache = getattr(request, "_teams_entries", None)
    if cache is None:
        cache = {}
        try:
            request._teams_entries = cache
        except AttributeError:  # pragma: no cover - exotic request objects
            pass
    if game_id not in cache:
        session = getattr(request, "session", None)
        cache[game_id] = team_entry_for_session(session, game_id)
    return cache[game_id]


def _view_game(view) -> Game:
    getter = getattr(view, "get_game", None)
    if callable(getter):
        return getter()
    kwargs = getattr(view, "kwargs", {}) or {}
    pk = kwargs.get("game_id", kwargs.get("game_pk", kwargs.get("game")))
    return get_object_or_404(Game, pk=pk)


class IsTeamPhone(BasePermission):
    """The request comes from a browser joined to a team for the view's game.

    The view provides the game with ``get_game()`` or a ``game_id`` URL argument. On success
    the entry is available as ``get_team_entry(request, game)``.
    """

    message = "Join your team first (open the team's link or enter its PIN)."

    def has_permission(self, request, view) -> bool:
        return get_team_entry(request, _view_game(view)) is not None


class TeamPhoneAPIView(ServiceAPIView):
    """A team phone's endpoint of a live game (URL kwarg ``game_id``): authorised by the
    session's team binding, not by a login; ``self.entry`` is the team's application."""

    permission_classes = [AllowAny]

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        # DRF checks CSRF only for logged-in users; a phone is anonymous but its session is
        # its credential, so a foreign page must not be able to act for it.
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            SessionAuthentication().enforce_csrf(request)
        self.entry = get_team_entry(request, self.kwargs["game_id"])
        if self.entry is None:
            raise PermissionDenied(_("Join your team first (open the team's link or its PIN)."))
