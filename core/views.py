from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils.translation import gettext as _

from core import selectors, services
from core.errors import DomainError
from core.forms import AnnouncementForm
from core.roles import require_organizer


def home(request):
    return render(request, "core/home.html")


def healthz(request):
    return JsonResponse({"ok": True})


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
