"""The sha256 of every answer a recorded lookup reads, captured on the client.

A recorded search (``citeproof.search``) and a reference verification (``citeproof.refs``)
both name every response they read with its hash, so a log line can be checked against the
bytes later.  The capture is a ``response`` event hook on the injected client, active only
inside :func:`collecting`.  Why a hook and not a wrapping transport: the client is injected
fully built (retries, rate limit, contact parameters), and rebuilding it around a new
transport would drop those layers or duplicate them; a hook sees each final response after
retries, exactly the bytes the source parsed, without any source knowing.  Why a context
variable: every asyncio task copies the context, so concurrent lookups on one shared client
each collect their own responses, and requests made outside one are not collected.
"""

from __future__ import annotations

import contextvars
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

import httpx2

from citeproof.models.search import ResponseDigest
from citeproof.net.client import redact_url

__all__ = ["collecting", "install", "note"]

_COLLECTING: contextvars.ContextVar[list[ResponseDigest] | None] = contextvars.ContextVar(
    "citeproof_responses", default=None
)


async def _collect(response: httpx2.Response) -> None:
    found = _COLLECTING.get()
    if found is None:
        return
    await response.aread()
    found.append(
        ResponseDigest(
            method=response.request.method,
            url=redact_url(response.request.url),
            status=response.status_code,
            sha256=hashlib.sha256(response.content).hexdigest(),
        )
    )


def install(client: httpx2.AsyncClient) -> None:
    """Add the capturing hook to ``client`` (once); it does nothing outside
    :func:`collecting`."""
    hooks = client.event_hooks
    response_hooks = list(hooks.get("response", []))
    if _collect not in response_hooks:
        client.event_hooks = {**hooks, "response": [*response_hooks, _collect]}


@contextmanager
def collecting() -> Iterator[list[ResponseDigest]]:
    """Collect the digest of every answer read in this task until the block ends."""
    found: list[ResponseDigest] = []
    token = _COLLECTING.set(found)
    try:
        yield found
    finally:
        _COLLECTING.reset(token)


def note(digest: ResponseDigest) -> None:
    """Add an answer that came from no HTTP response (a local index's) to the current
    collection, so the evidence line names it like any other; nothing outside
    :func:`collecting`."""
    found = _COLLECTING.get()
    if found is not None:
        found.append(digest)
