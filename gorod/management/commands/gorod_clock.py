"""``manage.py gorod_clock``: run the time-driven jobs (``core.scheduler``) — the GoRoD clock
(``gorod.clock``: hints, failed levels and the time cap at their deadlines, missed ones at once)
and queued announcements — in a process of its own, beside several ASGI workers. Run exactly
one; the embedded default (``make run``) needs none: the server runs the jobs itself.
``--once``: one round, then exit."""

from __future__ import annotations

from core.management.base import ClearCommand
from core.scheduler import POLL_S, run_forever


class Command(ClearCommand):
    help = ("Run the scheduled jobs (GoRoD hints, fails and time caps; queued announcements) "
            "beside the web workers.")

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="one round, then exit")
        parser.add_argument("--poll", type=float, default=POLL_S,
                            help=f"seconds between rounds (default {POLL_S:g})")

    def handle(self, *args, once: bool = False, poll: float = POLL_S, **options):
        run_forever(once=once, poll_s=max(0.05, poll))
