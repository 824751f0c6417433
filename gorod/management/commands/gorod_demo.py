"""``manage.py gorod_demo``: the demo logins plus a RUNNING GoRoD game with three levels
(idempotent); prints the organizer page, the team join links and the codes."""

from django.core.management.base import BaseCommand

from core.demo import demo_users
from gorod.demo import build_live_demo


class Command(BaseCommand):
    help = "Create a running GoRoD demo game (safe to run again) and print its links and codes."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")

    def handle(self, *args, host: str, port: str, **options):
        demo_users()
        base = f"http://{host}:{port}"
        for line in build_live_demo():
            self.stdout.write(line.replace("{base}", base))
