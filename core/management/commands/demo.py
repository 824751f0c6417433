"""``manage.py demo``: load the demo (idempotent) and print where every screen is.

``make hall`` runs it with ``--host 0.0.0.0 --if-empty``: the screens' addresses are then the
ones phones on the venue's Wi-Fi open (``PUBLIC_URL`` or the LAN address), and a club's own
database (it has users) is never touched."""

from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse

from core.demo import DEMO_CAPTAINS, DEMO_PASSWORD, DEMO_USERS, load_demo
from core.management.base import ClearCommand

ROLE_SCREENS = {
    "organizer": "set-up, applications, rulings, results, roles, admin",
    "host": "King of the Hill host console",
}


class Command(ClearCommand):
    help = "Create the demo users and games (safe to run again) and print the URLs and logins."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")
        parser.add_argument("--if-empty", action="store_true",
                            help="load the demo only into a database without users; always "
                                 "print the screens")

    def handle(self, *args, host: str, port: str, if_empty: bool, **options):
        lines = [] if if_empty and User.objects.exists() else load_demo()
        base = screens_base(host, port)
        out = self.stdout
        site = [
            ("home", reverse("core:home")),
            ("games", reverse("teams:games")),
            ("seasons", reverse("rating:seasons")),
            ("GoRoD set-up", reverse("gorod:setup_index")),
            ("roles", reverse("accounts:roles")),
            ("sign up", reverse("accounts:signup")),
            ("join a team", reverse("teams:join")),
            ("admin", reverse("admin:index")),
            ("API", reverse("api-docs")),
        ]
        out.write("")
        out.write(f"Serving on {base}/  (Ctrl+C to stop)")
        for label, path in site:
            out.write(f"  {label + ':':<14} {base}{path}")
        for line in lines:
            out.write("  " + line.replace("{base}", base))
        if lines:
            out.write("Demo logins (username / password):")
            for username, group, _ in DEMO_USERS:
                out.write(f"  {username} / {DEMO_PASSWORD}    ({ROLE_SCREENS.get(group, group)})")
            for username, team in DEMO_CAPTAINS:
                out.write(f"  {username} / {DEMO_PASSWORD}    (captain of «{team}»: protests, votes)")
        if settings.HALL:
            out.write(f"Phones: join the same Wi-Fi as this computer and open {base}/")
            out.write(f"Backups: every {settings.BACKUP_INTERVAL_S} s into {settings.BACKUP_DIR}"
                      if settings.BACKUP_INTERVAL_S else f"Backups: on demand into "
                      f"{settings.BACKUP_DIR}")
            out.write("  restore on another computer: python manage.py restore FILE")
        out.write("")


def screens_base(host: str, port: str) -> str:
    """Where the screens are for whoever reads the list: ``PUBLIC_URL`` when set; a server
    listening on every interface (0.0.0.0, ::) is reached at the machine's LAN address."""
    if settings.PUBLIC_URL:
        return settings.PUBLIC_URL
    if host in ("0.0.0.0", "::", ""):
        from core.hall import lan_address

        host = settings.HALL_ADDRESS or lan_address() or "127.0.0.1"
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"
