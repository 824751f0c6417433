"""GoRoD pages: the organizer's screen and the team phone. Each renders its state from the
server (so a reload loses nothing) and hands the page its socket path and state URL; all
actions go through ``gorod.api``."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core import exports as core_exports
from core.forms import show_form_errors
from core.roles import is_organizer, require_organizer
from gorod import exports, forms, rules, scenario, selectors, services
from gorod.models import CodeAttempt, GorodGame, PhotoProof, Route, Ruling, TaskImage
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
    games = (GorodGame.objects.select_related("game").filter(game__test_of__isnull=True)
             .order_by("-game__starts_at"))
    return render(request, "gorod/index.html", {
        "games": games, "organizer": is_organizer(request.user)})


@login_required
def manage(request, game_id: int):
    if not is_organizer(request.user):
        raise PermissionDenied
    gg = _gorod(game_id)
    context = _live(gg, "organizer", selectors.read_state(gg, kind="organizer"))
    context["record_url"] = reverse("gorod:api_record", args=[gg.pk]) + "?download=1"
    # A credited code comes from fixing a level, not from the ruling form.
    context["ruling_types"] = [c for c in Ruling.Type.choices if c[0] != Ruling.Type.CODE]
    context["ruling_labels"] = {value: str(label) for value, label in Ruling.Type.choices}
    context["verdicts"] = CodeAttempt.Verdict.choices
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
    state = selectors.read_state(gg, kind="team", application_id=entry.pk)
    if state is None:  # joined after the start: the team does not play in this game
        return render(request, "gorod/join_first.html", {"game": game}, status=403)
    context = _live(gg, "team", state)
    context["entry"] = entry
    return render(request, "gorod/play.html", context)


def statistics(request, game_id: int):
    """Public: the finished share live, the statistics once the game is over."""
    gg = _gorod(game_id)
    context = _live(gg, "public", selectors.read_state(gg, kind="public"))
    # The same rule as the export views: organizers once it started, everyone after the end.
    context["exports"] = gg.started_at is not None and (
        is_organizer(request.user) or gg.status == GorodGame.Status.FINISHED)
    # The bonus hints and messages with the statistics: for everyone once they are published.
    if context["exports"]:
        context["notes"] = exports.notes(gg, private=is_organizer(request.user))
    return render(request, "gorod/statistics.html", context)


def scenario_page(request, game_id: int):
    """The scenario after the night: every level's task, hints and codes, and the statistics.
    [decision] Public once the organizer publishes it (``services.scenario_publish``); until
    then a 404 to everyone, organizers too (they have the set-up and the organizer screen)."""
    gg = _gorod(game_id)
    if not gg.scenario_public or gg.status != GorodGame.Status.FINISHED:
        raise Http404(_("The scenario of this game is not published."))
    table = exports.statistics(gg)
    words = forms.kind_words()
    levels = [{"level": lv, "codes": forms.codes_as_text(lv.codes, words),
               "personal": _personal_codes(lv.codes)} for lv in selectors.levels(gg)]
    return render(request, "gorod/scenario.html", {
        "game": gg, "levels": levels, "header": exports.header(table),
        "rows": [[_cell_text(value) for value in row] for row in exports.rows(table)]})


def _personal_codes(spec: dict) -> list[tuple[str, str]]:
    """``(sector, "team: code, …")`` of a level's personal sectors."""
    return [(sector.get("name", ""), ", ".join(f"{team}: {code}" for team, code in
                                               (sector.get("personal") or {}).items()))
            for sector in (spec or {}).get("sectors") or () if sector.get("personal")]


def _cell_text(value) -> str:
    """A statistics cell of the exports (a time, a duration, a number, a text) as the page
    shows it."""
    if value is None:
        return ""
    if isinstance(value, timedelta):
        return core_exports.duration_text(value)
    if isinstance(value, datetime):
        return value.strftime("%H:%M:%S")
    return str(value)


# --- set-up: a GoRoD night without the admin ----------------------------------------------------



