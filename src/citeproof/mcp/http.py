"""Serving the MCP server over streamable HTTP, and who may call it.

Over stdio only the process that started the server can talk to it.  Over HTTP anyone who
can reach the port can, and the tools read local files, fetch from the network and write
the evidence log; so the rules are:

* **A token by default.**  ``citeproof mcp --http`` without ``--token`` makes a random one at
  start and prints it once on stderr with the URL (as Jupyter does): on loopback too, since
  any local process (another user's, a browser page's) could otherwise read the server
  user's files.  ``--no-token`` serves without one, on loopback only, when asked explicitly.
  On any other address the server refuses to start without a token.  A token must be at
  least 16 visible characters with no spaces (one of only spaces used to be taken for none).
* **Every request carries it**: ``Authorization: Bearer <token>``, the scheme in any case
  (RFC 7235), the token compared in constant time (``hmac.compare_digest``); a request
  without it gets 401 before it reaches the SDK.
* **Host and Origin are checked against the address served**, always: the SDK's DNS-rebinding
  protection is passed settings built from ``--host`` and ``--port`` (the SDK turns it on by
  itself only for the exact strings ``127.0.0.1``, ``localhost`` and ``::1``, so
  ``127.0.0.2``, ``LOCALHOST`` or ``0:0:0:0:0:0:0:1`` went unprotected).  Loopback is told by
  :mod:`ipaddress`, names compare case-insensitively (the Host header is lower-cased before
  the SDK compares it).  Bound to every interface (``0.0.0.0``, ``::``) the server answers
  under names it cannot know, so there the token alone guards it.

The token check is a plain ASGI wrapper around the SDK's own Starlette app
(``MCPServer.streamable_http_app``): the SDK's bearer support is built for OAuth (an
issuer, token introspection, protected-resource metadata), which a single shared secret
does not need and should not pretend to be.

A request body over :data:`~citeproof.mcp.serving.MAX_MESSAGE_BYTES` (4 MiB, the cap stdio
has too) is answered 413 by the SDK.  The address is bound before anything is printed, so a
port in use or an address this machine does not have is one ``citeproof: error:`` line
(uvicorn printed the URL, then its own error, and exited 3), and port 0 is reported as the
port the system chose.  How the server stops (Ctrl-C, SIGTERM) is
:mod:`citeproof.mcp.serving`'s.
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import json
import secrets
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any, Final

from citeproof.errors import BadInputError
from citeproof.mcp.serving import GRACE_SECONDS, MAX_MESSAGE_BYTES, run_until_stopped

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.transport_security import TransportSecuritySettings

__all__ = [
    "MIN_TOKEN_CHARS",
    "TOKEN_ENV",
    "BearerTokenMiddleware",
    "allowed_hosts",
    "check_http_settings",
    "http_app",
    "is_loopback",
    "netloc",
    "new_token",
    "serve_http",
    "transport_security",
]

TOKEN_ENV: Final = "CITEPROOF_MCP_TOKEN"
MIN_TOKEN_CHARS: Final = 16
MCP_PATH: Final = "/mcp"
_BACKLOG: Final = 2048  # uvicorn's

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _bare(host: str) -> str:
    return host.strip().removeprefix("[").removesuffix("]").lower()


def is_loopback(host: str) -> bool:
    """True for an address only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    name = _bare(host)
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _is_unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(_bare(host)).is_unspecified
    except ValueError:
        return False


def new_token() -> str:
    """A random bearer token (32 bytes, URL-safe)."""
    return secrets.token_urlsafe(32)


def check_http_settings(host: str, token: str | None, *, no_token: bool = False) -> str | None:
    """The token to require (None: none), or bad input when the settings are unsafe.

    ``token`` None means none was given: on loopback a new one is made unless ``no_token``;
    elsewhere the server refuses to start.
    """
    if not host.strip():
        raise BadInputError(
            "the host is empty; give the address to serve on with --host, such as 127.0.0.1 "
            "(this machine only) or 0.0.0.0 (every interface, with --token)."
        )
    if token is not None:
        if no_token:
            raise BadInputError(f"give --token (or {TOKEN_ENV}) or --no-token, not both.")
        if not token.strip():
            raise BadInputError(
                "the bearer token is empty or only spaces; give a long random one (or "
                "leave --token and CITEPROOF_MCP_TOKEN unset and one is made for you)."
            )
        if len(token) < MIN_TOKEN_CHARS:
            raise BadInputError(
                f"the bearer token is shorter than {MIN_TOKEN_CHARS} characters; use a long "
                'random one, e.g. python -c "import secrets; print(secrets.token_urlsafe(32))".'
            )
        if not token.isascii() or not token.isprintable() or any(c.isspace() for c in token):
            raise BadInputError(
                "the bearer token holds spaces or characters a header cannot carry; use "
                "letters, digits and - . _ ~ + / = only."
            )
        return token
    if not is_loopback(host):
        raise BadInputError(
            f"refusing to serve on {host} without a bearer token: anyone who can reach it could "
            f"read files and write the evidence log. Give --token (or {TOKEN_ENV}), or bind to "
            "127.0.0.1."
        )
    return None if no_token else new_token()


