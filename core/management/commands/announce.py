"""``manage.py announce TEXT``: show a message on every open page (e.g. "break, 10 minutes")."""

from django.core.management.base import CommandError

from core.announcements import layer_reaches_the_server
from core.errors import DomainError
from core.management.base import ClearCommand
from core.models import Announcement
from core.services import announcement_send


class Command(ClearCommand):
    help = ("Send a short announcement to every open page. With REDIS_URL it is broadcast at once; "
            "with the in-memory layer it is stored and the running server shows it within a second.")

    def add_arguments(self, parser):
        parser.add_argument("text")

    def handle(self, *args, text: str, **options):
        # The in-memory layer lives inside the server process: a broadcast from here reaches
        # nobody, so the server's scheduler sends what is stored (core.announcements).
        reaches = layer_reaches_the_server()
        try:
            announcement = announcement_send(actor=None, text=text, deliver=reaches)
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        if Announcement.objects.filter(pk=announcement.pk, delivered_at__isnull=False).exists():
            self.stdout.write("sent")
        else:
            self.stdout.write("queued: the running server shows it within a second")
