"""Login limits (django-axes): the backend, the lock-out page and the organizer's list.

django-axes counts failed logins per user name from one client address, and per address
(``core.net``, the same address every limiter uses), in the database, so every worker sees
the same count; past ``AXES_FAILURE_LIMIT`` failures within ``AXES_COOLOFF_TIME`` the log-in
page refuses with 429. A user name alone never locks: whoever guesses the organizer's name
from elsewhere must not lock the organizer out.
"""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from axes.models import AccessAttempt
from axes.utils import reset
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.db import transaction
from django.db.models import Max, Sum
from django.shortcuts import render
from django.utils import timezone


class LoginLimitBackend(AxesStandaloneBackend):
    """Axes' check for web log-ins. A call without a request (a shell, ``Client.login`` in a
    test, a management command) is not a web log-in and passes to the next backend."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def cooloff_minutes() -> int:
    return max(int(settings.AXES_COOLOFF_TIME.total_seconds() // 60), 1)


def login_locked_out(request, *args, **kwargs):
    """Axes' lock-out answer: the log-in page again, with the reason, as 429.

    Takes any arguments: axes' ASGI path passes them in a different order than its WSGI path.
    """
    context = {
        "form": AuthenticationForm(request),
        "next": request.POST.get("next", "") if request.method == "POST" else "",
        "locked_out": True,
        "minutes": cooloff_minutes(),
    }
    return render(request, "registration/login.html", context, status=429)


def login_lockouts() -> list[dict]:
    """Recent failed log-ins grouped by user name and address, the locked-out first."""
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    rows = (
        AccessAttempt.objects.filter(attempt_time__gte=since)
        .values("username", "ip_address")
        .annotate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
        .order_by("-failures", "-last")
    )
    limit = settings.AXES_FAILURE_LIMIT
    return [{**row, "locked": row["failures"] >= limit} for row in rows]


@transaction.atomic
def login_lockout_clear(*, username: str, ip_address: str) -> int:
    """An organizer clears a lock-out: the failures of that user name and of that address."""
    cleared = 0
    if username:
        cleared += reset(username=username)
    if ip_address:
        cleared += reset(ip=ip_address)
    return cleared
