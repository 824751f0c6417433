"""What the King of the Hill services check before they write: a host of this game, a running
game, the open question (read with constant SQL: every answer, declaration and judgement
starts here), a bank still open, a team's entry. Shared by ``kingofhill.services`` and its
topic modules (``kingofhill.timer``, ``appeals``, ``bank_edits``, ``screens``)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from core import sql
from core.errors import DomainError, NotAllowed
from kingofhill import selectors
from kingofhill.models import KothGame, Question
from teams.models import Application
from teams.selectors import playing_entry


def require_host(actor, koth: KothGame) -> None:
    if not selectors.can_host(actor, koth):
        raise NotAllowed(_("Only a host of this game or an organizer may do this."))


def require_running(koth: KothGame) -> None:
    if koth.status == KothGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    if koth.status == KothGame.Status.FINISHED:
        raise DomainError(_("The game has finished."))


def require_bank_open(koth: KothGame) -> None:
    """The bank is edited before and during the game, never after it."""
    if koth.status == KothGame.Status.FINISHED:
        raise DomainError(_("The game has finished."))


def entry(koth: KothGame, application: Application | int) -> Application:
    """The approved application playing ``koth`` that a team's write names (refused otherwise)."""
    return playing_entry(koth.team_order, application)


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
