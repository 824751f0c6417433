"""Appeals of a verdict in a live King of the Hill game (issue 33): a team disputes, from its
phone, the verdict it got on the last closed question; the host accepts it (the verdict flips
through the same change of the past as the console's flip, ``kingofhill.past``, previewed
first) or rejects it with an answer the phone shows. Every step is audited.

The window: an appeal is filed on the newest closed question, while the game runs, that is
until the host closes the next question or the game ends. The host decides open appeals at any
time, the finished game's too (an accepted one may re-open it: the preview says so).
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError
from kingofhill import changes, past
from kingofhill.guards import entry, require_host
from kingofhill.live import LIVE
from kingofhill.models import Answer, Appeal, KothGame, Question
from kingofhill.services import set_verdicts
from live.write import Write
from teams.models import Application

APPEAL_MAX = 500
ANSWER_MAX = 500


def _value(appeal: Appeal) -> dict:
    return {"question": appeal.question.number, "team": appeal.application.team.name,
            "text": appeal.text, "status": appeal.status, "answer": appeal.answer}


def _open_appeal(koth: KothGame, appeal) -> Appeal:
    try:
        row = (Appeal.objects.select_related("question", "application__team")
               .get(pk=appeal, question__koth=koth))
    except (Appeal.DoesNotExist, ValueError, TypeError, OverflowError):
        raise DomainError(_("No such appeal in this game.")) from None
    if row.status != Appeal.Status.OPEN:
        raise DomainError(_("This appeal has already been decided."))
    return row


@LIVE.write
def appeal_file(w: Write, *, application: Application | int, question: int,
                text: str) -> Appeal:
    """The team disputes its verdict on ``question``: only the newest closed question, one
    the team answered, while the game runs; one appeal per team and question."""
    koth = w.game
    team = entry(koth, application)
    text = (text or "").strip() if isinstance(text, str) else ""
    if not text:
        raise DomainError(_("Say in a few words why the verdict is wrong."))
    if len(text) > APPEAL_MAX:
        raise DomainError(_("An appeal is at most %(n)d characters.") % {"n": APPEAL_MAX})
    if koth.status != KothGame.Status.RUNNING:
        raise DomainError(_("Appeals are taken only while the game runs."))
    newest = (Question.objects.filter(koth=koth, closed_at__isnull=False)
              .order_by("-number").first())
    if newest is None or newest.number != question:
        raise DomainError(_("Only the last closed question can be appealed, until the host "
                            "closes the next one."))
    answer = Answer.objects.filter(question=newest, application=team).first()
    if answer is None or answer.verdict is None:
        raise DomainError(_("Your team sent no answer to question %(n)d: there is no verdict "
                          "to appeal.") % {"n": newest.number})
    if Appeal.objects.filter(question=newest, application=team).exists():
        raise DomainError(_("Your team has already appealed question %(n)d.")
                          % {"n": newest.number})
    appeal = Appeal.objects.create(question=newest, application=team, text=text,
                                   verdict=answer.verdict, created_at=w.now)
    audit.record(game=koth, actor=None, action="kingofhill.appeal", at=w.now, before=None,
                 after=_value(appeal))
    w.change = changes.AppealChanged()
    return appeal


@LIVE.write
def appeal_accept(w: Write, *, actor, appeal: int, confirm: bool = False) -> Appeal:
    """Accept: the team's verdict flips as the console's flip does (``past.change_past``);
    without ``confirm`` it is refused with the preview of what the flip changes."""
    require_host(actor, w.game)
    row = _open_appeal(w.game, appeal)
    question = row.question
    answer = Answer.objects.get(question=question, application=row.application_id)
    verdict = not row.verdict
    if not confirm:
        past.change_past(w, question, verdicts={row.application_id: verdict}, confirm=False,
                         ask=_accepting(row, verdict))
    before = _value(row)
    # Already so (the host flipped it meanwhile): the appeal is granted, nothing moves.
    set_verdicts(w, question, [answer], verdict, actor, confirm=True)
    w.unchanged = False
    _decide(w, row, actor, Appeal.Status.ACCEPTED, "", before)
    return row


@LIVE.write
def appeal_reject(w: Write, *, actor, appeal: int, answer: str) -> Appeal:
    """Reject, with an answer the team's phone shows; the verdict stays."""
    require_host(actor, w.game)
    row = _open_appeal(w.game, appeal)
    answer = (answer or "").strip() if isinstance(answer, str) else ""
    if not answer:
        raise DomainError(_("Tell the team why the appeal is rejected."))
    if len(answer) > ANSWER_MAX:
        raise DomainError(_("The answer is at most %(n)d characters.") % {"n": ANSWER_MAX})
    _decide(w, row, actor, Appeal.Status.REJECTED, answer, _value(row))
    return row


def _accepting(row: Appeal, verdict: bool) -> str:
    names = {"team": row.application.team.name, "n": row.question.number}
    if verdict:
        return _("Accepting the appeal of %(team)s makes its answer to question %(n)d "
                 "correct.") % names
    return _("Accepting the appeal of %(team)s makes its answer to question %(n)d "
             "incorrect.") % names


def _decide(w: Write, row: Appeal, actor, status: str, answer: str, before: dict) -> None:
    row.status, row.answer, row.decided_by, row.decided_at = status, answer, actor, w.now
    row.save(update_fields=["status", "answer", "decided_by", "decided_at"])
    audit.record(game=w.game, actor=actor, action="kingofhill.appeal", at=w.now,
                 before=before, after=_value(row))
    w.change = changes.AppealChanged()
