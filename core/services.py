"""Cross-app writes: organizers' announcements."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from core import announcements
from core.errors import NotAllowed
from core.models import Announcement
from core.roles import is_organizer


@transaction.atomic
def announcement_send(*, actor, text: str, deliver: bool = True) -> Announcement:
    """Store an announcement and, after the commit, broadcast it to every open page.

    ``actor`` is an organizer, or None for the command line (whoever runs ``manage.py`` owns the
    site). ``deliver=False`` only stores it, for a process whose broadcast cannot reach the
    server (``manage.py announce`` on the in-memory layer): the server's scheduler sends it
    (``core.announcements.deliver_pending``).
    """
    if actor is not None and not is_organizer(actor):
        raise NotAllowed(_("Only organizers may send announcements."))
    announcement = Announcement.objects.create(text=announcements.clean_text(text), created_by=actor)
    if deliver:
        transaction.on_commit(lambda: announcements.deliver(announcement.pk, announcement.text))
    return announcement
