"""``manage.py demo``: load the demo (idempotent) and print where every screen is."""

from core.demo import DEMO_PASSWORD, DEMO_USERS, load_demo
from core.management.base import ClearCommand


class Command(ClearCommand):
    help = "Create the demo users and games (safe to run again) and print the URLs and logins."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")

    def handle(self, *args, host: str, port: str, **options):
        lines = load_demo()
        base = f"http://{host}:{port}"
        out = self.stdout
        out.write("")
        out.write(f"Serving on {base}/  (Ctrl+C to stop)")
        out.write(f"  home:   {base}/")
        out.write(f"  admin:  {base}/admin/")
        out.write(f"  API:    {base}/api/docs/")
        for line in lines:
            out.write("  " + line.replace("{base}", base))
        out.write(f"Demo logins (password for all: {DEMO_PASSWORD}):")
        for username, group, _ in DEMO_USERS:
            out.write(f"  {username:<10} {group}")
        out.write("")
