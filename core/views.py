import sys

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.db import InterfaceError, OperationalError
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core import backups, health, logins, selectors, services
from core.errors import DomainError, refusal
from core.forms import AnnouncementForm
from core.middleware import too_big
from core.roles import require_organizer


def home(request):
    return render(request, "core/home.html")


def healthz(request):
    """The database and the channel layer, each checked; 503 when either is down."""
    report = health.check()
    return JsonResponse(report, status=200 if report["ok"] else 503)


@login_required
def announce(request):
    """Organizers send a message to every open page of the site."""
    require_organizer(request.user)
    form = AnnouncementForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.announcement_send(actor=request.user, text=form.cleaned_data["text"])
        except DomainError as exc:
            form.add_error("text", exc.message)
        else:
            messages.success(request, _("The announcement is sent to every open page."))
            return redirect("core:announce")
    status = 400 if form.errors else 200
    return render(request, "core/announce.html",
                  {"form": form, "recent": selectors.recent_announcements()}, status=status)


def favicon(request):
    # Browsers and bookmark tools ask for /favicon.ico whatever the page's <link> says.
    return redirect(static("favicon.svg"), permanent=True)


@login_required
def lockouts(request):
    """Organizers see recent failed log-ins and clear a lock-out."""
    require_organizer(request.user)
    if request.method == "POST":
        # The whole values: a cut name would match no row, and the page would say "cleared".
        username = request.POST.get("username", "")
        ip_address = request.POST.get("ip_address", "")
        logins.login_lockout_clear(username=username, ip_address=ip_address)
        messages.success(request, _("The lock is cleared."))
        return redirect("core:lockouts")
    return render(request, "core/lockouts.html", {"rows": logins.login_lockouts()})


# --- error answers (config.urls handler400/403/404/500) --------------------------------------
# The API answers JSON {"detail"} and pages a short page, for every status; never Django's bare
# HTML for an API client, never a traceback.


def bad_request(request, exception=None):
    if isinstance(exception, RequestDataTooBig):
        return too_big(request)
    if isinstance(exception, TooManyFieldsSent):
        return refusal(request, 413, _("The request has too many fields."))
    return refusal(request, 400, _("The request could not be understood."))


@login_required
@require_POST
def backup(request):
    """The organizer's "Back up now": a snapshot in BACKUP_DIR, handed over as a download too
    (a USB stick or a phone keeps the night if the laptop dies)."""
    require_organizer(request.user)
    try:
        path = backups.snapshot()
    except backups.BackupError as exc:
        return refusal(request, 500, _("The snapshot could not be written: %(reason)s")
                       % {"reason": exc})
    return FileResponse(open(path, "rb"), as_attachment=True, filename=path.name)


def permission_denied(request, exception=None):
    return refusal(request, 403, _("You do not have permission to do this."))


def page_not_found(request, exception=None):
    return refusal(request, 404, _("Not found."))


UNAVAILABLE = (OperationalError, InterfaceError, ConnectionError)


def server_error(request):
    exception = sys.exc_info()[1]
    if isinstance(exception, UNAVAILABLE) or type(exception).__module__.startswith("redis"):
        return refusal(
            request, 503, _("The service is briefly unavailable (its database is not answering). "
                            "Try again in a minute.")
        )
    return refusal(request, 500, _("Something went wrong on our side; it has been logged."))


@login_required
def audit_game(request, game_id: int | None = None):
    """Organizers read a game's audit log (or, without a game, every entry): every host and
    organizer change, newest first."""
    require_organizer(request.user)
    game = None if game_id is None else selectors.audited_game(game_id)
    if game_id is not None and game is None:
        raise Http404(_("No such game."))
    return render(request, "core/audit.html",
                  {"game": game, "rows": selectors.audit_rows(game_id)})
