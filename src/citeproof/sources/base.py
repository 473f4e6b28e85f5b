"""What a source answers: the bytes it served and where from, or why it served none.

The best-available-text chain (``resolve.py``) asks sources in turn and stops at the first
that fetched something; every other outcome carries a reason the result reports, so a user
sees why the full text was not checked ("not open access", "md5 mismatch", "answered 503
three times").  A network failure is ``unavailable``, never ``missing``: nothing may be
concluded from a source that could not be read.

Search sources (``eutils_search``, ``openalex``, ``litsense`` and the search halves of
``ctgov`` and ``openfda``) answer data rather than outcomes, so a failed read *raises*
:class:`~citeproof.errors.UpstreamUnavailableError`; :func:`upstream_failure` and
:func:`json_answer` are the one way they word and detect it, and :func:`get_or_fail` the one
way a bare transport error becomes that failure.

What every source does alike is here once: an identifier checked before it reaches a URL
(:func:`checked_identifier`), a JSON field read as text (:func:`field_text`), a person's
name written family first (:func:`family_first`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import httpx2

from citeproof.errors import BadInputError, NetworkError, UpstreamUnavailableError
from citeproof.identifiers import KINDS, IdentifierKind


def family_first(family: str | None, given: str | None, name: str | None) -> str | None:
    """A person as a record lists them: "Family, Given" where the database splits the name
    (the reference comparison reads the family name first), else the one name it has."""
    if family and given:
        return f"{family}, {given}"
    return family or name or given


def field_text(value: Any) -> str | None:
    """A field of a JSON answer as a non-empty string, stripped: identifiers such as PMIDs
    arrive as JSON numbers too; anything else (a boolean, a list, null) is no text."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | str):
        text = str(value).strip()
        return text or None
    return None


def checked_identifier(kind: IdentifierKind, given: str, what: str) -> str:
    """``given`` as the canonical value of ``kind`` (surrounding blanks ignored), before
    anything is asked of a service; a :class:`BadInputError` saying it is not ``what``
    ("an NCT number (...)") otherwise."""
    value = KINDS[kind].canonical(given.strip())
    if value is None:
        raise BadInputError(f"{given!r} is not {what}.")
    return value


Coverage = Literal["full_text", "abstract", "page"]
OutcomeKind = Literal[
    "fetched",  # bytes were served (and verified where the service publishes a checksum)
    "not_open_access",  # the work exists but its text may not be read here
    "missing",  # the service answered that it has no such work or file
    "md5_mismatch",  # the bytes served differ from the service's own checksum
    "unavailable",  # the service could not be read: network, rate limit, timeout, cap
]


@dataclass(frozen=True, slots=True)
class Fetched:
    """Bytes a source served, with what the result needs to say about them."""

    data: bytes
    media_type: str
    """"application/xml" (JATS or PubMed), "text/plain", "text/html", "application/pdf",
    "application/json"."""
    url: str
    """Where the bytes came from, without contact or API-key parameters."""
    served_by: str
    """"pmc", "europepmc", "pubmed", "doi", "web", "ctgov", "openfda"."""
    coverage: Coverage
    identifier: str | None = None
    """The canonical key of the work (``citeproof.identifiers.Identifier.key``)."""
    version: str | None = None
    md5_ok: bool | None = None
    licence: str | None = None
    title: str | None = None


@dataclass(frozen=True, slots=True)
class SourceOutcome:
    kind: OutcomeKind
    reason: str | None = None
    fetched: Fetched | None = None

    @property
    def ok(self) -> bool:
        return self.kind == "fetched" and self.fetched is not None


def unavailable(reason: str) -> SourceOutcome:
    return SourceOutcome("unavailable", reason)


def missing(reason: str) -> SourceOutcome:
    return SourceOutcome("missing", reason)


async def get_or_outcome(
    client: httpx2.AsyncClient,
    url: str,
    *,
    service: str,
    what: str,
    params: Mapping[str, str] | None = None,
    missing_reason: str | None = None,
) -> httpx2.Response | SourceOutcome:
    """GET ``url``: the 200 answer, or the outcome that stands for a failed read.

    A 404 is ``missing`` when the service uses it to say "no such record"
    (``missing_reason``); every other failure is ``unavailable``, so nothing is concluded.
    """
    try:
        response = await client.get(url, params=params)
    except NetworkError as err:
        return unavailable(str(err))
    except httpx2.TransportError as err:  # a client not built by make_client
        return unavailable(f"{service} could not be reached ({type(err).__name__}).")
    if response.status_code == 404 and missing_reason is not None:
        return missing(missing_reason)
    if response.status_code != 200:
        return unavailable(
            f"{service} answered HTTP {response.status_code} for {what}; nothing was concluded."
        )
    return response


async def get_or_fail(
    client: httpx2.AsyncClient,
    url: str,
    what: str,
    fail: Callable[[str], NetworkError],
    params: Mapping[str, str] | None = None,
) -> httpx2.Response:
    """GET ``url``, any status; a client not built by ``make_client`` (which raises
    :class:`NetworkError` itself) may raise a bare transport error, which becomes
    ``fail("could not be reached (<error>) for <what>")``."""
    try:
        return await client.get(url, params=params)
    except NetworkError:
        raise
    except httpx2.TransportError as err:  # a client not built by make_client
        raise fail(f"could not be reached ({type(err).__name__}) for {what}") from err


Failure = Callable[[str], UpstreamUnavailableError]


def upstream_failure(service: str, host: str) -> Failure:
    """``fail(what)``: the error a search source raises when ``service`` could not be read,
    worded "<service> <what>; nothing was concluded." so every source says it alike."""

    def fail(what: str) -> UpstreamUnavailableError:
        return UpstreamUnavailableError(
            f"{service} {what}; nothing was concluded.", service=service, host=host
        )

    return fail


def json_answer(response: httpx2.Response, what: str, fail: Failure) -> Any:
    """The decoded JSON of a 200 answer to ``what``; raises ``fail(...)`` for any other
    status or a body that is not JSON.  The caller checks the shape it needs."""
    if response.status_code != 200:
        raise fail(f"answered HTTP {response.status_code} to {what}")
    try:
        return json.loads(response.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise fail(f"answered {what} with a body that is not JSON ({exc})") from exc


def json_object(response: httpx2.Response, what: str, fail: Failure) -> dict[str, Any]:
    """:func:`json_answer` that must be a JSON object."""
    payload = json_answer(response, what, fail)
    if not isinstance(payload, dict):
        raise fail(f"answered {what} with JSON that is not an object")
    return payload
