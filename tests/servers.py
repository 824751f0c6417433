"""Real servers for tests: app workers (``config.server``, as deployed), a private redis-server, and clients that act like
browsers (HTTP with cookies and CSRF, a WebSocket) and fire requests truly in parallel.

Only the standard library: the point is to talk to the servers exactly as phones do, over
loopback sockets, with a timeout on every call so a hung server fails a test instead of hanging
the run.
"""

from __future__ import annotations

import base64
import http.cookiejar
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts"
PYTHON = sys.executable
REQUEST_TIMEOUT_S = 20.0
TEST_SETTINGS = "tests.settings"


def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def log_file(name: str) -> Path:
    """``artifacts/<name>``, per parallel test worker: two workers may start the same servers."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return artifacts_dir() / (f"{worker}-{name}" if worker else name)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, *, proc: subprocess.Popen | None = None, timeout: float = 30,
                  what: str = "server") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the {what} exited early (status {proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"the {what} did not listen on port {port} within {timeout:.0f} s")


def server_env(**extra: str) -> dict[str, str]:
    """The environment of a child process that must use this test run's database (the test
    database pytest-django created, not the one ``DATABASE_URL`` names)."""
    from django.conf import settings

    env = dict(os.environ)
    # The test run's settings (a fast password hash), whatever the parent was started with.
    env.setdefault("DJANGO_SETTINGS_MODULE", TEST_SETTINGS)
    # A server runs the time-driven jobs itself unless told otherwise, as `make run` does.
    env.setdefault("SCHEDULER_IN_PROCESS", "true")
    # A phone's presence reaches the host at once, so no refresh runs after a test's flush.
    env.setdefault("PRESENCE_REFRESH_MS", "0")
    db = settings.DATABASES["default"]
    env.pop("DATABASE_URL", None)
    if db["ENGINE"].endswith("sqlite3"):
        env["SQLITE_PATH"] = str(db["NAME"])
    else:
        env.update(PGDATABASE=db["NAME"], PGHOST=db["HOST"] or "localhost",
                   PGPORT=str(db["PORT"] or ""), PGUSER=db["USER"] or "",
                   PGPASSWORD=db["PASSWORD"] or "")
    env.update(extra)
    return env


def stop(proc: subprocess.Popen, timeout: float = 10) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


# --- app workers ------------------------------------------------------------------------------


@dataclass
class Workers:
    """N server processes on free loopback ports serving the same database and layer."""

    urls: list[str]
    procs: list[subprocess.Popen]
    logs: list[Path]

    def url(self, index: int = 0) -> str:
        return self.urls[index % len(self.urls)]

    def alive(self) -> bool:
        return all(p.poll() is None for p in self.procs)

    def log_text(self) -> str:
        return "\n".join(f"--- {path.name}\n{path.read_text(errors='replace')}"
                         for path in self.logs if path.exists())

    def stop(self) -> None:
        for proc in self.procs:
            stop(proc)


def start_workers(count: int, env: dict[str, str], *, name: str = "worker",
                  timeout: float = 40) -> Workers:
    """Start ``count`` workers (``python -m config.server``) in parallel (each one's log in ``artifacts/``)."""
    ports = [free_port() for _ in range(count)]
    procs, logs = [], []
    for i, port in enumerate(ports):
        log = log_file(f"{name}-{i}.log")
        with open(log, "w") as out:  # the child keeps its own descriptor
            procs.append(subprocess.Popen(
                [PYTHON, "-m", "config.server", "--host", "127.0.0.1", "--port", str(port)],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT))
        logs.append(log)
    workers = Workers([f"http://127.0.0.1:{p}" for p in ports], procs, logs)
    try:
        for port, proc in zip(ports, procs, strict=True):
            wait_for_port(port, proc=proc, timeout=timeout, what=f"server on {port}")
    except RuntimeError:
        workers.stop()
        raise RuntimeError(workers.log_text()) from None
    return workers


def manage(*args: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def start_manage(*args: str, env: dict[str, str], log_name: str) -> tuple[subprocess.Popen, Path]:
    """A long-running management command (the GoRoD clock), logging to ``artifacts/``."""
    log = log_file(log_name)
    with open(log, "w") as out:
        proc = subprocess.Popen([PYTHON, "-u", "manage.py", *args], cwd=ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT)
    return proc, log


# --- a private redis-server -------------------------------------------------------------------


def redis_server_binary() -> str | None:
    return shutil.which("redis-server")


@dataclass
class RedisServer:
    """A redis-server of this test alone on a fixed free loopback port, to stop and start
    again (the shared one must never be touched)."""

    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = redis_server_binary()
        assert binary, "redis-server is not installed"
        self.proc = subprocess.Popen(
            [binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, proc=self.proc, timeout=10, what="redis-server")

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)
            self.proc = None


# --- a browser's HTTP side --------------------------------------------------------------------


@dataclass
class Reply:
    status: int
    body: Any  # the parsed JSON, or the text when it is not JSON
    worker: str
    headers: dict[str, str] = field(default_factory=dict)  # names in lower case

    @property
    def detail(self) -> str:
        return self.body.get("detail", "") if isinstance(self.body, dict) else ""


class Browser:
    """One browser: its cookies (session, CSRF) shared by every worker it talks to, as behind
    a load balancer. ``worker`` picks the server for one call (round robin by index)."""

    def __init__(self, workers: Workers | Sequence[str], timeout: float = REQUEST_TIMEOUT_S):
        self.urls = list(workers.urls if isinstance(workers, Workers) else workers)
        self.timeout = timeout
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def base(self, worker: int = 0) -> str:
        return self.urls[worker % len(self.urls)]

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)

    def request(self, method: str, path: str, data: Any = None, *, worker: int = 0,
                form: bool = False, headers: dict[str, str] | None = None) -> Reply:
        base = self.base(worker)
        headers = {"Accept": "application/json", "Accept-Language": "en", **(headers or {})}
        body = None
        if data is not None:
            if form:
                body = urllib.parse.urlencode(data).encode()
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            else:
                body = json.dumps(data).encode()
                headers["Content-Type"] = "application/json"
        if method not in ("GET", "HEAD"):
            token = self.cookie("csrftoken")
            if token:
                headers["X-CSRFToken"] = token
            headers["Referer"] = base + "/"
        req = urllib.request.Request(base + path, data=body, headers=headers, method=method)
        try:
            with self.opener.open(req, timeout=self.timeout) as resp:
                status, raw, answered = resp.status, resp.read(), dict(resp.headers)
        except urllib.error.HTTPError as exc:
            status, raw, answered = exc.code, exc.read(), dict(exc.headers)
        text = raw.decode("utf-8", errors="replace")
        try:
            parsed: Any = json.loads(text)
        except ValueError:
            parsed = text
        return Reply(status, parsed, base, {k.lower(): v for k, v in answered.items()})

    def get(self, path: str, *, worker: int = 0) -> Reply:
        return self.request("GET", path, worker=worker)

    def post(self, path: str, data: Any = None, *, worker: int = 0) -> Reply:
        return self.request("POST", path, {} if data is None else data, worker=worker)

    def ok(self, method: str, path: str, data: Any = None, *, worker: int = 0,
           status: int = 200) -> Any:
        """The body of a call that must succeed with ``status``."""
        reply = self.request(method, path, data, worker=worker)
        assert reply.status == status, (method, path, reply.status, reply.body)
        return reply.body

    def log_in(self, username: str, password: str) -> Browser:
        """The login form, as a person fills it in (CSRF cookie and token included)."""
        page = self.get("/accounts/login/")
        assert page.status == 200, page.status
        token = self.cookie("csrftoken")
        assert token, "the login page set no CSRF cookie"
        reply = self.request("POST", "/accounts/login/", {
            "username": username, "password": password, "csrfmiddlewaretoken": token,
            "next": "/"}, form=True)
        assert reply.status == 200 and self.cookie("sessionid"), (reply.status, username)
        return self

    def join_team(self, token: str, *, worker: int = 0) -> dict:
        """Bind this browser to a team as a phone does: open the join page (CSRF cookie),
        then send the secret from the team's link."""
        page = self.get("/teams/join/", worker=worker)
        assert page.status == 200, page.status
        entry = self.ok("POST", "/teams/api/join/", {"token": token}, worker=worker)
        return entry


def parallel(calls: Sequence[Callable[[], Any]], *, timeout: float = 45) -> list[Any]:
    """Run every call at the same moment (threads released together by a barrier) and return
    their results in order; an exception in a call is raised here."""
    if not calls:
        return []
    barrier = threading.Barrier(len(calls))

    def run(call):
        barrier.wait(timeout)
        return call()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        futures = [pool.submit(run, call) for call in calls]
        return [f.result(timeout=timeout) for f in futures]


# --- a browser's WebSocket --------------------------------------------------------------------


class SocketClosed(Exception):
    pass


class WebSocket:
    """A minimal RFC 6455 client (text frames, ping/pong, close) over a blocking socket."""

    def __init__(self, url: str, path: str, *, browser: Browser | None = None,
                 timeout: float = 10):
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        self.buffer = b""
        key = base64.b64encode(os.urandom(16)).decode()
        cookies = "; ".join(f"{c.name}={c.value}" for c in browser.jar) if browser else ""
        lines = [f"GET {path} HTTP/1.1", f"Host: {parts.netloc}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Key: {key}",
                 "Sec-WebSocket-Version: 13", f"Origin: {url}"]
        if cookies:
            lines.append(f"Cookie: {cookies}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = self._read_until(b"\r\n\r\n", timeout)
        status = head.split(b"\r\n", 1)[0]
        if status.split()[1:2] != [b"101"]:
            raise SocketClosed(f"handshake refused: {status!r}")
        self.close_code: int | None = None

    def _read_until(self, marker: bytes, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        while marker not in self.buffer:
            self._fill(deadline)
        head, self.buffer = self.buffer.split(marker, 1)
        return head

    def _fill(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("nothing arrived on the socket in time")
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(65536)
        except TimeoutError:
            raise TimeoutError("nothing arrived on the socket in time") from None
        if not chunk:
            raise SocketClosed("the server closed the connection")
        self.buffer += chunk

    def _take(self, n: int, deadline: float) -> bytes:
        while len(self.buffer) < n:
            self._fill(deadline)
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _send_frame(self, opcode: int, payload: bytes = b"") -> None:
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def ping(self, payload: bytes = b"probe") -> None:
        self._send_frame(0x9, payload)

    def recv(self, timeout: float = 10) -> dict | bytes:
        """The next text message as JSON, or a pong's payload; raises ``SocketClosed`` when the
        server closes (its code in ``close_code``) and ``TimeoutError`` when nothing comes."""
        deadline = time.monotonic() + timeout
        message = b""
        while True:
            b1, b2 = self._take(2, deadline)
            opcode, length = b1 & 0x0F, b2 & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._take(2, deadline))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._take(8, deadline))
            payload = self._take(length, deadline)
            if opcode == 0x8:
                self.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                raise SocketClosed(f"closed by the server with code {self.close_code}")
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                return payload
            message += payload
            if b1 & 0x80:
                return json.loads(message.decode())

    def recv_until(self, predicate: Callable[[dict], bool], timeout: float = 10) -> dict:
        """Skip messages until one satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.recv(max(0.01, deadline - time.monotonic()))
            if isinstance(message, dict) and predicate(message):
                return message

    def close(self) -> None:
        try:
            self._send_frame(0x8, struct.pack("!H", 1000))
        except OSError:
            pass
        self.sock.close()
