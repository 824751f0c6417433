"""Strict parsing of environment variables for settings.

A wrong value fails loudly with the variable's name (``ImproperlyConfigured``) instead of
being read as a default: ``DEBUG=flase`` must not quietly mean anything.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off"}


def env_bool(name: str, default: bool, environ: Mapping[str, str] = os.environ) -> bool:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a boolean; use one of: true/false, yes/no, on/off, 1/0"
    )


def env_int(name: str, default: int, environ: Mapping[str, str] = os.environ) -> int:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number") from None


def gc_thresholds(name: str, default: tuple[int, int, int] | None,
                  environ: Mapping[str, str] = os.environ) -> tuple[int, int, int] | None:
    """``gen0,gen1,gen2`` for ``gc.set_threshold``, or None for ``python`` (Python's own).

    >>> gc_thresholds("GC", (10000, 20, 10), {"GC": "700, 10, 10"})
    (700, 10, 10)
    >>> gc_thresholds("GC", (10000, 20, 10), {"GC": "python"}) is None
    True
    """
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    if raw.strip().lower() == "python":
        return None
    try:
        values = tuple(int(part) for part in raw.split(","))
    except ValueError:
        values = ()
    if len(values) != 3 or min(values) < 1:
        raise ImproperlyConfigured(f"{name}={raw!r} is not three whole numbers above 0 "
                                   "(generations 0, 1 and 2) nor 'python'")
    return values  # type: ignore[return-value]


def env_list(name: str, default: list[str], environ: Mapping[str, str] = os.environ) -> list[str]:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_config(environ: Mapping[str, str], base_dir, *, stock: bool = False) -> dict:
    """SQLite by default; PostgreSQL from ``DATABASE_URL`` or the libpq ``PG*`` variables.
    ``stock`` (``STOCK_INTERNALS``): SQLite through Django's own backend."""
    url = environ.get("DATABASE_URL", "").strip()
    if url:
        return _database_from_url(url, environ, stock=stock)
    if environ.get("PGDATABASE") or environ.get("PGHOST"):
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": environ.get("PGDATABASE", "postgres"),
            "USER": environ.get("PGUSER", ""),
            "PASSWORD": environ.get("PGPASSWORD", ""),
            "HOST": environ.get("PGHOST", ""),
            "PORT": environ.get("PGPORT", ""),
            **postgres_connections(environ, {}),
        }
    return sqlite_config(environ.get("SQLITE_PATH", "") or str(base_dir / "db.sqlite3"),
                         stock=stock)


# The embedded default serves a whole evening from one file, with the clock and management
# commands writing beside the server. WAL lets readers go on while one writer commits; every
# transaction takes the write lock when it begins (IMMEDIATE), so two writers queue on the busy
# timeout instead of one of them failing with "database is locked" when it upgrades a read lock.
SQLITE_BUSY_TIMEOUT_S = 20
SQLITE_INIT = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"


def sqlite_config(path: str, *, stock: bool = False) -> dict:
    """The SQLite file at ``path``, set up so concurrent writes wait their turn.

    Its connections persist (``CONN_MAX_AGE=None``): a request's thread is pooled
    (``core.handlers``), so each thread keeps its one connection instead of opening the file
    and setting it up again per request. ``stock`` (``STOCK_INTERNALS``): Django's own backend,
    whose writers wait in SQLite's busy handler, and a connection per request, as Django
    advises under ASGI (its handler starts a new thread for each request, so a persistent
    connection would outlive the thread that could reuse it)."""
    return {
        "ENGINE": "django.db.backends.sqlite3" if stock else "core.backends.sqlite3",
        "NAME": path,
        "CONN_MAX_AGE": 0 if stock else None,
        "OPTIONS": {"timeout": SQLITE_BUSY_TIMEOUT_S, "transaction_mode": "IMMEDIATE",
                    "init_command": SQLITE_INIT},
    }


