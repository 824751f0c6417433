"""Changing the question bank before the questions are asked: edit a prepared question and
reorder the ones still waiting (the queue). The announcement takes the queue's first
(``selectors.next_prepared``), so the order set here is the host's "next question" order.

A question announced (used) is what the teams heard and what its answers were judged
against: it is never edited or moved, as it is never removed (``services.bank_question_delete``).
One freed again (a changed verdict finished the game before it was played) is in the queue
again. Both actions are audited and go through the live pipeline: the host's console shows
the queue's next question (``changes.BankChanged``).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError
from kingofhill import bank, changes
from kingofhill.guards import require_bank_open, require_host
from kingofhill.live import LIVE
from kingofhill.models import KothGame, PreparedQuestion
from live.write import Write

FIELDS = ("text", "answer_key", "variants", "partner", "note")


def waiting_question(koth: KothGame, prepared) -> PreparedQuestion:
    """The prepared question ``prepared`` of the game, refused once it has been announced."""
    try:
        row = PreparedQuestion.objects.filter(koth=koth, pk=prepared).first()
    except (ValueError, TypeError, OverflowError):
        row = None
    if row is None:
        raise DomainError(_("No such prepared question in this game."))
    if row.question_id is not None:
        raise DomainError(_("This question has been announced: it stays as the teams heard "
                            "it, in its place."))
    return row


def queue(koth: KothGame) -> list[PreparedQuestion]:
    """The questions not yet announced, in the order the announcement takes them."""
    return list(PreparedQuestion.objects.filter(koth=koth, question__isnull=True)
                .order_by("position", "pk"))


def _values(row: PreparedQuestion) -> dict:
    return {"id": row.pk, **{f: getattr(row, f) for f in FIELDS}}


@LIVE.write
def bank_question_edit(w: Write, *, actor, prepared: int, text: str, answer_key: str = "",
                       variants: Sequence[str] = (), partner: bool = False,
                       note: str = "") -> PreparedQuestion:
    """Change a prepared question's text, answer key, variants, partner mark and note, checked
    as when it is added; refused once it has been announced."""
    require_host(actor, w.game)
    require_bank_open(w.game)
    row = waiting_question(w.game, prepared)
    if not isinstance(variants, (list, tuple)) or not all(isinstance(v, str) for v in variants):
        raise DomainError(_("Accepted variants must be a list of texts."))
    item, problems = bank.check_item(text, answer_key, variants, partner, note)
    if problems:
        raise DomainError(_("The question is not changed: %(why)s.")
                          % {"why": "; ".join(problems)})
    before = _values(row)
    row.text, row.answer_key, row.variants = item.text, item.answer_key, list(item.variants)
    row.partner, row.note = item.partner, item.note
    after = _values(row)
    if after == before:
        w.unchanged = True
        return row
    row.save(update_fields=list(FIELDS))
    audit.record(game=w.game, actor=actor, action="kingofhill.bank_edit", at=w.now,
                 before=before, after=after)
    w.change = changes.BankChanged()
    return row


@LIVE.write
def bank_question_move(w: Write, *, actor, prepared: int, to: int) -> PreparedQuestion:
    """Put a question not yet announced at place ``to`` (1 = announced next) of the queue; the
    others keep their order around it. Refused once it has been announced."""
    require_host(actor, w.game)
    require_bank_open(w.game)
    row = waiting_question(w.game, prepared)
    waiting = queue(w.game)
    if not isinstance(to, int) or isinstance(to, bool) or not 1 <= to <= len(waiting):
        raise DomainError(_("A place in the queue is a whole number from 1 to %(n)d.")
                          % {"n": len(waiting)})
    was = next(i for i, q in enumerate(waiting, start=1) if q.pk == row.pk)
    order = [q for q in waiting if q.pk != row.pk]
    if was == to:
        w.unchanged = True
        return row
    order.insert(to - 1, row)
    # After every announced question: the queue is what follows them.
    used = (PreparedQuestion.objects.filter(koth=w.game, question__isnull=False)
            .order_by("-position").values_list("position", flat=True).first()) or 0
    moved = []
    for number, q in enumerate(order, start=used + 1):
        if q.position != number:
            q.position = number
            moved.append(q)
    PreparedQuestion.objects.bulk_update(moved, ["position"])
    audit.record(game=w.game, actor=actor, action="kingofhill.bank_move", at=w.now,
                 before={"id": row.pk, "text": row.text[:80], "place": was},
                 after={"id": row.pk, "text": row.text[:80], "place": to})
    w.change = changes.BankChanged()
    return row
