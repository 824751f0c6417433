"""The GoRoD clock: hints appear and failed levels advance with no request.

State is a pure function of (record, now), so a reload always shows the right thing without
this process; the clock only pushes the new states at each deadline. Loop: for every running
game compute ``next_deadline`` at now, sleep until the earliest (at most ``--poll`` seconds, so
new games and changes are seen), then tick (recompute, finish the game if the engine says it is
over, broadcast) every game whose deadline has passed. ``--once``: one such round, then exit.
"""

from __future__ import annotations

import time
from datetime import datetime

from django.core.management.base import BaseCommand
from django.utils import timezone

from core.records import RecordError
from gorod import rules, selectors, services
from gorod.models import GorodGame


def deadlines(now: datetime) -> dict[int, datetime]:
    found = {}
    for gg in GorodGame.objects.select_related("game").filter(status=GorodGame.Status.RUNNING):
        try:
            snap = selectors.load_snapshot(gg, now)
        except RecordError:  # pragma: no cover - services never commit an impossible record
            continue
        moment = rules.next_deadline(snap.results) if not snap.results.game_over else now
        if moment is not None:
            found[gg.pk] = moment
    return found


def run_round(poll_s: float, sleep=time.sleep) -> list[int]:
    """Sleep until the earliest deadline (at most ``poll_s``), tick the games due; returns
    their ids."""
    now = timezone.now()
    due = deadlines(now)
    if not due:
        sleep(poll_s)
        return []
    earliest = min(due.values())
    wait = (earliest - now).total_seconds()
    sleep(max(0.0, min(wait, poll_s)))
    now = timezone.now()
    ticked = []
    for game_id, moment in due.items():
        if moment <= now:
            services.game_tick(game=game_id, now=now)
            ticked.append(game_id)
    return ticked


class Command(BaseCommand):
    help = "Broadcast GoRoD states at every hint, fail and end (run it next to the web server)."

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="one round, then exit")
        parser.add_argument("--poll", type=float, default=15.0,
                            help="longest sleep in seconds (default 15)")

    def handle(self, *args, once: bool = False, poll: float = 15.0, **options):
        while True:
            ticked = run_round(poll)
            if ticked:
                self.stdout.write(f"ticked games {', '.join(map(str, ticked))} at "
                                  f"{timezone.localtime().isoformat(timespec='seconds')}")
            if once:
                return
