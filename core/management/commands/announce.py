"""``manage.py announce TEXT``: show a message on every open page (e.g. "break, 10 minutes")."""

from django.core.management.base import CommandError

from core.management.base import ClearCommand
from core.realtime import broadcast_announcement


class Command(ClearCommand):
    help = "Broadcast a short announcement to every connected page."

    def add_arguments(self, parser):
        parser.add_argument("text")

    def handle(self, *args, text: str, **options):
        text = text.strip()
        if not text:
            raise CommandError("the announcement is empty")
        if len(text) > 500:
            raise CommandError("the announcement is longer than 500 characters")
        broadcast_announcement(text)
        self.stdout.write("sent")
