"""Text no column can hold: NUL (PostgreSQL refuses it, SQLite stores it) and unpaired UTF-16
surrogates (not encodable as UTF-8). One check for forms, query strings, JSON bodies and the
files a site imports (scenarios, question banks), so both databases refuse the same input."""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

_SURROGATE = re.compile("[\ud800-\udfff]")


def bad_text_reason(value) -> str | None:
    """Why ``value`` cannot be stored as text, or None when it can.

    >>> bad_text_reason("a\\x00b")
    'contains a NUL character (code 0), which cannot be stored.'
    """
    if not isinstance(value, str):
        return None
    if "\x00" in value:
        return _("contains a NUL character (code 0), which cannot be stored.")
    if _SURROGATE.search(value):
        return _("contains an unpaired surrogate (broken Unicode), which cannot be stored.")
    return None


def find_unstorable_text(value) -> str | None:
    """Why some text inside ``value`` (a text, or lists and mappings of them, keys included,
    nested however deep) cannot be stored, or None when every text can.

    >>> find_unstorable_text({"levels": [{"task": "a\\x00"}]}) is not None
    True
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            reason = bad_text_reason(item)
            if reason:
                return reason
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return None
def within(value: str, *, max_length: int, what: str, error: type | None = None) -> str:
    """``value`` when it fits ``max_length`` characters; otherwise refused with the limit.

    Never cut: a title or a reason silently shortened loses words nobody knows are gone.
    """
    from core.errors import DomainError

    if len(value) > max_length:
        raise (error or DomainError)(_("%(what)s is too long: at most %(max)d characters, got %(len)d.")
                          % {"what": what, "max": max_length, "len": len(value)})
    return value
