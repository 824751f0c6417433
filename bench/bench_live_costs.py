"""What one live write costs: database queries, rules recomputations, time and the largest
push per GoRoD code, ruling and per King of the Hill answer (all written and pushed through the
live pipeline, commit included).

Run: ``.venv/bin/python bench/bench_live_costs.py [GOROD_TEAMS …]`` (SQLite), or with
``DATABASE_URL=…`` for PostgreSQL. It builds a throwaway test database, GoRoD nights (40 and
200 teams by default, five levels, a few attempts each) and a King of the Hill game
(``KOTH_TEAMS`` teams, a few questions played), then measures one wrong code, one closing code,
one ruling and one answer: queries counted with Django's ``CaptureQueriesContext``,
recomputations by counting calls of the engines' ``compute`` (a GoRoD code checked against its
team's own timeline counts as none), pushes by the bytes handed to the channel layer.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_databases, teardown_databases  # noqa: E402

GOROD_TEAMS, KOTH_TEAMS = (40, 200), 24


def measure(label, write):
    import live.messages
    from gorod import rules as gorod_rules
    from kingofhill import rules as koth_rules

    calls, pushed = [], []
    real = {m: m.compute for m in (gorod_rules, koth_rules)}
    send = live.messages.send_to_groups
    for module, compute in real.items():
        module.compute = lambda *a, _c=compute, **k: calls.append(1) or _c(*a, **k)
    live.messages.send_to_groups = lambda messages: pushed.extend(messages) or send(messages)
    connection.queries_log.clear()  # the log keeps 9 000 queries: a long set-up fills it
    try:
        with CaptureQueriesContext(connection) as queries:
            t = time.perf_counter()
            write()
            ms = (time.perf_counter() - t) * 1000
    finally:
        for module, compute in real.items():
            module.compute = compute
        live.messages.send_to_groups = send
    sizes = [len(message["text"].encode()) for _group, message in pushed]
    print(f"{label:<40} {len(queries):>4} queries  {len(calls):>2} recomputations  "
          f"{ms:7.1f} ms  {len(sizes):>3} pushes, largest {max(sizes, default=0) / 1024:7.1f} KiB")


def users():
    from django.contrib.auth.models import Group, User

    from core.roles import HOST, ORGANIZER

    organizer = User.objects.create_user("bench-organizer", password="x")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZER)[0])
    host = User.objects.create_user("bench-host", password="x")
    host.groups.add(Group.objects.get_or_create(name=HOST)[0])
    return organizer, host


def teams_for(game, count, captain, prefix):
    import secrets

    from teams.models import Application, Team

    entries = []
    for i in range(count):
        team = Team.objects.create(name=f"{prefix} {i:03d}", name_key=f"{prefix} {i:03d}",
                                   captain=captain)
        entries.append(Application.objects.create(
            game=game, team=team, status=Application.Status.APPROVED,
            join_token=secrets.token_urlsafe(24), join_pin=f"{len(prefix)}{i:05d}"))
    return entries


def gorod_case(organizer, n_teams):
    from django.utils import timezone

    from gorod import services
    from teams.models import Game

    game = Game.objects.create(title="bench GoRoD", format=Game.Format.GOROD,
                               starts_at=timezone.now(), created_by=organizer)
    entries = teams_for(game, n_teams, organizer, f"G{n_teams}-")
    levels = [{"label": str(n), "codes": {"code": f"G1R{n}D"}} for n in range(1, 6)]
    gg = services.gorod_create(actor=organizer, game=game, levels=levels)
    start = timezone.now() - timedelta(minutes=60)
    services.game_start(actor=organizer, game=gg, now=start)
    for i, entry in enumerate(entries):
        moment = start + timedelta(minutes=1, seconds=2 * i)
        services.code_submit(game=gg, application=entry, text="nope", now=moment)
        if i % 2:
            services.code_submit(game=gg, application=entry, text="G1R1D",
                                 now=moment + timedelta(seconds=1))
    services.game_tick(game=gg.pk)  # the clock caught up: the measure is the write alone
    measure(f"GoRoD wrong code ({n_teams} teams)", lambda: services.code_submit(
        game=gg.pk, application=entries[0], text="still wrong"))
    measure(f"GoRoD closing code ({n_teams} teams)", lambda: services.code_submit(
        game=gg.pk, application=entries[0], text="G1R1D"))
    measure(f"GoRoD penalty ruling ({n_teams} teams)", lambda: services.ruling_add(
        actor=organizer, game=gg.pk, application=entries[2], type="penalty", minutes=5))


def koth_case(organizer, host):
    from django.utils import timezone

    from kingofhill import services
    from kingofhill.models import Answer
    from teams.models import Game

    game = Game.objects.create(title="bench KotH", format=Game.Format.KINGOFHILL,
                               starts_at=timezone.now(), created_by=organizer)
    entries = teams_for(game, KOTH_TEAMS, organizer, "K")
    koth = services.koth_create(actor=host, game=game, summit=7, main_questions=30)
    services.game_start(actor=host, game=koth)
    for _ in range(5):
        services.question_announce(actor=host, game=koth, answer_key="да")
        for i, entry in enumerate(entries):
            services.answer_submit(game=koth, application=entry, text="да" if i % 3 else "нет",
                                   client_id=uuid.uuid4())
        number = Answer.objects.filter(question__koth=koth).latest("pk").question.number
        services.answers_judge(actor=host, game=koth, question=number, normalized="нет",
                               verdict=False)
        services.question_close(actor=host, game=koth)
    services.question_announce(actor=host, game=koth, answer_key="да")
    measure(f"KotH answer ({KOTH_TEAMS} teams, q6)", lambda: services.answer_submit(
        game=koth.pk, application=entries[0], text="да", client_id=uuid.uuid4()))


def main():
    old = setup_databases(verbosity=0, interactive=False)
    try:
        organizer, host = users()
        for n_teams in [int(arg) for arg in sys.argv[1:]] or GOROD_TEAMS:
            gorod_case(organizer, n_teams)
        koth_case(organizer, host)
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
