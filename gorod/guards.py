"""What the GoRoD services check before they write: the organizer's role, the game's phase, a
playing team, an image's bytes, a team's request still waiting for its answer, a change of a
night whose results are published."""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _

from core import formats, images
from core.errors import DomainError, NeedsConfirmation, NotAllowed
from core.images import ImageRefused, clean_image
from core.roles import is_organizer
from core.text import within
from gorod.models import GorodGame
from live.write import Write
from teams.models import Application
from teams.selectors import playing_entry

KEEP = object()  # an edit's field left as it is (``level_edit``, ``ruling_edit``)
IMAGE_MAX_BYTES = images.MAX_BYTES


def require_organizer(actor) -> None:
    if not is_organizer(actor):
        raise NotAllowed(_("Only organizers may do this."))


def require_running(gg: GorodGame) -> None:
    if gg.status == GorodGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    if gg.status == GorodGame.Status.FINISHED:
        raise DomainError(_("The game has ended."))


def require_not_paused(gg: GorodGame) -> None:
    """A team's play (a code, a photo, a timeout) waits while the whole game is paused."""
    if gg.paused_at is not None:
        raise DomainError(_("The game is paused (since %(t)s): no codes, photos or timeouts "
                            "until the organizer resumes it.") % {"t": clock_time(gg.paused_at)})


def clock_time(moment) -> str:
    """A moment of tonight as the phones' and the organizer's messages say it: 23:10:05."""
    return timezone.localtime(moment).strftime("%H:%M:%S")


def require_started(gg: GorodGame) -> None:
    if gg.status == GorodGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))


def confirm_after_results(w: Write, *, confirm: bool, what: str) -> None:
    """A ruling's change once the night's results are published (a protest answered after the
    night): refused until the organizer confirms it, like a King of the Hill change of the
    past, and once applied the published results say they are out of date (``core.formats``:
    the rating listens). Called after the engine has accepted the change."""
    gg = w.game
    if gg.status != GorodGame.Status.FINISHED or not formats.results_published(gg.pk):
        return
    text = _("The published results become out of date: the organizer must publish them "
             "again.")
    if not confirm:
        raise NeedsConfirmation(
            _("This changes a finished game whose results are published. %(what)s Confirm to "
              "apply it.") % {"what": text}, change={"results_published": True})
    formats.board_changed(game_id=gg.pk, now=w.now, reason=f"{what} {text}")


def entry_of(gg, application: Application | int) -> Application:
    return playing_entry(gg.team_order, application)


def require_setup(gg: GorodGame, message: str) -> None:
    if gg.status != GorodGame.Status.SETUP:
        raise DomainError(message)


def checked_image(data: bytes, name: str) -> tuple[str, bytes]:
    """The image's type and its bytes without metadata (``core.images``), or the refusal."""
    try:
        return clean_image(data, name)
    except ImageRefused as exc:
        raise DomainError(str(exc)) from None


def answering(model, gg: GorodGame, pk, *, actor, now, answer: str | None, related: tuple[str, ...],
              missing: str, answered: str):
    """A team's request of ``model`` (a timeout, a photo) in the game, still pending, with the
    organizer's decision stamped on it (not saved): ``missing`` or ``answered`` refuse it."""
    row = model.objects.filter(gorod=gg, pk=pk if isinstance(pk, int) else pk.pk).select_related(
        *related).first()
    if row is None:
        raise DomainError(missing)
    if row.status != model.Status.PENDING:
        raise DomainError(answered)
    row.decided_at, row.decided_by, row.answer = now, actor, within(
        (answer or "").strip(), max_length=500, what=_("Answer"))
    return row
