"""/healthz reports the database and the channel layer separately; with the database down the
API answers 503 JSON and pages a friendly 503 (a real server process, its services really down)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from django.test import Client

from tests.servers import ROOT, free_port, log_file, server_env


@pytest.mark.django_db
def test_healthz_says_ok_for_each_part_when_both_answer():
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True, "database": "ok", "channel_layer": "ok"}


def _serve(env: dict, name: str):
    port = free_port()
    log = open(log_file(f"{name}.log"), "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "config.server", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, log, f"http://127.0.0.1:{port}"
        except OSError:
            assert proc.poll() is None, f"the server exited; see {log.name}"
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


def _get(url: str):
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


@pytest.fixture(scope="module")
def production_env(django_db_setup, tmp_path_factory):
    """Production mode (DEBUG=false: Django's own 500 handling) with collected static files.
    A request waits 1 s for a pooled connection, not the default 10: with the database down
    every request waits that long before its 503, and the answer is the same."""
    common = dict(DEBUG="false", SECRET_KEY="x" * 60, ALLOWED_HOSTS="127.0.0.1",
                  SECURE_SSL_REDIRECT="false", STATIC_ROOT=str(tmp_path_factory.mktemp("static")),
                  DB_POOL_TIMEOUT_S="1")
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
                   cwd=ROOT, env=server_env(**common), check=True, timeout=120)
    return common


@pytest.fixture
def down_server(production_env):
    servers = []
    common = production_env

    def start(**extra):
        proc, log, url = _serve(server_env(**common, **extra), "down-server")
        servers.append((proc, log))
        return url

    yield start
    for proc, log in servers:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def test_with_the_database_and_the_layer_down_healthz_fails_naming_both_and_the_api_says_503(
    down_server
):
    closed = free_port()  # nothing listens there
    base = down_server(DATABASE_URL=f"postgresql://postgres@127.0.0.1:{closed}/nothing",
                       REDIS_URL=f"redis://127.0.0.1:{closed}/0")
    status, kind, body = _get(f"{base}/healthz")
    assert status == 503 and kind.startswith("application/json")
    assert '"ok": false' in body and '"database": "error: OperationalError"' in body
    assert '"channel_layer": "error:' in body
    status, kind, body = _get(f"{base}/teams/api/games/")
    assert status == 503 and kind.startswith("application/json") and '"detail"' in body
    status, kind, body = _get(f"{base}/teams/all/")
    assert status == 503 and kind.startswith("text/html")
    assert "Traceback" not in body and 'class="error-message"' in body


def test_with_only_the_channel_layer_down_healthz_fails_and_says_which(down_server):
    base = down_server(REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    status, _kind, body = _get(f"{base}/healthz")
    assert status == 503
    assert '"database": "ok"' in body and '"channel_layer": "error:' in body
