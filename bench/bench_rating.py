"""Benchmark of a season table page: 30 final games of 100 teams each, against ``GET /healthz``.

Run: ``.venv/bin/python bench/bench_rating.py`` (SQLite), or with ``DATABASE_URL=postgresql://…
REDIS_URL=redis://…`` to measure PostgreSQL and the Redis cache. It builds a throwaway test
database (Django's test-database machinery) holding a GoRoD season of 30 final games with 100
teams (places shuffled per game, a few disqualified teams, deductions and an organizing team
with votes in some games), then, through Django's test client in the same run: times
``GET /healthz``, the season page's first (cold: the table is computed) and later (cached)
requests, and one more cold request after a result changes. It prints the medians and the
ratio of the season page to ``/healthz``; the goal is a cached page well under 100 ms.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.test.utils import setup_databases, teardown_databases  # noqa: E402

TEAMS, GAMES, RUNS = 100, 30, 25


def prepare():
    """A season of GAMES final GoRoD results of TEAMS teams, written as the services store
    them (the live games themselves are not what this measures)."""
    from datetime import timedelta

    from django.contrib.auth.models import User
    from django.utils import timezone

    from rating.models import GameResult, OrganizerVote, ResultRow, Season
    from teams.models import Game, Team

    rng = random.Random(2026)
    owner = User.objects.create_user("bench-captain", password="x")
    teams = Team.objects.bulk_create(
        Team(name=f"Команда {i:03d}", name_key=f"команда {i:03d}", captain=owner)
        for i in range(TEAMS + 1))
    organizing, players = teams[-1], teams[:-1]
    season = Season.objects.create(title="Бенчмарк", format="gorod", scale=[
        100, 96, 92, 88, 84, 81, 78, 75, 72, 69, 66, 63, 60, 57, 54, 52, 50, 48, 46, 44, 43, 42,
        41, 40, 39, 38, 37, 36, 35, 34])
    start = timezone.now() - timedelta(days=GAMES * 7)
    for g in range(GAMES):
        game = Game.objects.create(title=f"Игра {g + 1}", format="gorod",
                                   starts_at=start + timedelta(days=7 * g),
                                   organizing_team=organizing if g % 5 == 0 else None)
        season.games.add(game)
        result = GameResult.objects.create(game=game, status=GameResult.Status.FINAL,
                                           published_at=game.starts_at,
                                           ended_at=game.starts_at + timedelta(hours=8),
                                           finalized_at=game.starts_at + timedelta(days=1))
        order = list(players)
        rng.shuffle(order)
        disqualified = set(rng.sample(range(TEAMS), 2))
        rows, place = [], 0
        for standing, team in enumerate(order, 1):
            dq = standing - 1 in disqualified
            place += 0 if dq else 1
            rows.append(ResultRow(result=result, team=team, standing=standing,
                                  place=None if dq else place, disqualified=dq,
                                  deduction=4 if rng.random() < 0.03 else 0))
        ResultRow.objects.bulk_create(rows)
        if game.organizing_team_id:
            OrganizerVote.objects.bulk_create(
                OrganizerVote(result=result, team=team, value=rng.choice([0, 25, 50, 75, 100]))
                for team in rng.sample(players, 40))
    return season


def timed(client, url: str, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        began = time.perf_counter()
        response = client.get(url)
        out.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return out


def main() -> None:
    from django.core.cache import cache
    from django.test import Client

    from rating.models import GameResult

    began = time.perf_counter()
    season = prepare()
    print(f"database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, cache: "
          f"{settings.CACHES['default']['BACKEND'].rsplit('.', 1)[-1]}; season of {GAMES} "
          f"games × {TEAMS} teams built in {time.perf_counter() - began:.1f} s")
    cache.clear()
    client = Client(SERVER_NAME="127.0.0.1")
    url = f"/rating/seasons/{season.pk}/"
    timed(client, "/healthz", 3)  # warm up the URL resolver and the middleware
    healthz = statistics.median(timed(client, "/healthz", RUNS))
    cold = timed(client, url, 1)[0]
    warm = statistics.median(timed(client, url, RUNS))
    # A result changes (re-opened and made final again): the next request recomputes.
    result = GameResult.objects.filter(game__seasons=season).order_by("game__starts_at").last()
    GameResult.objects.filter(pk=result.pk).update(finalized_at=result.finalized_at.replace(
        microsecond=(result.finalized_at.microsecond + 1) % 1_000_000))
    recomputed = timed(client, url, 1)[0]
    print(f"GET /healthz: median {healthz:.2f} ms over {RUNS}")
    print(f"season table page: cold {cold:.1f} ms (computed), cached median {warm:.1f} ms over "
          f"{RUNS}, after a result changed {recomputed:.1f} ms")
    print(f"ratio season page / healthz: cached {warm / healthz:.1f}×, cold "
          f"{cold / healthz:.1f}×; cached page {'under' if warm < 100 else 'OVER'} 100 ms")


if __name__ == "__main__":
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        db.setdefault("TEST", {})["NAME"] = str(Path(tempfile.mkdtemp()) / "bench.sqlite3")
    # Nothing to restore between runs: skip serializing the fresh database.
    old = setup_databases(verbosity=0, interactive=False, serialized_aliases=set())
    try:
        main()
    finally:
        teardown_databases(old, verbosity=0)
