"""The API's JSON parser: DRF's, plus a size, depth and text guard.

A deeply nested body (``[[[[...]]]]``) made the JSON decoder recurse until Python gave up: a 500
for any endpoint, anonymous callers too. Here the body is refused with 400 ``{"detail"}`` when
it is past the request-size limit, nested deeper than ``MAX_DEPTH``, or holds text no column can
store (NUL, unpaired surrogates, ``core.text``).
"""

from __future__ import annotations

import json
import re

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from core.text import find_unstorable_text

MAX_DEPTH = 32
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth_exceeds(text: str, limit: int = MAX_DEPTH) -> bool:
    """Is any array/object in ``text`` nested deeper than ``limit``? (Brackets inside strings
    do not count.)

    >>> json_depth_exceeds("[[1]]", 1), json_depth_exceeds('["[[["]', 1)
    (True, False)
    """
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > limit:
            return True
    return False


class GuardedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise ParseError(_("The request is too large: at most %(limit)d KB.")
                             % {"limit": limit // 1024})
        try:
            text = raw.decode(self._encoding(parser_context))
        except (UnicodeDecodeError, LookupError):
            raise ParseError(_("The request body is not valid UTF-8 text.")) from None
        if json_depth_exceeds(text):
            raise ParseError(_("The JSON is nested deeper than %(max)d levels.") % {"max": MAX_DEPTH})
        try:
            data = json.loads(text, parse_constant=_refuse_constant) if text.strip() else {}
        except (ValueError, RecursionError) as exc:
            raise ParseError(_("The request body is not valid JSON: %(error)s") % {"error": exc}) from None
        reason = find_unstorable_text(data)
        if reason:
            raise ParseError(_("A text value %(reason)s") % {"reason": reason})
        return data

    def _encoding(self, parser_context) -> str:
        return (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)


def _refuse_constant(name):
    raise ValueError(f"{name} is not a number JSON allows")
