"""Photo proof (rules, 3.23): a team sends the photo of a photo-proof level, the organizer
accepts it (the level closes at the moment it was sent) or rejects it."""

from __future__ import annotations

from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError
from gorod import changes, rules, selectors
from gorod.guards import (
    answering,
    checked_image,
    entry_of,
    require_not_paused,
    require_organizer,
    require_running,
)
from gorod.live import LIVE
from gorod.models import PHOTO_SECTOR, CodeAttempt, PhotoProof
from live.write import Write
from teams.models import Application


def photo_submit(*, game, application: Application | int, data: bytes, now=None) -> PhotoProof:
    """A team sends the photo of its current level, a photo-proof one (an image of at most
    5 MB stored without its metadata, like a task image; cleaned before the game is locked).
    [decision] One photo waits at a time per level; a rejected one may be followed by
    another."""
    kind, data = checked_image(bytes(data or b""), _("The photo"))
    return _photo_store(game=game, now=now, application=application, kind=kind, data=data)


@LIVE.write
def _photo_store(w: Write, *, application: Application | int, kind: str,
                 data: bytes) -> PhotoProof:
    gg, now = w.game, w.now
    require_running(gg)
    require_not_paused(gg)
    entry = entry_of(gg, application)
    snap = selectors.snapshot_or_refusal(gg, now)
    result = snap.by_name[entry.team.name]
    if result.status != "playing" or result.current_level is None:
        raise DomainError(_("Your team is not playing a level now."))
    level = snap.level(result.current_level)
    if not level.photo_proof:
        raise DomainError(_("This level is closed by its code, not by a photo."))
    if rules.timeout_until(result, now) is not None:
        raise DomainError(_("Your team is on a timeout: photos are not accepted."))
    if PhotoProof.objects.filter(application=entry, level=level,
                                 status=PhotoProof.Status.PENDING).exists():
        raise DomainError(_("Your photo of this level waits for the organizer already."))
    w.change = changes.Computed(snap)  # a photo changes no result until it is accepted
    return PhotoProof.objects.create(gorod=gg, application=entry, level=level,
                                     content_type=kind, data=bytes(data), size=len(data),
                                     uploaded_at=now)


@LIVE.write
def photo_decide(w: Write, *, actor, photo: PhotoProof | int, accept: bool,
                 answer: str = "") -> PhotoProof:
    """The organizer accepts a team's photo — the level closes at the moment it was sent, as
    a code sent then would have (the record's ``code`` event, checked by the engine) — or
    rejects it with an answer the team reads. [decision] Accepted only while the team is still
    on that level: once it left it (a code, a fail) the photo has nothing left to close."""
    require_organizer(actor)
    gg, now = w.game, w.now
    require_running(gg)
    row = answering(PhotoProof, gg, photo, actor=actor, now=now, answer=answer,
                    related=("application__team", "level"),
                    missing=_("There is no such photo in this game."),
                    answered=_("This photo has been answered already."))
    if accept:
        current = selectors.snapshot_or_refusal(gg, now).by_name[
            row.application.team.name].current_level
        if current != row.level.label:
            raise DomainError(_("The team is no longer on level %(level)s: reject the photo.")
                              % {"level": row.level.label})
        CodeAttempt.objects.create(
            gorod=gg, application=row.application, level=row.level, text=PHOTO_SECTOR,
            normalized="", at=row.uploaded_at, verdict=CodeAttempt.Verdict.ACCEPTED,
            sector=PHOTO_SECTOR, closes_level=True)
        row.status = PhotoProof.Status.ACCEPTED
    else:
        row.status = PhotoProof.Status.REJECTED
    row.save(update_fields=["decided_at", "decided_by", "answer", "status"])
    audit.record(game=gg, actor=actor, action="gorod.photo", at=now,
                 before={"photo": row.pk, "team": row.application.team.name,
                         "level": row.level.label, "status": PhotoProof.Status.PENDING},
                 after={"photo": row.pk, "status": row.status}, reason=row.answer)
    if accept:
        w.change = changes.Computed(selectors.snapshot_or_refusal(gg, now))
    return row
