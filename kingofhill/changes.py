"""What a King of the Hill action changed, as its build needs to know it: the action sets one
of these as ``Write.change`` and ``kingofhill.settle`` and ``kingofhill.states`` dispatch on it with ``match``.
No change (None): a refresh, or an action that moves nothing the board is computed from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kingofhill.models import Answer, Question


@dataclass(frozen=True, slots=True)
class BoardChanged:
    """The closed questions changed (the start, a close, a verdict or partner mark on a played
    question): the board is recomputed from the record and the game settles."""

    # The question just closed: its move is played on the board this process keeps.
    closed: Question | None = None


@dataclass(frozen=True, slots=True)
class QuestionChanged:
    """The open question changed (its countdown, its text): not the board."""

    current: Question


@dataclass(frozen=True, slots=True)
class AnswerAdded:
    """A team answered the open question (``current``; its other answers are not read): only
    the host's view, the projector's count and that team's own view change."""

    team: int  # the team's application id
    current: Question
    answers: tuple[Answer, ...] = ()  # the new answer


@dataclass(frozen=True, slots=True)
class AnswersAdded:
    """Several answers applied in one batch (``kingofhill.live.merged``)."""

    teams: frozenset[int]
    current: Question  # the last answer's open question
    answers: tuple[Answer, ...] = ()  # the new answers, in the order they were stored


@dataclass(frozen=True, slots=True)
class GroupsChanged:
    """The host merged the open question's answer groups, split a merge or kept a suggested
    pair apart (``kingofhill.grouping``), or judged its answers (``services.set_verdicts``: a
    verdict is news to the teams only once the move is played): only the host's view
    changes."""

    current: Question


@dataclass(frozen=True, slots=True)
class PresenceChanged:
    """Phones connected or left: the host's list of connected teams follows."""


@dataclass(frozen=True, slots=True)
class BankChanged:
    """A prepared question was edited or moved: the host's view of the bank's next question
    follows (``kingofhill.bank_edits``)."""




@dataclass(frozen=True, slots=True)
class AppealChanged:
    """A team appealed a verdict, or the host decided an appeal (``kingofhill.appeals``): the
    appeals shown beside the closed questions changed, and an accepted one flipped a verdict,
    so the board is recomputed from the record and the game settles, as for ``BoardChanged``."""


Change = (BoardChanged | QuestionChanged | AnswerAdded | AnswersAdded | GroupsChanged
          | PresenceChanged | BankChanged | AppealChanged)
