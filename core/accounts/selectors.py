"""Account reads: the players' rating name and the roles page."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Q

from core.models import RoleChange


def rating_name(user: User) -> str:
    """The name the King of the Hill players' rating shows (rules 2.6: surname and first name as
    in the profile); the username until the profile has them.

    >>> rating_name(User(username="lisa", first_name="Анна", last_name="Лисицына"))
    'Лисицына Анна'
    """
    name = f"{user.last_name} {user.first_name}".strip()
    return name or user.get_username()


def role_rows(search: str = "", limit: int = 50) -> list[dict]:
    """Active accounts (matching ``search`` in the username, name or e-mail) with their roles."""
    users = User.objects.filter(is_active=True).prefetch_related("groups").order_by("username")
    if search:
        users = users.filter(Q(username__icontains=search) | Q(email__icontains=search)
                             | Q(first_name__icontains=search) | Q(last_name__icontains=search))
    rows = []
    for user in users[:limit]:
        groups = {g.name for g in user.groups.all()}
        rows.append({"user": user, "superuser": user.is_superuser,
                     "roles": {role: role in groups for role in RoleChange.Role.values}})
    return rows


def recent_role_changes(limit: int = 30):
    return RoleChange.objects.select_related("user", "changed_by")[:limit]
