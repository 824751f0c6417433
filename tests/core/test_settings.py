"""Settings choose their backends from the environment and refuse bad values loudly."""

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import (
    cache_config,
    channel_layers_config,
    database_config,
    email_config,
    env_bool,
    env_int,
    gc_thresholds,
)

ROOT = Path(__file__).resolve().parents[2]
BASE = Path("/srv/app")


@pytest.mark.parametrize(
    ("environ", "engine"),
    [
        pytest.param({}, "core.backends.sqlite3", id="nothing set means sqlite"),
        pytest.param({"DATABASE_URL": "postgresql://u:p@db:5433/games"}, "django.db.backends.postgresql",
                     id="a postgresql url means postgresql"),
        pytest.param({"DATABASE_URL": "postgres://u@db/games"}, "django.db.backends.postgresql",
                     id="the short postgres scheme works too"),
        pytest.param({"PGDATABASE": "games", "PGHOST": "127.0.0.1"}, "django.db.backends.postgresql",
                     id="libpq PG variables mean postgresql"),
        pytest.param({"DATABASE_URL": "sqlite:////tmp/x.db"}, "core.backends.sqlite3",
                     id="an sqlite url means sqlite at that path"),
    ],
)
def test_the_database_engine_follows_the_environment(environ, engine):
    assert database_config(environ, BASE)["ENGINE"] == engine


