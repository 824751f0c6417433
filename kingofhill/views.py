"""King of the Hill pages: the organizer's list and set-up, the host console, the team phone
and the projector. Each renders its state from the server (so a reload loses nothing) and
hands the page its socket path and state URL; all actions go through ``kingofhill.api``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from core import images
from core.converters import ID_MAX
from core.errors import DomainError, NotAllowed
from core.roles import is_host, is_organizer
from kingofhill import bank, bank_edits, forms, rules, screens, selectors, services
from kingofhill.models import KothGame, Shown
from kingofhill.states import PHONES
from teams.models import Game
from teams.permissions import get_team_entry, redirect_to_join


def _koth(game_id: int) -> KothGame:
    try:
        return selectors.koth_game(game_id)
    except KothGame.DoesNotExist:
        raise Http404(_("No King of the Hill game here.")) from None


def _live(koth: KothGame, kind: str, state: dict, *, application_id: int | None = None) -> dict:
    base = f"/ws/koth/{koth.pk}/"
    state_urls = {
        "public": reverse("kingofhill:api_state", args=[koth.pk]),
        "host": reverse("kingofhill:api_host_state", args=[koth.pk]),
        "team": reverse("kingofhill:api_team_state", args=[koth.pk]),
    }
    return {
        "game": koth,
        "state_json": state,
        "ws_path": base + {"public": "public/", "host": "host/", "team": "team/"}[kind],
        "state_url": state_urls[kind],
        "reason_labels": selectors.reason_labels(),
    }


def index(request):
    """Every King of the Hill board: projectors for all, host consoles for hosts, new boards
    for organizers (as ``/gorod/`` is)."""
    hosted = selectors.hosted_game_ids(request.user)  # None: every game (an organizer)
    games = list(KothGame.objects.select_related("game")
                 .exclude(game__status=Game.Status.CANCELLED).order_by("-game__starts_at"))
    for koth in games:
        koth.can_host = hosted is None or koth.pk in hosted
    free = Game.objects.filter(format=Game.Format.KINGOFHILL, koth__isnull=True).exclude(
        status=Game.Status.CANCELLED).order_by("-starts_at")
    return render(request, "kingofhill/index.html", {
        "games": games,
        "free_games": free if is_organizer(request.user) else [],
    })


@login_required
@require_http_methods(["POST"])
def create(request):
    if not is_organizer(request.user):
        raise PermissionDenied
    try:
        game = Game.objects.get(pk=int(request.POST.get("game", "")))
        koth = services.koth_create(
            actor=request.user, game=game,
            summit=int(request.POST.get("summit") or rules.DEFAULT_SUMMIT),
            main_questions=int(request.POST.get("main_questions")
                               or rules.DEFAULT_MAIN_QUESTIONS),
            reserve_questions=int(request.POST.get("reserve_questions")
                                  or rules.DEFAULT_RESERVE_QUESTIONS),
            answers_after_zero=request.POST.get("answers_after_zero") == "on")
    except (ValueError, Game.DoesNotExist):
        messages.error(request, _("Choose a game and give whole numbers."))
        return redirect("kingofhill:index")
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("kingofhill:index")
    messages.success(request, _("The King of the Hill board is ready."))
    return redirect("kingofhill:host", game_id=koth.pk)


@login_required
def host(request, game_id: int):
    if not is_host(request.user):
        raise PermissionDenied
    koth = _koth(game_id)
    if not selectors.can_host(request.user, koth):
        raise PermissionDenied
    context = _live(koth, "host", selectors.read_state(koth, kind="host"))
    organizer = is_organizer(request.user)
    context["can_download"] = organizer
    if organizer:
        context["hosts"] = selectors.game_hosts(koth)
        context["host_candidates"] = selectors.host_candidates(koth)
    context["record_url"] = reverse("kingofhill:api_record", args=[koth.pk]) + "?download=1"
    context["shown_choices"] = Shown.choices
    return render(request, "kingofhill/host.html", context)


@login_required
@require_http_methods(["POST"])
def hosts(request, game_id: int):
    """The organizer's "Hosts of this game" form on the console: assign or take off one."""
    if not is_organizer(request.user):
        raise PermissionDenied
    koth = _koth(game_id)
    user = User.objects.filter(pk=_int_or_none(request.POST.get("user")), is_active=True).first()
    if user is None:
        messages.error(request, _("Choose an account."))
        return redirect("kingofhill:host", game_id=koth.pk)
    assigned = request.POST.get("assigned") == "1"
    try:
        services.host_assign(actor=request.user, game=koth, user=user, assigned=assigned)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, (_("%(user)s hosts this game.") if assigned
                                   else _("%(user)s no longer hosts this game."))
                         % {"user": user.get_username()})
    return redirect("kingofhill:host", game_id=koth.pk)


