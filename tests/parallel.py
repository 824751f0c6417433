"""Keeps parallel test workers (pytest-xdist, ``make test`` runs two) out of each other's way.

Loaded with ``-p tests.parallel`` before Django reads its settings. pytest-django already gives
each worker its own test database; this gives each its own Redis database and key prefix, since
``cache.clear()`` on the Redis cache flushes the whole Redis database it uses, channel groups
included, and game ids repeat between the workers' databases.
"""

from __future__ import annotations

import os
import re

_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
_index = re.fullmatch(r"gw(\d+)", _worker)
if _index:
    number = int(_index.group(1))
    os.environ["CHANNELS_PREFIX"] = f"{os.environ.get('CHANNELS_PREFIX', 'clubgames')}-{_worker}"
    url = os.environ.get("REDIS_URL", "")
    if url:
        # redis://host:port/DB: worker N uses DB + 1 + N (16 databases by default).
        head, _, tail = url.rpartition("/")
        base = int(tail) if tail.isdigit() else 0
        os.environ["REDIS_URL"] = f"{head}/{(base + 1 + number) % 16}" if tail.isdigit() \
            else f"{url.rstrip('/')}/{(1 + number) % 16}"
