"""GoRoD pages: the organizer's screen and the team phone. Each renders its state from the
server (so a reload loses nothing) and hands the page its socket path and state URL; all
actions go through ``gorod.api``."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _

from core.roles import is_organizer
from gorod import selectors
from gorod.models import GorodGame, Ruling
from teams.models import Game
from teams.permissions import get_team_entry


def _gorod(game_id: int) -> GorodGame:
    try:
        return selectors.gorod_game(game_id)
    except GorodGame.DoesNotExist:
        raise Http404(_("No GoRoD game here.")) from None


def _live(gg: GorodGame, kind: str, state: dict) -> dict:
    return {
        "game": gg,
        "state_json": state,
        "ws_path": f"/ws/gorod/{gg.pk}/{kind}/",
        "state_url": reverse({"organizer": "gorod:api_organizer_state",
                              "team": "gorod:api_team_state",
                              "public": "gorod:api_state"}[kind], args=[gg.pk]),
    }


def index(request):
    """Every GoRoD night with a live setup: its public statistics for all, the organizer screen
    for organizers."""
    games = GorodGame.objects.select_related("game").order_by("-game__starts_at")
    return render(request, "gorod/index.html", {
        "games": games, "organizer": is_organizer(request.user)})


@login_required
def manage(request, game_id: int):
    if not is_organizer(request.user):
        raise PermissionDenied
    gg = _gorod(game_id)
    context = _live(gg, "organizer", selectors.read_state(gg, kind="organizer"))
    context["record_url"] = reverse("gorod:api_record", args=[gg.pk]) + "?download=1"
    context["ruling_types"] = Ruling.Type.choices
    context["ruling_labels"] = {value: str(label) for value, label in Ruling.Type.choices}
    return render(request, "gorod/manage.html", context)


def play(request, game_id: int):
    game = get_object_or_404(Game, pk=game_id, format=Game.Format.GOROD)
    entry = get_team_entry(request, game.pk)
    if entry is None:
        return render(request, "gorod/join_first.html", {"game": game}, status=403)
    gg = GorodGame.objects.select_related("game").filter(pk=game.pk).first()
    if gg is None:
        # Registered and joined, but the organizers have not set the levels up yet.
        return render(request, "gorod/not_ready.html", {"game": game, "entry": entry})
    context = _live(gg, "team", selectors.read_state(gg, kind="team", application_id=entry.pk))
    context["entry"] = entry
    return render(request, "gorod/play.html", context)


def statistics(request, game_id: int):
    """Public: the finished share live, the statistics once the game is over."""
    gg = _gorod(game_id)
    return render(request, "gorod/statistics.html",
                  _live(gg, "public", selectors.read_state(gg, kind="public")))