@login_required
def setup_index(request):
    """Create a GoRoD night: a new GoRoD game with its start (or the set-up of one already
    published in the teams app) and its settings; the games still in set-up are listed."""
    require_organizer(request.user)
    form = forms.GorodCreateForm(request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                gg = services.gorod_create(
                    actor=request.user, game=data["game"], title=data["title"],
                    starts_at=data["starts_at"], **form.settings())
            except services.DomainError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(request, _("The GoRoD is created: add its levels."))
                return redirect("gorod:setup", game_id=gg.pk)
        else:
            show_form_errors(request, form)
    in_setup = (GorodGame.objects.select_related("game")
                .filter(status=GorodGame.Status.SETUP, game__test_of__isnull=True)
                .order_by("game__starts_at"))
    return render(request, "gorod/setup_index.html", {
        "form": form, "in_setup": in_setup})


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


def warning_text(w: rules.SetupWarning) -> str:
    """A set-up warning worded for the page."""
    if w.kind == "hint_after_limit":
        return _("Level %(level)s: hint %(hint)d is due at %(at)s min, not before the level's "
                 "%(limit)s min limit: it will never appear.") % {
            "level": w.level, "hint": w.hint, "at": f"{w.minutes:g}",
            "limit": f"{w.limit_min:g}"}
    if w.kind == "no_code":
        return _("Level %(level)s has no code.") % {"level": w.level}
    if w.kind == "no_personal_code":
        return _("Level %(level)s has no personal code or digit for: %(teams)s.") % {
            "level": w.level, "teams": ", ".join(w.teams)}
    if w.kind == "duplicate_code":
        return _("The code %(code)s closes more than one place: levels %(levels)s.") % {
            "code": w.code, "levels": ", ".join(w.levels)}
    if w.kind == "no_route":
        return _("The team %(team)s has no route.") % {"team": w.team}
    text = _("The route of %(team)s does not visit every level once.") % {"team": w.team}
    if w.levels:
        text += " " + _("Missing: %(levels)s.") % {"levels": ", ".join(w.levels)}
    if w.extra:
        text += " " + _("Unknown or repeated: %(levels)s.") % {"levels": ", ".join(w.extra)}
    return text


def _warnings(gg: GorodGame, level_rows, teams, routes: list[dict]) -> list[str]:
    found = rules.setup_warnings(
        levels=[{"id": lv.label, "duration_min": lv.duration_min, "codes": lv.codes}
                for lv in level_rows],
        hint_offsets_min=list(gg.hint_offsets_min or []),
        teams=[a.team.name for a in teams],
        routes={r["team"]: r["levels"] for r in routes} or None)
    return [warning_text(w) for w in found]


def _level_id(request) -> int:
    try:
        return int(request.POST.get("level", ""))
    except ValueError:
        raise services.DomainError(_("There is no such level in this game.")) from None


class _Setup:
    """The set-up page's actions: each parses its form, calls one service and says what
    happened; a form that does not parse leaves its input on the page."""

    def __init__(self, request, gg: GorodGame):
        self.request, self.gg, self.user = request, gg, request.user
        self.images = list(TaskImage.objects.filter(gorod=gg).values_list("name", flat=True))
        self.add_form = forms.LevelForm(images=self.images)
        self.settings_form = forms.SettingsForm.of(gg)
        self.edit_form = None
        self.personal_forms: dict[int, forms.PersonalPartsForm] = {}

    def done(self, message: str):
        messages.success(self.request, message)
        return redirect("gorod:setup", game_id=self.gg.pk)

    def add(self):
        self.add_form = forms.LevelForm(self.request.POST, images=self.images)
        if not self.add_form.is_valid():
            return show_form_errors(self.request, self.add_form)
        data = dict(self.add_form.cleaned_data)
        data["label"] = data["label"].strip() or _free_label(self.gg)
        level = services.level_add(actor=self.user, game=self.gg, **data)
        return self.done(_("Level %(level)s is added.") % {"level": level.label})

    def edit(self):
        level = get_object_or_404(self.gg.levels, pk=_level_id(self.request))
        self.edit_form = forms.LevelForm.of(level, self.request.POST, images=self.images)
        if not self.edit_form.is_valid():
            return show_form_errors(self.request, self.edit_form)
        data = dict(self.edit_form.cleaned_data)
        data["label"] = data["label"].strip() or level.label
        data["codes"] = forms.keep_personal(data["codes"], level.codes)
        level = services.level_edit(actor=self.user, game=self.gg, level=level, **data)
        return self.done(_("Level %(level)s is saved.") % {"level": level.label})

    def move(self):
        try:
            to = int(self.request.POST.get("to", ""))
        except ValueError:
            raise services.DomainError(_("Choose where the level moves.")) from None
        services.level_move(actor=self.user, game=self.gg, level=_level_id(self.request), to=to)
        return self.done(_("The level is moved."))

    def delete(self):
        services.level_delete(actor=self.user, game=self.gg, level=_level_id(self.request))
        return self.done(_("The level is deleted."))

    def personal(self):
        level = get_object_or_404(self.gg.levels, pk=_level_id(self.request))
        form = forms.PersonalPartsForm(level, [a.team.name for a in selectors.entries(self.gg)],
                                       self.request.POST)
        self.personal_forms[level.pk] = form
        if not form.is_valid():
            return show_form_errors(self.request, form)
        services.level_edit(actor=self.user, game=self.gg, level=level, codes=form.codes())
        return self.done(_("The personal codes of level %(level)s are saved.")
                         % {"level": level.label})

    def settings(self):
        self.settings_form = forms.SettingsForm(self.request.POST)
        if not self.settings_form.is_valid():
            return show_form_errors(self.request, self.settings_form)
        services.settings_edit(actor=self.user, game=self.gg, **self.settings_form.settings())
        return self.done(_("The settings are saved."))

    def image(self):
        form = forms.ImageUploadForm(self.request.POST, self.request.FILES)
        if not form.is_valid():
            return show_form_errors(self.request, form)
        upload = form.cleaned_data["image"]
        if upload.size > services.IMAGE_MAX_BYTES:
            raise services.DomainError(_("%(name)s is larger than 5 MB.") % {"name": upload.name})
        image = services.image_add(actor=self.user, game=self.gg, name=upload.name,
                                   data=upload.read())
        return self.done(_("The image %(name)s is uploaded.") % {"name": image.name})

    def image_delete(self):
        name = self.request.POST.get("name", "")
        services.image_delete(actor=self.user, game=self.gg, name=name)
        return self.done(_("The image %(name)s is deleted.") % {"name": name})

    def routes(self):
        services.routes_generate(actor=self.user, game=self.gg)
        return self.done(_("Routes are generated."))

    def scenario(self):
        form = forms.ScenarioUploadForm(self.request.POST, self.request.FILES)
        if not form.is_valid():
            return show_form_errors(self.request, form)
        try:
            parsed = scenario.parse_scenario(scenario.loads(form.cleaned_data["file"].read()))
            services.scenario_import(actor=self.user, game=self.gg, scenario=parsed)
        except scenario.ScenarioError as exc:
            for problem in exc.problems:
                messages.error(self.request, _("The scenario is not imported: %(why)s")
                               % {"why": problem})
            return None
        n = len(parsed.levels)
        return self.done(ngettext("The scenario is imported: %(n)d level.",
                                  "The scenario is imported: %(n)d levels.", n) % {"n": n})


@login_required
def setup(request, game_id: int):
    """Everything about a GoRoD before its start: settings, levels (add, edit, move, delete),
    personal codes, routes for a non-linear game, scenario files, and the warnings to fix.
    Actions post here with ``action`` = add | edit | move | delete | personal | settings |
    routes | scenario | image | image_delete."""
    require_organizer(request.user)
    gg = _gorod(game_id)
    if gg.status != GorodGame.Status.SETUP:
        messages.warning(request, _("The game has started: its levels can no longer be changed."))
        return redirect("gorod:manage", game_id=gg.pk)
    page = _Setup(request, gg)
    if request.method == "POST":
        action = request.POST.get("action")
        handler = getattr(page, action, None) if action in _SETUP_ACTIONS else None
        if handler is None:
            messages.error(request, _("Unknown action."))
        else:
            try:
                response = handler()
            except services.DomainError as exc:
                messages.error(request, exc.message)
            else:
                if response is not None:
                    return response
        gg.refresh_from_db()
    level_rows = selectors.levels(gg)
    teams = selectors.entries(gg)
    # The level being edited: the one whose edit did not go through, or ?edit=<id>.
    editing = request.POST.get("level") if page.edit_form is not None else request.GET.get("edit")
    if page.edit_form is None and editing:
        level = next((lv for lv in level_rows if str(lv.pk) == editing), None)
        page.edit_form = forms.LevelForm.of(level, images=page.images) if level else None
    names = [a.team.name for a in teams]
    levels = []
    for lv in level_rows:
        personal = page.personal_forms.get(lv.pk)
        if personal is None and forms.personal_sectors(lv.codes):
            personal = forms.PersonalPartsForm(lv, names)
        levels.append({"level": lv, "codes": forms.codes_as_text(lv.codes, forms.kind_words()), "personal": personal,
                       "editing": page.edit_form is not None and editing == str(lv.pk)})
    routes, stale = _routes(gg, [lv.label for lv in level_rows])
    return render(request, "gorod/setup.html", {
        "game": gg, "form": page.add_form, "settings_form": page.settings_form,
        "edit_form": page.edit_form, "levels": levels, "routes": routes, "routes_stale": stale,
        "teams": teams, "warnings": _warnings(gg, level_rows, teams, routes),
        "upload_form": forms.ScenarioUploadForm(), "image_form": forms.ImageUploadForm(),
        "images": TaskImage.objects.filter(gorod=gg).only("name", "size", "content_type"),
        **_test_run_context(request, gg)})


def _test_run_context(request, gg: GorodGame) -> dict:
    """The set-up page's «Test run» card: a real game's test runs with their teams' join links
    and PINs, or, on a test run's own page, its source."""
    if gg.game.test_of_id is not None:
        return {"test_of": gg.game.test_of}
    runs = services.test_runs(gg)
    return {"test_runs": runs, "test_run_config": {
        "create": reverse("gorod:api_test_runs", args=[gg.pk]),
        "confirmReset": _("Reset this test run? Everything played in it is cleared."),
        "confirmDelete": _("Delete this test run with its test teams?"),
        "failed": _("The server did not answer: try again."),
        "maxTeams": services.TEST_RUN_MAX_TEAMS}, "speed_ups": TEST_RUN_SPEED_UPS}


#: The speed-ups the set-up page offers (the API takes any from ``rules.SPEED_UP_RANGE``).
TEST_RUN_SPEED_UPS = (1, 10, 30, 60)


_SETUP_ACTIONS = ("add", "edit", "move", "delete", "personal", "settings", "routes", "scenario",
                  "image", "image_delete")


@login_required
def task_image(request, game_id: int, name: str):
    """A task image for the organizers' set-up page (teams get theirs with their level)."""
    require_organizer(request.user)
    image = get_object_or_404(TaskImage, gorod_id=game_id, name=name)
    response = HttpResponse(bytes(image.data), content_type=image.content_type)
    response["Content-Disposition"] = f'inline; filename="{image.name}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _image_response(data, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(bytes(data), content_type=content_type)
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, no-store"
    return response


def team_image(request, game_id: int, level: str, name: str):
    """A task image for a team's phone: only of a level the team has received (its current or
    a closed one), so a phone cannot read a later level's picture before its time."""
    gg = _gorod(game_id)
    entry = get_team_entry(request, gg.pk)
    if entry is None:
        raise PermissionDenied
    if level not in selectors.team_level_labels(gg, entry.pk):
        raise Http404(_("No such image for your team."))
    row = get_object_or_404(gg.levels, label=level)
    if name not in (row.images or []):
        raise Http404(_("No such image for your team."))
    image = get_object_or_404(TaskImage, gorod=gg, name=name)
    return _image_response(image.data, image.content_type, image.name)


@login_required
def photo(request, game_id: int, photo_id: int):
    """A team's photo proof, for the organizers who judge it."""
    require_organizer(request.user)
    proof = get_object_or_404(PhotoProof, gorod_id=game_id, pk=photo_id)
    return _image_response(proof.data, proof.content_type, f"photo-{proof.pk}")


@login_required
def scenario_download(request, game_id: int, fmt: str):
    """The game's scenario file (organizers), ``fmt`` yaml or json."""
    require_organizer(request.user)
    gg = _gorod(game_id)
    text = scenario.dumps(scenario.scenario_dict(scenario.scenario_of(gg)), fmt)
    kind = "application/json" if fmt == "json" else "application/yaml"
    return _file(text.encode(), f"{kind}; charset=utf-8", f"gorod-{gg.pk}-scenario.{fmt}")


# --- statistics exports ---------------------------------------------------------------------


def _file(content: bytes, content_type: str, filename: str) -> HttpResponse:
    return core_exports.attachment(content, content_type, filename)


def _statistics_table(request, game_id: int) -> tuple[GorodGame, dict]:
    gg = _gorod(game_id)
    if not is_organizer(request.user) and gg.status != GorodGame.Status.FINISHED:
        raise PermissionDenied
    try:
        return gg, exports.statistics(gg)
    except services.DomainError:
        raise Http404(_("No statistics before the start.")) from None


def statistics_csv(request, game_id: int):
    """The statistics table as CSV: organizers at any time, everyone after the game."""
    gg, table = _statistics_table(request, game_id)
    return _file(exports.to_csv(table), core_exports.CSV_TYPE,
                 f"gorod-{gg.pk}-statistics.csv")


def statistics_xlsx(request, game_id: int):
    """The statistics table as an XLSX workbook with typed cells (times, durations, numbers)."""
    gg, table = _statistics_table(request, game_id)
    return _file(exports.to_xlsx(table), exports.XLSX, f"gorod-{gg.pk}-statistics.xlsx")
