"""King of the Hill's adapter to the live core (``live``): every write of
``kingofhill.services`` goes through ``LIVE.write``; ``kingofhill.settle.settle`` makes the
locked game follow its rules, then ``kingofhill.builds.build_states`` renders the audiences'
states."""

from django.utils.translation import gettext as _

from core.errors import DomainError, NotFound
from kingofhill import builds, changes, realtime, settle
from kingofhill.models import KothGame
from live.write import LiveGame, Write


def _missing(game_id: int) -> DomainError:
    return NotFound(_("No King of the Hill game with id %(id)s.") % {"id": game_id})


def merged(writes: list[Write]) -> Write:
    """Answers applied in one batch (``live.batch``) as the one write settled and built: the
    open question (the batch's first answer read it, the others reuse it), every answering team
    and their answers in the order they were stored. Only answers batch
    (``services.answer_submit``): anything else is refused, and the live core then applies each
    write alone."""
    last = writes[-1]
    if not all(isinstance(x.change, changes.AnswerAdded) for x in writes):
        raise ValueError("only answers are merged")
    return Write(game=last.game, now=last.now, change=changes.AnswersAdded(
        teams=frozenset(x.change.team for x in writes), current=last.change.current,
        answers=tuple(a for x in writes for a in x.change.answers)))


LIVE = LiveGame(name=realtime.NAME, model=KothGame, settle=settle.settle,
                build=builds.build_states, missing=_missing, merge=merged)
