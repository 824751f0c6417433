"""A process's cache of data that changes only when a stored version number moves on.

A live write reads its game row under the game's lock anyway; when that row carries a version of
the game's set-up (levels, team names), the set-up itself need not be read again while the
number stands. The number moves on in the same transaction as the change, so a reader that sees
the new number sees the new data, and an old number never again meets a newer state.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class VersionedCache:
    """``get(key, version, load)``: ``load()``'s value, kept for ``(key, version)``; a newer
    version of a key replaces the older one (``put`` keeps a value a writer already has,
    ``peek`` answers only what is kept). At most ``size`` keys are kept (the least recently
    used go first). Values are shared between threads: callers must not change them."""

    def __init__(self, size: int = 64):
        self.size = size
        self._items: OrderedDict[Hashable, tuple[Any, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, version: Any, load: Callable[[], Any]) -> Any:
        with self._lock:
            found = self._items.get(key)
            if found is not None and found[0] == version:
                self._items.move_to_end(key)
                return found[1]
        value = load()  # outside the lock: two threads may load the same version, both right
        self.put(key, version, value)
        return value

    def peek(self, key: Hashable, version: Any) -> Any:
        """The value kept for ``(key, version)``, or None (nothing is loaded)."""
        with self._lock:
            found = self._items.get(key)
            if found is None or found[0] != version:
                return None
            self._items.move_to_end(key)
            return found[1]

    def put(self, key: Hashable, version: Any, value: Any) -> None:
        """Keep ``value`` for ``(key, version)`` (a writer that has it, after its commit)."""
        with self._lock:
            self._items[key] = (version, value)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def discard(self, key: Hashable) -> None:
        with self._lock:
            self._items.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
