"""Site-wide data: the organizers' announcements, who granted or revoked a staff role (the
roles page's audit) and the audit log."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class DecidedByOrganizer(models.Model):
    """Who decided a team's request (an application, an appeal, a timeout, a photo) and when:
    empty while it waits. The same two columns on every such model, named and shown alike."""

    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, blank=True, related_name="+",
                                   verbose_name=_("decided by"))

    class Meta:
        abstract = True


class Announcement(models.Model):
    """A message shown on every open page of the site (``core.services.announcement_send``).

    ``delivered_at`` is set by whoever broadcast it (``core.announcements.deliver``); it stays
    empty while it waits for a process that reaches the server's pages.
    """

    text = models.CharField(_("text"), max_length=500)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("sent by"), null=True,
                                   blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("announcement")
        verbose_name_plural = _("announcements")

    def __str__(self) -> str:
        return self.text


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


class AuditEntry(models.Model):
    """One change made by a host or an organizer (``core.audit.record``): who, when, what, the
    value before and after, and why. Written inside the change's transaction, so a change and
    its entry are stored together or not at all."""

    # The app whose rule the change is about ("kingofhill", "gorod", "rating", "teams") and
    # the teams.Game it touches (none for a team's ban).
    app = models.CharField(_("area"), max_length=20)
    game = models.ForeignKey("teams.Game", on_delete=models.CASCADE, null=True, blank=True,
                             related_name="audit_entries", verbose_name=_("game"))
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                              blank=True, related_name="+", verbose_name=_("by"))
    action = models.CharField(_("action"), max_length=60)
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)
    reason = models.TextField(_("reason"), blank=True)
    at = models.DateTimeField(_("at"), default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit entries")
        indexes = [models.Index(fields=["game", "-at"], name="core_audit_game_at")]

    def __str__(self) -> str:
        return f"{self.app}.{self.action} {self.game_id} {self.at:%Y-%m-%d %H:%M}"
