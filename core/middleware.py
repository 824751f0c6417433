"""Bad requests end as a clear 4xx before any view runs: a body past the one size limit, or
query strings or form fields with characters no database column can hold (NUL;
unpaired surrogates, ``core.text``). And the Content-Security-Policy of every response, its
header text built once (``ContentSecurityPolicy``)."""

from __future__ import annotations

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
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


# --- the Content-Security-Policy -----------------------------------------------------------------

# What a view or decorator can set on a response to change its policy (django-csp's
# ``csp_update``, ``csp_replace``, ``csp``, each also for the report-only header).
_PER_RESPONSE = ("_csp_config", "_csp_update", "_csp_replace",
                 "_csp_config_ro", "_csp_update_ro", "_csp_replace_ro")
# Per header (report-only or not): its text from the settings alone, and the URL prefixes it
# skips. Cleared when a test overrides the settings.
_BUILT: dict[bool, tuple[str, tuple[str, ...]]] = {}
_SETTINGS = {False: "CONTENT_SECURITY_POLICY", True: "CONTENT_SECURITY_POLICY_REPORT_ONLY"}


def _built(report_only: bool) -> tuple[str, tuple[str, ...]]:
    found = _BUILT.get(report_only)
    if found is None:
        policy = getattr(settings, _SETTINGS[report_only], None) or {}
        found = _BUILT[report_only] = (
            build_policy(report_only=report_only),
            tuple(policy.get("EXCLUDE_URL_PREFIXES", None) or ()))
    return found


@receiver(setting_changed)
def _forget_built(setting, **kwargs) -> None:
    if setting in _SETTINGS.values():
        _BUILT.clear()


class ContentSecurityPolicy(CSPMiddleware):
    """django-csp's middleware, with the header text built once per process instead of twice
    per response: django-csp rebuilds both policies from the settings for every response
    (dataclass copies and a walk over every directive), a tenth of a public state read's
    time. A response whose policy is its own (a decorator's change, a nonce) still has it
    built by django-csp; the headers are the same either way (``tests/core/test_csp.py``)."""

    def process_response(self, request, response):
        if getattr(request, "_csp_nonce", None) is not None or any(
                getattr(response, name, None) is not None for name in _PER_RESPONSE):
            return super().process_response(request, response)
        # From here on as django-csp's own, with the texts it would have built.
        if response.status_code in (500, 404) and settings.DEBUG:
            return response
        for header, report_only, exempt in ((HEADER, False, "_csp_exempt"),
                                            (HEADER_REPORT_ONLY, True, "_csp_exempt_ro")):
            text, excluded = _built(report_only)
            if (text and header not in response and getattr(response, exempt, False) is False
                    and not request.path_info.startswith(excluded)):
                response[header] = text
        # No nonce was asked for: one asked for now could no longer reach the header.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response
