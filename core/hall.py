"""Hall mode (``HALL=true``, ``make hall``): a night served from a laptop on the venue's Wi-Fi.

Phones reach the laptop by its LAN address over plain HTTP, often with no internet at all, so
hall mode is neither the local demo nor production: ``DEBUG`` is off (the product's own error
pages), but there is no TLS to redirect to, so no redirect, no Secure cookies and no HSTS. The
site answers the machine's own addresses and names (anything else is still refused), and its
secret key lives in a file beside the database so a restart keeps every phone's session.

Only the standard library and psutil (the interfaces, cross-platform): settings import this.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
from pathlib import Path

LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"]


def interface_addresses() -> list[str]:
    """Every address of this machine's interfaces that are up (IPv4 and IPv6, no link-local
    IPv6: a phone's browser cannot use a zone index)."""
    import psutil

    stats = psutil.net_if_stats()
    found: list[str] = []
    for name, addresses in psutil.net_if_addrs().items():
        if name in stats and not stats[name].isup:
            continue
        for entry in addresses:
            if entry.family not in (socket.AF_INET, socket.AF_INET6):
                continue
            try:
                ip = ipaddress.ip_address(entry.address.split("%", 1)[0])
            except ValueError:
                continue
            if ip.version == 6 and ip.is_link_local:
                continue
            if str(ip) not in found:
                found.append(str(ip))
    return found


def lan_address(addresses: list[str] | None = None) -> str | None:
    """The address phones on the venue's Wi-Fi should use: the first private IPv4 address that
    is not loopback (a home/venue router hands out 192.168.x, 10.x or 172.16-31.x), else any
    non-loopback IPv4 address; None on a machine with no network."""
    candidates = [ipaddress.ip_address(a) for a in (addresses if addresses is not None
                                                      else interface_addresses())]
    ipv4 = [ip for ip in candidates if ip.version == 4 and not ip.is_loopback
            and not ip.is_link_local]
    # Container bridges (docker0 is 172.17.0.1) are private too, but a venue's router is
    # almost always 192.168.x or 10.x: those first.
    ipv4.sort(key=lambda ip: (not ip.is_private, not str(ip).startswith(("192.168.", "10."))))
    return str(ipv4[0]) if ipv4 else None


def host_names() -> list[str]:
    names = []
    for name in (socket.gethostname(), socket.getfqdn()):
        name = name.strip().lower()
        if name and name != "localhost" and name not in names:
            names.append(name)
            if "." not in name:  # phones on the same Wi-Fi may find the laptop by mDNS
                names.append(f"{name}.local")
    return names


def allowed_hosts() -> list[str]:
    """localhost, the machine's host names and every interface address (IPv6 in brackets, as
    it appears in a Host header)."""
    hosts = list(LOOPBACK_HOSTS)
    for address in interface_addresses():
        host = f"[{address}]" if ":" in address else address
        if host not in hosts:
            hosts.append(host)
    for name in host_names():
        if name not in hosts:
            hosts.append(name)
    return hosts


def secret_key_file(path: Path) -> str:
    """The key in ``path``, created once (mode 0600) with a new random key: restarts keep it,
    so sessions (team phones, the organizer's log-in) survive a restart."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_text().strip()
        if len(key) < 32:
            from django.core.exceptions import ImproperlyConfigured

            raise ImproperlyConfigured(
                f"{path} holds no usable secret key; delete it and start again") from None
        return key
    key = secrets.token_urlsafe(50)
    with os.fdopen(fd, "w") as out:
        out.write(key + "\n")
    return key
