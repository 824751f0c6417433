"""What the King of the Hill services check before they write: a host of this game, a running
game, the open question (read with constant SQL: every answer, declaration and judgement
starts here). Shared by ``kingofhill.services`` and its topic modules (``kingofhill.timer``)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from core import sql
from core.errors import DomainError, NotAllowed
from kingofhill import selectors
from kingofhill.models import KothGame, Question


def require_host(actor, koth: KothGame) -> None:
    if not selectors.can_host(actor, koth):
        raise NotAllowed(_("Only a host of this game or an organizer may do this."))


def require_running(koth: KothGame) -> None:
    if koth.status == KothGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    if koth.status == KothGame.Status.FINISHED:
        raise DomainError(_("The game has finished."))


_QUESTIONS = sql.Loader(Question)
_CURRENT = (f"t.{sql.column(Question, 'koth')} = %s",
            f"t.{sql.column(Question, 'number')} DESC LIMIT 1")


def current(koth: KothGame) -> Question:
    """The game's newest question (the open one while it runs), with ``koth`` attached."""
    found = _QUESTIONS.load(_CURRENT[0], [koth.pk], _CURRENT[1])
    if not found:
        raise DomainError(_("The game has not started yet."))
    question = found[0]
    question.koth = koth
    return question
