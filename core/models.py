"""Cross-app data: the stored states of the live games' audiences."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class LiveStream(models.Model):
    """What one audience of one live game sees now, and its version: version N is state N.

    Written only by ``core.live`` inside the write's transaction, so a read (HTTP resync, a
    socket's first message) serves exactly what was pushed, without recomputing. ``text`` is
    the state encoded once, as it travels and as it is compared: a write that leaves an
    audience's text unchanged bumps nothing and pushes nothing to it.
    """

    game = models.ForeignKey("teams.Game", on_delete=models.CASCADE, related_name="live_streams",
                             verbose_name=_("game"))
    # "public", "host", "organizer" or "team:<application id>" (core.live.team_audience)
    audience = models.CharField(_("audience"), max_length=40)
    version = models.PositiveIntegerField(_("version"), default=0)
    text = models.TextField(_("state (JSON)"))

    class Meta:
        verbose_name = _("live stream")
        verbose_name_plural = _("live streams")
        constraints = [
            models.UniqueConstraint(fields=["game", "audience"], name="core_live_stream_once"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}/{self.audience} v{self.version}"
