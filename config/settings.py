"""Settings for the club games site, driven by environment variables (see README: Settings).

Development defaults need no setup: SQLite and the in-memory channel layer. ``DATABASE_URL`` (or
the ``PG*`` variables) selects PostgreSQL, ``REDIS_URL`` the Redis channel layer that several
ASGI workers share. With ``DEBUG=false`` (production) the site refuses to start without a real
``SECRET_KEY``; ``HALL=true`` is the laptop-in-a-hall mode (``core.hall``).
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from config.env import (
    backup_dir_default,
    cache_config,
    channel_layers_config,
    database_config,
    email_config,
    env_bool,
    env_int,
    env_list,
    gc_thresholds,
    hall_secret_key_path,
    public_url_setting,
)
from core import hall

BASE_DIR = Path(__file__).resolve().parent.parent
ENV = os.environ

DEV_SECRET_KEY = "django-insecure-development-key-do-not-use-in-production"
# --- run modes (README: Settings) ----------------------------------------------------------------
# Three ways to run, told apart by DEBUG and HALL:
# - local (`make run`, DEBUG unset): the demo on 127.0.0.1 with the product's own error pages;
#   DEBUG=true asks for Django's debug pages (tracebacks, the URL list on a 404);
# - hall (`make hall`, HALL=true): a night from a laptop on the venue's Wi-Fi (core.hall);
# - production (DEBUG=false said explicitly): a real secret key, TLS, HSTS, collected static.
HALL = env_bool("HALL", False)
DEBUG = env_bool("DEBUG", False)
if HALL and DEBUG:
    raise ImproperlyConfigured("HALL=true runs with DEBUG off (phones see the product's pages); "
                               "unset DEBUG or run `make run` to debug")
PRODUCTION = not HALL and not DEBUG and bool(ENV.get("DEBUG", "").strip())
# The framework's internals (issue 31).
# The measured fast paths override Django's, Channels' and asgiref's internals: the pooled ASGI
# handler (core.handlers), the SQLite write lock (core.backends.sqlite3), pushes handed to the
# server's loop (core.realtime), Channels' dispatch without its connection sweep (core.sockets),
# the cheap in-memory layer (config.layers) and the constant-SQL session read (core.sessions).
# STOCK_INTERNALS=true runs the stock parts instead, the way to check an upgrade of Django,
# Channels or asgiref (or to rule the overrides out): same behaviour, slower (`make test-stock`).
STOCK_INTERNALS = env_bool("STOCK_INTERNALS", False)
DATABASES = {"default": database_config(ENV, BASE_DIR, stock=STOCK_INTERNALS)}
SECRET_KEY = ENV.get("SECRET_KEY", "").strip()
# Where hall mode keeps its generated key (core.backups copies it beside the snapshots).
HALL_KEY_FILE = hall_secret_key_path(DATABASES["default"], BASE_DIR) if HALL else None
if HALL and not SECRET_KEY:
    SECRET_KEY = hall.secret_key_file(HALL_KEY_FILE)
SECRET_KEY = SECRET_KEY or DEV_SECRET_KEY
if PRODUCTION and (SECRET_KEY == DEV_SECRET_KEY or len(SECRET_KEY) < 32):
    raise ImproperlyConfigured(
        "DEBUG=false needs SECRET_KEY set to a long random value (50+ characters); "
        "generate one with: python -c 'import secrets; print(secrets.token_urlsafe(50))'"
    )
# Hall mode answers the machine's own addresses and names; production only what it is told.
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", hall.allowed_hosts() if HALL
                         else [] if PRODUCTION else list(hall.LOOPBACK_HOSTS))
# Where phones reach the site (join sheets, links, QR codes: core.net.public_url). Unset: the
# address the page was asked on, or in hall mode the machine's LAN address (HALL_ADDRESS).
PUBLIC_URL = public_url_setting(ENV)
HALL_ADDRESS = hall.lan_address() if HALL else None
# Snapshots of the running night (core.backups): every BACKUP_INTERVAL_S seconds (0: only on
# demand; hall mode: every minute) into BACKUP_DIR (default: `backups/` beside the SQLite file),
# the newest BACKUP_KEEP kept.
BACKUP_DIR = Path(ENV.get("BACKUP_DIR", "").strip() or backup_dir_default(DATABASES["default"],
                                                                            BASE_DIR))
BACKUP_INTERVAL_S = env_int("BACKUP_INTERVAL_S", 60 if HALL else 0)
BACKUP_KEEP = env_int("BACKUP_KEEP", 60)
if BACKUP_INTERVAL_S < 0 or BACKUP_KEEP < 1:
    raise ImproperlyConfigured("BACKUP_INTERVAL_S must be 0 or more and BACKUP_KEEP 1 or more")
# --- end of run modes ----------------------------------------------------------------------------

CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SITE_NAME = ENV.get("SITE_NAME", "Клубные игры")
# `manage.py demo` builds each app's demo games, then this season of two GoRoD nights with
# published results: it spans a game and the rating, so it lives in the top layer (config).
DEMO_SEASON_BUILDER = "config.demo_season.build_season_demo"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "axes",  # login limits per user name at an address and per address (core.logins)
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "core",
    "teams",
    "live",
    "kingofhill",
    "gorod",
    "rating",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # The Content-Security-Policy of every response (django-csp's, its header built once).
    "core.middleware.ContentSecurityPolicy",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "core.middleware.RequestGuard",  # the size limit and NUL/surrogates in forms: a clear 4xx
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # turns a locked-out log-in into the 429 page
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "core.context_processors.site",
            ],
        },
    },
]

# A request's signals, middleware and view in one call into its thread (``core.handlers``; off:
# Django's async chain, in and out of the thread around each middleware). Measured on 2 cores
# (``make bench``, docs/performance.md "Requests in pooled threads"): faster on SQLite and on
# PostgreSQL with one or two workers. A finer switch of the pooled handler: no effect with
# STOCK_INTERNALS.
REQUEST_CHAIN_IN_ONE_CALL = env_bool("REQUEST_CHAIN_IN_ONE_CALL", True)
# The server's garbage collector (config.asgi; docs/performance.md, "The collector"): the
# thresholds of generations 0, 1 and 2, or "python" for Python's own (700, 10, 10), which
# also leaves the start-up's objects in the collections.
GC_THRESHOLDS = gc_thresholds("GC_THRESHOLDS", (10_000, 20, 10))
# A game's phone writes (GoRoD codes, King of the Hill answers) that arrive while its previous
# write runs are applied together in one transaction, one build and one push (live.batch): one
# game's writes queue on its lock anyway, and a batch shares what each of them repeats.
LIVE_BATCH = env_bool("LIVE_BATCH", True)
# Time-driven jobs (GoRoD deadlines, queued announcements) run inside the ASGI server when only
# its own process can reach its pages (the in-memory layer); beside several workers on Redis,
# run one `manage.py gorod_clock` instead (see README: Running on PostgreSQL + Redis).
SCHEDULER_IN_PROCESS = env_bool("SCHEDULER_IN_PROCESS", not ENV.get("REDIS_URL", "").strip())
CHANNEL_LAYERS = channel_layers_config(ENV, stock=STOCK_INTERNALS)
CACHES = cache_config(ENV)
# The host's console learns which phones are connected at most this often: one refresh for
# however many sockets opened or closed meanwhile (core.coalesce); 0 refreshes on every one.
PRESENCE_REFRESH_MS = env_int("PRESENCE_REFRESH_MS", 1000)
# A phone's presence is a lease: each worker refreshes its open phone sockets' rows this often,
# and a row not refreshed for PRESENCE_LEASE_MS (its worker crashed) counts as gone.
PRESENCE_HEARTBEAT_MS = env_int("PRESENCE_HEARTBEAT_MS", 20_000)
PRESENCE_LEASE_MS = env_int("PRESENCE_LEASE_MS", 60_000)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Sign-up, e-mail verification and password reset mail (see README: Settings, e-mail).
globals().update(email_config(ENV))
# A verification or reset link stays valid for three days.
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3 * 24 * 3600)

AUTHENTICATION_BACKENDS = [
    "core.logins.LoginLimitBackend",  # first: refuses a locked-out user name or address
    "django.contrib.auth.backends.ModelBackend",
]
# Failed log-ins: LOGIN_FAILURE_LIMIT per user name from one client address, and per address
# whatever the names, within LOGIN_COOLOFF_MINUTES; then log-ins from that address (for that
# name) are refused until the window passes or an organizer clears the lock
# (/accounts/lockouts/ or the admin). Never per user name alone: ten wrong passwords typed
# anywhere would lock the real organizer out of every address.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_CLIENT_IP_CALLABLE = "core.net.client_address"
AXES_LOCKOUT_CALLABLE = "core.logins.login_locked_out"
# A success must not wipe the address's count: an attacker would log into their own account.
AXES_RESET_ON_SUCCESS = False
AXES_VERBOSE = False  # no banner on every command's stderr (replay promises one error line)
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

LANGUAGE_CODE = ENV.get("LANGUAGE_CODE", "ru")
LANGUAGES = [("ru", _("Russian")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = ENV.get("TIME_ZONE", "Europe/Moscow")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(ENV.get("STATIC_ROOT", "") or BASE_DIR / "staticfiles")
# Outside production static files come straight from the app folders (no collectstatic).
WHITENOISE_USE_FINDERS = not PRODUCTION
WHITENOISE_AUTOREFRESH = not PRODUCTION
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if not PRODUCTION
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.api.exception_handler",
    # JSON with a size, depth and text guard (core.parsers); forms as DRF's own.
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.GuardedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
}
# One request-size limit for every body (forms, JSON, uploads): REQUEST_MAX_BYTES, 6 MB, so a
# GoRoD task image of up to 5 MB (gorod.services) fits with its form. Past it the API answers
# 413 {"detail"} and pages a short page (core.middleware).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("REQUEST_MAX_BYTES", 6 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
SPECTACULAR_SETTINGS = {
    "TITLE": "Club games API",
    "DESCRIPTION": "King of the Hill, GoRoD, teams and season rating.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Generated once per language (config.schema): the same for every visitor until a release.
    "DEFAULT_GENERATOR_CLASS": "config.schema.OnceSchemaGenerator",
    # The API docs page must work in a hall or a car with no internet: no CDN assets.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # core.converters: row ids in paths are 1..2**63-1
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}},
}

# Production hardening; all on in production (DEBUG=false), each overridable for a
# TLS-terminating proxy. Off in hall mode: a venue's Wi-Fi serves plain HTTP.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", PRODUCTION)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", PRODUCTION)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", PRODUCTION)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", PRODUCTION)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Preloading HSTS binds every subdomain of the club's domain for years: the domain owner opts in
# with SECURE_HSTS_PRELOAD=true, so the deploy check does not nag about it.
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
SECURE_CONTENT_TYPE_NOSNIFF = True

# Content-Security-Policy (django-csp; Django 5.2 has none of its own), on every response:
# scripts only from the site's own static files — no inline script or handler, no eval — so a
# name or text that slipped past escaping still cannot run. [decision] Inline styles stay
# allowed: they run no code, and Swagger UI and the admin set them.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],  # Swagger UI's icons are data: URLs
        "connect-src": ["'self'"],  # the live pages' HTTP reads and WebSockets
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],  # as X-Frame-Options: DENY
    },
}
if env_bool("BEHIND_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# How many reverse proxies stand in front of the workers; the client address is the rightmost
# X-Forwarded-For entry they did not write (core.net). 0: REMOTE_ADDR is the client.
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 0)
# Wrong join PINs per game per hour from all addresses together; then PIN joins pause.
PIN_GAME_BUDGET_PER_HOUR = env_int("PIN_GAME_BUDGET_PER_HOUR", 100)
# Team phones stay joined for a whole evening (and a night game): two days.
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 2 * 24 * 3600)
# Every phone request reads its session. On the embedded default it comes from the process's
# memory (the database only on a miss; writes go to both). With Redis it stays in the database:
# a Redis round trip would cost what a PostgreSQL one does, and a Redis outage must not turn
# every request into an error (tests/core/test_redis_layer.py); it is read with constant SQL.
SESSION_ENGINE = ("django.contrib.sessions.backends.db" if STOCK_INTERNALS else "core.sessions"
                  ) if ENV.get("REDIS_URL", "").strip() else "django.contrib.sessions.backends.cached_db"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": ENV.get("LOG_LEVEL", "INFO").upper()},
    "loggers": {"daphne": {"level": "WARNING"}, "django.channels.server": {"level": "WARNING"}},
}
