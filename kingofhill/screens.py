"""Questions on the screens: when the projector and the phones show a question's text and image
(the game's defaults, which an announcement may override: ``services.question_announce``), the
image of a prepared question, and which image a request may fetch.

The rule itself is the pure ``rules.question_shown``; the states name an image's URL only once
it is shown (``kingofhill.states``) and ``image_for`` asks the same rule, so a phone cannot
fetch a picture before its screen shows it.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError, NotAllowed
from core.images import ImageRefused, clean_image
from kingofhill import changes, selectors
from kingofhill.bank_edits import waiting_question
from kingofhill.guards import require_bank_open, require_host
from kingofhill.live import LIVE
from kingofhill.models import KothGame, PreparedQuestion, Question, QuestionImage, Shown
from kingofhill.states import PHONES, PROJECTOR
from live.write import Write

SCREENS = (PROJECTOR, PHONES)
#: a projector's full width: a bigger picture only makes every screen load longer
MAX_SIDE = 1920


def checked_image(data: bytes, label: str) -> tuple[str, bytes]:
    """A question image's type and bytes: decoded whole, without metadata, at most
    ``MAX_SIDE`` pixels on its longer side; or the refusal saying why."""
    try:
        return clean_image(bytes(data or b""), label, max_side=MAX_SIDE)
    except ImageRefused as exc:
        raise DomainError(str(exc)) from None


def _choice(value: str) -> str:
    if value not in Shown.values:
        raise DomainError(_("Show the question on announce, after the close or never."))
    return value


@LIVE.write
def screen_defaults_set(w: Write, *, actor, projector: str, phones: str) -> KothGame:
    """The game's defaults for when the projector and the phones show a question; the
    questions already announced keep what they were announced with."""
    require_host(actor, w.game)
    koth = w.game
    wanted = {"show_projector": _choice(projector), "show_phones": _choice(phones)}
    before = {key: getattr(koth, key) for key in wanted}
    if before == wanted:
        w.unchanged = True
        return koth
    audit.record(game=koth, actor=actor, action="kingofhill.screens", at=w.now,
                 before=before, after=wanted)
    for key, value in wanted.items():
        setattr(koth, key, value)
    koth.save(update_fields=list(wanted))
    w.change = None  # nothing the board is computed from: the screens are rebuilt
    return koth


@LIVE.write
def bank_image_set(w: Write, *, actor, prepared: int,
                   image: tuple[str, bytes] | None) -> PreparedQuestion:
    """Give a prepared question not yet announced its image (cleaned by ``checked_image``),
    or take it away (``image`` None)."""
    require_host(actor, w.game)
    require_bank_open(w.game)
    row = waiting_question(w.game, prepared)
    old = row.image_id
    row.image = None if image is None else QuestionImage.objects.create(
        koth=w.game, content_type=image[0], data=image[1], size=len(image[1]))
    row.save(update_fields=["image"])
    if old is not None:
        QuestionImage.objects.filter(pk=old).delete()
    w.change = changes.BankChanged()
    return row


def image_for(*, game_id: int, number: int, screen: str, user, team_id: int | None
              ) -> QuestionImage | None:
    """The image of question ``number`` as ``screen`` shows it: to its host always (None when
    there is none); on the projector to anyone once the projector shows it; on the phones only
    to a team of the game once the phones show it. Anyone else gets ``NotAllowed``, which says
    nothing of whether there is a picture."""
    question = (Question.objects.filter(koth_id=game_id, number=number, image__isnull=False)
                .select_related("image").first())
    if screen in SCREENS and selectors.can_host(user, game_id):
        return question.image if question is not None else None
    hidden = NotAllowed(_("This question's image is not shown on this screen now."))
    if question is None or screen not in SCREENS or (screen == PHONES and team_id is None):
        raise hidden
    if not question.shown_on(screen):
        raise hidden
    return question.image
