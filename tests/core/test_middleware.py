"""The middleware chain under ASGI (``core.middleware.SyncChain``): every middleware runs in the
request's thread, with one hop back to the event loop only at the innermost end."""

from __future__ import annotations

from asgiref.sync import AsyncToSync
from django.core.handlers.asgi import ASGIHandler
from django.utils.deprecation import MiddlewareMixin


def _chain(handler) -> list:
    links, link = [], handler._middleware_chain
    while link is not None and len(links) < 100:
        links.append(link)
        link = (getattr(link, "func", None) or getattr(link, "__wrapped__", None)
                or getattr(link, "get_response", None))
    return links


def test_under_asgi_no_middleware_hops_to_the_event_loop_and_back():
    links = _chain(ASGIHandler())
    mixins = [link for link in links if isinstance(link, MiddlewareMixin)]
    assert len(mixins) >= 8  # Django's own: security, sessions, locale, common, csrf, ...
    assert [type(m).__name__ for m in mixins if m.async_mode] == []
    hops = [i for i, link in enumerate(links) if isinstance(link, AsyncToSync)]
    chain_end = next(i for i, link in enumerate(links) if type(link).__name__ == "SyncChain")
    assert hops == [chain_end + 1]  # only from the innermost middleware to the view's handler
