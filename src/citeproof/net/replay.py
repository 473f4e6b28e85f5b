"""An httpx2 transport that answers only from recordings and refuses everything else.

Tests hand sources a client built on :class:`ReplayTransport`, so a source is exercised against
real recorded answers without touching the network. Any request that was not recorded raises
:class:`UnrecordedRequestError` — loudly, and deliberately *not* an ``httpx2.TransportError``:
sources turn transport errors into an UNAVAILABLE verdict, which would let a test pass while
the code asked for something nobody recorded. Refused requests are also kept in
:attr:`ReplayTransport.refused`, so a test can assert none happened even when some layer
swallows the exception.

A form POST (``application/x-www-form-urlencoded``) is keyed with its body's parameters (see
``citeproof.net.recordings``).  When no POST with that form was recorded, it is answered by a
recorded GET of the same parameters: the services citeproof POSTs forms to (E-utilities)
treat the two alike, and older recorders (litcheck's esummary fixtures) recorded the GET.

Recorded bodies are the decoded bytes, so ``content-encoding``, ``transfer-encoding`` and
``content-length`` are not replayed (httpx2 sets the length of the body it is given).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import httpx2

from citeproof.errors import UnrecordedRequestError
from citeproof.net.recordings import (
    Recording,
    RecordingError,
    RequestKey,
    load_folder,
    request_key,
)

__all__ = ["ReplayTransport", "UnrecordedRequestError", "form_body", "original_url"]

_FORM_TYPE = "application/x-www-form-urlencoded"

#: Headers describing the wire encoding of the original answer, not the stored body.
_WIRE_HEADERS: frozenset[str] = frozenset(
    {"content-encoding", "transfer-encoding", "content-length"}
)


def original_url(request: httpx2.Request) -> str:
    """The URL as the caller wrote it, even when the SSRF guard addressed it to an IP.

    The guard sends ``https://<checked ip>/path`` with the original ``Host`` header (see
    :class:`~citeproof.net.ssrf.SafeTransport`); a recording or a replay must key on the host
    name, which is what the next run will ask for.
    """
    host = request.headers.get("host")
    if host and host.encode("ascii", "replace") != request.url.netloc:
        return str(request.url.copy_with(netloc=host.encode("ascii")))
    return str(request.url)


def form_body(request: httpx2.Request) -> str | None:
    """The url-encoded body of a form POST, for its request key; ``None`` for anything else.

    The request body must have been read (``request.read()``/``await request.aread()``).
    """
    content_type = request.headers.get("content-type", "")
    if request.method != "POST" or not content_type.lower().startswith(_FORM_TYPE):
        return None
    return request.content.decode("utf-8", errors="replace")


def _transport_error(error: tuple[str, str], request: httpx2.Request) -> httpx2.TransportError:
    """The recorded failure raised again: the same httpx2 class when it is a transport error
    (a recording names a class, it never chooses code to run), else a ConnectError."""
    kind, message = error
    cls = getattr(httpx2, kind, None)
    if not (isinstance(cls, type) and issubclass(cls, httpx2.TransportError)):
        cls = httpx2.ConnectError
    return cls(f"{message} (recorded failure)", request=request)


class ReplayTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """Serve recorded responses to a sync or async httpx2 client; refuse anything else.

    ``contact`` and ``secrets`` are the replaying side's contact address and API keys: request
    parameters carrying them are ignored when matching, like the ``email``/``mailto``/``tool``/
    ``api_key`` parameters always are. Every body is verified against its sha256 when the
    transport is built, and two recordings of the same request with different bodies are
    refused as ambiguous.
    """

    def __init__(
        self,
        recordings: Iterable[Recording],
        *,
        contact: str | None = None,
        secrets: Iterable[str] = (),
    ) -> None:
        self._contact = contact
        self._secrets = tuple(s for s in secrets if s)
        self._by_key: dict[RequestKey, Recording] = {}
        for recording in recordings:
            recording.verify()
            key = recording.key(contact=contact, secrets=self._secrets)
            existing = self._by_key.get(key)
            if existing is not None and existing.body_sha256 != recording.body_sha256:
                raise RecordingError(
                    f"Recordings {existing.name} and {recording.name} answer the same request "
                    f"{key} with different bodies; keep one of them."
                )
            self._by_key.setdefault(key, recording)
        #: How many times each recording (by name) was served.
        self.used: Counter[str] = Counter()
        #: Every request that was refused, in order.
        self.refused: list[RequestKey] = []

    @classmethod
    def from_folder(
        cls,
        folder: Path,
        *,
        contact: str | None = None,
        secrets: Iterable[str] = (),
        skip_incomplete: bool = False,
    ) -> ReplayTransport:
        """Build a transport from every recording in ``folder`` (see ``load_folder``)."""
        return cls(
            load_folder(folder, skip_incomplete=skip_incomplete),
            contact=contact,
            secrets=secrets,
        )

    @property
    def recordings(self) -> list[Recording]:
        """The recordings this transport can serve, one per distinct request."""
        return list(self._by_key.values())

    def unused(self) -> list[Recording]:
        """Recordings never served: a test can use this to spot fixtures that are dead weight."""
        return [r for r in self._by_key.values() if self.used[r.name] == 0]

    def lookup(self, method: str, url: str, *, form: str | None = None) -> Recording:
        """The recording for ``method url`` (with a POST's ``form`` body), or
        :class:`UnrecordedRequestError`; an unrecorded form POST falls back to the same
        parameters recorded as a GET."""
        key = request_key(method, url, form=form, contact=self._contact, secrets=self._secrets)
        recording = self._by_key.get(key)
        if recording is None and form is not None and key.method == "POST":
            recording = self._by_key.get(key._replace(method="GET"))
        if recording is None:
            self.refused.append(key)
            raise UnrecordedRequestError(key, self._nearest(key))
        self.used[recording.name] += 1
        return recording

    def _nearest(self, key: RequestKey, limit: int = 3) -> list[str]:
        """Recorded keys that look most like ``key``, so the error shows what differs."""
        candidates = [str(k) for k in self._by_key if k.host == key.host] or [
            str(k) for k in self._by_key
        ]
        return difflib.get_close_matches(str(key), candidates, n=limit, cutoff=0.0)

    def _respond(self, request: httpx2.Request) -> httpx2.Response:
        recording = self.lookup(request.method, original_url(request), form=form_body(request))
        if recording.error is not None:
            raise _transport_error(recording.error, request)
        headers = [
            (name, value)
            for name, value in recording.headers.items()
            if name.lower() not in _WIRE_HEADERS
        ]
        return httpx2.Response(
            recording.status, headers=headers, content=recording.body, request=request
        )

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        """Answer a sync client's request from the recordings."""
        request.read()
        return self._respond(request)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Answer an async client's request from the recordings."""
        await request.aread()
        return self._respond(request)
