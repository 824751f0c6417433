"""``live.versioned.VersionedCache``: a value kept per key while its version stands."""

from __future__ import annotations

from live.versioned import VersionedCache


def loader(value):
    calls = []

    def load():
        calls.append(value)
        return value
    return load, calls


def test_the_same_version_is_loaded_once_and_a_new_version_replaces_it():
    cache = VersionedCache()
    load, calls = loader("one")
    assert cache.get("game", 1, load) == "one"
    assert cache.get("game", 1, load) == "one"
    assert calls == ["one"]
    load2, calls2 = loader("two")
    assert cache.get("game", 2, load2) == "two"
    assert cache.get("game", 1, load) == "one"  # an old number is loaded again, never guessed
    assert calls == ["one", "one"] and calls2 == ["two"]


def test_the_least_recently_used_key_goes_first_past_the_size():
    cache = VersionedCache(size=2)
    for key in ("a", "b"):
        cache.get(key, 1, lambda key=key: key)
    cache.get("a", 1, lambda: "never")  # "a" is used again: "b" is now the oldest
    cache.get("c", 1, lambda: "c")
    load, calls = loader("b again")
    assert cache.get("b", 1, load) == "b again" and calls == ["b again"]
    assert cache.get("c", 1, lambda: "never") == "c"


def test_clear_forgets_everything():
    cache = VersionedCache()
    cache.get("a", 1, lambda: "a")
    cache.clear()
    assert cache.get("a", 1, lambda: "fresh") == "fresh"


def test_a_put_value_is_peeked_only_under_its_version_and_a_discard_forgets_it():
    cache = VersionedCache()
    cache.put("game", 3, "board")
    assert cache.peek("game", 3) == "board"
    assert cache.peek("game", 2) is None and cache.peek("other", 3) is None
    cache.discard("game")
    assert cache.peek("game", 3) is None