def _host_forms(host: str) -> list[str]:
    """How a Host header names ``host``: the address as given and its canonical form."""
    name = _bare(host)
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        forms = [name]
        if name == "localhost":
            forms += ["127.0.0.1", "[::1]"]
        return forms
    if address.version == 6:
        forms = [f"[{address.compressed}]", f"[{name}]", f"[{address.exploded}]"]
    else:
        forms = [address.compressed]
    if address == ipaddress.ip_address("127.0.0.1") or address == ipaddress.ip_address("::1"):
        forms.append("localhost")
    return list(dict.fromkeys(forms))


def allowed_hosts(host: str, port: int) -> list[str]:
    """The Host header values a server bound to ``host``:``port`` answers to (``port`` 0,
    chosen at bind time: any port)."""
    suffix = "*" if port == 0 else str(port)
    hosts = [f"{form}:{suffix}" for form in _host_forms(host)]
    if port == 80:
        hosts += _host_forms(host)
    return hosts


def transport_security(host: str, port: int) -> TransportSecuritySettings:
    """The SDK's Host/Origin checks for a server bound to ``host``:``port``."""
    from mcp.server.transport_security import TransportSecuritySettings

    if _is_unspecified(host):  # every interface: any name may reach it; the token guards it
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = allowed_hosts(host, port)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts],
    )


def _lower_host(scope: Scope) -> Scope:
    """``scope`` with its Host header lower-cased (host names compare case-insensitively)."""
    headers = scope.get("headers")
    if not headers:
        return scope
    lowered = [(k, bytes(v).lower() if k.lower() == b"host" else v) for k, v in headers]
    return {**scope, "headers": lowered}


class BearerTokenMiddleware:
    """Refuse every HTTP request whose ``Authorization`` is not ``Bearer <token>``; ``token``
    None checks nothing (``--no-token``).  Lower-cases the Host header either way."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self._expected = token.encode() if token is not None else None

    def _authorized(self, scope: Scope) -> bool:
        if self._expected is None:
            return True
        given = b""
        for name, value in scope.get("headers", ()):
            if name.lower() == b"authorization":
                given = bytes(value)
                break
        scheme, _, credentials = given.strip().partition(b" ")
        # Compare the token even when the scheme is wrong, so timing tells nothing.
        matches = hmac.compare_digest(credentials.strip(), self._expected)
        return scheme.lower() == b"bearer" and matches

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._authorized(scope):
            await self.app(_lower_host(scope), receive, send)
            return
        body = json.dumps(
            {"error": "unauthorized", "error_description": "a valid bearer token is required"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="citeproof"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def http_app(
    server: MCPServer, *, host: str = "127.0.0.1", port: int = 8000, token: str | None = None
) -> ASGIApp:
    """The SDK's streamable-HTTP app for ``server`` (at ``/mcp``), with the Host and Origin
    checks of ``host``:``port`` and, given a ``token``, the token check.

    ``token`` None serves without one (loopback only); the command line makes one unless
    ``--no-token``.
    """
    if token is not None:
        check_http_settings(host, token)
    elif not is_loopback(host):
        check_http_settings(host, None)  # refuses
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=host,
        transport_security=transport_security(host, port),
        max_request_body_size=MAX_MESSAGE_BYTES,
    )
    return BearerTokenMiddleware(app, token)


def netloc(host: str, port: int) -> str:
    """``host:port`` as a URL writes it (an IPv6 address in brackets)."""
    bare = host.strip().removeprefix("[").removesuffix("]")
    return f"[{bare}]:{port}" if ":" in bare else f"{bare}:{port}"


def _bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` and listening (as uvicorn would make it), or one
    line saying why the address cannot be served."""
    bind = host.strip().removeprefix("[").removesuffix("]")
    sock = socket.socket(socket.AF_INET6 if ":" in bind else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bind, port))
        sock.listen(_BACKLOG)  # connections made once the URL is printed wait for the loop
    except OSError as exc:
        sock.close()
        if isinstance(exc, socket.gaierror):
            why = f"{host} is neither an address nor a name this machine can resolve"
        elif exc.errno == errno.EADDRINUSE:
            why = "the port is in use (another server?); choose another --port, or 0 for any"
        elif exc.errno == errno.EADDRNOTAVAIL:
            why = f"{host} is not an address of this machine"
        elif exc.errno in (errno.EACCES, errno.EPERM):
            why = "permission denied (a port below 1024 needs privileges); choose another --port"
        else:
            why = exc.strerror or str(exc)
        raise BadInputError(f"cannot serve on {netloc(host, port)}: {why}.") from exc
    return sock


def serve_http(
    server: MCPServer,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    ready: Callable[[int], None] | None = None,
) -> bool:
    """Serve with uvicorn, as the SDK's own ``run`` does, until SIGTERM (True) or Ctrl-C
    (``KeyboardInterrupt``); ``ready`` is told the port once it is bound and SIGTERM
    handled (port 0: the one the system chose).

    SIGTERM is uvicorn's graceful shutdown: no new connections, the requests under way
    answered (for at most :data:`~citeproof.mcp.serving.GRACE_SECONDS`).
    """
    import uvicorn

    sock = _bind(host, port)
    try:
        bound = int(sock.getsockname()[1])
        app = http_app(server, host=host, port=bound, token=token)
    except BaseException:
        sock.close()
        raise
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=GRACE_SECONDS,
    )
    running = uvicorn.Server(config)

    def stop() -> None:
        running.should_exit = True

    def started() -> None:
        if ready is not None:
            ready(bound)

    return run_until_stopped(lambda: running.run(sockets=[sock]), stop=stop, started=started)
