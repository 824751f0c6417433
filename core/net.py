"""The client's address, the one way every limiter learns who is asking.

Behind ``TRUSTED_PROXIES`` reverse proxies (setting, default 0) the address is the rightmost
entry of ``X-Forwarded-For`` that no trusted proxy wrote: each proxy appends the address it saw,
so everything left of that entry is whatever the client chose to send. With 0 proxies the header
is ignored and ``REMOTE_ADDR`` is the client.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings

#: where a request came from when nothing says (the unspecified address)
UNKNOWN = "0.0.0.0"


def _ip(value: str) -> str | None:
    value = value.strip()
    if value.startswith("[") and "]" in value:  # "[2001:db8::1]:443"
        value = value[1 : value.index("]")]
    elif value.count(":") == 1:  # "203.0.113.9:51000"
        value = value.split(":", 1)[0]
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def address_from(remote: str | None, forwarded: list[str], trusted: int) -> str:
    """The client address given the peer's address, the ``X-Forwarded-For`` header values (in
    order) and the number of trusted proxies in front of the server.

    >>> address_from("10.0.0.1", ["1.1.1.1, 203.0.113.9"], 1)
    '203.0.113.9'

    The peer itself is the nearest trusted proxy. A missing, short or unparsable header never
    yields "no address": the answer falls back to the nearest address a trusted hop reported
    (ultimately the peer), so a limit keyed on it still counts — at worst more strictly.
    """
    chain = [item for value in forwarded for item in value.split(",")] + [remote or ""]
    # chain[-1] is the peer; the trusted proxies are the last `trusted` entries of the chain.
    position = max(len(chain) - 1 - max(trusted, 0), 0)
    for candidate in chain[position:]:
        address = _ip(candidate)
        if address is not None:
            return address
    # No address at all (a test request, a broken server): still one key, and a valid IP for
    # the login limiter's address column.
    return _ip(remote or "") or UNKNOWN


def client_address(request) -> str:
    """The address of whoever sent ``request`` (see the module docstring)."""
    meta = request.META
    trusted = getattr(settings, "TRUSTED_PROXIES", 0)
    forwarded = [meta["HTTP_X_FORWARDED_FOR"]] if trusted and meta.get("HTTP_X_FORWARDED_FOR") else []
    return address_from(meta.get("REMOTE_ADDR"), forwarded, trusted)


def address_bucket(address: str) -> str:
    """The key a limiter counts ``address`` under.

    [decision] An IPv6 client controls a whole /64, so it counts as one address.
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if parsed.version == 6:
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False).network_address)
    return str(parsed)


def public_url(request, path: str) -> str:
    """``path`` as a full URL a phone can open: ``PUBLIC_URL`` when set; in hall mode the
    machine's LAN address on the port the page was asked on (the organizer's laptop browses
    127.0.0.1, which a phone cannot reach); otherwise the address the page was asked on."""
    base = getattr(settings, "PUBLIC_URL", "")
    if base:
        return base + path
    lan = getattr(settings, "HALL_ADDRESS", None)
    if getattr(settings, "HALL", False) and lan:
        host = f"[{lan}]" if ":" in lan else lan
        return f"http://{host}:{request.get_port()}{path}"
    return request.build_absolute_uri(path)
