"""Hall mode (core.hall, `make hall`): phones on the venue's Wi-Fi reach the laptop over plain
HTTP, with the product's own pages; the local demo shows them too unless DEBUG=true."""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
from django.core.management import call_command

from tests.servers import server_env, start_workers

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_PROBE = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'debug': s.DEBUG, 'ssl_redirect': s.SECURE_SSL_REDIRECT, "
    "'session_secure': s.SESSION_COOKIE_SECURE, 'csrf_secure': s.CSRF_COOKIE_SECURE, "
    "'hsts': s.SECURE_HSTS_SECONDS, 'hosts': s.ALLOWED_HOSTS, 'key': s.SECRET_KEY, "
    "'lan': s.HALL_ADDRESS, 'backup_every': s.BACKUP_INTERVAL_S, 'backup_dir': str(s.BACKUP_DIR)}))"
)
MODE_VARIABLES = {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "PGDATABASE", "PGHOST",
                  "ALLOWED_HOSTS", "HALL", "PUBLIC_URL", "BACKUP_DIR", "BACKUP_INTERVAL_S"}


def run_settings(**env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in MODE_VARIABLES}
    return subprocess.run([sys.executable, "-c", SETTINGS_PROBE], cwd=ROOT,
                          env=clean | env | {"DJANGO_SETTINGS_MODULE": "config.settings"},
                          capture_output=True, text=True, timeout=60)


def hall_settings(db: Path, **env) -> dict:
    result = run_settings(HALL="true", SQLITE_PATH=str(db), **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def machine_ipv4_addresses() -> set[str]:
    """This machine's IPv4 addresses other than loopback, read here independently of the app."""
    up = psutil.net_if_stats()
    return {a.address for name, addrs in psutil.net_if_addrs().items()
            for a in addrs if a.family == socket.AF_INET and up.get(name) and up[name].isup
            and not ipaddress.ip_address(a.address).is_loopback}


def test_hall_mode_runs_debug_off_over_plain_http(tmp_path):
    hall = hall_settings(tmp_path / "night.sqlite3")
    assert hall["debug"] is False
    assert (hall["ssl_redirect"], hall["session_secure"], hall["csrf_secure"], hall["hsts"]) == (
        False, False, False, 0)
    assert hall["backup_every"] == 60 and hall["backup_dir"] == str(tmp_path / "backups")


def test_hall_mode_answers_the_machines_addresses_and_name_and_nothing_else(tmp_path):
    hosts = hall_settings(tmp_path / "night.sqlite3")["hosts"]
    assert machine_ipv4_addresses(), "this machine has no network address to test with"
    assert machine_ipv4_addresses() <= set(hosts)
    assert {"127.0.0.1", "localhost", socket.gethostname().lower()} <= set(hosts)
    assert "*" not in hosts and "evil.example" not in hosts


def test_the_hall_secret_key_is_generated_once_beside_the_database_and_kept(tmp_path):
    db = tmp_path / "night.sqlite3"
    first = hall_settings(db)["key"]
    second = hall_settings(db)["key"]
    key_file = tmp_path / "night.sqlite3.secret-key"
    assert first == second == key_file.read_text().strip()
    assert len(first) >= 50 and "insecure" not in first
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    # another night's database gets its own key
    assert hall_settings(tmp_path / "other.sqlite3")["key"] != first


def test_hall_mode_with_debug_on_is_refused_with_a_clear_message(tmp_path):
    result = run_settings(HALL="true", DEBUG="true", SQLITE_PATH=str(tmp_path / "n.sqlite3"))
    assert result.returncode != 0
    assert "HALL=true runs with DEBUG off" in result.stderr


@pytest.mark.parametrize("value", ["192.168.1.5:8000", "ftp://x", "http://h/path"])
def test_a_public_url_that_is_not_an_address_is_refused_by_name(value):
    result = run_settings(PUBLIC_URL=value)
    assert result.returncode != 0
    assert f"PUBLIC_URL={value!r}" in result.stderr


def test_production_keeps_its_hardening_and_refuses_the_default_key():
    refused = run_settings(DEBUG="false")
    assert refused.returncode != 0 and "DEBUG=false needs SECRET_KEY" in refused.stderr
    result = run_settings(DEBUG="false", SECRET_KEY="k" * 60, ALLOWED_HOSTS="games.example.org")
    production = json.loads(result.stdout)
    assert (production["ssl_redirect"], production["session_secure"], production["hsts"]) == (
        True, True, 31536000)


def test_the_local_demo_has_debug_off_unless_asked_and_no_tls():
    local = json.loads(run_settings().stdout)
    assert (local["debug"], local["ssl_redirect"], local["session_secure"], local["hsts"]) == (
        False, False, False, 0)
    assert local["hosts"] == ["127.0.0.1", "localhost", "[::1]"]
    assert json.loads(run_settings(DEBUG="true").stdout)["debug"] is True


# --- real servers ----------------------------------------------------------------------------


def fetch(url: str, host: str | None = None, language: str | None = None):
    headers = {"Host": host} if host else {}
    if language:
        headers["Accept-Language"] = language
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                    timeout=20) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


