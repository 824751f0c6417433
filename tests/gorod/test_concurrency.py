"""A GoRoD night under load, through real HTTP against several running daphne workers on
PostgreSQL and the Redis layer: simultaneous codes, a flood of wrong codes, an organizer ruling
and the real clock racing codes. After each, the record the organizer downloads replays with
``gorod.rules`` to exactly what the organizer's live screen shows, and nothing is lost, refused
wrongly or stored twice."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from core.roles import ORGANIZER
from gorod import rules
from gorod.models import CodeAttempt, Pause
from teams.models import Application, Game
from tests.gorod.fixtures_live import make_teams, make_user
from tests.servers import Browser, Workers, parallel, server_env, start_manage, stop

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

LEVELS = [
    {"label": "1", "task": "The bridge", "codes": {"code": "G1R1D"}},
    {"label": "2", "task": "The tower", "codes": {"code": "G1R2D"}},
    {"label": "3", "task": "The park", "codes": {"code": "G1R3D"}},
]


@dataclass
class Night:
    id: int
    organizer: Browser
    phones: list[Browser]
    entries: list[Application]

    def url(self, what: str) -> str:
        return f"/gorod/api/games/{self.id}/{what}/"

    def live(self) -> dict:
        return self.organizer.ok("GET", self.url("organizer/state"))["state"]

    def send_code(self, team: int, text: str):
        """The call a phone makes; the teams are spread over the workers."""
        return lambda: self.phones[team].post(self.url("code"), {"text": text}, worker=team)


def set_up_night(workers: Workers, teams: int, *, levels=LEVELS, start: bool = True,
                 **settings) -> Night:
    """An organizer logged in over HTTP, a GoRoD game set up through the API, and one phone per
    team joined with its link (in parallel, across the workers)."""
    name = f"org-{uuid.uuid4().hex[:8]}"
    user = make_user(name, ORGANIZER)
    game = Game.objects.create(title="ГоРоД под нагрузкой", format=Game.Format.GOROD,
                               starts_at=timezone.now() + timedelta(days=1), created_by=user)
    entries = make_teams(game, [f"Team {i:02d}" for i in range(teams)], user)
    organizer = Browser(workers).log_in(name, "pw-" + name)
    created = organizer.ok("POST", "/gorod/api/games/",
                           {"game": game.pk, "levels": levels, **settings}, status=201)
    phones = [Browser(workers) for _ in entries]
    parallel([lambda p=p, e=e, i=i: p.join_team(e.join_token, worker=i)
              for i, (p, e) in enumerate(zip(phones, entries, strict=True))])
    night = Night(created["id"], organizer, phones, entries)
    if start:
        organizer.ok("POST", night.url("start"))
    return night


def statuses(replies) -> list[tuple[int, str]]:
    return [(r.status, r.detail) for r in replies]


def moment(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def assert_record_replays_to_the_live_state(night: Night) -> dict:
    """Download the record, replay it at the live screen's moment and compare team by team:
    standing, totals and, per level, how and when it ended. Returns the replay."""
    live = night.live()
    record = night.organizer.ok("GET", night.url("record"))
    if "now" in record:  # a running game: replay at the moment the live state was computed
        record["now"] = live["as_of"]
    replayed = rules.replay(record)
    names = {t["application"]: t["name"] for t in live["teams"]}
    shown = []
    for row in live["statistics"]["rows"]:
        levels = {level_id: (cell["outcome"], moment(cell["closed_at"]), cell["time_s"])
                  for level_id, cell in zip(live["statistics"]["levels"], row["cells"],
                                            strict=True) if cell is not None}
        shown.append((row.get("team") or names[row["application"]], row["place"], row["status"],
                      row["levels_closed"], row["total_s"], row["penalty_s"], levels))
    expected = [(t["team"], t["place"], t["status"], t["levels_closed"], t["total_s"],
                 t["penalty_s"],
                 {lv["level"]: (lv["outcome"], moment(lv["closed_at"]), lv["duration_s"])
                  for lv in t["levels"]})
                for t in replayed["teams"]]
    assert shown == expected
    codes = [(e["team"], e["level"]) for e in record["events"] if e["type"] == "code"]
    assert len(codes) == len(set(codes)), "a level closed twice by code"
    return replayed


def test_forty_two_teams_sending_their_correct_code_in_the_same_moment_are_all_accepted(
        workers):
    night = set_up_night(workers, 42)

    replies = parallel([night.send_code(i, "G1R1D") for i in range(42)])

    assert statuses(replies) == [(200, "")] * 42
    assert all(r.body["verdict"] == "accepted" and r.body["closed"] for r in replies)
    assert {r.worker for r in replies} == set(workers.urls)
    live = night.live()
    assert [t["current_level"] for t in live["teams"]] == ["2"] * 42
    assert CodeAttempt.objects.filter(gorod_id=night.id).count() == 42
    replayed = assert_record_replays_to_the_live_state(night)
    assert [t["current_level"] for t in replayed["teams"]] == ["2"] * 42


def test_codes_arriving_at_once_at_one_worker_are_applied_in_fewer_writes_than_codes(workers):
    # Group commit (live.batch): the codes that queue behind the game's running write are
    # applied together, one transaction and one push per screen, each answered on its own.
    night = set_up_night(workers, 30)
    before = night.organizer.ok("GET", night.url("organizer/state"))["version"]

    replies = parallel([lambda i=i: night.phones[i].post(
        night.url("code"), {"text": "G1R1D" if i % 2 else f"WRONG{i}"}, worker=0)
        for i in range(30)])

    assert statuses(replies) == [(200, "")] * 30
    assert [(r.body["verdict"], r.body["closed"]) for r in replies] == [
        ("accepted", True) if i % 2 else ("wrong", False) for i in range(30)]
    after = night.organizer.ok("GET", night.url("organizer/state"))["version"]
    assert 1 <= after - before < 30
    live = night.live()
    assert [t["current_level"] for t in live["teams"]] == ["1", "2"] * 15
    assert len(live["attempts"]) == 30
    assert_record_replays_to_the_live_state(night)


def test_thirty_wrong_codes_from_one_team_at_once_never_exceed_the_limit(workers):
    night = set_up_night(workers, 2, max_wrong=10, wrong_window_s=60)

    replies = parallel([night.send_code(0, f"WRONG{i:02d}") for i in range(30)])

    wrong = [r for r in replies if r.status == 200]
    refused = [r for r in replies if r.status != 200]
    assert len(wrong) == 10 and all(r.body["verdict"] == "wrong" for r in wrong)
    assert {r.status for r in refused} == {400}
    assert all("Too many wrong codes" in r.detail for r in refused), statuses(refused)
    stored = CodeAttempt.objects.filter(gorod_id=night.id, application=night.entries[0])
    assert stored.filter(verdict=CodeAttempt.Verdict.WRONG).count() == 10
    # Every refused try is on the log as ``limited``; none was checked.
    assert stored.filter(verdict=CodeAttempt.Verdict.LIMITED).count() == 20
    assert stored.count() == 30
    assert all(r.body.get("verdict") == "limited" and r.body["wait_s"] >= 1 for r in refused)
    # The limit is the team's own: the other team's code still goes through.
    assert night.send_code(1, "G1R1D")().body["verdict"] == "accepted"
    assert_record_replays_to_the_live_state(night)


def test_an_organizer_ruling_racing_the_teams_codes_loses_nothing(workers):
    night = set_up_night(workers, 16)
    organizer, ruling = night.organizer, night.url("rulings")
    calls = [night.send_code(i, "G1R1D") for i in range(12)]
    calls += [lambda i=i: organizer.post(ruling, {"application": night.entries[i].pk,
                                                  "type": "sliv"}, worker=i)
              for i in (12, 13)]
    calls += [lambda i=i: organizer.post(ruling, {"application": night.entries[i].pk,
                                                  "type": "penalty", "minutes": 5,
                                                  "reason": "red light"}, worker=i)
              for i in (0, 1)]

    replies = parallel(calls)

    assert statuses(replies) == [(200, "")] * len(calls)
    record = organizer.ok("GET", night.url("record"))
    kinds = sorted((e["team"], e["type"]) for e in record["events"])
    assert kinds == sorted([(f"Team {i:02d}", "code") for i in range(12)]
                           + [("Team 12", "sliv"), ("Team 13", "sliv"),
                              ("Team 00", "penalty"), ("Team 01", "penalty")])
    live = night.live()
    assert [t["current_level"] for t in live["teams"]] == ["2"] * 14 + ["1", "1"]
    replayed = assert_record_replays_to_the_live_state(night)
    by_team = {t["team"]: t for t in replayed["teams"]}
    assert by_team["Team 12"]["levels"][0]["outcome"] == "sliv"
    assert by_team["Team 00"]["penalty_s"] == 300


def test_the_clock_racing_codes_at_a_fail_deadline_loses_and_doubles_nothing(workers):
    """Level 1 fails 6 s after the start (hints at 2 s and 4 s); the real ``gorod_clock``
    applies that deadline while 16 teams send their code around it."""
    night = set_up_night(workers, 16, start=False, hint_offsets_min=[2 / 60, 4 / 60],
                         levels=[{**LEVELS[0], "duration_min": 0.1}, *LEVELS[1:]])
    env = server_env(DEBUG="true")
    clock, log = start_manage("gorod_clock", "--poll", "0.25", env=env,
                              log_name=f"gorod-clock-{night.id}.log")
    try:
        night.organizer.ok("POST", night.url("start"))
        started = moment(night.live()["game"]["started_at"])
        fail_at = started + timedelta(seconds=6)
        # Half the teams aim just before the deadline, half just after it.
        wait = (fail_at - timezone.now()).total_seconds() - 0.3
        assert wait > 0, "the set-up took longer than the level's limit"
        time.sleep(wait)

        def late(call, delay):
            def delayed():
                time.sleep(delay)
                return call()
            return delayed

        replies = parallel([late(night.send_code(i, "G1R1D"), 0.6 * (i % 2))
                            for i in range(16)])
        time.sleep(max(0.0, (fail_at - timezone.now()).total_seconds()) + 1.0)

        assert statuses(replies) == [(200, "")] * 16
        assert clock.poll() is None, log.read_text()
    finally:
        stop(clock)
    assert "Traceback" not in log.read_text(), log.read_text()
    for entry in night.entries:  # every code stored exactly once
        assert CodeAttempt.objects.filter(gorod_id=night.id, application=entry).count() == 1
    replayed = assert_record_replays_to_the_live_state(night)
    teams = sorted(replayed["teams"], key=lambda t: t["team"])  # "Team 00", … as registered
    for i, (reply, team) in enumerate(zip(replies, teams, strict=True)):
        first = team["levels"][0]
        # What the phone was told is what the record says: closed by its code before the
        # deadline, or failed by the clock (the code then of a level already closed).
        if reply.body["verdict"] == "accepted":
            assert first["outcome"] == "code" and moment(first["closed_at"]) < fail_at
        else:
            assert reply.body["verdict"] == "closed_level" and first["outcome"] == "auto_sliv"
        if i % 2:  # sent after the deadline: level 1 had failed already
            assert reply.body["verdict"] == "closed_level", team


def test_a_worker_out_of_database_connections_answers_503_busy_and_logs_no_traceback():
    """Overload, not an outage: a worker whose one pooled connection is held (its request waits
    for the game's lock) answers the next phone within DB_POOL_TIMEOUT_S with a 503 that says
    so and a Retry-After, logs one line and no traceback, and the held request still lands."""
    import threading

    from django.db import transaction

    from gorod.models import GorodGame
    from tests.conftest import need_postgresql_and_redis
    from tests.servers import start_workers

    need_postgresql_and_redis()
    server = start_workers(1, server_env(DEBUG="true", SCHEDULER_IN_PROCESS="false",
                                         DB_POOL_MAX_SIZE="1", DB_POOL_TIMEOUT_S="1"),
                           name="busy-worker")
    try:
        night = set_up_night(server, 2)
        held: list = []
        with transaction.atomic():
            GorodGame.objects.select_for_update().get(pk=night.id)  # the game's lock, held here
            first = threading.Thread(target=lambda: held.append(night.send_code(0, "G1R1D")()))
            first.start()
            time.sleep(0.5)  # the first request now waits for the lock with the only connection
            busy = night.phones[1].post(night.url("code"), {"text": "G1R1D"})
        first.join(30)
        assert busy.status == 503, (busy.status, busy.body)
        assert busy.detail == "The server is busy: send it again in a moment."
        assert busy.headers.get("retry-after") == "2"
        assert [(r.status, r.body["verdict"]) for r in held] == [(200, "accepted")]
        # Nothing of the refused code was stored; the phone sends it again and it lands.
        assert CodeAttempt.objects.filter(gorod_id=night.id).count() == 1
        again = night.phones[1].post(night.url("code"), {"text": "G1R1D"})
        assert (again.status, again.body["verdict"]) == (200, "accepted")
        log = server.logs[0].read_text()
        assert "busy: no database connection" in log and "Traceback" not in log
    finally:
        server.stop()


def test_a_team_renamed_mid_game_is_named_anew_by_every_worker_whatever_each_had_kept(workers):
    """Each worker keeps a started game's set-up (levels, team names) under the game's
    ``setup_version``; a rename committed by another process bumps it, so the next write
    through either worker, each of which had the old names kept, shows the new name."""
    from teams.services import team_rename

    night = set_up_night(workers, 2)
    for worker in (0, 1):  # both workers read and keep the set-up
        reply = night.phones[0].post(night.url("code"), {"text": "WRONG1"}, worker=worker)
        assert reply.status == 200 and reply.body["verdict"] != "accepted"
    team_rename(team=night.entries[0].team, name="Совы-2")  # another process: this test's

    answers = [night.phones[0].post(night.url("code"), {"text": "G1R1D"}, worker=1),
               night.phones[1].post(night.url("code"), {"text": "G1R1D"}, worker=0)]
    assert statuses(answers) == [(200, "")] * 2
    assert answers[0].body["state"]["me"]["team"] == "Совы-2"
    names = {t["application"]: t["name"] for t in night.live()["teams"]}
    assert names[night.entries[0].pk] == "Совы-2"
    record = night.organizer.ok("GET", night.url("record"))
    assert [e["team"] for e in record["events"] if e["type"] == "code"] == ["Совы-2", "Team 01"]


def test_codes_alternating_between_two_workers_leave_the_organizer_lists_whole_on_both(workers):
    """The organizer's attempt log, team list and statistics are stored row by row
    (``live.rows.Rows``); each worker keeps the heads it wrote or read last and, when the other
    worker wrote since, reads only the rows whose hashes changed. Codes sent in turn through
    the two workers — wrong ones and closing ones — leave the lists as the database and a replay
    say, read through either worker."""
    night = set_up_night(workers, 4)
    texts = [f"WRONG{k}" for k in range(4)] + ["G1R1D"] * 4 + [f"WRONG{k}" for k in range(4, 8)]
    for k, text in enumerate(texts):
        reply = night.phones[k % 4].post(night.url("code"), {"text": text}, worker=k % 2)
        assert (reply.status, reply.detail) == (200, "")
        assert reply.body["verdict"] == ("accepted" if text == "G1R1D" else "wrong")
    stored = list(CodeAttempt.objects.filter(gorod_id=night.id).order_by("-at", "-pk"))
    last = {}
    for attempt in stored:
        last.setdefault(attempt.application_id, attempt.text)
    for worker in (0, 1):
        live = night.organizer.ok("GET", night.url("organizer/state"), worker=worker)["state"]
        assert [(a["id"], a["text"]) for a in live["attempts"]] == [(a.pk, a.text)
                                                                     for a in stored]
        assert {t["application"]: t["last_attempt"]["text"] for t in live["teams"]} == last
        assert {t["application"]: t["levels_closed"] for t in live["teams"]} == {
            entry.pk: 1 for entry in night.entries}
    assert_record_replays_to_the_live_state(night)


PAUSED = "The game is paused"


def codes_against(night: Night, texts: list[str], call, at: int) -> tuple[list, object]:
    """Every team sends its code (``texts[i]``) in the same moment as the organizer's
    ``call`` (a pause or a resume), which goes in at ``at`` in the queue; returns the teams'
    replies and the organizer's."""
    calls = [night.send_code(i, text) for i, text in enumerate(texts)]
    calls.insert(at, call)
    replies = parallel(calls)
    return replies[:at] + replies[at + 1:], replies[at]


def test_codes_racing_the_pause_and_the_resume_are_taken_outside_it_or_refused_whole(workers):
    """Every code either went in before the pause began (or after the resume) or was refused
    with the pause's message and left no attempt: none stored inside the pause, none doubled;
    the record then replays to the organizer's live statistics."""
    night = set_up_night(workers, 20)
    organizer = night.organizer

    first, paused = codes_against(night, ["G1R1D"] * 20, lambda: organizer.post(
        night.url("pause"), {"reason": "police on the square"}, worker=1), at=10)

    assert (paused.status, paused.detail) == (200, "")
    pause = Pause.objects.get(gorod_id=night.id)
    took = []
    for entry, reply in zip(night.entries, first, strict=True):
        stored = list(CodeAttempt.objects.filter(gorod_id=night.id, application=entry))
        if reply.status == 200:
            assert reply.body["verdict"] == "accepted" and len(stored) == 1
            assert stored[0].at < pause.started_at
        else:
            assert reply.status == 400 and PAUSED in reply.detail, reply.body
            assert stored == []
        took.append(reply.status == 200)

    texts = ["G1R2D" if done else "G1R1D" for done in took]
    second, resumed = codes_against(night, texts, lambda: organizer.post(
        night.url("resume"), worker=0), at=10)

    assert (resumed.status, resumed.detail) == (200, "")
    pause.refresh_from_db()
    levels = []
    for entry, done, reply in zip(night.entries, took, second, strict=True):
        stored = list(CodeAttempt.objects.filter(gorod_id=night.id, application=entry)
                      .order_by("at"))
        assert len(stored) == done + (reply.status == 200)
        if reply.status == 200:
            assert reply.body["verdict"] == "accepted" and stored[-1].at >= pause.ended_at
        else:
            assert reply.status == 400 and PAUSED in reply.detail, reply.body
        assert all(not pause.started_at <= a.at < pause.ended_at for a in stored)
        levels.append(str(1 + len(stored)))
    assert [t["current_level"] for t in night.live()["teams"]] == levels
    replayed = assert_record_replays_to_the_live_state(night)
    assert [t["current_level"] for t in sorted(replayed["teams"], key=lambda t: t["team"])] \
        == levels  # "Team 00", … as registered
