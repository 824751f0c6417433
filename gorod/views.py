"""GoRoD pages: the organizer's screen and the team phone. Each renders its state from the
server (so a reload loses nothing) and hands the page its socket path and state URL; all
actions go through ``gorod.api``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from core.roles import is_organizer, require_organizer
from gorod import forms, selectors, services
from gorod.models import GorodGame, Route, Ruling
from teams.models import Game
from teams.permissions import get_team_entry, redirect_to_join


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
        return redirect_to_join(request, game)
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


# --- set-up: a GoRoD night without the admin ----------------------------------------------------


def _form_errors(request, form) -> None:
    for field, errors in form.errors.items():
        label = form.fields[field].label if field in form.fields else ""
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else error)


@login_required
def setup_index(request):
    """Create the GoRoD of a scheduled GoRoD game; the games still in set-up are listed."""
    require_organizer(request.user)
    form = forms.GorodCreateForm(request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                gg = services.gorod_create(
                    actor=request.user, game=data["game"],
                    hint_offsets_min=(data["hint1_min"], data["hint2_min"]),
                    sliv_penalty_min=data["sliv_penalty_min"],
                    max_duration_h=data["max_duration_h"], max_wrong=data["max_wrong"],
                    wrong_window_s=data["wrong_window_s"])
            except services.DomainError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(request, _("The GoRoD is created: add its levels."))
                return redirect("gorod:setup", game_id=gg.pk)
        else:
            _form_errors(request, form)
    in_setup = (GorodGame.objects.select_related("game")
                .filter(status=GorodGame.Status.SETUP).order_by("game__starts_at"))
    return render(request, "gorod/setup_index.html", {
        "form": form, "has_games": form.fields["game"].queryset.exists(), "in_setup": in_setup})


def _routes(gg: GorodGame, labels: list[str]) -> tuple[list[dict], bool]:
    """Each team's route and whether the routes still cover exactly the levels."""
    routes = [{"team": r.application.team.name, "levels": list(r.levels)}
              for r in Route.objects.filter(gorod=gg).select_related("application__team")
              .order_by("application_id")]
    stale = any(sorted(r["levels"]) != sorted(labels) for r in routes)
    return routes, stale


def _free_label(gg: GorodGame) -> str:
    """[decision] An empty level id is the level's number, or the next number not taken (after
    a deletion the number of the new last level may already be some level's id)."""
    taken = set(gg.levels.values_list("label", flat=True))
    number = len(taken) + 1
    while str(number) in taken:
        number += 1
    return str(number)


@login_required
def setup(request, game_id: int):
    """The levels of a GoRoD before its start: list, add, delete; routes for a non-linear game.
    Actions post here with ``action`` = add | delete | routes."""
    require_organizer(request.user)
    gg = _gorod(game_id)
    if gg.status != GorodGame.Status.SETUP:
        messages.warning(request, _("The game has started: its levels can no longer be changed."))
        return redirect("gorod:manage", game_id=gg.pk)
    form = forms.LevelForm()
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "add":
                form = forms.LevelForm(request.POST)
                if not form.is_valid():
                    _form_errors(request, form)
                else:
                    data = dict(form.cleaned_data)
                    data["label"] = data["label"].strip() or _free_label(gg)
                    level = services.level_add(actor=request.user, game=gg, **data)
                    messages.success(request, _("Level %(level)s is added.")
                                     % {"level": level.label})
                    return redirect("gorod:setup", game_id=gg.pk)
            elif action == "delete":
                try:
                    level_id = int(request.POST.get("level", ""))
                except ValueError:
                    raise services.DomainError(_("There is no such level in this game.")) from None
                services.level_delete(actor=request.user, game=gg, level=level_id)
                messages.success(request, _("The level is deleted."))
                return redirect("gorod:setup", game_id=gg.pk)
            elif action == "routes":
                services.routes_generate(actor=request.user, game=gg)
                messages.success(request, _("Routes are generated."))
                return redirect("gorod:setup", game_id=gg.pk)
            else:
                messages.error(request, _("Unknown action."))
        except services.DomainError as exc:
            messages.error(request, exc.message)
    levels = [{"level": lv, "codes": forms.codes_as_text(lv.codes)}
              for lv in selectors.levels(gg)]
    routes, stale = _routes(gg, [row["level"].label for row in levels])
    return render(request, "gorod/setup.html", {
        "game": gg, "form": form, "levels": levels, "routes": routes, "routes_stale": stale,
        "teams": selectors.entries(gg)})