SERVER_MODE_VARIABLES = {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "HALL", "PUBLIC_URL", "BACKUP_DIR",
                         "BACKUP_INTERVAL_S"}


def local_env(**extra) -> dict[str, str]:
    """The test database's server environment without any run-mode variable."""
    env = {k: v for k, v in server_env().items() if k not in SERVER_MODE_VARIABLES}
    return env | extra


@pytest.fixture
def hall_server(django_db_setup, django_db_blocker, tmp_path):
    # On SQLite the key file goes beside the test database (a temporary folder); on
    # PostgreSQL it would go into the checkout, so the test gives one.
    from tests.conftest import on_postgresql

    key = {"SECRET_KEY": "hall-test-" + "k" * 50} if on_postgresql() else {}
    server = start_workers(1, local_env(HALL="true", BACKUP_INTERVAL_S="0",
                                        BACKUP_DIR=str(tmp_path / "backups"), **key), name="hall")
    yield server
    server.stop()


@pytest.mark.django_db(transaction=True)
def test_a_phone_asking_for_the_laptops_lan_address_gets_the_page(hall_server):
    port = hall_server.url().rsplit(":", 1)[1]
    lan = sorted(machine_ipv4_addresses())[0]
    status, page = fetch(hall_server.url() + "/teams/join/", host=f"{lan}:{port}")
    assert status == 200, page[:300]
    status, page = fetch(hall_server.url() + "/teams/join/", host=f"evil.example:{port}")
    assert status == 400
    # the product's own page, in Russian by default, not Django's English debug page
    assert "DisallowedHost" not in page and 'class="error-page"' in page and 'lang="ru"' in page


@pytest.fixture
def local_server(django_db_setup, django_db_blocker):
    """As `make run` serves: no DEBUG, HALL or PUBLIC_URL in the environment."""
    server = start_workers(1, local_env(), name="local-demo")
    yield server
    server.stop()


@pytest.mark.django_db(transaction=True)
def test_the_local_demo_answers_a_missing_page_with_the_products_404_in_russian(local_server):
    status, page = fetch(local_server.url() + "/no-such-page/")
    assert status == 404
    assert 'class="error-page"' in page and "Не найдено." in page and 'lang="ru"' in page
    assert "Using the URLconf" not in page and "{#" not in page and "Standalone" not in page
    status, page = fetch(local_server.url() + "/no-such-page/", language="en")
    assert status == 404 and "Not found." in page


@pytest.mark.django_db(transaction=True)
def test_debug_true_still_gives_djangos_debug_page_when_asked_for(django_db_setup):
    server = start_workers(1, local_env(DEBUG="true"), name="local-debug")
    try:
        status, page = fetch(server.url() + "/no-such-page/")
    finally:
        server.stop()
    assert status == 404 and "Using the URLconf" in page


def test_the_error_page_template_shows_no_template_comment():
    from django.template.loader import render_to_string

    page = render_to_string("error.html", {"status": 404, "message": "Not found."})
    assert "Standalone" not in page and "{#" not in page and "#}" not in page


# --- the printed screen list -----------------------------------------------------------------


@pytest.mark.django_db
def test_in_hall_mode_the_printed_screens_are_at_the_lan_address(settings, capsys, tmp_path):
    settings.HALL, settings.HALL_ADDRESS = True, "192.0.2.44"
    settings.BACKUP_INTERVAL_S, settings.BACKUP_DIR = 60, tmp_path / "backups"
    call_command("demo", "--host", "0.0.0.0", "--port", "8123", "--if-empty")
    out = capsys.readouterr().out
    assert "http://192.0.2.44:8123/teams/join/" in out and "/teams/j/" in out
    assert "0.0.0.0" not in out and "127.0.0.1" not in out
    assert "Phones: join the same Wi-Fi as this computer and open http://192.0.2.44:8123/" in out
    assert f"every 60 s into {tmp_path / 'backups'}" in out and "manage.py restore" in out


@pytest.mark.django_db
def test_public_url_is_the_address_of_the_printed_screens(settings, capsys):
    settings.PUBLIC_URL = "http://games.club.lan:8000"
    call_command("demo", "--host", "0.0.0.0", "--port", "8123")
    assert "http://games.club.lan:8000/gorod/" in capsys.readouterr().out


@pytest.mark.django_db
def test_hall_mode_loads_the_demo_only_into_a_database_without_users(settings, capsys):
    from django.contrib.auth.models import User

    from teams.models import Game

    User.objects.create_user("club-organizer")
    call_command("demo", "--host", "0.0.0.0", "--port", "8123", "--if-empty")
    assert not Game.objects.exists()
    assert "Demo logins" not in capsys.readouterr().out
