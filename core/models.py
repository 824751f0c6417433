"""Cross-app data: the organizers' announcements."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


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
