"""A night at club scale — 200 teams × 30 levels, thousands of closed levels — pushes what a
write changed, never a whole table: no push of a code (wrong or closing) or a ruling is over
16 KiB, while the organizer's stored state (served whole on a resync) is far larger."""

from __future__ import annotations

import json
import secrets
from datetime import timedelta

import pytest

from gorod import realtime, services
from gorod.live import LIVE
from gorod.models import CodeAttempt, Level
from live.batch import Job
from live.store import stored_texts
from teams.models import Application, Team
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import T0, minutes
from tests.live_checks import pushes

pytestmark = pytest.mark.django_db

TEAMS, LEVELS, CLOSED = 200, 30, 15
LIMIT = 16 * 1024
NOW = minutes(CLOSED * 3 + 10)


@pytest.fixture
def big_night(scheduled, organizer):
    """Stored in bulk: every team has closed ``CLOSED`` levels, 3 minutes each, then one full
    build publishes it."""
    teams = Team.objects.bulk_create([Team(name=f"Команда {i:03d}", name_key=f"команда {i:03d}",
                                           captain=organizer) for i in range(TEAMS)])
    entries = Application.objects.bulk_create([
        Application(game=scheduled, team=team, status=Application.Status.APPROVED,
                    join_token=secrets.token_urlsafe(24), join_pin=f"{i:06d}")
        for i, team in enumerate(teams)])
    gg = services.gorod_create(actor=organizer, game=scheduled)
    levels = Level.objects.bulk_create([
        Level(gorod=gg, order=n, label=str(n), task=f"Задание {n}", duration_min=70,
              codes={"code": f"G1R{n}D"}) for n in range(1, LEVELS + 1)])
    services.game_start(actor=organizer, game=gg, now=T0)
    CodeAttempt.objects.bulk_create([
        CodeAttempt(gorod=gg, application=entry, level=levels[j], text=f"G1R{j + 1}D",
                    normalized=f"G1R{j + 1}D", verdict=CodeAttempt.Verdict.ACCEPTED,
                    closes_level=True, at=T0 + timedelta(minutes=3 * (j + 1), seconds=i))
        for i, entry in enumerate(entries) for j in range(CLOSED)])
    LIVE.refresh(game=gg.pk, now=NOW - timedelta(seconds=5))  # rows stored in bulk: rebuilt once
    return gg, entries


def pushed_by(write, monkeypatch, capture) -> dict[str, str]:
    """``{group: the socket message's text}`` of one write."""
    with pushes(monkeypatch, capture) as sent:
        write()
    return {group: message["text"] for group, message in sent}


def test_no_push_of_a_code_or_a_ruling_is_over_16_kib_at_200_teams_and_30_levels(
        big_night, organizer, monkeypatch, django_capture_on_commit_callbacks):
    gg, entries = big_night
    whole = stored_texts(gg.pk, [realtime.ORGANIZER])[realtime.ORGANIZER]
    assert len(whole.encode()) > 20 * LIMIT  # the statistics table of the whole night
    capture = django_capture_on_commit_callbacks
    writes = {
        "wrong code": lambda: services.code_submit(game=gg.pk, application=entries[0],
                                                   text="nope", now=NOW),
        "closing code": lambda: services.code_submit(
            game=gg.pk, application=entries[TEAMS - 1], text=f"G1R{CLOSED + 1}D",
            now=NOW + timedelta(seconds=1)),
        "penalty": lambda: services.ruling_add(actor=organizer, game=gg.pk,
                                               application=entries[5], type="penalty",
                                               minutes=30, now=NOW + timedelta(seconds=2)),
        "average time": lambda: services.ruling_add(actor=organizer, game=gg.pk,
                                                    application=entries[7], type="average_time",
                                                    level="3", now=NOW + timedelta(seconds=3)),
    }
    organizer_group = LIVE.group(gg.pk, realtime.ORGANIZER)
    for name, write in writes.items():
        texts = pushed_by(write, monkeypatch, capture)
        sizes = {group: len(text.encode()) for group, text in texts.items()}
        assert organizer_group in sizes, name  # the organizer's monitor stays live
        assert max(sizes.values()) <= LIMIT, (name, sizes)
        # Under the limit by what it carries, not by the core's cap (a resync notice).
        assert not [g for g, text in texts.items() if '"resync":true' in text], (name, sizes)
    # The closing code re-ranked the night: the last team moved up, and the monitor got it.
    table = json.loads(stored_texts(gg.pk, [realtime.ORGANIZER])[realtime.ORGANIZER])
    last = next(row for row in table["statistics"]["rows"]
                if row["application"] == entries[TEAMS - 1].pk)
    assert last["levels_closed"] == CLOSED + 1 and last["place"] == 1


def test_a_socket_never_gets_the_whole_night_only_its_version_and_a_team_gets_its_state(
        big_night):
    """The organizer's state at 200 teams is hundreds of KiB: its socket's first message says
    its version and the page reads it over HTTP; a team's state is small and comes whole."""
    gg, entries = big_night
    organizer = LIVE.read(gg.pk, realtime.ORGANIZER)
    first = json.loads(LIVE.first_message(organizer))
    assert first == {"type": "gorod.state", "version": organizer.version, "resync": True}
    team = LIVE.read(gg.pk, f"team:{entries[0].pk}")
    first = LIVE.first_message(team)
    assert len(first.encode()) <= LIMIT and json.loads(first)["state"] == json.loads(team.text)


def test_a_whole_batch_of_codes_half_of_them_closing_pushes_under_16_kib(
        big_night, monkeypatch, django_capture_on_commit_callbacks):
    # A rush on one game is applied in batches (live.batch): the organizer's push carries what
    # changed in each moved-on team's rows, not the rows whole (a statistics row is ~2 KiB).
    gg, entries = big_night
    moments = iter(NOW + timedelta(seconds=s) for s in range(1, 100))
    monkeypatch.setattr("live.write.timezone.now", lambda: next(moments))
    action = services.code_submit.__wrapped__
    jobs = [Job((action, {"application": entries[i],
                          "text": f"G1R{CLOSED + 1}D" if i % 2 else "nope"}, "ru"))
            for i in range(LIVE.batch_most)]

    with pushes(monkeypatch, django_capture_on_commit_callbacks) as sent:
        LIVE.run_batch(gg.pk, jobs)

    half = LIVE.batch_most // 2
    assert [job.outcome().attempt.closes_level for job in jobs] == [False, True] * half
    texts = {group: message["text"] for group, message in sent}
    organizer = texts[LIVE.group(gg.pk, realtime.ORGANIZER)]
    assert '"resync":true' not in organizer
    assert len(organizer.encode()) <= LIMIT, len(organizer.encode())
    assert len(sent) == 1 + 2 * half  # one push each: the organizer's and every team's own
    table = json.loads(stored_texts(gg.pk, [realtime.ORGANIZER])[realtime.ORGANIZER])
    moved = {row["application"]: row["levels_closed"] for row in table["statistics"]["rows"]}
    assert [moved[entries[i].pk] for i in range(2 * half)] == [CLOSED, CLOSED + 1] * half
