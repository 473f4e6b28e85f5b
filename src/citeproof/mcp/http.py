"""Serving the MCP server over streamable HTTP, and who may call it.

Over stdio only the process that started the server can talk to it.  Over HTTP anyone who
can reach the port can, and the tools read local files, fetch from the network and write
the evidence log; so the rules are:

* bound to loopback (127.0.0.1, ::1, localhost) by default, where the SDK also turns on its
  DNS-rebinding protection (Host and Origin must be loopback);
* on any other address the server refuses to start without a bearer token;
* with a token, every HTTP request must carry ``Authorization: Bearer <token>``; the token
  is compared in constant time (``hmac.compare_digest``) and a request without it gets
  401 before it reaches the SDK.

The check is a plain ASGI wrapper around the SDK's own Starlette app
(``MCPServer.streamable_http_app``): the SDK's bearer support is built for OAuth (an
issuer, token introspection, protected-resource metadata), which a single shared secret
does not need and should not pretend to be.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any, Final

from citeproof.errors import BadInputError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = [
    "MIN_TOKEN_CHARS",
    "TOKEN_ENV",
    "BearerTokenMiddleware",
    "check_http_settings",
    "http_app",
    "is_loopback",
    "serve_http",
]

TOKEN_ENV: Final = "CITEPROOF_MCP_TOKEN"
MIN_TOKEN_CHARS: Final = 16
MCP_PATH: Final = "/mcp"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """True for an address only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_http_settings(host: str, token: str | None) -> str | None:
    """The token to require (None: none), or bad input when the settings are unsafe."""
    if token is not None and not token.strip():
        token = None
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise BadInputError(
            f"the bearer token is shorter than {MIN_TOKEN_CHARS} characters; use a long random "
            'one, e.g. python -c "import secrets; print(secrets.token_urlsafe(32))".'
        )
    if token is None and not is_loopback(host):
        raise BadInputError(
            f"refusing to serve on {host} without a bearer token: anyone who can reach it could "
            f"read files and write the evidence log. Give --token (or {TOKEN_ENV}), or bind to "
            "127.0.0.1."
        )
    return token


class BearerTokenMiddleware:
    """Refuse every HTTP request whose ``Authorization`` is not ``Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    def _authorized(self, scope: Scope) -> bool:
        given = b""
        for name, value in scope.get("headers", ()):
            if name.lower() == b"authorization":
                given = bytes(value)
                break
        return hmac.compare_digest(given, self._expected)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._authorized(scope):
            await self.app(scope, receive, send)
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


def http_app(server: MCPServer, *, host: str = "127.0.0.1", token: str | None = None) -> ASGIApp:
    """The SDK's streamable-HTTP app for ``server`` (at ``/mcp``), behind the token check."""
    token = check_http_settings(host, token)
    app: ASGIApp = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    if token is None:
        return app
    return BearerTokenMiddleware(app, token)


def serve_http(
    server: MCPServer, *, host: str = "127.0.0.1", port: int = 8000, token: str | None = None
) -> None:
    """Serve until interrupted, with uvicorn as the SDK's own ``run`` does."""
    import uvicorn

    app = http_app(server, host=host, token=token)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    uvicorn.Server(config).run()
