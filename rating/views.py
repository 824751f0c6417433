"""Rating pages: a game's results (public; organizers publish, edit the table, finalize and
re-open; captains vote and protest), the seasons with their tables, chart, team and player
pages (public), the exports, and the season record download (organizers).

Views authorize, parse a form, call one service and show its refusal as a message.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core import engine_messages
from core.formats import disputes, finish_label
from core.records import RecordError
from core.roles import is_organizer, require_organizer
from rating import exports, forms, presentation, rules, selectors, services
from rating.models import PROTEST_TEXT_MAX, VOTE_CHOICES, Protest, Season
from teams.models import Game, Member, Team


def results(request, game_id: int):
    game = get_object_or_404(Game.objects.select_related("organizing_team"), pk=game_id)
    result = selectors.game_result(game)
    organizer = is_organizer(request.user)
    now = timezone.now()
    context = {"game": game, "result": result, "organizer": organizer,
               "seasons": game.seasons.all(), "vote_choices": VOTE_CHOICES,
               # the public reads the appeals with the published results; the organizer, who
               # publishes them, before, an appeal still open among them
               "disputes": disputes(game) if result is not None or organizer else []}
    if organizer:
        played = [row.team_id for row in result.rows.all()] if result else []
        context["organizer_choices"] = Team.objects.exclude(pk__in=played).order_by("name")
    if result is not None:
        rows = selectors.ordered_rows(result)
        points = selectors.result_points(result)
        context.update({
            "rows": rows,
            "table_html": presentation.table_html(
                presentation.results_table(result, points), "results"),
            "points_errors": [p for p in points if p.error],
            "organizer_points": [(p.season, p.points.get(game.organizing_team_id))
                                 for p in points if game.organizing_team_id and not p.error],
            "finish": finish_label(result.finish_reason),
            "ended_at": selectors.game_ended_at(result),
            "final_due": selectors.final_due(result),
            "final_early": rules.final_is_early(selectors.game_ended_at(result), now),
            "changes": selectors.changes(result) if organizer else [],
        })
        context.update(_protest_context(request.user, result, rows, organizer, now))
        context.update(_vote_context(request.user, result, rows, organizer, now))
    return render(request, "rating/results.html", context)


def _protest_context(user, result, rows, organizer: bool, now) -> dict:
    """The protests (public), and the teams this user may protest for now: a playing team's
    captain its own, an organizer any playing team — while results are preliminary and the
    12 h after the game's end last."""
    deadline = selectors.protest_deadline(result)
    open_window = not result.is_final and rules.protest_open(selectors.game_ended_at(result), now)
    teams = [row.team for row in rows
             if open_window and (organizer or services.is_captain(user, row.team))]
    own = {row.team_id for row in rows if services.is_captain(user, row.team)}
    return {"protests": selectors.protests(result, now), "protest_teams": teams,
            "protest_deadline": deadline, "own_team_ids": own,
            "protest_max": PROTEST_TEXT_MAX}


def _vote_context(user, result, rows, organizer: bool, now) -> dict:
    """The vote on the organizing team: the organizer sees every team's vote and who gave
    it; a playing team's captain sees and gives their own, within 72 h, while preliminary."""
    if result.game.organizing_team_id is None:
        return {}
    votes = {v.team_id: v for v in result.votes.all()}
    given = [v.value for v in votes.values() if v.value is not None]
    open_window = not result.is_final and rules.vote_open(selectors.game_ended_at(result), now)
    mine = [(row.team, votes.get(row.team_id)) for row in rows
            if services.is_captain(user, row.team)]
    return {
        "vote_rows": [(row.team, votes.get(row.team_id)) for row in rows] if organizer else [],
        "vote_count": len(given), "vote_teams": len(rows),
        "vote_deadline": selectors.vote_deadline(result),
        "my_votes": mine, "vote_open": open_window,
    }


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
            services.results_finalize(actor=request.user, game=game,
                                      early=request.POST.get("early") == "on",
                                      reason=request.POST.get("reason", ""))
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
def table_set(request, game_id: int):
    require_organizer(request.user)
    game = get_object_or_404(Game, pk=game_id)
    result = selectors.game_result(game)
    if result is None:
        raise Http404
    rows = forms.table_rows(request.POST, [row.team_id for row in result.rows.all()])
    try:
        services.results_table_set(actor=request.user, game=game, rows=rows)
    except services.DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The table is saved."))
    return redirect("rating:results", game_id=game.pk)


@login_required
@require_POST
def organizer_set(request, game_id: int):
    require_organizer(request.user)
    game = get_object_or_404(Game, pk=game_id)
    team_id = forms.number(request.POST.get("team"))
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
def vote_cast(request, game_id: int, team_id: int):
    game = get_object_or_404(Game, pk=game_id)
    try:
        services.vote_cast(actor=request.user, game=game, team=team_id,
                           value=forms.number(request.POST.get("value")))
    except services.DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Your vote is counted."))
    return redirect("rating:results", game_id=game.pk)


@login_required
@require_POST
def protest_file(request, game_id: int):
    game = get_object_or_404(Game, pk=game_id)
    team_id = forms.number(request.POST.get("team"))
    team = get_object_or_404(Team, pk=team_id if isinstance(team_id, int) else 0)
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


