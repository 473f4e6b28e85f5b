"""SSRF guard: refusals, address rules, pinning to the checked IP, redirects, caps.

No test here opens a connection to anything but loopback: DNS is an injected resolver and the
inner transport is an ``httpx2.MockTransport`` that records where it would have connected. The
one real connection goes to a ``http.server`` on 127.0.0.1, reached only through the explicit
``allow_loopback_ports`` exemption.
"""

from __future__ import annotations

import asyncio
import http.server
import re
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, TypeVar

import httpx2
import pytest

from citeproof.errors import BadInputError, BodyTooLargeError, CiteproofError, NetworkError
from citeproof.net.ssrf import (
    CONNECTED_ADDRESS_EXTENSION,
    FetchError,
    FetchTimeoutError,
    Resolver,
    ResponseTooLargeError,
    SafeTransport,
    TooManyRedirectsError,
    UnsafeURLError,
    address_problem,
    check_url,
    default_resolver,
    fetch,
    is_public_address,
    make_safe_client,
    resolve_checked,
)

T = TypeVar("T")

PUBLIC = "93.184.215.14"
PUBLIC_V6 = "2606:2800:21f:cb07:6820:80da:af6b:8b2c"


def resolver_for(table: dict[str, list[str]]) -> Resolver:
    """An injected resolver answering from ``table``; unknown hosts fail like NXDOMAIN."""

    async def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise OSError(f"[Errno -2] Name or service not known: {host}")
        return list(table[host])

    return resolve


class Recorder:
    """A MockTransport handler that records every request it would have sent."""

    def __init__(self, routes: dict[str, httpx2.Response] | None = None) -> None:
        self.requests: list[httpx2.Request] = []
        self.routes = routes or {}

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        host = request.headers["host"]
        key = f"{host}{request.url.raw_path.decode()}"
        if key in self.routes:
            return self.routes[key]
        return httpx2.Response(200, headers={"content-type": "text/html"}, content=b"<p>ok</p>")


def redirect(location: str, status: int = 302) -> httpx2.Response:
    return httpx2.Response(status, headers={"location": location})


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


# --------------------------------------------------------------------------- check_url


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("ftp://example.org/x", "scheme 'ftp'"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("gopher://example.org/", "scheme 'gopher'"),
        ("javascript:alert(1)", "scheme 'javascript'"),
        ("http://user:pw@example.org/", "credentials"),
        ("https://user@example.org/", "credentials"),
        ("http:///path", "no host"),
        ("http://0x7f000001/", "non-standard numeric"),
        ("http://2130706433/", "non-standard numeric"),
        ("http://127.1/", "non-standard numeric"),
        ("http://0177.0.0.1/", "not a valid URL"),  # httpx2 itself rejects it
        ("http://0x7f.1/", "non-standard numeric"),
    ],
)
def test_check_url_refuses(url: str, fragment: str) -> None:
    with pytest.raises(UnsafeURLError) as err:
        check_url(url)
    assert fragment in str(err.value)
    assert str(err.value).startswith("Refused to fetch")
    assert isinstance(err.value, BadInputError)


def test_check_url_never_echoes_password() -> None:
    with pytest.raises(UnsafeURLError) as err:
        check_url("http://alice:s3cret@example.org/")
    assert "s3cret" not in str(err.value)


def test_check_url_accepts_and_parses() -> None:
    p = check_url("https://Example.ORG/a?b=1")
    assert (p.scheme, p.host, p.port, p.literal_ip) == ("https", "example.org", 443, None)
    p = check_url("http://[2606:2800::1]:8080/")
    assert p.host == "2606:2800::1" and p.port == 8080 and p.literal_ip is not None
    assert check_url("http://ex.org").port == 80
    assert check_url("http://bücher.example/").host == "xn--bcher-kva.example"


# --------------------------------------------------------------------------- addresses


