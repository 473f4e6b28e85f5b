"""Network failures a check can meet, as ``CiteproofError`` subclasses.

Every one of these means *nothing was concluded*: the service layer turns them into an
``UNAVAILABLE`` verdict whose ``reason`` is ``str(error)``, never into ``NOT_FOUND``. They exit
with code 3 so scripts can tell "try again later" from bad input (exit 2).

    CiteproofError
    └── NetworkError                    exit 3
        ├── UpstreamUnavailable         a service kept failing (5xx, 429, network errors)
        │   ├── RetryAfterTooLong       the service asked us to wait longer than allowed
        │   └── DeadlineExceeded        the total time allowed for one check ran out
        └── BodyTooLarge                an answer over the body cap (raw or decompressed)

Messages name the service and host, never the full URL: URLs carry the contact address and
the NCBI API key, and these messages end up in logs and reports.
"""

from __future__ import annotations

from citeproof.errors import CiteproofError


class NetworkError(CiteproofError):
    """A source could not be read; ``reason`` is the sentence reported as UNAVAILABLE."""

    exit_code = 3

    def __init__(self, reason: str, *, service: str = "", host: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.service = service
        self.host = host


class UpstreamUnavailable(NetworkError):
    """The service answered 429/5xx or could not be reached on every attempt."""


class RetryAfterTooLong(UpstreamUnavailable):
    """``Retry-After`` asked for a longer wait than ``max_wait``; we stop instead of sleeping."""

    def __init__(
        self,
        reason: str,
        *,
        service: str = "",
        host: str = "",
        wait: float = 0.0,
        limit: float = 0.0,
    ) -> None:
        super().__init__(reason, service=service, host=host)
        self.wait = wait
        self.limit = limit


class DeadlineExceeded(UpstreamUnavailable):
    """The total deadline for the current check passed before an answer arrived."""


class BodyTooLarge(NetworkError):
    """The answer's body (after decompression) is over the cap; reading stopped at the cap."""

    def __init__(self, reason: str, *, service: str = "", host: str = "", limit: int = 0) -> None:
        super().__init__(reason, service=service, host=host)
        self.limit = limit