# Every request used to open a new PostgreSQL connection (CONN_MAX_AGE=0): a connect and
# authentication per request. Django's persistent connections (CONN_MAX_AGE > 0) are per thread;
# the request threads are pooled (``core.handlers``), but a burst starts threads beyond the
# pool, and one connection per thread would pass max_connections. psycopg's connection pool
# keeps CONN_MAX_AGE at 0, hands each request a warm connection and bounds them.
# CONN_HEALTH_CHECKS makes the pool test a connection before lending it, so a database restart
# costs no request. The pool is per worker process: workers × DB_POOL_MAX_SIZE must stay under
# the server's max_connections (100 by default), with room for the clock and management
# commands. A request waits at most DB_POOL_TIMEOUT_S for a connection: long enough for a burst
# (600 phones connecting at once), short enough that a database that is down answers 503 in
# seconds.
DB_POOL_MIN_SIZE = 2
DB_POOL_MAX_SIZE = 20
DB_POOL_TIMEOUT_S = 10


def postgres_connections(environ: Mapping[str, str], options: dict) -> dict:
    """The connection part of a PostgreSQL ``DATABASES`` entry: the pool (``DB_POOL``, on by
    default; ``DB_POOL_MAX_SIZE``) in ``OPTIONS`` beside the URL's own options."""
    options = dict(options)
    if env_bool("DB_POOL", True, environ):
        max_size = env_int("DB_POOL_MAX_SIZE", DB_POOL_MAX_SIZE, environ)
        if max_size < 1:
            raise ImproperlyConfigured(f"DB_POOL_MAX_SIZE={max_size!r} must be at least 1")
        timeout = env_int("DB_POOL_TIMEOUT_S", DB_POOL_TIMEOUT_S, environ)
        if timeout < 1:
            raise ImproperlyConfigured(f"DB_POOL_TIMEOUT_S={timeout!r} must be at least 1")
        options["pool"] = {"min_size": min(DB_POOL_MIN_SIZE, max_size), "max_size": max_size,
                           "timeout": timeout}
    return {"CONN_MAX_AGE": 0, "CONN_HEALTH_CHECKS": True, "OPTIONS": options}


def _database_from_url(url: str, environ: Mapping[str, str] = os.environ, *,
                       stock: bool = False) -> dict:
    parts = urlsplit(url)
    if parts.scheme in ("postgres", "postgresql", "pgsql"):
        name = unquote(parts.path.lstrip("/"))
        if not name:
            raise ImproperlyConfigured(f"DATABASE_URL={url!r} names no database (…/dbname)")
        try:
            port = parts.port
        except ValueError:
            raise ImproperlyConfigured(f"DATABASE_URL={url!r} has a bad port") from None
        options = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(port or ""),
            **postgres_connections(environ, options),
        }
    if parts.scheme == "sqlite":
        # sqlite:///relative.db or sqlite:////absolute/path.db
        path = unquote(url[len("sqlite:///"):]) if url.startswith("sqlite:///") else ""
        if not path:
            raise ImproperlyConfigured(f"DATABASE_URL={url!r}: write sqlite:///path/to/file.db")
        return sqlite_config(path, stock=stock)
    raise ImproperlyConfigured(
        f"DATABASE_URL={url!r}: unsupported scheme {parts.scheme!r}; use postgresql:// or sqlite:///"
    )


# Reads time out, but well after any answer a healthy Redis gives (redis-py 8's 5 s default cut
# the list layer's blocking 5 s reads and dropped idle sockets), so a half-open connection (a
# peer gone without a reset) is noticed; TCP keepalive keeps idle connections through NAT and
# firewalls. A command cut by a short Redis blip (a restart, a failover) is retried a few times
# with backoff, about 1.5 s in all, instead of losing the push or dropping every socket, and a
# connection idle for a while is checked with a PING before it is used again, at half the read
# timeout. REDIS_SOCKET_TIMEOUT_S sets the read timeout (the test of an idle socket shortens it
# instead of sitting through 20 s of silence).
REDIS_SOCKET_TIMEOUT_S = 20
REDIS_CONNECT_TIMEOUT_S = 3.0
REDIS_RETRIES = 3


