"""The middleware chain under ASGI (``core.handlers.PooledASGIHandler``): in one call, loaded
sync, a request's middleware and view run in its thread with no hop back to the event loop
inside the chain; otherwise Django's own (async-adapted) chain runs. One call is the default on
every database (``REQUEST_CHAIN_IN_ONE_CALL``)."""

from __future__ import annotations

from asgiref.sync import AsyncToSync
from django.conf import settings
from django.utils.deprecation import MiddlewareMixin

from core.handlers import PooledASGIHandler


def _chain(handler) -> list:
    links, link = [], handler._middleware_chain
    while link is not None and len(links) < 100:
        links.append(link)
        link = (getattr(link, "func", None) or getattr(link, "__wrapped__", None)
                or getattr(link, "get_response", None))
    return links


def test_in_one_call_no_middleware_hops_to_the_event_loop_and_back():
    links = _chain(PooledASGIHandler(one_call=True))
    mixins = [link for link in links if isinstance(link, MiddlewareMixin)]
    assert len(mixins) >= 8  # Django's own: security, sessions, locale, common, csrf, ...
    assert [type(m).__name__ for m in mixins if m.async_mode] == []
    assert [link for link in links if isinstance(link, AsyncToSync)] == []


def test_otherwise_djangos_own_asgi_chain_runs_with_its_hops():
    links = _chain(PooledASGIHandler(one_call=False))
    assert any(isinstance(link, AsyncToSync) for link in links)


def test_one_call_is_the_default_on_every_database():
    assert settings.REQUEST_CHAIN_IN_ONE_CALL is True
    assert PooledASGIHandler().one_call is True
