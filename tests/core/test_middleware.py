"""The middleware chain under ASGI (``core.handlers.PooledASGIHandler``): loaded sync, so a
request's middleware and view run in its thread in one call, with no hop back to the event loop
inside the chain."""

from __future__ import annotations

from asgiref.sync import AsyncToSync
from django.core.handlers.asgi import ASGIHandler
from django.utils.deprecation import MiddlewareMixin

from core.handlers import PooledASGIHandler


def _chain(handler) -> list:
    links, link = [], handler._middleware_chain
    while link is not None and len(links) < 100:
        links.append(link)
        link = (getattr(link, "func", None) or getattr(link, "__wrapped__", None)
                or getattr(link, "get_response", None))
    return links


def test_under_asgi_no_middleware_hops_to_the_event_loop_and_back():
    links = _chain(PooledASGIHandler())
    mixins = [link for link in links if isinstance(link, MiddlewareMixin)]
    assert len(mixins) >= 8  # Django's own: security, sessions, locale, common, csrf, ...
    assert [type(m).__name__ for m in mixins if m.async_mode] == []
    assert [link for link in links if isinstance(link, AsyncToSync)] == []


def test_djangos_own_asgi_chain_would_hop_at_its_innermost_end():
    # What the pooled handler avoids: Django loads its ASGI chain async, so the innermost sync
    # middleware reaches the async view handler through ``async_to_sync``.
    links = _chain(ASGIHandler())
    assert any(isinstance(link, AsyncToSync) for link in links)