def redis_client_options(url: str, *, asyncio: bool,
                         environ: Mapping[str, str] = os.environ) -> dict:
    """Connection options for redis-py, the same for the channel layer (``asyncio=True``) and
    the cache (sync client); each client needs its own ``Retry`` class."""
    from redis.backoff import ExponentialBackoff

    if asyncio:
        from redis.asyncio.retry import Retry
    else:
        from redis.retry import Retry
    timeout = env_int("REDIS_SOCKET_TIMEOUT_S", REDIS_SOCKET_TIMEOUT_S, environ)
    if timeout < 2:
        raise ImproperlyConfigured(f"REDIS_SOCKET_TIMEOUT_S={timeout!r} must be at least 2")
    options = {
        "socket_timeout": float(timeout),
        "socket_connect_timeout": REDIS_CONNECT_TIMEOUT_S,
        "health_check_interval": timeout // 2,
        "retry": Retry(ExponentialBackoff(cap=1.0, base=0.1), REDIS_RETRIES),
    }
    if urlsplit(url).scheme != "unix":  # TCP keepalive: a unix socket has none
        options["socket_keepalive"] = True
    return options


def cache_config(environ: Mapping[str, str]) -> dict:
    """Per-process memory by default; Redis from ``REDIS_URL``, so limits that count requests
    (e.g. wrong join PINs per address) hold across several workers."""
    url = environ.get("REDIS_URL", "").strip()
    if not url:
        # Room for every phone's session of a night (``SESSION_ENGINE``): the default 300
        # entries would evict them while 600 phones play.
        return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                            "OPTIONS": {"MAX_ENTRIES": 20_000}}}
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": environ.get("CHANNELS_PREFIX", "clubgames") + "-cache",
            "OPTIONS": redis_client_options(url, asyncio=False, environ=environ),
        }
    }


# A worker's Redis connections for the channel layer (config.layers, pub/sub): one holds the
# worker's subscriptions, the others publish. 600 phones dropping at once make 1 200 group and
# channel calls together; redis-py's plain pool refused every command past its limit at once
# (MaxConnectionsError, the group never left); the layer's pool waits up to REDIS_POOL_WAIT_S
# for one of REDIS_MAX_CONNECTIONS connections instead.
REDIS_MAX_CONNECTIONS = 200
REDIS_POOL_WAIT_S = 20


def channel_layers_config(environ: Mapping[str, str], *, stock: bool = False) -> dict:
    """In-memory layer by default (one process); Redis from ``REDIS_URL`` (several workers).
    ``stock`` (``STOCK_INTERNALS``): Channels' own in-memory layer. The Redis layer stays
    ``config.layers``' own: its resync after an outage and its waiting pool are behaviour the
    stock layer lacks, not only speed."""
    url = environ.get("REDIS_URL", "").strip()
    if not url:
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer" if stock
                            else "config.layers.InMemoryChannelLayer"}}
    scheme = urlsplit(url).scheme
    if scheme not in ("redis", "rediss", "unix"):
        raise ImproperlyConfigured(
            f"REDIS_URL={url!r}: unsupported scheme {scheme!r}; use redis://host:port/db"
        )
    return {
        "default": {
            "BACKEND": "config.layers.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": url,
                                  **redis_client_options(url, asyncio=True, environ=environ),
                                  "max_connections": env_int("REDIS_MAX_CONNECTIONS",
                                                             REDIS_MAX_CONNECTIONS, environ),
                                  "timeout": REDIS_POOL_WAIT_S}],
                       "prefix": environ.get("CHANNELS_PREFIX", "clubgames")},
        }
    }


