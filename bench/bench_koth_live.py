"""Benchmark of a live King of the Hill question with 64 teams, through the real ASGI router.

Run: ``.venv/bin/python bench/bench_koth_live.py`` (SQLite + in-memory layer), or with
``DATABASE_URL=postgresql://… REDIS_URL=redis://…`` to measure PostgreSQL and Redis. It builds a
throwaway test database (Django's test-database machinery), connects 64 team sockets, the
projector socket and the host socket with ``WebsocketCommunicator``, and for each of a few
questions: announces, sends all 64 answers spread over one second (as the API would, through
``kingofhill.services``), judges the one group and closes. It reports how long each answer
took and, after the close, p50/p95/max of the time until every team socket and the projector
socket held the new board.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from asgiref.sync import sync_to_async  # noqa: E402
from channels.testing import WebsocketCommunicator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.test.utils import setup_databases, teardown_databases  # noqa: E402

TEAMS, QUESTIONS = 64, 4
ORIGIN = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def prepare():
    """Users, a game with 64 approved teams, a started KotH board, and one session per phone."""
    import secrets
    from datetime import timedelta

    from django.contrib.auth.models import Group, User
    from django.contrib.sessions.backends.db import SessionStore
    from django.test import Client
    from django.utils import timezone

    from core.roles import HOST
    from kingofhill import services
    from teams.models import Application, Game, Team
    from teams.services import join_by_token

    host = User.objects.create_user("bench-host", password="x")
    host.groups.add(Group.objects.get_or_create(name=HOST)[0])
    game = Game.objects.create(title="bench", format="kingofhill",
                               starts_at=timezone.now() + timedelta(days=1))
    entries = []
    for i in range(TEAMS):
        team = Team.objects.create(name=f"Team {i:02d}", name_key=f"team {i:02d}", captain=host)
        entries.append(Application.objects.create(
            game=game, team=team, status=Application.Status.APPROVED,
            join_token=secrets.token_urlsafe(24), join_pin=f"{i:06d}"))
    koth = services.koth_create(actor=host, game=game, summit=7, main_questions=30)
    services.game_start(actor=host, game=koth)
    cookies = []
    for entry in entries:
        session = SessionStore()
        join_by_token(session=session, token=entry.join_token)
        session.save()
        cookies.append(f"sessionid={session.session_key}")
    client = Client()
    client.force_login(host)
    return koth.pk, host, entries, cookies, f"sessionid={client.cookies['sessionid'].value}"


class Listener:
    """One socket, read continuously: remembers when each board question first arrived."""

    def __init__(self, communicator):
        self.communicator = communicator
        self.seen: dict[int, float] = {}
        self.messages = 0
        self.version = -1
        self.task = asyncio.create_task(self.run())

    async def run(self):
        while True:
            try:
                message = await self.communicator.receive_json_from(timeout=60)
            except (TimeoutError, asyncio.CancelledError):
                return
            self.messages += 1
            self.version = max(self.version, message["version"])
            question = message["state"]["board"]["question"]
            self.seen.setdefault(question, time.perf_counter())


async def connect(path, cookie=None):
    headers = ORIGIN + ([(b"cookie", cookie.encode())] if cookie else [])
    from config.asgi import application

    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=30)
    assert connected, path
    return communicator


async def main():
    from kingofhill import services
    from live.store import stream_versions

    game_id, host, entries, cookies, host_cookie = await sync_to_async(prepare)()
    started = time.perf_counter()
    teams = [Listener(await connect(f"/ws/koth/{game_id}/team/", c)) for c in cookies]
    projector = Listener(await connect(f"/ws/koth/{game_id}/public/"))
    host_socket = Listener(await connect(f"/ws/koth/{game_id}/host/", host_cookie))
    print(f"connected {len(teams)} team sockets + projector + host in "
          f"{time.perf_counter() - started:.2f} s")

    answer_ms: list[float] = []
    spread_s: list[float] = []
    board_ms: list[float] = []
    close_ms: list[float] = []
    drain_ms: list[float] = []
    for number in range(1, QUESTIONS + 1):
        await sync_to_async(services.question_announce)(actor=host, game=game_id,
                                                        answer_key="")

        async def send(i, entry):
            await asyncio.sleep(i / TEAMS)  # all 64 within one second
            t = time.perf_counter()
            await sync_to_async(services.answer_submit)(
                game=game_id, application=entry.pk, text=f"answer {i % 3}",
                client_id=uuid.uuid4())
            answer_ms.append((time.perf_counter() - t) * 1000)

        t_answers = time.perf_counter()
        await asyncio.gather(*(send(i, e) for i, e in enumerate(entries)))
        spread_s.append(time.perf_counter() - t_answers)
        for normalized, verdict in (("answer 0", True), ("answer 1", False), ("answer 2", True)):
            await sync_to_async(services.answers_judge)(actor=host, game=game_id,
                                                        question=number,
                                                        normalized=normalized, verdict=verdict)
        # Let every socket drain the answers' pushes first, so the figure below is the close
        # alone; the drain itself is reported too.
        t_drain = time.perf_counter()
        # Each stream has its own version (a team's skips the other teams' answers).
        versions = await sync_to_async(stream_versions)(game_id)
        targets = [(projector, versions["public"])] + [
            (x, versions[f"team:{e.pk}"]) for x, e in zip(teams, entries, strict=True)]
        while any(x.version < latest for x, latest in targets):
            await asyncio.sleep(0.002)
        drain_ms.append((time.perf_counter() - t_drain) * 1000)
        t0 = time.perf_counter()
        await sync_to_async(services.question_close)(actor=host, game=game_id)
        close_ms.append((time.perf_counter() - t0) * 1000)
        deadline = time.perf_counter() + 30
        listeners = [*teams, projector]
        while any(number not in x.seen for x in listeners) and time.perf_counter() < deadline:
            await asyncio.sleep(0.002)
        missing = sum(1 for x in listeners if number not in x.seen)
        assert not missing, f"{missing} sockets never got the board after question {number}"
        board_ms += [(x.seen[number] - t0) * 1000 for x in listeners]

    for listener in [*teams, projector, host_socket]:
        listener.task.cancel()
        await listener.communicator.disconnect()

    db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    print(f"database: {db}, channel layer: {layer}, {TEAMS} teams, {QUESTIONS} questions")
    print(f"answers: 64 sent in {statistics.mean(spread_s):.2f} s on average; per answer "
          f"p50 {pct(answer_ms, .5):.1f} ms, p95 {pct(answer_ms, .95):.1f} ms "
          f"(from send to stored, queueing behind the game lock included)")
    print(f"after the answers and verdicts, sockets caught up within p50 "
          f"{pct(drain_ms, .5):.0f} ms, max {max(drain_ms):.0f} ms")
    print(f"close (host): p50 {pct(close_ms, .5):.1f} ms, max {max(close_ms):.1f} ms")
    print(f"new board on all {TEAMS} team sockets + projector after the close: "
          f"p50 {pct(board_ms, .5):.1f} ms, p95 {pct(board_ms, .95):.1f} ms, "
          f"max {max(board_ms):.1f} ms ({len(board_ms)} deliveries)")
    print(f"messages received: {sum(x.messages for x in teams)} by the team sockets, "
          f"{projector.messages} by the projector, {host_socket.messages} by the host")
    print(f"total runtime {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        db.setdefault("TEST", {})["NAME"] = str(Path(tempfile.mkdtemp()) / "bench.sqlite3")
    old = setup_databases(verbosity=0, interactive=False)
    try:
        asyncio.run(main())
    finally:
        teardown_databases(old, verbosity=0)
