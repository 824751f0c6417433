"""The states only render: whatever a write changed and whatever phase the game is in, building
its states (``kingofhill.builds.build_states``, after ``kingofhill.settle.settle``) issues no
writing statement and takes no lock; settling did every write before."""

from __future__ import annotations

import re

import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from kingofhill import builds, changes, realtime, selectors, services
from kingofhill.live import LIVE
from kingofhill.models import KothGame, Question
from live.messages import PUBLIC, team_audience
from live.store import Parts
from live.write import Write
from tests.kingofhill.conftest import join_session
from tests.kingofhill.play import answer, crown_alpha, play

pytestmark = pytest.mark.django_db

WRITING = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE)\b|\bFOR (NO KEY )?UPDATE\b", re.I)


def writes_of(captured: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in captured.captured_queries if WRITING.search(q["sql"])]


def settled_and_built(koth: KothGame, change) -> tuple[dict, list[str], list[str]]:
    """One write of ``change`` settled and built as ``LIVE.publish`` does, under the game's
    lock, then rolled back: the states, the writes of the settling, the writes of the build."""
    with transaction.atomic():
        w = Write(game=LIVE.lock(koth.pk), now=timezone.now(), change=change)
        with CaptureQueriesContext(connection) as settling:
            settled = LIVE.settle(w)
        with CaptureQueriesContext(connection) as building:
            built = LIVE.build(w, settled)
        transaction.set_rollback(True)
    return built, writes_of(settling), writes_of(building)


def every_change(koth: KothGame, entries) -> dict[str, object]:
    """Each kind of change a write of this game can make now, named."""
    found = {"refresh": None, "board": changes.BoardChanged(),
             "presence": changes.PresenceChanged(), "bank": changes.BankChanged()}
    closed = Question.objects.filter(koth=koth, closed_at__isnull=False).order_by("number").last()
    if closed is not None:
        found["close"] = changes.BoardChanged(closed=closed)
    current = Question.objects.filter(koth=koth, closed_at__isnull=True).first()
    if current is not None:
        current.koth = koth
        selectors.read_open(current)
        found["question"] = changes.QuestionChanged(current=current)
        found["answer"] = changes.AnswerAdded(team=entries[0].pk, current=current)
        found["answers"] = changes.AnswersAdded(
            teams=frozenset(e.pk for e in entries[:2]), current=current)
    return found


def before_the_start(koth, host, alpha, beta, gamma):
    pass


def declaring(koth, host, alpha, beta, gamma):
    services.game_start(actor=host, game=koth)
    crown_alpha(koth, host, alpha, beta, gamma)
    services.declaration_submit(game=koth, application=beta, kind="revolution")


def answering(koth, host, alpha, beta, gamma):
    services.game_start(actor=host, game=koth)
    services.question_announce(actor=host, game=koth, answer_key="right")
    answer(koth, alpha, "right")
    answer(koth, beta, "wrong")


def finished(koth, host, alpha, beta, gamma):
    services.game_start(actor=host, game=koth)
    crown_alpha(koth, host, alpha, beta, gamma)
    while KothGame.objects.get(pk=koth.pk).status == KothGame.Status.RUNNING:
        play(koth, host, {alpha: True, beta: False, gamma: False})


@pytest.fixture(autouse=True)
def no_kept_boards():
    selectors.forget_closed()
    yield
    selectors.forget_closed()


@pytest.mark.parametrize("kept", [True, False], ids=["board-kept", "no-board-kept"])
@pytest.mark.parametrize("phase", [before_the_start, declaring, answering, finished],
                         ids=lambda phase: phase.__name__)
def test_building_the_states_of_any_change_in_any_phase_writes_nothing(
        koth, host, entries, phase, kept, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        phase(koth, host, *entries)
    if not kept:  # as on a worker that did not make the game's last writes
        selectors.forget_closed()
    koth.refresh_from_db()
    for name, change in every_change(koth, entries).items():
        built, _settling, building = settled_and_built(koth, change)
        assert building == [], f"{phase.__name__}, {name}: the build wrote {building}"
        if name in ("presence", "bank"):  # only the host's part, when it changed
            continue
        assert {PUBLIC, realtime.HOST} <= set(built), name
        if isinstance(built[realtime.HOST], Parts):
            # Answers on a kept board: only the open question's fields and the host's view.
            assert name in ("answer", "answers") and kept, name
            assert set(built[realtime.HOST]) == {"question", "host"}, name
        else:
            assert built[realtime.HOST]["game"]["status"] == koth.status, name


def test_the_settling_did_the_writes_the_build_no_longer_does(running, host, entries):
    services.question_announce(actor=host, game=running, answer_key="right")
    for entry in entries:
        answer(running, entry, "right")
    with transaction.atomic():
        w = Write(game=LIVE.lock(running.pk), now=timezone.now())
        question = Question.objects.get(koth=running, number=1)
        question.closed_at = w.now
        question.save(update_fields=["closed_at"])
        w.change = changes.BoardChanged(closed=question)
        generation = w.game.board_generation
        with CaptureQueriesContext(connection) as settling:
            snap = LIVE.settle(w)
        # The next question is open and the board stored before anything is built.
        assert Question.objects.filter(koth=running, number=2, closed_at=None).exists()
        assert snap.current.number == 2
        assert KothGame.objects.get(pk=running.pk).board_generation == generation + 1
        assert writes_of(settling)
        with CaptureQueriesContext(connection) as building:
            built = LIVE.build(w, snap)
        assert writes_of(building) == []
        assert built[team_audience(entries[0].pk)]["me"]["last_move"]["correct"] is True
        transaction.set_rollback(True)


def test_a_presence_refresh_settles_nothing_when_the_hosts_state_is_stored(running):
    with transaction.atomic():
        w = Write(game=LIVE.lock(running.pk), now=timezone.now(),
                  change=changes.PresenceChanged())
        with CaptureQueriesContext(connection) as settling:
            settled = LIVE.settle(w)
        transaction.set_rollback(True)
    assert isinstance(settled, builds.StoredHost)
    assert settled.host["connected"] == []
    assert len(settling) == 1 and writes_of(settling) == []


def test_reading_any_screen_writes_nothing_and_takes_no_lock(running, host, alpha):
    reads = []
    for kind, url in (("public", "state/"), ("host", "host/state/"), ("team", "team/state/")):
        client = Client()
        if kind == "host":
            client.force_login(host)
        elif kind == "team":
            join_session(client, alpha)
        client.get(f"/koth/api/games/{running.pk}/{url}")  # the session and the user are warm
        with CaptureQueriesContext(connection) as captured:
            response = client.get(f"/koth/api/games/{running.pk}/{url}")
        assert response.status_code == 200, response.content
        reads.append((kind, writes_of(captured)))
    assert reads == [("public", []), ("host", []), ("team", [])]
