"""The settings of the test run and of every server and command it starts (``server_env``):
production's own (``config.settings``), with one change.

Django's default password hash (PBKDF2, 1 000 000 iterations) costs about 0.3 s a password by
design; the fixtures make hundreds of users, so it was most of the suite's time. MD5 keeps the
same code paths (hashing, checking, the upgrade on log-in) at a negligible cost; it is never
used outside tests (tests/core/test_settings.py proves production keeps PBKDF2).
"""

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
