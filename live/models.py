"""The stored states of the live games' audiences: one ``LiveStream`` per audience of a game,
its state as ``LivePart`` rows (written by ``live.store`` alone)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class LiveStream(models.Model):
    """What one audience of one live game sees now, and its version: version N is state N.

    Written only by ``live.store`` inside the write's transaction, so a read (HTTP resync, a
    socket's first message) serves exactly what was pushed, without recomputing. The state is
    stored as its top-level keys (``LivePart``), each encoded once, as it travels and as it is
    compared: a write re-encodes, compares and stores only the keys it changed (a GoRoD code
    changes the organizer's attempt log and team list, not its statistics table of hundreds of
    KiB), and a write that leaves an audience's state unchanged bumps nothing and pushes nothing.
    """

    game = models.ForeignKey("teams.Game", on_delete=models.CASCADE, related_name="live_streams",
                             verbose_name=_("game"))
    # "public", "host", "organizer" or "team:<application id>" (live.messages.team_audience)
    audience = models.CharField(_("audience"), max_length=40)
    version = models.PositiveIntegerField(_("version"), default=0)

    class Meta:
        verbose_name = _("live stream")
        verbose_name_plural = _("live streams")
        db_table = "core_livestream"  # moved from core: the table kept
        constraints = [
            models.UniqueConstraint(fields=["game", "audience"], name="core_live_stream_once"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}/{self.audience} v{self.version}"


class LivePart(models.Model):
    """One top-level key of a stream's state and its value as JSON text; ``position`` keeps the
    keys in the order the state was built in (the whole state is their texts joined). A key
    stored row by row (``live.rows.Rows``) is its head part here and one ``<key>/<slot>`` part
    per row."""

    stream = models.ForeignKey(LiveStream, on_delete=models.CASCADE, related_name="parts",
                               verbose_name=_("live stream"))
    key = models.CharField(_("key"), max_length=60)
    position = models.PositiveSmallIntegerField(_("position"))
    text = models.TextField(_("value (JSON)"))

    class Meta:
        verbose_name = _("live state part")
        verbose_name_plural = _("live state parts")
        db_table = "core_livepart"  # moved from core: the table kept
        constraints = [
            models.UniqueConstraint(fields=["stream", "key"], name="core_live_part_once"),
        ]

    def __str__(self) -> str:
        return f"{self.stream_id}.{self.key}"
