"""The client address every limiter uses: trusted proxies, forged and broken headers."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from core.net import address_bucket, address_from, client_address


@pytest.mark.parametrize(
    ("remote", "forwarded", "trusted", "expected"),
    [
        pytest.param("203.0.113.9", ["6.6.6.6"], 0, "203.0.113.9", id="no proxy: the header is ignored"),
        pytest.param("127.0.0.1", ["203.0.113.9"], 1, "203.0.113.9", id="one proxy"),
        pytest.param("127.0.0.1", ["6.6.6.6, 203.0.113.9"], 1, "203.0.113.9",
                     id="one proxy: a forged leftmost entry is ignored"),
        pytest.param("127.0.0.1", ["6.6.6.6", "203.0.113.9"], 1, "203.0.113.9",
                     id="one proxy: several header lines"),
        pytest.param("10.0.0.2", ["6.6.6.6, 203.0.113.9, 10.0.0.1"], 2, "203.0.113.9",
                     id="two proxies"),
        pytest.param("127.0.0.1", [], 1, "127.0.0.1", id="missing header: the proxy counts"),
        pytest.param("127.0.0.1", ["unknown"], 1, "127.0.0.1", id="unknown: the proxy counts"),
        pytest.param("127.0.0.1", ["6.6.6.6, unknown"], 1, "127.0.0.1",
                     id="unknown rightmost: the proxy counts, not the forged entry"),
        pytest.param("10.0.0.2", ["203.0.113.9"], 3, "203.0.113.9",
                     id="a short chain: the farthest address reported"),
        pytest.param("127.0.0.1", ["[2001:db8::1]:443"], 1, "2001:db8::1", id="IPv6 with port"),
        pytest.param("127.0.0.1", ["203.0.113.9:5100"], 1, "203.0.113.9", id="IPv4 with port"),
        pytest.param("", [], 0, "0.0.0.0", id="no address at all is still a key"),
    ],
)
def test_the_client_is_the_rightmost_address_no_trusted_proxy_wrote(remote, forwarded, trusted, expected):
    assert address_from(remote, forwarded, trusted) == expected


def test_client_address_reads_the_setting(settings):
    request = RequestFactory().get("/", REMOTE_ADDR="127.0.0.1",
                                   HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9")
    settings.TRUSTED_PROXIES = 0
    assert client_address(request) == "127.0.0.1"
    settings.TRUSTED_PROXIES = 1
    assert client_address(request) == "203.0.113.9"


def test_an_ipv6_client_counts_as_its_64_network():
    assert address_bucket("2001:db8:1:2::7") == address_bucket("2001:db8:1:2:ffff::1") == "2001:db8:1:2::"
    assert address_bucket("203.0.113.9") == "203.0.113.9"