def _export(table: presentation.Table, name: str, ext: str, title: str) -> HttpResponse:
    # The file type follows the URL, never the Accept header: a link always downloads.
    if ext == "csv":
        return exports.csv_response(table, f"{name}.csv")
    return exports.xlsx_response(table, f"{name}.xlsx", title)


def results_export(request, game_id: int, ext: str):
    game = get_object_or_404(Game, pk=game_id)
    result = selectors.game_result(game)
    if result is None:
        raise Http404(_("The results of this game are not published yet."))
    table = presentation.results_table(result, selectors.result_points(result))
    return _export(table, f"results-{game.pk}", ext, _("Results"))


def seasons(request):
    organizer = is_organizer(request.user)
    return render(request, "rating/seasons.html", {
        "seasons": Season.objects.all(), "organizer": organizer,
        "formats": Game.Format.choices,
        "desk": selectors.organizer_desk(timezone.now()) if organizer else None})


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


def _season_data(request, season: Season) -> dict | None:
    try:
        return selectors.season_data(season)
    except RecordError as exc:  # e.g. a scale broken in the admin: say so, do not crash
        messages.error(request, _("The season table cannot be computed: %(error)s")
                       % {"error": engine_messages.translate(exc)})
        return None


def season(request, season_id: int):
    season = get_object_or_404(Season, pk=season_id)
    organizer = is_organizer(request.user)
    data = _season_data(request, season)
    context = {
        "season": season, "organizer": organizer, "data": data,
        "games": season.games.order_by("starts_at", "pk").select_related("result"),
    }
    if data is not None:
        table = presentation.season_table(season, data)
        names = {row["team"]: row_.cells[1].text for row, row_ in zip(data["teams"], table.rows,
                                                                         strict=True)}
        players = presentation.players_table(season, data)
        unregistered = presentation.unregistered_table(data)
        context.update({
            "unregistered": unregistered,
            "unregistered_html": unregistered and presentation.table_html(
                unregistered, "players-unregistered"),
            "table": table,
            "table_html": presentation.table_html(table, "season-table", _("No final results yet.")),
            "players": players,
            "players_html": players and presentation.table_html(players, "players-table"),
            "chart": presentation.season_chart(data, names),
            "final_games": len(data["games"])})
    if organizer:
        context["candidates"] = (Game.objects.filter(format=season.format, rated=True)
                                 .exclude(pk__in=season.games.values("pk"))
                                 .order_by("-starts_at"))
    return render(request, "rating/season.html", context)


def season_team(request, season_id: int, team_id: int):
    season = get_object_or_404(Season, pk=season_id)
    team = get_object_or_404(Team, pk=team_id)
    data = _season_data(request, season) or {"teams": [], "games": []}
    standing = next((row for row in data["teams"] if row["team"] == team.pk), None)
    games = [(g, g["teams"][team.pk]) for g in data["games"] if team.pk in g["teams"]]
    return render(request, "rating/season_team.html", {
        "season": season, "team": team, "standing": standing, "games": games})


def season_player(request, season_id: int, member_id: int):
    """A roster entry's season: the line of its profile when it has one (rule 2.6: the person,
    across teams), else a note that the entry is not registered and not ranked."""
    season = get_object_or_404(Season, pk=season_id)
    member = get_object_or_404(Member.objects.select_related("team", "user"), pk=member_id)
    data = _season_data(request, season) or {"players": [], "games": []}
    key = member.user_id
    standing = next((row for row in data["players"] or [] if row["player"] == key), None)
    games = [(g, g["players"][key]) for g in data["games"] if key in g["players"]]
    names = selectors.team_names(line["team"] for _g, line in games)
    return render(request, "rating/season_player.html", {
        "season": season, "member": member, "standing": standing,
        "profile_name": key and selectors.profiles([key]).get(key),
        "games": [(g, line, names.get(line["team"], "?")) for g, line in games]})


def player(request, user_id: int):
    """A player's page (public): their profile's name and, season by season, the games that
    counted with their points and those that did not (rule 2.6). Only a profile linked to a
    roster entry has one: an account that never played is nobody's business."""
    user = get_object_or_404(get_user_model().objects.filter(memberships__isnull=False)
                             .distinct(), pk=user_id, is_active=True)
    return render(request, "rating/player.html", {
        "name": selectors.profiles([user.pk]).get(user.pk, "?"),
        "seasons": selectors.player_seasons(user)})


def season_export(request, season_id: int, what: str, ext: str):
    season = get_object_or_404(Season, pk=season_id)
    try:
        data = selectors.season_data(season)
    except RecordError as exc:
        return HttpResponse(engine_messages.translate(exc), status=409, content_type="text/plain; charset=utf-8")
    if what == "table":
        table = presentation.season_table(season, data)
        title = _("Season table")
    else:
        table = presentation.players_table(season, data)
        if table is None:
            raise Http404(_("This season has no players' table."))
        title = _("Players")
    return _export(table, f"season-{season.pk}-{what}", ext, title)


@login_required
@require_POST
def season_game(request, season_id: int):
    require_organizer(request.user)
    season = get_object_or_404(Season, pk=season_id)
    game_id = forms.number(request.POST.get("game"))
    game = get_object_or_404(Game, pk=game_id if isinstance(game_id, int) else 0)
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
