"""How the King of the Hill service tests play a game: announce, answer, judge, close."""

from __future__ import annotations

import json
import uuid

from kingofhill import services
from kingofhill.models import Answer, KothGame, Question
from live.store import stream_versions


def announce(koth, host, **kw):
    return services.question_announce(actor=host, game=koth, **kw)


def answer(koth, entry, text, client_id=None):
    return services.answer_submit(game=koth, application=entry, text=text,
                                  client_id=client_id or uuid.uuid4())


def judge_all(koth, host, number, verdicts: dict[str, bool]):
    for normalized, verdict in verdicts.items():
        services.answers_judge(actor=host, game=koth, question=number,
                               normalized=normalized, verdict=verdict)


def play(koth, host, answers: dict, declarations: dict | None = None, *, partner=False):
    """One whole move: declarations, announce, answers (``entry -> correct``), judge, close."""
    for entry, kind in (declarations or {}).items():
        services.declaration_submit(game=koth, application=entry, kind=kind)
    number = announce(koth, host).number
    if partner:
        services.partner_set(actor=host, game=koth, question=number, partner=True)
    for entry, correct in answers.items():
        answer(koth, entry, "right" if correct else f"wrong {entry.pk}")
    verdicts = {"right": True}
    verdicts.update({f"wrong {e.pk}": False for e, ok in answers.items() if not ok})
    for normalized, verdict in verdicts.items():
        if Answer.objects.filter(question__koth=koth, question__number=number,
                                 normalized=normalized).exists():
            services.answers_judge(actor=host, game=koth, question=number,
                                   normalized=normalized, verdict=verdict)
    services.question_close(actor=host, game=koth)
    koth.refresh_from_db()
    return number


def board(koth) -> dict:
    koth.refresh_from_db()
    return koth.board


def team(koth, name) -> dict:
    return next(t for t in board(koth)["teams"] if t["team"] == name)


def snapshot_of(koth):
    koth.refresh_from_db()
    return (stream_versions(koth.pk), json.dumps(koth.board, sort_keys=True),
            Answer.objects.count(), Question.objects.count(),
            list(Answer.objects.values_list("verdict", flat=True).order_by("pk")))


def crown_alpha(koth, host, alpha, beta, gamma):
    """Q1 Alpha and Beta correct; Q2 Alpha jumps onto the summit (3), Beta goes to S-1 (2)."""
    play(koth, host, {alpha: True, beta: True, gamma: False})
    play(koth, host, {alpha: True, beta: True, gamma: True}, {alpha: "jump"})


def finish(koth, host, alpha, beta, gamma) -> None:
    """Alpha jumps onto the summit on question 2 and holds it until the game ends."""
    play(koth, host, {alpha: True, beta: True, gamma: False})
    play(koth, host, {alpha: True, beta: True, gamma: True}, {alpha: "jump"})
    while KothGame.objects.get(pk=koth.pk).status == KothGame.Status.RUNNING:
        play(koth, host, {alpha: True, beta: False, gamma: False})
    koth.refresh_from_db()


def answer_of(koth, entry, number) -> Answer:
    return Answer.objects.get(question__koth=koth, question__number=number, application=entry)
