from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from core import logins
from core.roles import require_organizer


def home(request):
    return render(request, "core/home.html")


def healthz(request):
    return JsonResponse({"ok": True})


@login_required
def lockouts(request):
    """Organizers see recent failed log-ins and clear a lock-out."""
    require_organizer(request.user)
    if request.method == "POST":
        username = request.POST.get("username", "")[:150]
        ip_address = request.POST.get("ip_address", "")[:45]
        logins.login_lockout_clear(username=username, ip_address=ip_address)
        messages.success(request, _("The lock is cleared."))
        return redirect("core:lockouts")
    return render(request, "core/lockouts.html", {"rows": logins.login_lockouts()})
