"""Rating pages: a game's results (public; organizers publish, finalize, re-open and edit),
the seasons and their tables (public), and the season record download (organizers).

Views authorize, parse a form, call one service and show its refusal as a message.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.records import RecordError
from core.roles import is_organizer, require_organizer
from rating import selectors, services
from rating.models import PROTEST_TEXT_MAX, VOTE_CHOICES, Protest, Season
from teams.models import Game, Team


def _int(value: str | None) -> int | None:
    value = (value or "").strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        return -1  # the service refuses it with its own message


def results(request, game_id: int):
    game = get_object_or_404(Game, pk=game_id)
    result = selectors.game_result(game)
    organizer = is_organizer(request.user)
    rows = selectors.ordered_rows(result) if result else []
    votes = {v.team_id: v.value for v in result.votes.all()} if result else {}
    context = {
        "game": game, "result": result, "rows": rows, "organizer": organizer,
        "votes": [(row.team, votes.get(row.team_id)) for row in rows],
        "vote_choices": VOTE_CHOICES,
        "seasons": game.seasons.all(),
    }
    if organizer and result is not None:
        played = [row.team_id for row in rows]
        context["organizer_choices"] = Team.objects.exclude(pk__in=played).order_by("name")
    if result is not None:
        context.update(_protest_context(request.user, result, rows, organizer))
    return render(request, "rating/results.html", context)


def _protest_context(user, result, rows, organizer: bool) -> dict:
    """The protests (public), and the teams this user may protest for now: a playing team's
    captain its own, an organizer any playing team — while results are preliminary and the
    12 h after the game's end last."""
    deadline = selectors.protest_deadline(result)
    open_window = not result.is_final and timezone.now() <= deadline
    teams = [row.team for row in rows
             if open_window and (organizer or services.is_captain(user, row.team))]
    own = {row.team_id for row in rows if services.is_captain(user, row.team)}
    return {"protests": selectors.protests(result), "protest_teams": teams,
            "protest_deadline": deadline, "own_team_ids": own,
            "protest_max": PROTEST_TEXT_MAX}


ACTIONS = ("publish", "finalize", "reopen")


@login_required
@require_POST
def results_action(request, game_id: int, action: str):
    require_organizer(request.user)
    game = get_object_or_404(Game, pk=game_id)
    if action not in ACTIONS:
        raise PermissionDenied
    try:
        if action == "publish":
            services.results_publish(actor=request.user, game=game)
            messages.success(request, _("Preliminary results are published."))
        elif action == "finalize":
            services.results_finalize(actor=request.user, game=game)
            messages.success(request, _("The results are final."))
        else:
            services.results_reopen(actor=request.user, game=game,
                                    reason=request.POST.get("reason", ""))
            messages.success(request, _("The results are preliminary again."))
    except services.DomainError as exc:
        messages.error(request, exc.message)
    return redirect("rating:results", game_id=game.pk)


@login_required
@require_POST
def row_set(request, game_id: int, team_id: int):
    require_organizer(request.user)
    game = get_object_or_404(Game, pk=game_id)
    disqualified = request.POST.get("disqualified") == "on"
    try:
        services.result_row_set(
            actor=request.user, game=game, team=team_id, disqualified=disqualified,
            place=None if disqualified else _int(request.POST.get("place")),
            deduction=_int(request.POST.get("deduction")) or 0)
    except services.DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Saved."))
    return redirect("rating:results", game_id=game.pk)


@login_required
@require_POST
def organizer_set(request, game_id: int):
    require_organizer(request.user)
    game = get_object_or_404(Game, pk=game_id)
    team_id = _int(request.POST.get("team"))
    team = get_object_or_404(Team, pk=team_id) if team_id else None
    try:
        services.organizer_set(actor=request.user, game=game, team=team)
    except services.DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Saved."))
    return redirect("rating:results", game_id=game.pk)


@login_required
@require_POST
def vote_set(request, game_id: int, team_id: int):
    require_organizer(request.user)
    game = get_object_or_404(Game, pk=game_id)
    try:
        services.vote_set(actor=request.user, game=game, team=team_id,
                          value=_int(request.POST.get("value")))
    except services.DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Saved."))
    return redirect("rating:results", game_id=game.pk)


@login_required
@require_POST
def protest_file(request, game_id: int):
    game = get_object_or_404(Game, pk=game_id)
    team = get_object_or_404(Team, pk=_int(request.POST.get("team")) or 0)
    try:
        services.protest_file(actor=request.user, game=game, team=team,
                              text=request.POST.get("text", ""))
    except services.DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The protest is filed; the organizer answers within 24 hours."))
    return redirect("rating:results", game_id=game.pk)


@login_required
@require_POST
def protest_answer(request, game_id: int, protest_id: int):
    require_organizer(request.user)
    protest = get_object_or_404(Protest, pk=protest_id, result__game_id=game_id)
    try:
        services.protest_answer(actor=request.user, protest=protest,
                                upheld=request.POST.get("upheld") == "1",
                                answer=request.POST.get("answer", ""))
    except services.DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The protest is answered."))
    return redirect("rating:results", game_id=game_id)


def seasons(request):
    return render(request, "rating/seasons.html", {
        "seasons": Season.objects.all(), "organizer": is_organizer(request.user),
        "formats": Game.Format.choices})


@login_required
@require_POST
def season_create(request):
    require_organizer(request.user)
    try:
        season = services.season_create(actor=request.user, title=request.POST.get("title", ""),
                                        format=request.POST.get("format", ""))
    except services.DomainError as exc:
        messages.error(request, exc.message)
        return redirect("rating:seasons")
    return redirect("rating:season", season_id=season.pk)


def season(request, season_id: int):
    season = get_object_or_404(Season, pk=season_id)
    organizer = is_organizer(request.user)
    try:
        table = selectors.season_table(season)["teams"]
    except RecordError as exc:  # e.g. a scale broken in the admin: say so, do not crash
        messages.error(request, _("The season table cannot be computed: %(error)s")
                       % {"error": exc})
        table = []
    context = {
        "season": season, "table": table,
        "results": selectors.season_results(season), "organizer": organizer,
        "games": season.games.order_by("starts_at", "pk").select_related("result"),
    }
    if organizer:
        context["candidates"] = (Game.objects.filter(format=season.format, rated=True)
                                 .exclude(pk__in=season.games.values("pk"))
                                 .order_by("-starts_at"))
    return render(request, "rating/season.html", context)


@login_required
@require_POST
def season_game(request, season_id: int):
    require_organizer(request.user)
    season = get_object_or_404(Season, pk=season_id)
    game = get_object_or_404(Game, pk=_int(request.POST.get("game")) or 0)
    try:
        if request.POST.get("remove"):
            services.season_game_remove(actor=request.user, season=season, game=game)
        else:
            services.season_game_add(actor=request.user, season=season, game=game)
    except services.DomainError as exc:
        messages.error(request, exc.message)
    return redirect("rating:season", season_id=season.pk)


@login_required
def season_record(request, season_id: int):
    require_organizer(request.user)
    season = get_object_or_404(Season, pk=season_id)
    body = json.dumps(selectors.season_record(season), ensure_ascii=False, indent=2)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="season-{season.pk}.json"'
    return response
