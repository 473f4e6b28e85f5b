"""Ranges Python's ``ipaddress`` calls global that the SSRF guard still refuses.

``ipaddress`` marks the deprecated IPv6 site-local range (``fec0::/10``, RFC 3879) and the
6to4 relay anycast prefix (``192.88.99.0/24``, RFC 3068, deprecated by RFC 7526) as global,
so a guard built on ``is_global`` alone would connect to a site's private network or to
whichever relay router is nearest.  These pin that :mod:`citeproof.net.addresses` refuses
them with the other non-public ranges, in every spelling that embeds them, and that the
neighbouring public addresses stay allowed.
"""

from __future__ import annotations

import asyncio
import ipaddress

import pytest

from citeproof.errors import UnsafeURLError
from citeproof.net.addresses import address_problem, check_url, is_public_address
from citeproof.net.ssrf import resolve_checked


@pytest.mark.parametrize(
    ("ip", "why"),
    [
        ("fec0::", "site-local"),
        ("fec0::1", "site-local"),
        ("fed3:1234::abcd", "site-local"),
        ("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "site-local"),
        ("192.88.99.0", "6to4 relay"),
        ("192.88.99.1", "6to4 relay"),
        ("192.88.99.255", "6to4 relay"),
        ("::ffff:192.88.99.1", "IPv4-mapped 6to4 relay"),  # judged by the embedded IPv4
        ("2002:c058:6301::1", "6to4 6to4 relay"),  # 6to4 of 192.88.99.1
    ],
)
def test_site_local_and_6to4_relay_are_refused(ip: str, why: str) -> None:
    assert ipaddress.ip_address(ip).is_global  # what the standard library alone would allow
    problem = address_problem(ip)
    assert problem is not None and why in problem, problem
    assert not is_public_address(ip)


@pytest.mark.parametrize("ip", ["192.88.98.255", "192.88.100.0", "2001:4860:4860::8888"])
def test_the_public_neighbours_stay_public(ip: str) -> None:
    """Only the ranges themselves: the public addresses either side are still allowed."""
    assert is_public_address(ip)


def test_link_local_keeps_its_own_reason() -> None:
    assert address_problem("fe80::1") == "link-local"


def test_a_host_resolving_into_the_ranges_is_refused_before_connecting() -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return {"relay.example": ["192.88.99.7"], "site.example": ["fec0::7"]}[host]

    for host, address in (("relay.example", "192.88.99.7"), ("site.example", "fec0::7")):
        with pytest.raises(UnsafeURLError, match=address.replace(".", r"\.")):
            asyncio.run(resolve_checked(check_url(f"http://{host}/paper"), resolve))


@pytest.mark.parametrize("url", ["http://192.88.99.1/", "http://[fec0::1]/"])
def test_a_literal_in_the_ranges_is_refused(url: str) -> None:
    async def no_dns(host: str, port: int) -> list[str]:
        raise AssertionError("a literal address needs no lookup")

    with pytest.raises(UnsafeURLError):
        asyncio.run(resolve_checked(check_url(url), no_dns))
