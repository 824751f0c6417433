"""A King of the Hill evening under load, through real HTTP against several running daphne
workers on PostgreSQL and the Redis layer: every team answering in the same moment (with
retries), and two hosts judging and closing at once. After each, the record the organizer
downloads replays with ``kingofhill.rules`` to exactly the board of the host's live screen."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from core.roles import HOST, ORGANIZER
from kingofhill import rules
from kingofhill.models import Answer, VerdictChange
from teams.models import Application, Game
from tests.kingofhill.conftest import make_teams, make_user
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
