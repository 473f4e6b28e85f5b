"""Record live answers into a fixture folder, in the format replay reads.

A maintainer who needs a new fixture (a source citeproof has not seen, a bug report that
depends on what a service answered) runs the real command once with recording on; every
response the command reads is written as ``<name>.body`` + ``<name>.meta.json`` by
:func:`~citeproof.net.recordings.write_recording`, which strips the contact address and API
keys, and ``--replay`` then repeats the command without the network.

:class:`RecordingTransport` sits *under* the retrying layer (and under the SSRF guard for
pages), so it sees every attempt: a request answered 503 and then 200 leaves the 200, since
both are the same request and the later file replaces the earlier. Names are derived from
the request key, so recording the same request twice overwrites rather than piling up; the
key includes a form POST's body, so two esummary batches to one URL are two files.

This is live use only: nothing in the test suite or CI records.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

import httpx2

from citeproof.errors import BodyTooLargeError
from citeproof.net.recordings import request_key, write_recording
from citeproof.net.replay import form_body, original_url
from citeproof.net.retry import DEFAULT_MAX_BODY, buffered

__all__ = ["RecordingTransport", "live_transport", "recording_name"]

_SLUG = re.compile(r"[^A-Za-z0-9]+")


def recording_name(method: str, url: str, form: str | None = None) -> str:
    """A readable, stable file name for a request: host and path slugs plus a key digest."""
    key = request_key(method, url, form=form)
    digest = hashlib.sha256(str(key).encode("utf-8")).hexdigest()[:12]
    host = _SLUG.sub("-", key.host).strip("-")[:40] or "host"
    path = _SLUG.sub("-", key.path).strip("-")[:60]
    return "-".join(part for part in (host, path, digest) if part)


def live_transport(host: str) -> httpx2.AsyncBaseTransport:
    """The transport that reaches ``host`` for real (tests replace this function)."""
    return httpx2.AsyncHTTPTransport(retries=0)


class RecordingTransport(httpx2.AsyncBaseTransport):
    """Pass each request to a live transport and write its answer into ``folder``.

    ``inner`` builds the live transport for a host name; one is kept per host so a
    connection opened (and its certificate verified) for one host is never reused for
    another that shares its address.
    """

    def __init__(
        self,
        folder: Path,
        *,
        inner: Callable[[str], httpx2.AsyncBaseTransport] | None = None,
        now: Callable[[], datetime],
        contact: str | None = None,
        secrets: Iterable[str] = (),
        max_body: int = DEFAULT_MAX_BODY,
    ) -> None:
        self.folder = folder
        self._make = inner
        self._per_host: dict[str, httpx2.AsyncBaseTransport] = {}
        self._now = now
        self._contact = contact
        self._secrets = tuple(s for s in secrets if s)
        self._max_body = max_body
        #: Names written so far, in order (a name appears again when a request is repeated).
        self.written: list[str] = []

    def _transport_for(self, host: str) -> httpx2.AsyncBaseTransport:
        if host not in self._per_host:
            self._per_host[host] = (self._make or live_transport)(host)
        return self._per_host[host]

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        url = original_url(request)
        host = httpx2.URL(url).host
        await request.aread()  # a form POST's body is part of its key (read before sending)
        form = form_body(request)
        name = recording_name(request.method, url, form)
        try:
            response = await self._transport_for(host).handle_async_request(request)
        except httpx2.TransportError as exc:
            # No answer at all (unreachable, timed out): recorded too, so the replay fails
            # the same way (UNAVAILABLE) instead of refusing a request "never recorded".
            self._write(
                name,
                url,
                request.method,
                form,
                status=0,
                headers=[],
                body=b"",
                error=(type(exc).__name__, str(exc)),
            )
            raise

        def too_large() -> BodyTooLargeError:
            return BodyTooLargeError(
                f"{host} sent a body over the {self._max_body:,} byte limit; it was not recorded.",
                service=host,
                host=host,
                limit=self._max_body,
            )

        answer = await buffered(response, request, self._max_body, too_large)
        self._write(
            name,
            url,
            request.method,
            form,
            status=answer.status_code,
            headers=answer.headers.multi_items(),
            body=answer.content,
        )
        return answer

    def _write(
        self,
        name: str,
        url: str,
        method: str,
        form: str | None,
        *,
        status: int,
        headers: list[tuple[str, str]],
        body: bytes,
        error: tuple[str, str] | None = None,
    ) -> None:
        write_recording(
            self.folder,
            name,
            url=url,
            status=status,
            headers=headers,
            body=body,
            date=self._now(),
            method=method,
            contact=self._contact,
            secrets=self._secrets,
            provenance="recorded live with citeproof record",
            form=form,
            error=error,
        )
        self.written.append(name)

    async def aclose(self) -> None:
        for transport in self._per_host.values():
            await transport.aclose()
        self._per_host.clear()
