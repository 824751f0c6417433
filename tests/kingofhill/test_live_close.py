"""The host's close plays the closed question's one move on the board this process kept
(``settle.closed_snapshot``) instead of reading and replaying every played question, and
leaves exactly what the full recomputation leaves."""

from __future__ import annotations

import json
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from kingofhill import selectors, services
from kingofhill.live import LIVE
from kingofhill.models import KothGame
from tests.kingofhill.test_query_budgets import CLOSE
from tests.live_checks import rebuilt
from tests.live_checks import stored as versions

# Committed writes: the board is kept after the commit (``on_commit``), as on a server.
pytestmark = pytest.mark.django_db(transaction=True)


def play(koth: KothGame, host, entries, texts: dict[int, str], *, jump=None) -> None:
    """One question: declarations, the announcement, the teams' answers, judged, not closed."""
    if jump is not None:
        services.declaration_submit(game=koth.pk, application=jump, kind="jump")
    services.question_announce(actor=host, game=koth.pk, answer_key="да")
    for i, entry in enumerate(entries):
        if i in texts:
            services.answer_submit(game=koth.pk, application=entry, text=texts[i],
                                   client_id=uuid.uuid4())
    number = KothGame.objects.get(pk=koth.pk).questions.order_by("-number").first().number
    for text in set(texts.values()):
        services.answers_judge(actor=host, game=koth.pk, question=number,
                               normalized=text, verdict=text == "да")


# What a close without a kept board reads on top of the budget: the game's teams, every
# question with its answers and declarations, and the game's appeals, instead of the open
# question alone.
RECOMPUTE = 3


def close(koth: KothGame, host) -> int:
    """The host closes the open question; the queries the close ran."""
    with CaptureQueriesContext(connection) as ran:
        services.question_close(actor=host, game=koth.pk)
    return len(ran.captured_queries)


def states(game_id: int) -> dict[str, dict]:
    return {audience: json.loads(text) for audience, (_v, text) in versions(game_id).items()}


def test_a_close_plays_its_one_move_on_the_kept_board_and_equals_a_full_recomputation(
        running, host, entries):
    play(running, host, entries, {0: "да", 1: "нет", 2: "да"})
    services.question_close(actor=host, game=running.pk)  # this process keeps the board
    play(running, host, entries, {0: "да", 1: "да"}, jump=entries[2])

    # Nothing read every played question again: the budget of a close on a kept board.
    assert close(running, host) == CLOSE
    koth = KothGame.objects.get(pk=running.pk)
    assert koth.board["question"] == 2 and koth.questions.count() == 3  # the next one is open
    stored = states(running.pk)
    fresh = {audience: json.loads(text) for audience, text in rebuilt(LIVE, running.pk,
                                                                      None).items()}
    assert {a: stored[a] for a in fresh} == fresh
    selectors.forget_closed()
    assert selectors.load_snapshot(koth).board_dict() == koth.board


def test_a_close_without_a_kept_board_recomputes_the_game(
        running, host, entries):
    play(running, host, entries, {0: "да", 1: "нет"})
    services.question_close(actor=host, game=running.pk)
    play(running, host, entries, {1: "да", 2: "да"})
    selectors.forget_closed()  # as on a worker that did not close the last question

    # The game's teams, questions, answers, declarations and appeals read again.
    assert close(running, host) == CLOSE + RECOMPUTE
    koth = KothGame.objects.get(pk=running.pk)
    assert koth.board["question"] == 2
    fresh = {audience: json.loads(text) for audience, text in rebuilt(LIVE, running.pk,
                                                                      None).items()}
    stored = states(running.pk)
    assert {a: stored[a] for a in fresh} == fresh


def test_a_close_after_a_played_verdict_changed_plays_on_the_recomputed_board(
        running, host, entries):
    play(running, host, entries, {0: "да", 1: "нет", 2: "нет"})
    services.question_close(actor=host, game=running.pk)
    # A verdict of the played question changes: the board is recomputed and kept anew.
    services.answers_judge(actor=host, game=running.pk, question=1, normalized="нет",
                           verdict=True, confirm=True)
    play(running, host, entries, {0: "нет", 1: "да", 2: "нет"})

    assert close(running, host) == CLOSE
    fresh = {audience: json.loads(text) for audience, text in rebuilt(LIVE, running.pk,
                                                                      None).items()}
    stored = states(running.pk)
    assert {a: stored[a] for a in fresh} == fresh
    # Question 1's changed verdicts count: Beta answered both correctly, Gamma the first.
    teams = {t["team"]: t for t in KothGame.objects.get(pk=running.pk).board["teams"]}
    assert (teams["Alpha"]["points"], teams["Beta"]["points"], teams["Gamma"]["points"]) == (
        1, 2, 1)