def _int_or_none(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number <= ID_MAX else None


def play(request, game_id: int):
    koth = _koth(game_id)
    entry = get_team_entry(request, koth.pk)
    if entry is None:
        return redirect_to_join(request, koth.game)
    state = selectors.read_state(koth, kind="team", application_id=entry.pk)
    if state is None:  # joined after the start: the team does not play in this game
        return render(request, "kingofhill/join_first.html", {"game": koth}, status=403)
    context = _live(koth, "team", state, application_id=entry.pk)
    context["entry"] = entry
    return render(request, "kingofhill/play.html", context)


def projector(request, game_id: int):
    koth = _koth(game_id)
    return render(request, "kingofhill/projector.html",
                  _live(koth, "public", selectors.read_state(koth, kind="public")))


@login_required
def question_bank(request, game_id: int):
    """The question bank of one game: the host (or organizer) prepares questions before the
    evening by a form or by importing a file; the announcement takes the next unused one.
    Actions post here with ``action`` = add | import | delete | edit | move; ``?edit=<id>``
    opens a question's edit form."""
    koth = _koth(game_id)
    if not selectors.can_host(request.user, koth):
        raise PermissionDenied
    add_form, import_form = forms.BankQuestionForm(), forms.BankImportForm()
    listing = selectors.bank_listing(koth)
    editing = _editing(listing, request.GET.get("edit"))
    edit_form = forms.BankEditForm(initial=forms.BankQuestionForm.initial_of(editing)) \
        if editing else None
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "edit":
                editing = _editing(listing, request.POST.get("prepared"))
                edit_form = forms.BankEditForm(request.POST)
                if editing is None:
                    raise DomainError(_("This question is not in the queue any more: it was "
                                        "announced or removed."))
                if edit_form.is_valid():
                    bank_edits.bank_question_edit(actor=request.user, game=koth,
                                                  prepared=editing["id"], **edit_form.question())
                    messages.success(request, _("The question is changed."))
                    return redirect("kingofhill:bank", game_id=koth.pk)
            elif action == "move":
                moved = bank_edits.bank_question_move(
                    actor=request.user, game=koth, prepared=_int(request.POST.get("prepared")),
                    to=_int(request.POST.get("to")))
                messages.success(request, _("The question is moved."))
                # Back at the moved question: the next "up" or "down" is one key away.
                return redirect(f"{reverse('kingofhill:bank', args=[koth.pk])}#bank-q{moved.pk}")
            elif action == "image":
                upload = None if request.POST.get("remove") == "1" else request.FILES.get("image")
                if upload is None and request.POST.get("remove") != "1":
                    raise DomainError(_("Choose a picture to upload."))
                image = None if upload is None else screens.checked_image(
                    upload.read(images.MAX_BYTES + 1), str(upload.name)[:100])
                screens.bank_image_set(actor=request.user, game=koth,
                                       prepared=_int(request.POST.get("prepared")), image=image)
                messages.success(request, _("The picture is saved.") if image
                                 else _("The picture is removed."))
                return redirect(f"{reverse('kingofhill:bank', args=[koth.pk])}#bank-q"
                                f"{_int(request.POST.get('prepared'))}")
            elif action == "add":
                add_form = forms.BankQuestionForm(request.POST)
                if add_form.is_valid():
                    services.bank_question_add(actor=request.user, game=koth,
                                               **add_form.question())
                    messages.success(request, _("The question is added to the bank."))
                    return redirect("kingofhill:bank", game_id=koth.pk)
            elif action == "import":
                import_form = forms.BankImportForm(request.POST, request.FILES)
                if import_form.is_valid():
                    upload = import_form.cleaned_data["file"]
                    # Read one byte past the limit: enough to refuse a big file as too big.
                    data = upload.read(bank.MAX_BYTES + 1)
                    n = services.bank_import(actor=request.user, game=koth, name=upload.name,
                                             data=data)
                    messages.success(request, ngettext(
                        "Imported %(n)d question.", "Imported %(n)d questions.", n) % {"n": n})
                    return redirect("kingofhill:bank", game_id=koth.pk)
            elif action == "delete":
                services.bank_question_delete(actor=request.user, game=koth,
                                              prepared=_int(request.POST.get("prepared")))
                messages.success(request, _("The question is removed from the bank."))
                return redirect("kingofhill:bank", game_id=koth.pk)
            else:
                messages.error(request, _("Unknown action."))
        except bank.BankError as exc:
            messages.error(request, _("Nothing is imported. Fix the file and import it again:"))
            for problem in exc.problems:
                messages.error(request, problem)
        except DomainError as exc:
            messages.error(request, exc.message)
    status = 400 if request.method == "POST" else 200
    listing = selectors.bank_listing(koth) if request.method == "POST" else listing
    return render(request, "kingofhill/bank.html", {
        "game": koth, "questions": listing, "add_form": add_form, "import_form": import_form,
        "editing": editing, "edit_form": edit_form,
        "waiting": sum(1 for q in listing if q["place"] is not None),
    }, status=status)


def _editing(listing: list[dict], prepared) -> dict | None:
    """The queued question ``prepared`` (an id as typed in a link or a form), or None."""
    pk = _int(prepared)
    return next((q for q in listing if q["id"] == pk and q["place"] is not None), None)


def _int(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def question_image(request, game_id: int, number: int, screen: str):
    """A question's picture for the projector or the phones, only once that screen shows it
    (``screens.image_for``); never cached, since a hidden one must stay unfetched."""
    entry = get_team_entry(request, game_id) if screen == PHONES else None
    try:
        image = screens.image_for(game_id=game_id, number=number, screen=screen,
                                  user=request.user, team_id=entry.pk if entry else None)
    except NotAllowed as exc:
        return JsonResponse({"detail": exc.message}, status=403)
    if image is None:
        return JsonResponse({"detail": _("This question has no image.")}, status=404)
    response = HttpResponse(bytes(image.data), content_type=image.content_type)
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, no-store"
    return response
