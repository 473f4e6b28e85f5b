"""Which URLs and addresses citeproof may fetch from: the SSRF guard's pure half.

:mod:`citeproof.net.ssrf` resolves hosts, connects and follows redirects; everything it
decides *before* touching the network lives here, with no I/O, so the rules can be read and
tested on their own: the scheme and credential checks on a URL, the refusal of numeric host
spellings resolvers disagree on, and the address classes a public paper is never served
from (:func:`address_problem`).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

import httpx2

from citeproof.errors import UnsafeURLError

__all__ = [
    "IPAddress",
    "ParsedURL",
    "UnsafeURLError",
    "address_problem",
    "check_url",
    "display_url",
    "is_public_address",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


_SCHEMES = {"http": 80, "https": 443}
# Hosts made only of decimal/hex/octal numeric labels that are not a canonical dotted quad:
# inet_aton() accepts "127.1", "0x7f.1", "2130706433", "0177.0.0.1" and they all mean loopback.
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}\.?$")

# Ranges that embed an IPv4 address whose own status decides the answer.
_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))
_CGNAT = ipaddress.IPv4Network("100.64.0.0/10")
_BENCHMARK = ipaddress.IPv4Network("198.18.0.0/15")
_IETF_V4 = ipaddress.IPv4Network("192.0.0.0/24")
# Python's ipaddress calls both of these global, but neither is a host a paper is served
# from: the 6to4 relay anycast prefix (RFC 3068, deprecated by RFC 7526) reaches whichever
# relay router is nearest, and IPv6 site-local addresses (RFC 3879 deprecated them) are a
# site's private network, like 10.0.0.0/8.
_SIXTOFOUR_RELAY = ipaddress.IPv4Network("192.88.99.0/24")
_SITE_LOCAL_V6 = ipaddress.IPv6Network("fec0::/10")


@dataclass(frozen=True)
class ParsedURL:
    """A URL that passed the static checks, with the pieces the guard needs."""

    url: httpx2.URL
    scheme: str
    #: ASCII (IDNA-encoded) host, lower case, without IPv6 brackets.
    host: str
    port: int
    #: the host itself when it is an IP literal (then no DNS lookup happens).
    literal_ip: IPAddress | None


def display_url(url: httpx2.URL | str) -> str:
    """The URL for messages, with any credentials removed so errors never echo a password."""
    try:
        parsed = httpx2.URL(url) if isinstance(url, str) else url
        return (
            str(parsed.copy_with(username=None, password=None)) if parsed.userinfo else str(parsed)
        )
    except (httpx2.InvalidURL, TypeError, ValueError):
        return repr(str(url)[:200])


def check_url(url: httpx2.URL | str) -> ParsedURL:
    """Refuse URLs that cannot be a public http(s) resource, before any network activity.

    Pure: no DNS. Raises :class:`UnsafeURLError` saying what was refused and why.
    """
    shown = display_url(url)
    try:
        parsed = httpx2.URL(url) if isinstance(url, str) else url
    except (httpx2.InvalidURL, TypeError, ValueError) as exc:
        raise UnsafeURLError(f"Refused to fetch {shown}: it is not a valid URL ({exc}).") from exc
    scheme = parsed.scheme.lower()
    if scheme not in _SCHEMES:
        raise UnsafeURLError(
            f"Refused to fetch {shown}: scheme {scheme or '(none)'!r} is not allowed; "
            "citeproof only fetches http:// and https:// URLs."
        )
    if parsed.userinfo:
        raise UnsafeURLError(
            f"Refused to fetch {shown}: the URL contains credentials (user:password@); "
            "remove them — citeproof never sends credentials embedded in URLs."
        )
    host = parsed.raw_host.decode("ascii", errors="replace").lower()
    if not host:
        raise UnsafeURLError(f"Refused to fetch {shown}: the URL has no host.")
    literal: IPAddress | None
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
        if _NUMERIC_HOST.match(host):
            raise UnsafeURLError(
                f"Refused to fetch {shown}: host {host!r} is a non-standard numeric address "
                "(resolvers read it differently); write the address as a dotted quad."
            ) from None
    port = parsed.port if parsed.port is not None else _SCHEMES[scheme]
    return ParsedURL(url=parsed, scheme=scheme, host=host, port=port, literal_ip=literal)


def _as_ip(ip: IPAddress | str) -> IPAddress:
    return ipaddress.ip_address(ip) if isinstance(ip, str) else ip


def address_problem(ip: IPAddress | str) -> str | None:
    """Why ``ip`` is not a public unicast address (e.g. ``"loopback"``), or ``None`` if it is.

    IPv6 forms that carry an IPv4 address (IPv4-mapped ``::ffff:0:0/96``, NAT64
    ``64:ff9b::/96`` and ``64:ff9b:1::/48``, 6to4 ``2002::/16``) are judged by the embedded
    IPv4 address, because that is where a dual-stack socket or translator would really connect.
    Documentation, benchmarking, CGNAT, 6to4 relay anycast (``192.88.99.0/24``) and IPv6
    site-local (``fec0::/10``) ranges are refused too: none hosts a public paper.
    """
    addr = _as_ip(ip)
    if isinstance(addr, ipaddress.IPv6Address):
        embedded: ipaddress.IPv4Address | None = None
        form = ""
        if addr.ipv4_mapped is not None:
            embedded, form = addr.ipv4_mapped, "IPv4-mapped"
        elif any(addr in net for net in _NAT64):
            embedded, form = ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF), "NAT64"
            if addr in _NAT64[1]:  # local-use NAT64 prefix: translator is site-local
                return "NAT64 local-use"
        elif addr.sixtofour is not None:
            embedded, form = addr.sixtofour, "6to4"
        if embedded is not None:
            inner = address_problem(embedded)
            return f"{form} {inner}" if inner else None
        if addr.scope_id:
            return "scoped (zone) IPv6"
        if addr in _SITE_LOCAL_V6:
            return "site-local (deprecated)"
    if addr.is_unspecified:
        return "unspecified"
    if addr.is_loopback:
        return "loopback"
    if addr.is_link_local:
        return "link-local"
    if addr.is_multicast:
        return "multicast"
    if isinstance(addr, ipaddress.IPv4Address):
        if addr in _CGNAT:
            return "carrier-grade NAT (shared)"
        if addr in _BENCHMARK:
            return "benchmarking"
        if addr in _IETF_V4:
            return "IETF protocol assignment"
        if addr in _SIXTOFOUR_RELAY:
            return "6to4 relay anycast"
    if addr.is_reserved:
        return "reserved"
    if addr.is_private:
        return "private or special-purpose"
    if not addr.is_global:
        return "non-global"
    return None


def is_public_address(ip: IPAddress | str) -> bool:
    """True when citeproof may connect to ``ip`` (see :func:`address_problem`)."""
    return address_problem(ip) is None
