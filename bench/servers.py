"""The servers a benchmark run starts and stops itself, all on free loopback ports in one
temporary folder: a PostgreSQL cluster and a redis-server of its own (installed from Debian's
packages when missing, as ``.ci/run`` does), the app under daphne or uvicorn, and nginx in
front of several workers with ``deploy/nginx.conf``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.servers import free_port, stop, wait_for_port

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
NGINX_CONF = ROOT / "deploy" / "nginx.conf"


def ensure_packages(packages: dict[str, str]) -> None:
    """``{binary: debian package}``: install the packages whose binary is missing."""
    missing = [pkg for binary, pkg in packages.items()
               if not (shutil.which(binary) or Path(binary).exists())]
    if not missing:
        return
    if os.geteuid() != 0:
        raise RuntimeError(f"error: install {' '.join(missing)} (needs root)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
                   check=True, env=env, stdout=subprocess.DEVNULL)


def pg_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0)
    return found[-1].parent if found else None


def _as_postgres(args: list[str], **kw) -> subprocess.CompletedProcess:
    if os.geteuid() == 0:  # initdb refuses root
        args = ["runuser", "-u", "postgres", "--", *args]
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


@dataclass
class Postgres:
    """A throwaway cluster: no fsync (the bench measures the app, not the disk)."""

    work: Path
    port: int = field(default_factory=free_port)

    @property
    def data(self) -> Path:
        return self.work / "pg"

    def url(self, db: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        if pg_bin() is None:
            ensure_packages({"/usr/lib/postgresql": "postgresql"})
        bin_ = pg_bin()
        self.data.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.work, "postgres")
            shutil.chown(self.data, "postgres", "postgres")
        _as_postgres([str(bin_ / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
                      "-E", "UTF8", "--locale=C.UTF-8"])
        opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.data} -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300")
        _as_postgres([str(bin_ / "pg_ctl"), "-D", str(self.data), "-l",
                      str(self.data / "server.log"), "-w", "-o", opts, "start"])

    def createdb(self, name: str, template: str | None = None) -> None:
        args = [str(pg_bin() / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
                "postgres"]
        if template:
            args += ["-T", template]
        subprocess.run([*args, name], check=True, capture_output=True)

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            try:
                _as_postgres([str(pg_bin() / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                              "stop"])
            except subprocess.CalledProcessError:
                pass


@dataclass
class Redis:
    work: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        ensure_packages({"redis-server": "redis-server"})
        self.proc = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--maxclients", "10000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, proc=self.proc, timeout=10, what="redis-server")

    def flush(self) -> None:
        subprocess.run(["redis-cli", "-p", str(self.port), "flushall"], check=True,
                       capture_output=True)

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)
            self.proc = None


SERVERS = {
    # The deployment commands, as `make serve` and scripts/serve-workers.sh run them.
    "daphne": lambda port: [PYTHON, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                            "config.asgi:application"],
    "uvicorn": lambda port: [PYTHON, "-m", "config.server", "--host", "127.0.0.1", "--port",
                             str(port)],
}


@dataclass
class App:
    """N workers of the app under one ASGI server, each on its own port."""

    server: str
    procs: list[subprocess.Popen]
    ports: list[int]
    logs: list[Path]

    @property
    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{p}" for p in self.ports]

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def log_errors(self) -> int:
        """Server-side errors logged (tracebacks, 5xx, the layer's connection errors)."""
        count = 0
        for log in self.logs:
            text = log.read_text(errors="replace") if log.exists() else ""
            count += text.count("Traceback") + text.count("MaxConnectionsError")
        return count

    def stop(self) -> None:
        for proc in self.procs:
            stop(proc)


def start_app(server: str, env: dict[str, str], workers: int, work: Path, name: str) -> App:
    ports = [free_port() for _ in range(workers)]
    procs, logs = [], []
    for i, port in enumerate(ports):
        log = work / f"{name}-{i}.log"
        with open(log, "w") as out:
            procs.append(subprocess.Popen(SERVERS[server](port), cwd=ROOT, env=env, stdout=out,
                                          stderr=subprocess.STDOUT))
        logs.append(log)
    app = App(server, procs, ports, logs)
    try:
        for port, proc in zip(ports, procs, strict=True):
            wait_for_port(port, proc=proc, timeout=60, what=f"{server} on {port}")
    except RuntimeError:
        app.stop()
        raise RuntimeError("\n".join(p.read_text(errors="replace") for p in logs)) from None
    return app


def nginx_binary() -> str:
    ensure_packages({"nginx": "nginx"})
    return shutil.which("nginx") or "/usr/sbin/nginx"


@dataclass
class Nginx:
    """nginx with the repository's ``deploy/nginx.conf``, its upstream pointed at ``ports``."""

    work: Path
    ports: list[int]
    static_root: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    def config(self) -> str:
        return render_nginx(NGINX_CONF.read_text(), listen=f"127.0.0.1:{self.port}",
                            workers=[f"127.0.0.1:{p}" for p in self.ports],
                            static_root=str(self.static_root), work=str(self.work))

    def start(self) -> None:
        conf = self.work / "nginx.conf"
        conf.write_text(self.config())
        self.proc = subprocess.Popen([nginx_binary(), "-c", str(conf), "-p", str(self.work),
                                      "-g", f"daemon off; pid {self.work}/nginx.pid; "
                                      f"error_log {self.work}/nginx-error.log;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        wait_for_port(self.port, proc=self.proc, timeout=10, what="nginx")

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)
            self.proc = None


def render_nginx(template: str, *, listen: str, workers: list[str], static_root: str,
                 work: str) -> str:
    """The deployment file with a site's values: the ``server 127.0.0.1:8001;`` lines of the
    upstream replaced by ``workers``, the listen address, the static root and (for a
    non-root run) the temporary paths."""
    lines, upstream_done = [], False
    for line in template.splitlines():
        stripped = line.strip()
        if stripped.startswith("server 127.0.0.1:") and stripped.endswith(";"):
            if not upstream_done:
                indent = line[: len(line) - len(line.lstrip())]
                lines += [f"{indent}server {w};" for w in workers]
                upstream_done = True
            continue
        if stripped.startswith("listen "):
            indent = line[: len(line) - len(line.lstrip())]
            line = f"{indent}listen {listen};"
        if stripped.startswith("alias ") and "staticfiles" in stripped:
            indent = line[: len(line) - len(line.lstrip())]
            line = f"{indent}alias {static_root.rstrip('/')}/;"
        if stripped.startswith(("access_log", "client_body_temp_path", "proxy_temp_path")):
            continue
        lines.append(line)
    text = "\n".join(lines)
    # Temporary files under the run's own folder (nginx defaults to /var/lib/nginx).
    extra = (f"    client_body_temp_path {work}/body;\n    proxy_temp_path {work}/proxy;\n"
             f"    fastcgi_temp_path {work}/fastcgi;\n    uwsgi_temp_path {work}/uwsgi;\n"
             f"    scgi_temp_path {work}/scgi;\n    access_log off;\n")
    return text.replace("http {\n", "http {\n" + extra, 1)


def wait_http(url: str, timeout: float = 30) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                if resp.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.2)
