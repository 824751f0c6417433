"""Bad requests end as a clear 4xx before any view runs: a body past the one size limit, or
query strings or form fields with characters no database column can hold (NUL;
unpaired surrogates, ``core.text``)."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _

from core.errors import refusal
from core.text import find_unstorable_text


class RequestGuard:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        raw = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(raw)
        except ValueError:
            return refusal(request, 400, _("The Content-Length header is not a number."))
        if length < 0:
            return refusal(request, 400, _("The Content-Length header is not a number."))
        if length > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            return too_big(request)
        fields = [request.GET]
        if request.method == "POST" and request.content_type in (
            "application/x-www-form-urlencoded", "multipart/form-data"
        ):
            fields.append(request.POST)
        for data in fields:
            for name, values in data.lists():
                reason = find_unstorable_text([name, *values])
                if reason:
                    return refusal(request, 400, _("Field “%(field)s”: %(reason)s")
                                   % {"field": name[:60], "reason": reason})
        return self.get_response(request)


def too_big(request):
    return refusal(
        request,
        413,
        _("The request is too large: at most %(limit)d KB.")
        % {"limit": settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1024},
    )
