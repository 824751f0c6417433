from django.contrib import admin

from core.models import RoleChange


@admin.register(RoleChange)
class RoleChangeAdmin(admin.ModelAdmin):
    """The roles page's audit trail, read-only: grants are made on /accounts/roles/."""

    list_display = ["changed_at", "user", "role", "granted", "changed_by"]
    list_filter = ["role", "granted"]
    search_fields = ["user__username", "changed_by__username"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
