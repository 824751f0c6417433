"""The host's grouping of the open question's answers, beyond equal texts: merging groups that
are the same answer («Ломоносов», «Ломоносав», «М. Ломоносов», «Lomonosov»; the console
suggests them from ``kingofhill.rules.similar``), splitting a merge back, and keeping a
suggested pair apart so it is not suggested again.

A merge is not a verdict: every answer keeps its own (an unjudged group stays unjudged) and
the host judges the merged group with one key (``services.answers_judge``). The merges live on
the question (``Question.merged``: a normalised text → its group's key), so an answer arriving
later with a merged text joins the group, and the host's state reads them with the question,
at no extra query.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError
from kingofhill import changes, guards, rules
from kingofhill.live import LIVE
from kingofhill.models import Answer, Question
from live.write import Write


def _open_question(w: Write, actor, number: int) -> Question:
    """The open question ``number`` while its answers come in: groups are the host's before
    the close; after it, verdicts are changed answer by answer."""
    guards.require_host(actor, w.game)
    guards.require_running(w.game)
    question = guards.current(w.game)
    if question.number != number:
        raise DomainError(_("Question %(n)s is not open any more.") % {"n": number})
    if question.phase != Question.Phase.ANSWERING:
        raise DomainError(_("Answers to question %(n)d are grouped after its announcement.")
                          % {"n": question.number})
    return question


def _check_keys(keys, least: int) -> list[str]:
    if not isinstance(keys, (list, tuple)) or not all(isinstance(k, str) for k in keys):
        raise DomainError(_("Groups are given as a list of their keys."))
    keys = list(dict.fromkeys(keys))
    if len(keys) < least:
        raise DomainError(_("Name at least two different groups."))
    return keys


def _groups(question: Question) -> dict[str, list[Answer]]:
    """The question's answers by the key of the group they are judged in."""
    found: dict[str, list[Answer]] = {}
    for answer in Answer.objects.filter(question=question):
        found.setdefault(rules.group_of(question.merged, answer.normalized), []).append(answer)
    return found


def _missing(question: Question, groups: dict, keys: Sequence[str]) -> None:
    for key in keys:
        if key not in groups:
            raise DomainError(_("No group «%(text)s» among the answers to question %(n)d.")
                              % {"text": key, "n": question.number})


@LIVE.write
def groups_merge(w: Write, *, actor, question: int, keys: Sequence[str]) -> int:
    """Merge the open question's groups ``keys`` into one, under the first key; returns how
    many answers the merged group holds. Refused when the groups were judged differently (one
    correct, one incorrect): a merge never changes a verdict."""
    q = _open_question(w, actor, question)
    keys = _check_keys(keys, 2)
    groups = _groups(q)
    _missing(q, groups, keys)
    answers = [a for key in keys for a in groups[key]]
    if {a.verdict for a in answers} >= {True, False}:
        raise DomainError(_("These groups are judged differently (correct and incorrect): judge "
                            "them alike first, or keep them apart."))
    before = {"question": q.number, "groups": keys}
    q.merged = rules.merge_groups(q.merged, keys)
    q.save(update_fields=["merged"])
    audit.record(game=w.game, actor=actor, action="kingofhill.merge", at=w.now, before=before,
                 after={"question": q.number, "group": keys[0],
                        "texts": sorted({a.text for a in answers})})
    w.change = changes.GroupsChanged(current=q)
    return len(answers)


@LIVE.write
def groups_split(w: Write, *, actor, question: int, key: str) -> int:
    """Undo the merges of the group ``key``: each of its texts is its own group again (the
    answers keep their verdicts); returns how many groups it became."""
    q = _open_question(w, actor, question)
    if not isinstance(key, str):
        raise DomainError(_("Groups are given as a list of their keys."))
    forms = rules.group_forms(q.merged, key)
    if len(forms) < 2:
        raise DomainError(_("The group «%(text)s» is not a merge of several answers.")
                          % {"text": key})
    q.merged = rules.split_group(q.merged, key)
    q.save(update_fields=["merged"])
    audit.record(game=w.game, actor=actor, action="kingofhill.split", at=w.now,
                 before={"question": q.number, "group": key},
                 after={"question": q.number, "groups": sorted(forms)})
    w.change = changes.GroupsChanged(current=q)
    return len(forms)


@LIVE.write
def groups_keep_apart(w: Write, *, actor, question: int, keys: Sequence[str]) -> None:
    """The host says a suggestion is wrong: none of these groups is the same answer as
    another, and the console does not suggest any pair of them again for this question."""
    q = _open_question(w, actor, question)
    keys = _check_keys(keys, 2)
    _missing(q, _groups(q), keys)
    kept = {tuple(p) for p in q.kept_apart}
    new = [rules.similar.pair(a, b) for a, b in combinations(keys, 2)]
    if all(p in kept for p in new):
        w.unchanged = True
        return
    q.kept_apart = [*q.kept_apart, *(list(p) for p in new if p not in kept)]
    q.save(update_fields=["kept_apart"])
    audit.record(game=w.game, actor=actor, action="kingofhill.apart", at=w.now, before=None,
                 after={"question": q.number, "groups": keys})
    w.change = changes.GroupsChanged(current=q)