def email_config(environ: Mapping[str, str]) -> dict:
    """Django's ``EMAIL_*`` settings: SMTP when ``EMAIL_HOST`` is set, else the file backend when
    ``EMAIL_FILE_PATH`` is set, else the console (sign-up and reset links are printed by the
    server, so a club's laptop needs no mail server to try the site)."""
    sender = environ.get("DEFAULT_FROM_EMAIL", "").strip() or "games@localhost"
    host = environ.get("EMAIL_HOST", "").strip()
    if host:
        use_tls = env_bool("EMAIL_USE_TLS", True, environ)
        use_ssl = env_bool("EMAIL_USE_SSL", False, environ)
        if use_tls and use_ssl:
            raise ImproperlyConfigured(
                "EMAIL_USE_TLS and EMAIL_USE_SSL are both on; SMTP uses one of them: "
                "STARTTLS (usually port 587) or implicit TLS (usually port 465)"
            )
        port = env_int("EMAIL_PORT", 465 if use_ssl else 587, environ)
        if not 0 < port < 65536:
            raise ImproperlyConfigured(f"EMAIL_PORT={port!r} is not a TCP port (1-65535)")
        timeout = env_int("EMAIL_TIMEOUT", 10, environ)
        if timeout <= 0:
            raise ImproperlyConfigured(f"EMAIL_TIMEOUT={timeout!r} must be a positive number of seconds")
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": host,
            "EMAIL_PORT": port,
            "EMAIL_HOST_USER": environ.get("EMAIL_HOST_USER", ""),
            "EMAIL_HOST_PASSWORD": environ.get("EMAIL_HOST_PASSWORD", ""),
            "EMAIL_USE_TLS": use_tls,
            "EMAIL_USE_SSL": use_ssl,
            "EMAIL_TIMEOUT": timeout,
            "DEFAULT_FROM_EMAIL": sender,
        }
    for name in ("EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD", "EMAIL_USE_TLS",
                 "EMAIL_USE_SSL"):
        if environ.get(name, "").strip():
            raise ImproperlyConfigured(f"{name} is set but EMAIL_HOST is not: set EMAIL_HOST "
                                       "to send e-mail through SMTP")
    path = environ.get("EMAIL_FILE_PATH", "").strip()
    if path:
        return {"EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
                "EMAIL_FILE_PATH": path, "DEFAULT_FROM_EMAIL": sender}
    return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend",
            "DEFAULT_FROM_EMAIL": sender}


# --- hall mode and backups (core.hall, core.backups) ---------------------------------------


def _sqlite_file(database: Mapping) -> Path | None:
    return Path(database["NAME"]) if database["ENGINE"].endswith("sqlite3") else None


def hall_secret_key_path(database: Mapping, base_dir) -> Path:
    """Beside the SQLite file (``db.sqlite3.secret-key``): the key belongs to that night's
    sessions; on PostgreSQL in the checkout."""
    sqlite = _sqlite_file(database)
    return sqlite.with_name(sqlite.name + ".secret-key") if sqlite else Path(base_dir) / "hall.secret-key"


def backup_dir_default(database: Mapping, base_dir) -> Path:
    sqlite = _sqlite_file(database)
    return (sqlite.parent if sqlite else Path(base_dir)) / "backups"


def public_url_setting(environ: Mapping[str, str]) -> str:
    """``PUBLIC_URL``: ``http(s)://host[:port]`` without a path, or empty."""
    raw = environ.get("PUBLIC_URL", "").strip()
    if not raw:
        return ""
    parts = urlsplit(raw)
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        raise ImproperlyConfigured(f"PUBLIC_URL={raw!r} has a bad port") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") \
            or parts.query or parts.fragment:
        raise ImproperlyConfigured(
            f"PUBLIC_URL={raw!r}: write the address phones open, e.g. http://192.168.1.20:8000")
    return f"{parts.scheme}://{parts.netloc}"
