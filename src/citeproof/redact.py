"""What identifies the user in a URL, and the one way to take it out.

The services ask for the caller's contact address (``email``, ``mailto``, ``tool``) and
may take an NCBI ``api_key``.  Those go on the wire and nowhere else: not into the cache,
an export file, a recorded fixture or the evidence log.  Every place that stores a URL
calls :func:`strip_secret_params`, so there is one list of such parameters to keep right.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import unquote_plus, urlsplit, urlunsplit

SECRET_PARAMS: frozenset[str] = frozenset(
    {"email", "mailto", "tool", "api_key", "apikey", "api-key"}
)


def is_secret_param(
    name: str, value: str, contact: str | None = None, secrets: Iterable[str] = ()
) -> bool:
    """True for a query parameter that names the caller, by its name or by its value."""
    if name.strip().lower() in SECRET_PARAMS:
        return True
    if contact and value.strip().lower() == contact.strip().lower():
        return True
    return any(secret and value == secret for secret in secrets)


def strip_secret_params(
    url: str, *, contact: str | None = None, secrets: Iterable[str] = ()
) -> str:
    """``url`` without contact or API-key parameters and without ``user:password@``.

    The other parameters keep their encoding and order, so the stored URL still reads like
    the one that was sent and still names the same resource.
    """
    parts = urlsplit(url)
    secret_list = [s for s in secrets if s]
    kept = []
    for piece in parts.query.split("&") if parts.query else []:
        if not piece:
            continue
        raw_name, _, raw_value = piece.partition("=")
        if not is_secret_param(
            unquote_plus(raw_name), unquote_plus(raw_value), contact, secret_list
        ):
            kept.append(piece)
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, "&".join(kept), parts.fragment))
