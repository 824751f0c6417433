"""The demo data `make run` loads: staff logins to try every screen on a fresh machine.

Each app adds its own demo through ``DEMO_BUILDERS`` (dotted paths to functions that take no
arguments, are idempotent, and return lines to print: the URLs of that app's screens).
"""

from __future__ import annotations

import importlib

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db import transaction
from django.utils.module_loading import import_string

from core.roles import HOST, ORGANIZER

DEMO_PASSWORD = "demo-pass-2026"
DEMO_USERS = [
    # username, group, is_staff (organizers use the admin too)
    ("organizer", ORGANIZER, True),
    ("host", HOST, False),
]
DEMO_BUILDERS: list[str] = []
# Builders that only describe what was made (they run last, after the demo season too).
DEMO_REPORTS: list[str] = []
#: The demo teams' captains (login, team): they file protests and vote in the demo season.
DEMO_CAPTAINS = (("captain1", "Полуночники"), ("captain2", "Следопыты"), ("captain3", "Сталкеры"))


@transaction.atomic
def demo_users() -> list[User]:
    users = []
    for username, group, staff in DEMO_USERS:
        user, created = User.objects.get_or_create(username=username, defaults={"is_staff": staff})
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save()
        user.groups.add(Group.objects.get(name=group))
        if group == ORGANIZER:
            # The admin's permission checks are model permissions; organizers may change everything.
            user.is_superuser = True
            user.save(update_fields=["is_superuser"])
        users.append(user)
    return users


def load_demo() -> list[str]:
    """Create the demo users and every app's demo games; return the lines to print."""
    demo_users()
    lines: list[str] = []
    for path in DEMO_BUILDERS:
        module, _, name = path.rpartition(".")
        lines.extend(getattr(importlib.import_module(module), name)())
    # Last: the season's nights are played by the teams the apps' demos made. The season spans
    # a game and the rating, so the project's top layer builds it (settings.DEMO_SEASON_BUILDER).
    lines.extend(import_string(settings.DEMO_SEASON_BUILDER)())
    for path in DEMO_REPORTS:
        lines.extend(import_string(path)())
    return lines
