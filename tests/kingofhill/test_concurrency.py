"""A King of the Hill evening under load, through real HTTP against several running daphne
workers on PostgreSQL and the Redis layer: every team answering in the same moment (with
retries), and two hosts judging and closing at once. After each, the record the organizer
downloads replays with ``kingofhill.rules`` to exactly the board of the host's live screen."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from core.roles import HOST, ORGANIZER
from kingofhill import rules
from kingofhill.live import LIVE
from kingofhill.models import Answer, Appeal, Question, VerdictChange
from teams.models import Application, Game
from tests.kingofhill.conftest import make_teams, make_user
from tests.live_checks import rebuilt, stored_streams
from tests.servers import Browser, Workers, parallel

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

TEXTS = ("Гоголь", "Пушкин", "Лермонтов", "Чехов")  # four groups of answers


@dataclass
class Evening:
    id: int
    organizer: Browser
    hosts: list[Browser]
    phones: list[Browser]
    entries: list[Application]

    def url(self, what: str) -> str:
        return f"/koth/api/games/{self.id}/{what}/"

    def live(self) -> dict:
        return self.hosts[0].ok("GET", self.url("host/state"))["state"]

    def answer(self, team: int, text: str, client_id: str, worker: int):
        return lambda: self.phones[team].post(self.url("answer"),
                                              {"text": text, "client_id": client_id},
                                              worker=worker)


def logged_in(workers: Workers, group: str) -> tuple[Browser, User]:
    name = f"{group}-{uuid.uuid4().hex[:8]}"
    user = make_user(name, group)
    return Browser(workers).log_in(name, "pw-" + name), user


def set_up_evening(workers: Workers, teams: int, *, hosts: int = 1) -> Evening:
    """An organizer and ``hosts`` hosts logged in over HTTP, a board created through the API,
    one phone per team joined with its link, the game started and question 1 announced."""
    organizer, organizer_user = logged_in(workers, ORGANIZER)
    game = Game.objects.create(title="Царь Горы под нагрузкой", format=Game.Format.KINGOFHILL,
                               starts_at=timezone.now() + timedelta(days=1))
    entries = make_teams(game, [f"Crew {i:02d}" for i in range(teams)], organizer_user)
    created = organizer.ok("POST", "/koth/api/games/", {"game": game.pk, "summit": 5,
                                                        "main_questions": 10}, status=201)
    host_logins = [logged_in(workers, HOST) for _ in range(hosts)]
    for _browser, user in host_logins:  # hosts control only the games assigned to them
        organizer.ok("POST", f"/koth/api/games/{created['id']}/hosts/",
                     {"user": user.pk, "assigned": True})
    host_browsers = [browser for browser, _user in host_logins]
    phones = [Browser(workers) for _ in entries]
    parallel([lambda p=p, e=e, i=i: p.join_team(e.join_token, worker=i)
              for i, (p, e) in enumerate(zip(phones, entries, strict=True))])
    evening = Evening(created["id"], organizer, host_browsers, phones, entries)
    host = host_browsers[0]
    host.ok("POST", evening.url("start"))
    host.ok("POST", evening.url("announce"), {"text": "Автор «Шинели»?", "answer_key": TEXTS[0]})
    return evening


def answer_everyone(evening: Evening) -> None:
    ids = [str(uuid.uuid4()) for _ in evening.phones]
    replies = parallel([evening.answer(i, TEXTS[i % 4], ids[i], worker=i)
                        for i in range(len(evening.phones))])
    assert [r.status for r in replies] == [200] * len(evening.phones), [r.body for r in replies]


def assert_record_replays_to_the_live_board(evening: Evening) -> dict:
    live = evening.live()
    record = evening.organizer.ok("GET", evening.url("record"))
    replayed = rules.replay(record)
    assert {k: v for k, v in replayed.items() if k != "moves"} == live["board"]
    return replayed


def test_forty_teams_answering_at_once_with_retries_store_one_answer_each(workers):
    evening = set_up_evening(workers, 40)
    ids = [str(uuid.uuid4()) for _ in evening.phones]
    # Every phone sends its answer twice at once (a retry after a lost reply), through
    # different workers, with the same client id.
    calls = [evening.answer(i, TEXTS[i % 4], ids[i], worker=i + copy)
             for i in range(40) for copy in (0, 1)]

    replies = parallel(calls)

    assert [(r.status, r.detail) for r in replies] == [(200, "")] * 80
    answers = Answer.objects.filter(question__koth_id=evening.id)
    assert answers.count() == 40
    assert sorted(answers.values_list("application_id", flat=True)) == sorted(
        e.pk for e in evening.entries)
    assert {str(a.client_id) for a in answers} == set(ids)
    host = evening.live()["host"]
    assert host["answered"] == 40 and host["unanswered"] == []
    assert sorted((g["key"], g["count"]) for g in host["groups"]) == sorted(
        (text.casefold(), 10) for text in TEXTS)
    # Each answer grew the host's groups stored by the answer before it, on either worker:
    # every stored view is what a rebuild from the rows gives.
    fresh = rebuilt(LIVE, evening.id, None)
    assert fresh == {a: row.text for a, row in stored_streams(evening.id).items() if a in fresh}

    judge = evening.hosts[0]
    for group in host["groups"]:
        if group["verdict"] is not True:
            judge.ok("POST", evening.url("judge"), {"question": 1, "normalized": group["key"],
                                                    "verdict": False})
    judge.ok("POST", evening.url("close"))
    replayed = assert_record_replays_to_the_live_board(evening)
    assert len(replayed["moves"]) == 1
    assert sorted(replayed["moves"][0]["correct"]) == [f"Crew {i:02d}" for i in range(0, 40, 4)]


def test_two_hosts_judging_and_closing_at_once_play_the_move_exactly_once(workers):
    evening = set_up_evening(workers, 24, hosts=2)
    answer_everyone(evening)
    first, second = evening.hosts
    judge = evening.url("judge")

    # Each host judges its own group, and both judge the same group, all at once.
    judged = parallel([
        lambda: first.post(judge, {"question": 1, "normalized": "пушкин", "verdict": False}),
        lambda: second.post(judge, {"question": 1, "normalized": "лермонтов", "verdict": True},
                            worker=1),
        lambda: first.post(judge, {"question": 1, "normalized": "чехов", "verdict": False}),
        lambda: second.post(judge, {"question": 1, "normalized": "чехов", "verdict": False},
                            worker=1),
    ])
    assert [r.status for r in judged] == [200] * 4, [r.body for r in judged]
    chekhov = Answer.objects.filter(question__koth_id=evening.id, normalized="чехов")
    assert VerdictChange.objects.filter(answer__in=chekhov).count() == chekhov.count() == 6

    closed = parallel([lambda: first.post(evening.url("close")),
                       lambda: second.post(evening.url("close"), worker=1)])

    assert sorted(r.status for r in closed) == [200, 400], [r.body for r in closed]
    refused = next(r for r in closed if r.status == 400)
    assert "Announce question 2 before closing it" in refused.detail
    live = evening.live()
    assert live["question"]["number"] == 2 and live["question"]["phase"] == "declaring"
    replayed = assert_record_replays_to_the_live_board(evening)
    assert len(replayed["moves"]) == 1  # no question closed twice, no duplicated move
    assert sorted(replayed["moves"][0]["correct"]) == sorted(
        f"Crew {i:02d}" for i in range(24) if i % 4 in (0, 2))


def close_judged(evening: Evening) -> None:
    """The host judges every group still without a verdict as wrong and closes the question."""
    host = evening.hosts[0]
    state = evening.live()
    for group in state["host"]["groups"]:
        if group["verdict"] is not True:
            host.ok("POST", evening.url("judge"), {"question": state["question"]["number"],
                                                   "normalized": group["key"],
                                                   "verdict": False})
    host.ok("POST", evening.url("close"))


def test_appeals_racing_the_close_of_the_next_question_are_stored_before_it_or_refused(
        workers):
    """Question 1 may be appealed until the host closes question 2: the teams appeal around
    the moment the host closes it. Each appeal is stored before that close or refused with the
    window's message, none after it, and the host's list shows exactly the stored ones."""
    evening = set_up_evening(workers, 16)
    answer_everyone(evening)
    close_judged(evening)
    host = evening.hosts[0]
    host.ok("POST", evening.url("announce"), {"text": "Автор «Носа»?", "answer_key": "Гоголь"})
    # The appeals come one every 100 ms, the close among the first of them.
    start = time.time() + 0.5
    calls = [sent_at(start + 0.1 * i, lambda i=i: evening.phones[i].post(
        evening.url("appeal"), {"question": 1, "text": f"Ответ {i} верен"}, worker=i))
        for i in range(16)]
    calls.insert(8, sent_at(start + 0.3, lambda: host.post(evening.url("close"), worker=1)))

    replies = [reply for _went, reply, _back in parallel(calls)]

    closed = replies.pop(8)
    assert (closed.status, closed.detail) == (200, "")
    closed_at = Question.objects.get(koth_id=evening.id, number=2).closed_at
    stored = {a.application_id: a for a in Appeal.objects.filter(question__koth_id=evening.id)}
    for entry, reply in zip(evening.entries, replies, strict=True):
        if reply.status == 200:
            assert stored[entry.pk].question.number == 1
            assert stored[entry.pk].created_at < closed_at
        else:
            assert reply.status == 400, reply.body
            assert "Only the last closed question can be appealed" in reply.detail
            assert entry.pk not in stored
    assert len(stored) == sum(r.status == 200 for r in replies)
    assert sorted(a["application"] for a in evening.live()["host"]["appeals"]) == sorted(stored)
    late = evening.phones[0].post(evening.url("appeal"), {"question": 1, "text": "Поздно"})
    assert late.status == 400 and Appeal.objects.filter(
        question__koth_id=evening.id).count() == len(stored)


def sent_at(moment: float, call):
    """``call`` made at ``moment`` (``time.time()``), with when it went and came back."""
    def timed():
        time.sleep(max(0.0, moment - time.time()))
        went = time.time()
        reply = call()
        return went, reply, time.time()
    return timed


def open_question(evening: Evening) -> Question:
    return Question.objects.get(koth_id=evening.id, number=evening.live()["question"]["number"])


TIME_UP = "Time is up for question"


def test_answers_racing_the_countdowns_zero_and_its_extension_are_taken_iff_before_the_end(
        workers):
    """A 2-second countdown; around its zero twelve teams answer, one every 0.1 s, while the
    host adds 5 seconds just after zero. An answer is taken if and only if it arrived before
    the end in force then: the first end, or (after the extension, which counted from its own
    moment since the first had run out) the new one; a refused one was refused at zero or
    later, and before the extension came back."""
    evening = set_up_evening(workers, 12)
    host = evening.hosts[0]
    host.ok("POST", evening.url("countdown"), {"seconds": 2})
    zero = open_question(evening).countdown_ends_at
    ids = [str(uuid.uuid4()) for _ in evening.phones]
    start = zero.timestamp() - 0.5
    calls = [sent_at(start + 0.1 * i, evening.answer(i, TEXTS[i % 4], ids[i], worker=i))
             for i in range(12)]
    calls.append(sent_at(zero.timestamp() + 0.2, lambda: host.post(
        evening.url("countdown/adjust"), {"seconds": 5}, worker=1)))

    *answers, (_went, extended, extended_back) = parallel(calls)

    assert (extended.status, extended.detail) == (200, "")
    end = open_question(evening).countdown_ends_at
    # Where the 5 seconds counted from: the first end, or the extension's own moment when the
    # countdown had run out by then.
    moved = end - timedelta(seconds=5)
    assert moved >= zero
    stored = {a.application_id: a for a in Answer.objects.filter(question__koth_id=evening.id)}
    for entry, (went, reply, back) in zip(evening.entries, answers, strict=True):
        if reply.status == 200:
            at = stored[entry.pk].at
            assert at < zero or moved <= at < end, (at, zero, moved)
        else:
            assert reply.status == 400 and TIME_UP in reply.detail, reply.body
            assert entry.pk not in stored
            # Refused at zero or later, before the extension (which came after zero) was in.
            assert moved > zero and back >= zero.timestamp() and went < extended_back
    assert len(stored) == sum(reply.status == 200 for _w, reply, _b in answers)


def test_answers_racing_a_pause_at_zero_are_taken_iff_before_the_end_unless_taken_after_it(
        workers):
    """The host pauses the countdown right at its zero while teams answer around it: a pause
    that came first keeps the seconds and every answer is taken; one that came late is
    refused as run out and only the answers before zero are. With answers taken after zero
    (the game's setting), the next question takes every answer whatever the countdown."""
    evening = set_up_evening(workers, 12)
    host = evening.hosts[0]
    host.ok("POST", evening.url("countdown"), {"seconds": 2})
    zero = open_question(evening).countdown_ends_at
    ids = [str(uuid.uuid4()) for _ in evening.phones]
    calls = [sent_at(zero.timestamp() - 0.5 + 0.1 * i,
                     evening.answer(i, TEXTS[i % 4], ids[i], worker=i)) for i in range(12)]
    calls.append(sent_at(zero.timestamp(), lambda: host.post(evening.url("countdown/pause"),
                                                              worker=1)))

    *answers, (_went, paused, _back) = parallel(calls)

    question = open_question(evening)
    stored = {a.application_id: a for a in Answer.objects.filter(question=question)}
    if paused.status == 200:  # in time: the countdown never ran out
        assert question.countdown_paused_left >= 1 and question.countdown_ends_at is None
        assert [reply.status for _w, reply, _b in answers] == [200] * 12
    else:
        assert paused.status == 400 and "has run out" in paused.detail, paused.body
        assert question.countdown_ends_at == zero
    for entry, (_went, reply, back) in zip(evening.entries, answers, strict=True):
        if reply.status == 200:
            assert paused.status == 200 or stored[entry.pk].at < zero
        else:
            assert reply.status == 400 and TIME_UP in reply.detail, reply.body
            assert entry.pk not in stored and back >= zero.timestamp()
    assert len(stored) == sum(reply.status == 200 for _w, reply, _b in answers)

    close_judged(evening)
    host.ok("POST", evening.url("answers-after-zero"), {"taken": True})
    host.ok("POST", evening.url("announce"), {"text": "Автор «Носа»?", "answer_key": "Гоголь"})
    host.ok("POST", evening.url("countdown"), {"seconds": 1})
    zero = open_question(evening).countdown_ends_at
    ids = [str(uuid.uuid4()) for _ in evening.phones]
    late = parallel([sent_at(zero.timestamp() - 0.3 + 0.1 * i,
                             evening.answer(i, TEXTS[i % 4], ids[i], worker=i))
                     for i in range(12)])
    assert [(reply.status, reply.detail) for _w, reply, _b in late] == [(200, "")] * 12
    assert max(a.at for a in Answer.objects.filter(question__koth_id=evening.id,
                                                   question__number=2)) >= zero