@pytest.mark.parametrize(
    ("ip", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("::1", "loopback"),
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("fc00::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("192.0.2.1", "private"),  # TEST-NET-1 documentation
        ("198.51.100.7", "private"),
        ("203.0.113.9", "private"),
        ("2001:db8::1", "private"),
        ("198.18.0.1", "benchmarking"),
        ("192.0.0.9", "IETF"),
        ("::ffff:127.0.0.1", "IPv4-mapped loopback"),
        ("::ffff:10.0.0.1", "IPv4-mapped private"),
        ("::ffff:169.254.169.254", "IPv4-mapped link-local"),
        ("64:ff9b::7f00:1", "NAT64 loopback"),
        ("64:ff9b::a9fe:a9fe", "NAT64 link-local"),
        ("64:ff9b:1::808:808", "NAT64 local-use"),
        ("2002:7f00:1::1", "6to4 loopback"),
        ("::7f00:1", "reserved"),  # deprecated IPv4-compatible form
    ],
)
def test_non_public_addresses(ip: str, why: str) -> None:
    problem = address_problem(ip)
    assert problem is not None and why in problem
    assert not is_public_address(ip)


@pytest.mark.parametrize(
    "ip", [PUBLIC, "8.8.8.8", "1.1.1.1", PUBLIC_V6, "::ffff:8.8.8.8", "64:ff9b::808:808"]
)
def test_public_addresses(ip: str) -> None:
    assert address_problem(ip) is None
    assert is_public_address(ip)


# --------------------------------------------------------------------------- resolution


def test_resolver_private_answer_refused() -> None:
    resolver = resolver_for({"evil.example": ["10.0.0.5"]})
    with pytest.raises(UnsafeURLError, match=r"resolves to 10\.0\.0\.5.*private"):
        run(resolve_checked(check_url("http://evil.example/"), resolver))


def test_resolver_public_then_private_refused() -> None:
    """A mixed answer is refused outright, not narrowed to the public address."""
    resolver = resolver_for({"rebind.example": [PUBLIC, "127.0.0.1"]})
    with pytest.raises(UnsafeURLError, match=r"127\.0\.0\.1.*loopback"):
        run(resolve_checked(check_url("http://rebind.example/"), resolver))


def test_resolver_failure_and_empty_answer() -> None:
    resolver = resolver_for({"empty.example": []})
    with pytest.raises(FetchError, match="could not be resolved"):
        run(resolve_checked(check_url("http://nx.example/"), resolver))
    with pytest.raises(FetchError, match="no addresses"):
        run(resolve_checked(check_url("http://empty.example/"), resolver))


def test_literal_ip_skips_resolver() -> None:
    async def boom(host: str, port: int) -> list[str]:
        raise AssertionError("resolver must not be called for IP literals")

    assert str(run(resolve_checked(check_url(f"http://{PUBLIC}/"), boom))) == PUBLIC
    with pytest.raises(UnsafeURLError, match="is a link-local address"):
        run(resolve_checked(check_url("http://169.254.169.254/latest/meta-data/"), boom))


def test_exemption_is_loopback_and_port_only() -> None:
    async def none(host: str, port: int) -> list[str]:
        return []

    ok = run(
        resolve_checked(check_url("http://127.0.0.1:8123/"), none, allow_loopback_ports={8123})
    )
    assert str(ok) == "127.0.0.1"
    with pytest.raises(UnsafeURLError):  # other port
        run(resolve_checked(check_url("http://127.0.0.1:8124/"), none, allow_loopback_ports={8123}))
    with pytest.raises(UnsafeURLError):  # not loopback
        run(resolve_checked(check_url("http://10.0.0.1:8123/"), none, allow_loopback_ports={8123}))


# --------------------------------------------------------------------------- pinning


def test_transport_connects_to_checked_ip_with_host_and_sni() -> None:
    rec = Recorder()
    calls: list[str] = []

    async def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        # A second lookup would answer loopback: the connection must not use it.
        return [PUBLIC] if len(calls) == 1 else ["127.0.0.1"]

    async def go() -> httpx2.Response:
        transport = SafeTransport(httpx2.MockTransport(rec), resolver=resolver)
        async with httpx2.AsyncClient(transport=transport, trust_env=False) as client:
            return await client.get("https://paper.example/article?id=1")

    response = run(go())
    assert calls == ["paper.example"]
    (sent,) = rec.requests
    assert sent.url.host == PUBLIC
    assert sent.url.scheme == "https" and sent.url.raw_path == b"/article?id=1"
    assert sent.headers["host"] == "paper.example"
    assert sent.extensions["sni_hostname"] == "paper.example"
    assert response.extensions[CONNECTED_ADDRESS_EXTENSION] == PUBLIC
    assert str(response.request.url) == "https://paper.example/article?id=1"


def test_transport_ipv6_and_http_without_sni() -> None:
    rec = Recorder()
    resolver = resolver_for({"v6.example": [PUBLIC_V6]})

    async def go() -> None:
        transport = SafeTransport(httpx2.MockTransport(rec), resolver=resolver)
        async with httpx2.AsyncClient(transport=transport, trust_env=False) as client:
            await client.get("http://v6.example:8080/x")

    run(go())
    (sent,) = rec.requests
    assert sent.url.host == PUBLIC_V6 and sent.url.port == 8080
    assert sent.headers["host"] == "v6.example:8080"
    assert "sni_hostname" not in sent.extensions


def test_transport_refuses_before_connecting() -> None:
    rec = Recorder()
    resolver = resolver_for({"internal.example": ["192.168.0.10"]})

    async def go() -> None:
        transport = SafeTransport(httpx2.MockTransport(rec), resolver=resolver)
        async with httpx2.AsyncClient(transport=transport, trust_env=False) as client:
            await client.get("http://internal.example/")

    with pytest.raises(UnsafeURLError):
        run(go())
    assert rec.requests == []


# --------------------------------------------------------------------------- fetch


def test_fetch_follows_public_redirects() -> None:
    rec = Recorder(
        {
            "doi.example/10.1/x": redirect("https://publisher.example/landing"),
            "publisher.example/landing": redirect("/final", 301),
        }
    )
    resolver = resolver_for({"doi.example": [PUBLIC], "publisher.example": ["8.8.8.8"]})
    page = run(
        fetch("https://doi.example/10.1/x", transport=httpx2.MockTransport(rec), resolver=resolver)
    )
    assert page.status == 200
    assert page.url_final == "https://publisher.example/final"
    assert page.body == b"<p>ok</p>" and page.content_type == "text/html"
    assert page.chain == (
        "https://doi.example/10.1/x",
        "https://publisher.example/landing",
        "https://publisher.example/final",
    )
    assert page.address == "8.8.8.8"
    assert [r.url.host for r in rec.requests] == [PUBLIC, "8.8.8.8", "8.8.8.8"]


@pytest.mark.parametrize(
    ("location", "fragment"),
    [
        ("http://127.0.0.1/admin", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[::ffff:127.0.0.1]/", "IPv4-mapped loopback"),
        ("http://10.0.0.1/", "private"),
        ("http://user:pw@public.example/", "credentials"),
        ("ftp://public.example/file", "scheme 'ftp'"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("http://internal.example/", "resolves to 10.1.2.3"),
    ],
)
def test_fetch_refuses_unsafe_redirects(location: str, fragment: str) -> None:
    rec = Recorder({"start.example/": redirect(location)})
    resolver = resolver_for(
        {"start.example": [PUBLIC], "public.example": [PUBLIC], "internal.example": ["10.1.2.3"]}
    )
    with pytest.raises(UnsafeURLError) as err:
        run(fetch("http://start.example/", transport=httpx2.MockTransport(rec), resolver=resolver))
    assert fragment in str(err.value)
    assert "pw@" not in str(err.value)
    # Only the first, public hop ever reached the (recording) transport.
    assert [r.url.host for r in rec.requests] == [PUBLIC]


def test_fetch_redirect_refusal_names_the_hop() -> None:
    rec = Recorder({"start.example/": redirect("http://10.0.0.1/")})
    resolver = resolver_for({"start.example": [PUBLIC]})
    with pytest.raises(UnsafeURLError, match=re.escape("redirect from http://start.example/")):
        run(fetch("http://start.example/", transport=httpx2.MockTransport(rec), resolver=resolver))


def test_fetch_redirect_limit() -> None:
    routes = {f"hop.example/{i}": redirect(f"/{i + 1}") for i in range(10)}
    resolver = resolver_for({"hop.example": [PUBLIC]})

    five = Recorder({**routes, "hop.example/5": httpx2.Response(200, content=b"done")})
    page = run(
        fetch("http://hop.example/0", transport=httpx2.MockTransport(five), resolver=resolver)
    )
    assert page.body == b"done" and len(page.chain) == 6

    rec = Recorder(routes)
    with pytest.raises(TooManyRedirectsError, match="more than 5 redirects"):
        run(fetch("http://hop.example/0", transport=httpx2.MockTransport(rec), resolver=resolver))
    assert len(rec.requests) == 6
    with pytest.raises(TooManyRedirectsError):
        run(
            fetch(
                "http://hop.example/0",
                transport=httpx2.MockTransport(Recorder(routes)),
                resolver=resolver,
                max_redirects=0,
            )
        )


def test_fetch_body_cap() -> None:
    resolver = resolver_for({"big.example": [PUBLIC]})

    async def streamed() -> httpx2.Response:
        async def chunks() -> AsyncIterator[bytes]:
            for _ in range(10):
                yield b"x" * 1000

        return httpx2.Response(200, content=chunks())

    async def handler(request: httpx2.Request) -> httpx2.Response:
        return await streamed()

    with pytest.raises(ResponseTooLargeError, match="5,000-byte cap") as err:
        run(
            fetch(
                "http://big.example/",
                transport=httpx2.MockTransport(handler),
                resolver=resolver,
                max_bytes=5000,
            )
        )
    assert isinstance(err.value, BodyTooLargeError) and err.value.limit == 5000
    assert err.value.exit_code == 3

    declared = Recorder({"big.example/": httpx2.Response(200, content=b"y" * 6000)})
    with pytest.raises(ResponseTooLargeError, match="announced 6,000 bytes"):
        run(
            fetch(
                "http://big.example/",
                transport=httpx2.MockTransport(declared),
                resolver=resolver,
                max_bytes=5000,
            )
        )
    page = run(
        fetch(
            "http://big.example/",
            transport=httpx2.MockTransport(declared),
            resolver=resolver,
            max_bytes=6000,
        )
    )
    assert len(page.body) == 6000


def test_fetch_deadline_covers_dns() -> None:
    async def slow(host: str, port: int) -> list[str]:
        await asyncio.sleep(5)
        return [PUBLIC]

    with pytest.raises(FetchTimeoutError, match=r"within 0\.05 seconds") as err:
        run(
            fetch(
                "http://slow.example/",
                transport=httpx2.MockTransport(Recorder()),
                resolver=slow,
                timeout=0.05,
            )
        )
    assert isinstance(err.value, NetworkError)


def test_fetch_transport_error_is_fetch_error() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    resolver = resolver_for({"down.example": [PUBLIC]})
    with pytest.raises(FetchError, match="ConnectError") as err:
        run(
            fetch(
                "http://down.example/", transport=httpx2.MockTransport(handler), resolver=resolver
            )
        )
    assert isinstance(err.value, CiteproofError)


def test_fetch_refuses_unsafe_start_without_network() -> None:
    with pytest.raises(UnsafeURLError, match="loopback"):
        run(fetch("http://127.0.0.1/", transport=httpx2.MockTransport(Recorder())))


def test_fetch_rejects_client_plus_transport() -> None:
    async def go() -> None:
        async with make_safe_client(httpx2.MockTransport(Recorder())) as client:
            await fetch(
                f"http://{PUBLIC}/", client=client, transport=httpx2.MockTransport(Recorder())
            )

    with pytest.raises(ValueError, match="not both"):
        run(go())


def test_fetch_rejects_unsafe_client() -> None:
    async def go() -> None:
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(Recorder())) as client:
            await fetch(f"http://{PUBLIC}/", client=client)

    with pytest.raises(ValueError, match="make_safe_client"):
        run(go())


def test_make_safe_client_ignores_env_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://10.0.0.1:3128")
    monkeypatch.setenv("HTTPS_PROXY", "http://10.0.0.1:3128")
    monkeypatch.setenv("ALL_PROXY", "http://10.0.0.1:3128")
    rec = Recorder()
    resolver = resolver_for({"site.example": [PUBLIC]})

    async def go() -> None:
        async with make_safe_client(httpx2.MockTransport(rec), resolver=resolver) as client:
            assert client.trust_env is False
            page = await fetch("https://site.example/", client=client)
            assert page.status == 200

    run(go())
    assert [r.url.host for r in rec.requests] == [PUBLIC]


# --------------------------------------------------------------------------- real local server


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello from {self.path} host={self.headers['Host']}".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def local_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_local_server_refused_by_default(local_server: int) -> None:
    with pytest.raises(UnsafeURLError, match="loopback"):
        run(fetch(f"http://127.0.0.1:{local_server}/"))
    # A name that resolves to loopback is refused as well.
    resolver = resolver_for({"localhost": ["127.0.0.1", "::1"]})
    with pytest.raises(UnsafeURLError, match="loopback"):
        run(fetch(f"http://localhost:{local_server}/", resolver=resolver))


def test_default_resolver_on_a_literal() -> None:
    """getaddrinfo on a numeric address answers without any DNS query."""
    assert run(default_resolver("127.0.0.1", 80)) == ["127.0.0.1"]


def test_local_server_reachable_with_exemption(local_server: int) -> None:
    page = run(fetch(f"http://127.0.0.1:{local_server}/p?q=1", allow_loopback_ports={local_server}))
    assert page.status == 200
    assert page.content_type == "text/plain"
    assert page.body == f"hello from /p?q=1 host=127.0.0.1:{local_server}".encode()
    assert page.address == "127.0.0.1"
    # The exemption is per port: a different loopback port stays refused.
    with pytest.raises(UnsafeURLError):
        run(fetch(f"http://127.0.0.1:{local_server + 1}/", allow_loopback_ports={local_server}))


def test_local_server_via_hostname_pins_to_checked_ip(local_server: int) -> None:
    """A hostname resolved (by the injected resolver) to the exempt loopback address is
    connected to at that address, with the hostname kept in the Host header."""
    resolver = resolver_for({"paper.test": ["127.0.0.1"]})
    page = run(
        fetch(
            f"http://paper.test:{local_server}/",
            resolver=resolver,
            allow_loopback_ports={local_server},
        )
    )
    assert page.body == f"hello from / host=paper.test:{local_server}".encode()
