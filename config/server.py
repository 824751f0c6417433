"""The deployment ASGI server: ``python -m config.server [--host H] [--port P]``.

uvicorn with its C parts (httptools, uvloop) and the ``websockets`` protocol. `make bench`
measured it against daphne on the same app in the same run (README: Deployment): it serves
``/healthz`` and a fan-out to 2 000 sockets markedly faster, and writes — bound by the
database — no slower. ``make run``, ``make serve``, ``scripts/serve-workers.sh``, the test
servers (``tests/servers.py``) and the bench all start it through this module, so they run the
same server with the same options:

- no proxy headers: uvicorn would take the client address from ``X-Forwarded-For`` itself;
  the app reads it with ``TRUSTED_PROXIES`` (``core.net``), rightmost entry first;
- no lifespan: the app has no start-up or shutdown hooks (``core.scheduler`` starts with the
  first connection, as under daphne);
- 1 MiB as the largest message a client may send, as under daphne (pages send nothing on
  their sockets: actions go over HTTP).
"""

from __future__ import annotations

import argparse
import os
import sys

WS_MAX_SIZE = 1024 * 1024


def options(host: str, port: int, *, access_log: bool) -> dict:
    return {"host": host, "port": port, "proxy_headers": False, "lifespan": "off",
            "ws": "websockets", "http": "httptools", "loop": "uvloop",
            "ws_max_size": WS_MAX_SIZE, "access_log": access_log, "log_level": "warning"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m config.server")
    parser.add_argument("--host", "-b", default="127.0.0.1")
    parser.add_argument("--port", "-p", type=int, default=8000)
    parser.add_argument("--access-log", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.getcwd())
    import uvicorn

    uvicorn.run("config.asgi:application", **options(args.host, args.port,
                                                      access_log=args.access_log))
    return 0


if __name__ == "__main__":
    sys.exit(main())
