"""DRF permissions for the staff roles, shared by every app's API."""

from django.utils.translation import gettext_lazy
from rest_framework.permissions import BasePermission

from core.roles import is_host, is_organizer


class IsOrganizer(BasePermission):
    message = gettext_lazy("Only organizers may do this.")

    def has_permission(self, request, view) -> bool:
        return is_organizer(request.user)


class IsHost(BasePermission):
    """Hosts and organizers (who may do everything a host does)."""

    message = gettext_lazy("Only a host or an organizer may do this.")

    def has_permission(self, request, view) -> bool:
        return is_host(request.user)
