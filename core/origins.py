"""Which pages may open a WebSocket: the same origin as the page, port included.

Channels' ``AllowedHostsOriginValidator`` compares only the host name with ``ALLOWED_HOSTS``,
so a page served from another port of the same host (another service, a developer's tool)
could open sockets with the visitor's cookies. Here an origin is accepted when its
scheme-default-normalised ``host:port`` equals the ``Host`` the socket was opened to (and that
host is allowed), or when it is listed exactly in ``CSRF_TRUSTED_ORIGINS`` (a proxy that
rewrites ``Host``). A handshake without an Origin header is refused: browsers always send one.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _origin(value: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an origin, or None when it is not one."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def origin_allowed(origin: str | None, host: str | None) -> bool:
    """May a page from ``origin`` open a socket sent to ``host`` (the Host header)?

    >>> origin_allowed("http://127.0.0.1:8000", "127.0.0.1:8000")
    True
    >>> origin_allowed("http://127.0.0.1:9999", "127.0.0.1:8000")
    False
    """
    parsed = _origin(origin or "")
    if parsed is None:
        return False
    scheme, origin_host, origin_port = parsed
    trusted = {_origin(item) for item in settings.CSRF_TRUSTED_ORIGINS}
    if parsed in trusted:
        return True
    domain, port = split_domain_port((host or "").strip().lower())
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    try:
        host_port = int(port) if port else DEFAULT_PORTS[scheme]
    except ValueError:
        return False
    return (domain.strip("[]"), host_port) == (origin_host.strip("[]"), origin_port)


class SameOriginValidator:
    """ASGI middleware for the WebSocket router: refuses a handshake from another origin."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        headers = {}
        for name, value in scope.get("headers", []):
            headers.setdefault(name.lower(), value.decode("latin1"))
        if origin_allowed(headers.get(b"origin"), headers.get(b"host")):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)
