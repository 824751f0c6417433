"""What changed between two states of a screen, as a small JSON patch: the live core pushes
it instead of the whole state (``live``), and ``static/js/live.js`` applies it
(``Live.patch``, the same rules as ``patch`` here).

Pure (no Django): a patch is one of

- ``{"=": value}`` — the value replaced whole;
- ``{"d": {key: patch}, "x": [keys]}`` — a dict with these keys changed or added and the keys
  in ``x`` removed (``x`` only when some are);
- ``{"k": name, "o": [ids], "c": {id: patch}}`` — a list of rows that each carry a unique
  ``name`` (``id``, ``application``, ``number`` or ``team``): ``o`` is the new order of their
  ids and ``c`` the rows new or changed (ids as JSON keys, so as text) — a re-ranked table or
  a log with a new line at the top travels as its order and the rows that changed;
- ``{"i": {index: patch}, "n": length}`` — any other list: its new length and the items that
  changed at these places.
"""

from __future__ import annotations

from typing import Any

#: The fields that identify a row, tried in this order.
ROW_KEYS = ("id", "application", "number", "team")


def diff(old: Any, new: Any) -> dict | None:
    """The patch that turns ``old`` into ``new``; None when they are equal. Equal numbers are
    equal (1 and 1.0): a state is built by the same code every time, so a field keeps its type.

    >>> diff({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3], "c": None})
    {'d': {'b': {'i': {'1': {'=': 3}}, 'n': 2}, 'c': {'=': None}}}
    >>> diff([{"id": 1, "v": 0}, {"id": 2, "v": 0}], [{"id": 3, "v": 0}, {"id": 1, "v": 0}])
    {'k': 'id', 'o': [3, 1], 'c': {'3': {'=': {'id': 3, 'v': 0}}}}
    """
    if old == new and type(old) is type(new):
        return None
    if isinstance(old, dict) and isinstance(new, dict):
        changed = {}
        for key, value in new.items():
            if key not in old:
                changed[key] = {"=": value}
            else:
                sub = diff(old[key], value)
                if sub is not None:
                    changed[key] = sub
        patch: dict[str, Any] = {"d": changed}
        removed = [key for key in old if key not in new]
        if removed:
            patch["x"] = removed
        return patch
    if isinstance(old, list) and isinstance(new, list):
        key = _row_key(old, new)
        if key is not None:
            before = {row[key]: row for row in old}
            changes = {}
            for row in new:
                sub = diff(before[row[key]], row) if row[key] in before else {"=": row}
                if sub is not None:
                    changes[str(row[key])] = sub
            return {"k": key, "o": [row[key] for row in new], "c": changes}
        items = {}
        for index, value in enumerate(new):
            sub = diff(old[index], value) if index < len(old) else {"=": value}
            if sub is not None:
                items[str(index)] = sub
        return {"i": items, "n": len(new)}
    return {"=": new}


def patch(old: Any, change: dict | None) -> Any:
    """Apply ``diff``'s patch to ``old`` (which is left as it was).

    >>> patch({"a": 1, "b": 2}, {"d": {"a": {"=": 5}}, "x": ["b"]})
    {'a': 5}
    """
    if change is None:
        return old
    if "=" in change:
        return change["="]
    if "d" in change:
        out = {key: value for key, value in old.items() if key not in change.get("x", ())}
        for key, sub in change["d"].items():
            out[key] = patch(old.get(key), sub)
        return out
    if "k" in change:
        key = change["k"]
        before = {str(row[key]): row for row in old}
        return [patch(before.get(str(ident)), change["c"].get(str(ident)))
                for ident in change["o"]]
    out = list(old[:change["n"]])
    out += [None] * (change["n"] - len(out))
    for index, sub in change["i"].items():
        i = int(index)
        out[i] = patch(old[i] if i < len(old) else None, sub)
    return out


def _row_key(old: list, new: list) -> str | None:
    rows = old + new
    if not new or not all(isinstance(row, dict) for row in rows):
        return None
    for key in ROW_KEYS:
        if all(key in row and isinstance(row[key], int | str) and not isinstance(row[key], bool)
               for row in rows) and _unique(old, key) and _unique(new, key):
            return key
    return None


def _unique(rows: list, key: str) -> bool:
    idents = [str(row[key]) for row in rows]
    return len(set(idents)) == len(idents)
