"""The host's countdown for the answers to the announced question: start, restart and stop it,
pause and resume it, add or remove seconds, and the game's choice whether an answer that
arrives after it ran out is still taken (``refuse_after_zero``, asked by
``services.answer_submit``).

The countdown is not a rule of the game (the rules know no time): the screens count down to
its end, and a paused one keeps the whole seconds it had left. Each action is a live write of
the open question (``changes.QuestionChanged``): the host's console, the projector and every
phone follow it.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError
from kingofhill import changes
from kingofhill.guards import current, require_host, require_running
from kingofhill.live import LIVE
from kingofhill.models import KothGame, Question
from live.write import Write

COUNTDOWN_MAX = 600


def _whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _answering(w: Write, actor) -> Question:
    require_host(actor, w.game)
    require_running(w.game)
    question = current(w.game)
    if question.phase != Question.Phase.ANSWERING:
        raise DomainError(_("Question %(n)d has not been announced: it has no countdown yet.")
                          % {"n": question.number})
    return question


def _with_countdown(w: Write, actor) -> Question:
    question = _answering(w, actor)
    if question.countdown_ends_at is None and question.countdown_paused_left is None:
        raise DomainError(_("Question %(n)d has no countdown: start one first.")
                          % {"n": question.number})
    return question


def _changed(w: Write, question: Question) -> Question:
    question.save(update_fields=["countdown_seconds", "countdown_ends_at",
                                 "countdown_paused_left"])
    w.change = changes.QuestionChanged(current=question)
    return question


@LIVE.write
def countdown_set(w: Write, *, actor, seconds: int) -> Question:
    """Start (or restart, also a paused one) a countdown of ``seconds`` for the answers to the
    announced question; 0 stops it. Screens count down to its end; once it has run out, answers
    are refused unless the game takes them after zero (``refuse_after_zero``)."""
    require_host(actor, w.game)
    require_running(w.game)
    if not _whole(seconds, 0, COUNTDOWN_MAX):
        raise DomainError(_("A countdown is a whole number of seconds from 1 to %(max)d "
                            "(0 stops it).") % {"max": COUNTDOWN_MAX})
    question = current(w.game)
    if question.phase != Question.Phase.ANSWERING:
        raise DomainError(_("Announce question %(n)d before starting its countdown.")
                          % {"n": question.number})
    if not seconds and question.countdown_ends_at is None \
            and question.countdown_paused_left is None:
        w.unchanged = True
        return question
    question.countdown_seconds = seconds or None
    question.countdown_ends_at = w.now + timedelta(seconds=seconds) if seconds else None
    question.countdown_paused_left = None
    return _changed(w, question)


@LIVE.write
def countdown_pause(w: Write, *, actor) -> Question:
    """Stop the running countdown where it is: it keeps the whole seconds the screens showed
    (rounded up) and never runs out while paused. Pausing a paused one changes nothing."""
    question = _with_countdown(w, actor)
    if question.countdown_paused_left is not None:
        w.unchanged = True
        return question
    left = math.ceil((question.countdown_ends_at - w.now).total_seconds())
    if left <= 0:
        raise DomainError(_("The countdown of question %(n)d has run out: add seconds or start "
                            "it again.") % {"n": question.number})
    question.countdown_paused_left = left
    question.countdown_ends_at = None
    return _changed(w, question)


@LIVE.write
def countdown_resume(w: Write, *, actor) -> Question:
    """Run the paused countdown again with the seconds it kept. Resuming a running one changes
    nothing."""
    question = _with_countdown(w, actor)
    if question.countdown_paused_left is None:
        w.unchanged = True
        return question
    question.countdown_ends_at = w.now + timedelta(seconds=question.countdown_paused_left)
    question.countdown_paused_left = None
    return _changed(w, question)


@LIVE.write
def countdown_adjust(w: Write, *, actor, seconds: int) -> Question:
    """Add (``seconds`` > 0) or remove (< 0) time: a running countdown's end moves, a paused
    one's seconds left change. What is left stays between 0 and ``COUNTDOWN_MAX``; seconds
    added to a countdown that has run out count from now (the host gives the teams more time)."""
    if not _whole(seconds, -COUNTDOWN_MAX, COUNTDOWN_MAX) or seconds == 0:
        raise DomainError(_("Seconds to add or remove are a whole number from -%(max)d to "
                            "%(max)d, not 0.") % {"max": COUNTDOWN_MAX})
    question = _with_countdown(w, actor)
    if question.countdown_paused_left is not None:
        left = min(max(question.countdown_paused_left + seconds, 0), COUNTDOWN_MAX)
        if left == question.countdown_paused_left:
            w.unchanged = True
            return question
        question.countdown_paused_left = left
        return _changed(w, question)
    base = max(question.countdown_ends_at, w.now)
    ends = min(max(base + timedelta(seconds=seconds), w.now),
               w.now + timedelta(seconds=COUNTDOWN_MAX))
    if ends == base:  # at the limit already, or time removed from one that has run out
        w.unchanged = True
        return question
    question.countdown_ends_at = ends
    return _changed(w, question)


@LIVE.write
def answers_after_zero_set(w: Write, *, actor, taken: bool) -> KothGame:
    """The host's choice for this game: whether answers are still taken after the countdown
    has run out (off by default). Every screen learns it: the phones close their answer at
    zero only when it is off."""
    require_host(actor, w.game)
    if not isinstance(taken, bool):
        raise DomainError(_("“Answers after zero” is true or false."))
    koth = w.game
    if koth.status == KothGame.Status.FINISHED:
        raise DomainError(_("The game has finished."))
    if koth.answers_after_zero == taken:
        w.unchanged = True
        return koth
    audit.record(game=koth, actor=actor, action="kingofhill.answers_after_zero", at=w.now,
                 before={"answers_after_zero": koth.answers_after_zero},
                 after={"answers_after_zero": taken})
    koth.answers_after_zero = taken
    koth.save(update_fields=["answers_after_zero"])
    # Nothing the board or the open question is computed from: the screens are rebuilt as on
    # a refresh.
    w.change = None
    return koth


def refuse_after_zero(koth: KothGame, question: Question, now: datetime) -> None:
    """Refuse an answer that arrives once the countdown has run out (at its end exactly too:
    the screens show 0:00 then) unless the game takes answers after zero. A paused countdown
    never runs out; without a countdown answers are taken until the close."""
    if koth.answers_after_zero or question.countdown_ends_at is None:
        return
    if now >= question.countdown_ends_at:
        raise DomainError(_("Time is up for question %(n)d.") % {"n": question.number})