def test_a_database_url_is_split_into_its_parts():
    config = database_config({"DATABASE_URL": "postgresql://user:p%40ss@db.local:5433/games?sslmode=require"}, BASE)
    assert (config["NAME"], config["USER"], config["PASSWORD"], config["HOST"], config["PORT"]) == (
        "games", "user", "p@ss", "db.local", "5433")
    assert config["OPTIONS"]["sslmode"] == "require"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        pytest.param("mysql://u@h/db", "unsupported scheme 'mysql'", id="mysql is refused by name"),
        pytest.param("postgresql://u@h/", "names no database", id="a url without a database name is refused"),
        pytest.param("postgresql://u@h:port/db", "bad port", id="a non numeric port is refused"),
    ],
)
def test_a_bad_database_url_says_what_is_wrong(url, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        database_config({"DATABASE_URL": url}, BASE)


def test_the_channel_layer_is_in_memory_without_redis_and_redis_with_it():
    assert channel_layers_config({})["default"]["BACKEND"] == "config.layers.InMemoryChannelLayer"
    redis = channel_layers_config({"REDIS_URL": "redis://127.0.0.1:6390/0"})["default"]
    assert redis["BACKEND"] == "config.layers.RedisChannelLayer"
    assert [host["address"] for host in redis["CONFIG"]["hosts"]] == ["redis://127.0.0.1:6390/0"]


def layer_connection(url: str):
    """The layer's pool and a connection exactly as it makes them from the settings (not
    connected)."""
    from config.layers import create_pool

    host = channel_layers_config({"REDIS_URL": url})["default"]["CONFIG"]["hosts"][0]
    pool = create_pool(host)
    return pool, pool.make_connection()


@pytest.mark.parametrize("environ", [
    {"DATABASE_URL": "postgresql://u@h:5432/games"},
    {"PGDATABASE": "games", "PGHOST": "h"},
], ids=["a database url", "libpq variables"])
def test_postgresql_lends_warm_pooled_connections_checked_before_use(environ):
    config = database_config(environ, BASE)
    # Persistent per-thread connections leak under ASGI (a thread per request): the pool.
    assert config["CONN_MAX_AGE"] == 0 and config["CONN_HEALTH_CHECKS"] is True
    pool = config["OPTIONS"]["pool"]
    assert pool["max_size"] == 20 and 1 <= pool["min_size"] <= pool["max_size"]
    assert pool["timeout"] > 0


def test_the_database_pool_size_is_set_by_the_environment_and_can_be_switched_off():
    url = {"DATABASE_URL": "postgresql://u@h/games?sslmode=require"}
    assert database_config(url | {"DB_POOL_MAX_SIZE": "5"}, BASE)["OPTIONS"]["pool"]["max_size"] == 5
    options = database_config(url | {"DB_POOL": "false"}, BASE)["OPTIONS"]
    assert options == {"sslmode": "require"}
    with pytest.raises(ImproperlyConfigured, match="DB_POOL_MAX_SIZE"):
        database_config(url | {"DB_POOL_MAX_SIZE": "0"}, BASE)


def test_how_long_a_request_waits_for_a_pooled_connection_is_set_by_the_environment():
    url = {"DATABASE_URL": "postgresql://u@h/games"}
    assert database_config(url, BASE)["OPTIONS"]["pool"]["timeout"] == 10
    assert database_config(url | {"DB_POOL_TIMEOUT_S": "3"}, BASE)["OPTIONS"]["pool"][
        "timeout"] == 3
    for bad in ("0", "soon"):
        with pytest.raises(ImproperlyConfigured, match="DB_POOL_TIMEOUT_S"):
            database_config(url | {"DB_POOL_TIMEOUT_S": bad}, BASE)


def test_the_redis_layer_waits_for_a_free_connection_instead_of_failing():
    from redis.asyncio import BlockingConnectionPool

    pool, _ = layer_connection("redis://127.0.0.1:6390/0")
    assert isinstance(pool, BlockingConnectionPool)
    assert pool.max_connections == 200 and pool.timeout >= 5


def test_the_redis_layer_publishes_a_group_message_once_not_once_per_socket():
    """Pub/sub: one change to a group of hundreds of sockets is one message through Redis."""
    from channels_redis.pubsub import RedisPubSubChannelLayer

    from config.layers import RedisChannelLayer

    assert issubclass(RedisChannelLayer, RedisPubSubChannelLayer)


def test_a_mass_disconnect_on_a_small_redis_pool_leaves_every_group():
    """600 sockets of one worker in two groups, pushes to both groups from 200 writes at once
    through a pool of 4 connections, then every socket leaving: each push waits its turn
    (redis-py's plain pool failed them with MaxConnectionsError), every socket gets both, and
    Redis is left with no subscription of the worker's."""
    import asyncio

    from config.layers import RedisChannelLayer

    url = os.environ.get("REDIS_URL", "")
    from tests.conftest import need

    need(bool(url), "Redis (REDIS_URL)")
    prefix = f"storm{os.getpid()}."
    config = channel_layers_config({"REDIS_URL": url, "REDIS_MAX_CONNECTIONS": "4",
                                    "CHANNELS_PREFIX": prefix})["default"]["CONFIG"]
    layer = RedisChannelLayer(**config)

    async def storm():
        channels = [await layer.new_channel() for _ in range(600)]
        await asyncio.gather(*(layer.group_add(g, c) for c in channels for g in ("a", "b")))
        await asyncio.gather(*(layer.group_send(g, {"type": "push", "n": n})
                               for n in range(100) for g in ("a", "b")))
        got = [[await asyncio.wait_for(layer.receive(c), 10) for _ in range(200)]
               for c in channels[:3] + channels[-3:]]
        await asyncio.gather(*(layer.group_discard(g, c) for c in channels for g in ("a", "b")))
        for channel in channels:
            await layer.delete_channel(channel)
        from redis.asyncio import Redis

        redis = Redis.from_url(url)
        left = await redis.pubsub_channels(f"{prefix}*")
        await redis.aclose()
        await layer.flush()
        return got, left

    got, left = asyncio.run(storm())
    assert all(sorted(m["n"] for m in each) == sorted(list(range(100)) * 2) for each in got)
    assert left == []


def test_the_redis_layer_reads_with_a_finite_timeout_and_keeps_connections_alive():
    """A dead peer is noticed (finite reads, TCP keepalive) and a connect never hangs."""
    _, connection = layer_connection("redis://127.0.0.1:6390/0")
    assert connection.socket_timeout is not None and connection.socket_timeout >= 15
    assert connection.socket_connect_timeout <= 5
    assert connection.socket_keepalive is True


def test_the_redis_layer_checks_idle_connections_and_retries_after_an_outage():
    from redis.exceptions import ConnectionError as RedisConnectionError

    _, connection = layer_connection("redis://127.0.0.1:6390/0")
    assert 0 < connection.health_check_interval < connection.socket_timeout
    assert connection.retry.get_retries() >= 3
    assert RedisConnectionError in connection.retry._supported_errors


def test_the_redis_read_timeout_is_set_by_the_environment_with_the_idle_check_at_half():
    url = {"REDIS_URL": "redis://127.0.0.1:6390/0"}
    host = channel_layers_config(url | {"REDIS_SOCKET_TIMEOUT_S": "4"})["default"]["CONFIG"][
        "hosts"][0]
    assert (host["socket_timeout"], host["health_check_interval"]) == (4.0, 2)
    assert cache_config(url | {"REDIS_SOCKET_TIMEOUT_S": "4"})["default"]["OPTIONS"][
        "socket_timeout"] == 4.0
    for bad in ("1", "soon"):
        with pytest.raises(ImproperlyConfigured, match="REDIS_SOCKET_TIMEOUT_S"):
            channel_layers_config(url | {"REDIS_SOCKET_TIMEOUT_S": bad})


def test_a_unix_socket_redis_url_makes_a_working_layer_connection():
    _, connection = layer_connection("unix:///run/redis/redis.sock?db=2")
    assert connection.path == "/run/redis/redis.sock" and connection.db == 2
    assert connection.socket_timeout >= 15


def test_the_redis_cache_uses_the_same_timeouts_with_the_sync_client():
    from django.core.cache.backends.redis import RedisCache
    from redis.retry import Retry

    config = cache_config({"REDIS_URL": "redis://127.0.0.1:6390/3"})["default"]
    cache = RedisCache(config["LOCATION"], {k: v for k, v in config.items()
                                            if k not in ("BACKEND", "LOCATION")})
    pool = cache._cache._get_connection_pool(write=True)
    connection = pool.make_connection()
    layer_conn = layer_connection("redis://127.0.0.1:6390/3")[1]
    assert (connection.socket_timeout, connection.socket_connect_timeout,
            connection.health_check_interval) == (
        layer_conn.socket_timeout, layer_conn.socket_connect_timeout,
        layer_conn.health_check_interval)
    assert isinstance(connection.retry, Retry) and connection.retry.get_retries() >= 3
    assert connection.db == 3


def test_the_cache_is_per_process_without_redis_and_shared_in_redis_with_it():
    assert cache_config({})["default"]["BACKEND"].endswith("LocMemCache")
    shared = cache_config({"REDIS_URL": "redis://127.0.0.1:6390/0"})["default"]
    assert shared["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert shared["LOCATION"] == "redis://127.0.0.1:6390/0"


@pytest.mark.parametrize("environ", [{}, {"DATABASE_URL": "sqlite:////tmp/x.db"}],
                         ids=["the default file", "an sqlite url"])
def test_sqlite_queues_concurrent_writers_instead_of_failing(environ):
    options = database_config(environ, BASE)["OPTIONS"]
    assert options["transaction_mode"] == "IMMEDIATE"  # the write lock at BEGIN, not mid-way
    assert options["timeout"] >= 10  # seconds a writer waits for the lock
    pragmas = [p.strip().lower() for p in options["init_command"].split(";")]
    assert "pragma journal_mode=wal" in pragmas


def test_a_redis_url_with_a_wrong_scheme_is_refused():
    with pytest.raises(ImproperlyConfigured, match="REDIS_URL"):
        channel_layers_config({"REDIS_URL": "http://127.0.0.1:6379"})


@pytest.mark.parametrize(
    ("raw", "value"),
    [("true", True), ("YES", True), (" on ", True), ("1", True), ("false", False), ("no", False),
     ("Off", False), ("0", False), ("", True)],
)
def test_booleans_accept_the_usual_words_and_empty_means_default(raw, value):
    assert env_bool("DEBUG", True, {"DEBUG": raw}) is value


@pytest.mark.parametrize("raw", ["flase", "2", "y", "enabled"])
def test_a_boolean_that_is_not_a_boolean_fails_with_its_name(raw):
    with pytest.raises(ImproperlyConfigured, match=f"DEBUG={raw!r} is not a boolean"):
        env_bool("DEBUG", True, {"DEBUG": raw})


def test_a_number_that_is_not_a_number_fails_with_its_name():
    with pytest.raises(ImproperlyConfigured, match="SECURE_HSTS_SECONDS='a year'"):
        env_int("SECURE_HSTS_SECONDS", 0, {"SECURE_HSTS_SECONDS": "a year"})


@pytest.mark.parametrize(
    ("raw", "value"),
    [("", (10_000, 20, 10)), ("700,10,10", (700, 10, 10)), (" 5000, 20 ,50 ", (5000, 20, 50)),
     ("python", None), ("Python", None)],
)
def test_the_collectors_thresholds_are_three_numbers_or_pythons_own(raw, value):
    assert gc_thresholds("GC_THRESHOLDS", (10_000, 20, 10), {"GC_THRESHOLDS": raw}) == value


@pytest.mark.parametrize("raw", ["10000", "10000,20", "1,2,3,4", "0,10,10", "a,b,c", "-1,10,10"])
def test_collector_thresholds_that_are_not_three_positive_numbers_fail_with_their_name(raw):
    with pytest.raises(ImproperlyConfigured, match=f"GC_THRESHOLDS={raw!r} is not three"):
        gc_thresholds("GC_THRESHOLDS", (10_000, 20, 10), {"GC_THRESHOLDS": raw})


@pytest.mark.parametrize(("raw", "expected"), [
    ("", "[[10000, 20, 10], true]"), ("2000,5,50", "[[2000, 5, 50], true]"),
    ("python", "[[700, 10, 10], false]")])
def test_the_served_app_sets_its_collector_once_built(raw, expected):
    """config.asgi, as every server loads it: the start-up's objects frozen out of the
    collections and the thresholds set, or Python's collector left as it is."""
    env = {**os.environ, "GC_THRESHOLDS": raw, "DATABASE_URL": "", "REDIS_URL": ""}
    code = ("import gc, json; import config.asgi; "
            "print(json.dumps([gc.get_threshold(), gc.get_freeze_count() > 0]))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == expected


def load_settings(**env):
    """Import the real settings module in a fresh process with exactly this environment."""
    clean = {k: v for k, v in os.environ.items()
             if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "PGDATABASE", "PGHOST",
                          "ALLOWED_HOSTS"}}
    clean.update(env)
    code = ("import json, django; django.setup(); from django.conf import settings as s; "
            "print(json.dumps([s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'], "
            "s.DEBUG, s.TIME_ZONE, s.USE_TZ, s.LANGUAGE_CODE, [c for c, _ in s.LANGUAGES]]))")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean | {"DJANGO_SETTINGS_MODULE": "config.settings"},
                          capture_output=True, text=True, timeout=60)


def test_the_settings_module_defaults_to_sqlite_in_memory_moscow_and_russian():
    result = load_settings()
    assert result.returncode == 0, result.stderr
    engine, layer, debug, zone, use_tz, language, languages = json.loads(result.stdout)
    assert engine.endswith("sqlite3") and layer.endswith("InMemoryChannelLayer")
    # DEBUG off by default: `make run` shows the product's own error pages (DEBUG=true: Django's).
    assert (debug, zone, use_tz, language, languages) == (False, "Europe/Moscow", True, "ru", ["ru", "en"])


def test_the_settings_module_picks_postgresql_and_redis_from_the_environment():
    result = load_settings(DATABASE_URL="postgresql://u:p@127.0.0.1:1/games", REDIS_URL="redis://127.0.0.1:1/0")
    assert result.returncode == 0, result.stderr
    engine, layer, *_ = json.loads(result.stdout)
    assert engine == "django.db.backends.postgresql"
    assert layer == "config.layers.RedisChannelLayer"


def test_production_refuses_to_start_without_a_real_secret_key():
    result = load_settings(DEBUG="false")
    assert result.returncode != 0
    assert "DEBUG=false needs SECRET_KEY" in result.stderr


def test_a_misspelled_debug_value_stops_the_site_with_a_clear_message():
    result = load_settings(DEBUG="flase")
    assert result.returncode != 0
    assert "DEBUG='flase' is not a boolean" in result.stderr


def test_check_deploy_passes_with_production_like_variables():
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(DEBUG="false", SECRET_KEY="x9" * 30 + "-production-secret", ALLOWED_HOSTS="games.example.org",
               DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_this_test_run_uses_the_services_the_environment_names():
    """Under CI the suite must really run on PostgreSQL and Redis, not fall back silently."""
    from channels.layers import get_channel_layer
    from django.db import connection

    from tests.conftest import IN_CI

    expected_vendor = "postgresql" if (os.environ.get("DATABASE_URL") or os.environ.get("PGDATABASE")) else "sqlite"
    assert connection.vendor == expected_vendor
    if IN_CI:  # CI without DATABASE_URL would quietly test SQLite: that is a broken CI, not a pass
        assert connection.vendor == "postgresql", "CI must run the suite on PostgreSQL"
    layer = type(get_channel_layer()).__name__
    assert layer == ("RedisChannelLayer" if os.environ.get("REDIS_URL") else "InMemoryChannelLayer")
    from django.core.cache import caches

    cache = caches["default"]
    cache.set("test-run-probe", "ok", 30)
    assert cache.get("test-run-probe") == "ok"
    assert type(cache).__name__ == ("RedisCache" if os.environ.get("REDIS_URL") else "LocMemCache")


PROBE = ("import json, django; django.setup(); from django.conf import settings as s; "
         "from django.db import connection as c; c.ensure_connection(); "
         "print(json.dumps([c.vendor, c.settings_dict['NAME'], "
         "s.CHANNEL_LAYERS['default']['BACKEND'], s.CACHES['default']['BACKEND']]))")


@pytest.mark.django_db
def test_with_database_and_redis_urls_the_tests_and_their_servers_really_use_them():
    """``DATABASE_URL`` and ``REDIS_URL`` (set by ``.ci/run``) must mean PostgreSQL and Redis
    for this process and for every server it starts, never a quiet SQLite/in-memory fallback;
    under CI their absence fails the run."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer
    from django.db import connection

    from tests.conftest import need
    from tests.servers import server_env

    url = os.environ.get("DATABASE_URL", "")
    need(url.startswith(("postgres://", "postgresql://")) and bool(os.environ.get("REDIS_URL")),
         "PostgreSQL and Redis (DATABASE_URL, REDIS_URL)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT version(), current_database()")
        version, name = cursor.fetchone()
    assert version.startswith("PostgreSQL")
    # pytest-django suffixes the test database per parallel worker (``test_x_gw0``).
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    expected = "test_" + database_config({"DATABASE_URL": url}, BASE)["NAME"]
    assert name == (f"{expected}_{worker}" if worker else expected)

    layer = get_channel_layer()

    async def round_trip():
        # One event loop: the pub/sub layer's channels belong to the loop that made them.
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "probe", "n": 7})
        try:
            return await asyncio.wait_for(layer.receive(channel), 10)
        finally:
            await layer.delete_channel(channel)

    assert async_to_sync(round_trip)() == {"type": "probe", "n": 7}

    env = server_env() | {"DJANGO_SETTINGS_MODULE": "config.settings"}
    child = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=60)
    assert child.returncode == 0, child.stderr
    assert json.loads(child.stdout) == ["postgresql", name, "config.layers.RedisChannelLayer",
                                        "django.core.cache.backends.redis.RedisCache"]


# --- e-mail ---------------------------------------------------------------------------------------


def test_email_goes_to_the_console_by_default_and_to_files_on_request():
    assert email_config({})["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    files = email_config({"EMAIL_FILE_PATH": "/tmp/mail", "DEFAULT_FROM_EMAIL": "club@example.org"})
    assert files == {"EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
                     "EMAIL_FILE_PATH": "/tmp/mail", "DEFAULT_FROM_EMAIL": "club@example.org"}


def test_an_email_host_means_smtp_with_starttls_on_587_by_default():
    config = email_config({"EMAIL_HOST": "smtp.example.org", "EMAIL_HOST_USER": "games",
                           "EMAIL_HOST_PASSWORD": "secret"})
    assert config["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (config["EMAIL_HOST"], config["EMAIL_PORT"], config["EMAIL_USE_TLS"],
            config["EMAIL_USE_SSL"], config["EMAIL_HOST_USER"]) == (
        "smtp.example.org", 587, True, False, "games")
    ssl = email_config({"EMAIL_HOST": "smtp.example.org", "EMAIL_USE_TLS": "no", "EMAIL_USE_SSL": "yes"})
    assert (ssl["EMAIL_PORT"], ssl["EMAIL_USE_SSL"]) == (465, True)


@pytest.mark.parametrize(("environ", "message"), [
    ({"EMAIL_HOST": "smtp.example.org", "EMAIL_PORT": "submission"}, "EMAIL_PORT='submission' is not a whole number"),
    ({"EMAIL_HOST": "smtp.example.org", "EMAIL_PORT": "70000"}, "EMAIL_PORT=70000 is not a TCP port"),
    ({"EMAIL_HOST": "smtp.example.org", "EMAIL_USE_TLS": "ja"}, "EMAIL_USE_TLS='ja' is not a boolean"),
    ({"EMAIL_HOST": "smtp.example.org", "EMAIL_USE_SSL": "true"}, "EMAIL_USE_TLS and EMAIL_USE_SSL are both on"),
    ({"EMAIL_HOST": "smtp.example.org", "EMAIL_TIMEOUT": "0"}, "EMAIL_TIMEOUT=0 must be a positive"),
    ({"EMAIL_HOST_USER": "games"}, "EMAIL_HOST_USER is set but EMAIL_HOST is not"),
])
def test_a_bad_email_setting_fails_with_its_name(environ, message):
    with pytest.raises(ImproperlyConfigured, match=re.escape(message)):
        email_config(environ)


def test_the_settings_module_stops_on_a_bad_email_port():
    result = load_settings(EMAIL_HOST="smtp.example.org", EMAIL_PORT="25x")
    assert result.returncode != 0
    assert "EMAIL_PORT='25x' is not a whole number" in result.stderr


def test_the_deployment_server_leaves_client_addresses_to_the_app():
    """uvicorn would rewrite the client address from X-Forwarded-For itself, trusting what a
    client writes; the app reads the header with TRUSTED_PROXIES (core.net)."""
    from config.server import options

    served = options("127.0.0.1", 8001, access_log=False)
    assert served["proxy_headers"] is False
    assert (served["ws"], served["http"], served["lifespan"]) == ("websockets", "httptools", "off")
    assert served["ws_max_size"] == 1024 * 1024


# --- password hashing: fast in tests, PBKDF2 in production ------------------------------------

PBKDF2 = "django.contrib.auth.hashers.PBKDF2PasswordHasher"
MD5 = "django.contrib.auth.hashers.MD5PasswordHasher"


@pytest.fixture(scope="module")
def production_process() -> dict:
    """What a fresh process on the production settings (``config.settings``) has after starting
    the app as the server does: its password hashers, a new hash's algorithm, the modules of
    daphne and twisted it imported."""
    code = ("import json, sys, django; django.setup(); import config.asgi; "
            "from django.conf import settings as s; "
            "from django.contrib.auth.hashers import make_password; "
            "print(json.dumps({'hashers': s.PASSWORD_HASHERS, "
            "'algorithm': make_password('x').split('$')[0], "
            "'imported': sorted(m for m in ('daphne', 'twisted') if m in sys.modules)}))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                            env=os.environ | {"DJANGO_SETTINGS_MODULE": "config.settings"},
                            timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_production_settings_hash_passwords_with_django_s_pbkdf2(production_process):
    assert production_process["hashers"][0] == PBKDF2
    assert production_process["algorithm"] == "pbkdf2_sha256"


def test_the_test_settings_are_production_s_with_only_the_password_hash_changed():
    import config.settings as production
    import tests.settings as under_test

    names = {n for n in (*vars(production), *vars(under_test)) if n.isupper()}
    changed = {n for n in names if getattr(production, n, None) != getattr(under_test, n, None)}
    assert changed == {"PASSWORD_HASHERS"}


@pytest.mark.django_db
def test_this_test_run_hashes_passwords_fast():
    from django.conf import settings
    from django.contrib.auth.models import User

    assert os.environ["DJANGO_SETTINGS_MODULE"] == "tests.settings"
    assert settings.PASSWORD_HASHERS == [MD5]
    user = User.objects.create_user("fast", password="a long pass phrase")
    assert user.password.startswith("md5$") and user.check_password("a long pass phrase")


@pytest.mark.django_db(transaction=True)
def test_the_servers_and_commands_the_tests_start_hash_passwords_fast():
    """A server checks a log-in against the test's MD5 hash (it knows no other hasher) and
    keeps it (a server preferring PBKDF2 would rewrite it on log-in); a command sees MD5 too."""
    from django.contrib.auth.models import User

    from tests.servers import Browser, manage, server_env, start_workers

    User.objects.create_user("hashed", password="a long pass phrase")
    # A server of its own, without the clock: the browser tests' session server ticks every due
    # GoRoD game of the test database, and started here (before the other tests of this worker)
    # it raced their clock (tests/gorod/test_consumers.py saw its deadline already taken).
    server = start_workers(1, server_env(DEBUG="true", SCHEDULER_IN_PROCESS="false"),
                           name="hash-server")
    try:
        Browser([server.url()]).log_in("hashed", "a long pass phrase")
    finally:
        server.stop()
    assert User.objects.get(username="hashed").password.startswith("md5$")
    shown = manage("shell", "-c", "from django.conf import settings; print(settings.PASSWORD_HASHERS)",
                   env=server_env())
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[-1] == repr([MD5])


def test_the_app_starts_without_daphne_s_twisted_which_only_the_bench_s_comparison_serves(
        production_process):
    """Every server and command the site runs is uvicorn or plain Django (config.server): the
    daphne app and its twisted reactor cost each process ~0.4 s of imports for nothing."""
    assert production_process["imported"] == []
