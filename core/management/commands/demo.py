"""``manage.py demo``: load the demo (idempotent) and print where every screen is."""

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

    def handle(self, *args, host: str, port: str, **options):
        from teams.models import Game

        lines = load_demo()
        base = f"http://{host}:{port}"
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
        for game in Game.objects.order_by("starts_at"):
            out.write(f"  results «{game.title}»: {base}{reverse('rating:results', args=[game.pk])}")
        out.write("Demo logins (username / password):")
        for username, group, _ in DEMO_USERS:
            out.write(f"  {username} / {DEMO_PASSWORD}    ({ROLE_SCREENS.get(group, group)})")
        for username, team in DEMO_CAPTAINS:
            out.write(f"  {username} / {DEMO_PASSWORD}    (captain of «{team}»: protests, votes)")
        out.write("")
