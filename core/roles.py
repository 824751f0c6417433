"""Who may do what: the two staff roles are Django groups.

Organizers set up games, rule and publish; hosts judge answers during a King of the Hill game.
Superusers count as both. Teams never need an account (their phones join with a team secret).
"""

from __future__ import annotations

from django.apps import apps as global_apps
from django.core.exceptions import PermissionDenied

ORGANIZER = "organizer"
HOST = "host"


def ensure_groups(sender, *, using: str = "default", apps=global_apps, **kwargs) -> None:
    """post_migrate: make the two role groups where they are missing (after a flush, which
    sends no ``apps``; migrate sends its state's)."""
    Group = apps.get_model("auth", "Group")
    for name in (ORGANIZER, HOST):
        Group.objects.using(using).get_or_create(name=name)


def _in_group(user, name: str) -> bool:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if user.is_superuser:
        return True
    return user.groups.filter(name=name).exists()


def is_organizer(user) -> bool:
    return _in_group(user, ORGANIZER)


def is_host(user) -> bool:
    """Hosts judge answers; organizers may do everything a host does."""
    return _in_group(user, HOST) or is_organizer(user)


def require_organizer(user) -> None:
    """For organizer-only pages: anyone else gets 403."""
    if not is_organizer(user):
        raise PermissionDenied
