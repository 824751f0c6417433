"""The benchmark's data: a GoRoD night of 200 teams × 30 levels with 20 000 stored attempts and a
64-team King of the Hill game, plus the browser sessions of their phones, host and organizer.

Run by ``bench.run`` as ``python -m bench.dataset OUT.json`` with the environment of the server
it is for (``DATABASE_URL``/``SQLITE_PATH``): it migrates, builds the data and writes a manifest
(game ids, session cookies, each team's codes) for the client. The games are set up through the
services (``gorod_create``, ``game_start``, ``koth_create``, ``question_announce``); the night's
history — thousands of attempts that are no part of what is measured — is bulk-inserted as
the service would have stored it (each attempt against the level the team was on, wrong ones
within the brute-force limit, one closing attempt per closed level), and then the live states
are rebuilt once from it.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")

FULL = {"gorod_teams": 200, "levels": 30, "attempts": 20_000, "phones_per_team": 3,
        "koth_teams": 64, "koth_phones_per_team": 16, "public_sessions": 0}
QUICK = {"gorod_teams": 20, "levels": 30, "attempts": 600, "phones_per_team": 3,
         "koth_teams": 16, "koth_phones_per_team": 4, "public_sessions": 0}
# The letters of every level's code; each team types them in its own mix of upper and lower
# case (the matcher folds case), so the raw text the organizer screen logs names the team and
# the level and the client can tell when its accepted code reached the organizer's socket.
CODE_LETTERS = "QWERTYUI"
NIGHT_HOURS = 3


def level_code(level: int) -> str:
    return f"G{level:02d}{CODE_LETTERS}D"


def team_spelling(code: str, team_index: int) -> str:
    """``code`` with its letters' case set by the bits of ``team_index`` (unique per team for
    up to 256 teams): ``team_spelling("G01QWERTYUID", 5)`` is ``"G01qWeRTYUID"``."""
    out, bit = [], 0
    for ch in code[3:-1]:
        out.append(ch.lower() if team_index >> bit & 1 else ch)
        bit += 1
    return code[:3] + "".join(out) + code[-1]


def _session(data: dict) -> str:
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store.update(data)
    store.create()
    return store.session_key


def _user_session(user) -> str:
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    return _session({SESSION_KEY: str(user.pk),
                     BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
                     HASH_SESSION_KEY: user.get_session_auth_hash()})


def _phone_sessions(applications, per_team: int) -> dict[int, list[str]]:
    """``per_team`` joined phones per team, bound as ``teams.joins._bind`` binds them."""
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    from teams.services import JOIN_SESSION_KEY

    rows, keys = [], {}
    expiry = timezone.now() + timedelta(days=2)
    for app in applications:
        keys[app.pk] = []
        for _ in range(per_team):
            key = secrets.token_hex(16)
            data = {JOIN_SESSION_KEY: {str(app.game_id): {"application": app.pk,
                                                          "join_version": app.join_version}}}
            rows.append(Session(session_key=key, session_data=SessionStore().encode(data),
                                expire_date=expiry))
            keys[app.pk].append(key)
    Session.objects.bulk_create(rows, batch_size=500)
    return keys


def _teams(game, count: int, captain, prefix: str):
    from teams.models import Application, Team

    teams = Team.objects.bulk_create(
        [Team(name=f"{prefix} {i:03d}", name_key=f"{prefix.lower()} {i:03d}", captain=captain)
         for i in range(count)])
    Application.objects.bulk_create(
        [Application(game=game, team=team, status=Application.Status.APPROVED,
                     join_token=secrets.token_urlsafe(24), join_pin=f"{i + 100000}")
         for i, team in enumerate(teams)])
    return list(Application.objects.filter(game=game).select_related("team").order_by("pk"))


def _users():
    from django.contrib.auth.models import Group, User

    from core.roles import HOST, ORGANIZER

    organizer = User.objects.create_user("bench-organizer", password="bench-pass-2026")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZER)[0])
    host = User.objects.create_user("bench-host", password="bench-pass-2026")
    host.groups.add(Group.objects.get_or_create(name=HOST)[0])
    return organizer, host


def build_gorod(organizer, size: dict, rng: random.Random, *, title: str = "bench GoRoD night",
                prefix: str = "Night") -> dict:
    from django.utils import timezone

    from gorod import services
    from gorod.codes import normalize_code
    from gorod.live import LIVE
    from gorod.models import CodeAttempt, GorodGame, Level
    from teams.models import Game

    n_teams, n_levels = size["gorod_teams"], size["levels"]
    now = timezone.now()
    start = now - timedelta(hours=NIGHT_HOURS)
    game = Game.objects.create(title=title, format=Game.Format.GOROD, starts_at=start,
                               created_by=organizer)
    apps = _teams(game, n_teams, organizer, prefix)
    levels = [{"label": str(n), "codes": {"code": level_code(n)}, "task": f"Level {n}",
               "hint1": "first hint", "hint2": "second hint"} for n in range(1, n_levels + 1)]
    gg = services.gorod_create(actor=organizer, game=game, levels=levels)
    services.game_start(actor=organizer, game=gg, now=start)
    rows = {lv.label: lv for lv in Level.objects.filter(gorod=gg)}
    # Each team closed 3..8 levels, evenly over the night so far, and is on the next one; the
    # wrong attempts fill the rest of the 20 000, spread inside each level's time. At least 22
    # levels stay for the bench's codes: the HTTP rounds (three of 10 s at 32 connections)
    # play one such game, the 30-s night another.
    closed = {a.pk: rng.randint(3, min(8, n_levels - 22)) for a in apps}
    wrong_total = max(0, size["attempts"] - sum(closed.values()))
    per_team = wrong_total // n_teams
    attempts = []
    span_min = NIGHT_HOURS * 60 - 5
    for index, app in enumerate(apps):
        k = closed[app.pk]
        step = span_min / (k + 1)
        for n in range(1, k + 2):  # levels 1..k closed, k+1 current
            level = rows[str(n)]
            begin = start + timedelta(minutes=(n - 1) * step)
            wrong_here = per_team // (k + 1) + (1 if n <= per_team % (k + 1) else 0)
            for j in range(wrong_here):
                # Evenly inside the level, never more than the brute-force limit per window.
                at = begin + timedelta(minutes=step * (j + 0.5) / (wrong_here + 1))
                text = f"nope{rng.randrange(10**6)}"
                attempts.append(CodeAttempt(gorod=gg, application=app, level=level, text=text,
                                            normalized=normalize_code(text), at=at,
                                            verdict=CodeAttempt.Verdict.WRONG))
            if n <= k:
                text = team_spelling(level_code(n), index)
                attempts.append(CodeAttempt(
                    gorod=gg, application=app, level=level, text=text,
                    normalized=normalize_code(text), at=begin + timedelta(minutes=step * 0.99),
                    verdict=CodeAttempt.Verdict.ACCEPTED, sector="", closes_level=True))
    CodeAttempt.objects.bulk_create(attempts, batch_size=2000)
    GorodGame.objects.filter(pk=gg.pk).update(next_deadline=None)
    # The states of the night as it stands, rebuilt once from the rows stored in bulk (which
    # bypassed the live core).
    LIVE.refresh(game=gg.pk)
    phones = _phone_sessions(apps, size["phones_per_team"])
    return {
        "id": gg.pk, "attempts": CodeAttempt.objects.filter(gorod=gg).count(),
        "teams": [{"application": a.pk, "index": i, "level": closed[a.pk] + 1,
                   "phones": phones[a.pk]} for i, a in enumerate(apps)],
        "levels": n_levels,
    }


def build_koth(host, organizer, size: dict) -> dict:
    from kingofhill import services
    from teams.models import Game

    game = Game.objects.create(title="bench King of the Hill", format=Game.Format.KINGOFHILL,
                               starts_at=time_now(), created_by=organizer)
    apps = _teams(game, size["koth_teams"], organizer, "Hill")
    koth = services.koth_create(actor=host, game=game, summit=7, main_questions=200)
    services.game_start(actor=host, game=koth)
    services.question_announce(actor=host, game=koth, answer_key="да")
    phones = _phone_sessions(apps, size["koth_phones_per_team"])
    return {"id": koth.pk,
            "teams": [{"application": a.pk, "phones": phones[a.pk]} for a in apps]}


def time_now():
    from django.utils import timezone

    return timezone.now()


def build(size: dict, seed: int = 2026) -> dict:
    organizer, host = _users()
    rng = random.Random(seed)
    return {
        "organizer_session": _user_session(organizer),
        "host_session": _user_session(host),
        "gorod": build_gorod(organizer, size, rng),
        # The night scenario's own game: a faster server plays more levels in the HTTP rounds,
        # and teams that ran out of levels before the night starved it of codes to send.
        "gorod_night": build_gorod(organizer, size, rng, title="bench GoRoD night (the night "
                                   "scenario)", prefix="Eve"),
        "koth": build_koth(host, organizer, size),
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m bench.dataset OUT.json", file=sys.stderr)
        return 2
    import django

    django.setup()
    from django.core.management import call_command

    started = time.perf_counter()
    call_command("migrate", verbosity=0, interactive=False)
    migrated = time.perf_counter()
    size = QUICK if os.environ.get("BENCH_QUICK") == "1" else FULL
    manifest = build(size)
    manifest["seconds"] = {"migrate": round(migrated - started, 2),
                           "data": round(time.perf_counter() - migrated, 2)}
    Path(argv[1]).write_text(json.dumps(manifest))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
