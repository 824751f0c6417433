"""Cross-app records: who granted or revoked a staff role, and when (the roles page's audit)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class RoleChange(models.Model):
    class Role(models.TextChoices):
        HOST = "host", pgettext_lazy("role", "host")
        ORGANIZER = "organizer", pgettext_lazy("role", "organizer")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="role_changes", verbose_name=_("user"))
    role = models.CharField(_("role"), max_length=20, choices=Role.choices)
    granted = models.BooleanField(_("granted"), help_text=_("off: the role was revoked"))
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, blank=True, related_name="+",
                                   verbose_name=_("changed by"))
    changed_at = models.DateTimeField(_("changed at"), auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-id"]
        # "изменение роли" is neuter: the admin's phrases around it are the catalogue's
        # gender-free overrides (core/admin_wording.py).
        verbose_name = _("role change")
        verbose_name_plural = _("role changes")

    def __str__(self) -> str:
        return f"{self.user} {'+' if self.granted else '−'}{self.role}"
