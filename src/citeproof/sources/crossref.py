"""Crossref REST: the update notices (retractions, concerns, corrections) attached to a DOI.

Why two requests: a retraction reaches Crossref by two roads. A publisher that deposits the
notice links it *from* the notice (the notice's ``update-to``), and Crossref answers
``works?filter=updates:{doi}`` with every such notice; Crossref also copies links *onto* the
updated work (its ``updated-by``, which since the Retraction Watch acquisition includes notices
with ``source: "retraction-watch"``). Either list may lack what the other has, so both are read
and merged (one entry per notice DOI, type and source).

Reading the answers (see APIS.md, "Crossref REST", and the recordings in ``corpus/crossref``):

* ``update-to[]`` / ``updated-by[]`` entries carry ``DOI``, ``type`` (``retraction``,
  ``withdrawal``, ``removal``, ``partial_retraction``, ``expression_of_concern``,
  ``correction``, ``erratum``, ``corrigendum``, ``addendum``, ``new_version`` ...), ``label``,
  ``source`` and ``updated`` (date-parts). Types are compared after lower-casing and turning
  ``-`` and spaces into ``_``, so "Expression of Concern" and ``expression_of_concern`` agree.
* A work with its own ``update-to`` naming *other* DOIs is itself a notice; that is reported
  (:attr:`CrossrefWork.is_notice`), since citing a retraction notice is not citing a
  retracted paper.
* ``works/{doi}`` answering 404 means Crossref has no record of the DOI (it may be registered
  with another agency); the updates filter still answers, so that is an answer, not a failure.

Failures are *raised* as :class:`~citeproof.errors.NetworkError` (the retraction report
turns them into a failed source): a partial list must never look like "no notices".

Etiquette: the ``mailto`` parameter of Crossref's polite pool is added on the wire by the
client (``citeproof.net.client.ContactTransport``), never here; the rate limit (10/s) is the
client's too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

import httpx2

from citeproof.errors import NetworkError

__all__ = [
    "API_URL",
    "CONCERN_TYPES",
    "RETRACTED_TYPES",
    "CrossrefUpdate",
    "CrossrefWork",
    "UpdateCategory",
    "category",
    "normalise_type",
    "notices_about",
    "parse_notices",
    "parse_work",
    "work",
]

API_URL = "https://api.crossref.org/v1/"
SERVICE = "Crossref"
HOST = "api.crossref.org"
#: Notices asked per page of ``works?filter=updates:``; Crossref's own default, too.
ROWS = 20
#: A DOI with more notices than this is a broken answer, not a real record.
MAX_PAGES = 10

UpdateCategory = Literal["retracted", "concern", "correction"]

#: Update types that mean the work must not be relied on.
RETRACTED_TYPES: frozenset[str] = frozenset(
    {"retraction", "withdrawal", "removal", "partial_retraction"}
)
CONCERN_TYPES: frozenset[str] = frozenset({"expression_of_concern"})


def normalise_type(raw: str) -> str:
    """``"Expression of Concern"`` / ``"partial-retraction"`` -> snake case, lower."""
    return "_".join(raw.strip().lower().replace("-", " ").split())


def category(update_type: str) -> UpdateCategory:
    """What an update type means for the updated work; anything else is a correction."""
    kind = normalise_type(update_type)
    if kind in RETRACTED_TYPES:
        return "retracted"
    if kind in CONCERN_TYPES:
        return "concern"
    return "correction"


@dataclass(frozen=True, slots=True)
class CrossrefUpdate:
    """One notice about ``target_doi``: what kind, which DOI announces it, who says so."""

    kind: str
    """Normalised ``type`` (``retraction``, ``expression_of_concern``, ``correction`` ...)."""
    target_doi: str
    notice_doi: str | None
    date: str | None
    """``YYYY[-MM[-DD]]`` from the entry's ``updated`` date-parts."""
    source: str | None
    """Crossref's ``source``: ``publisher`` or ``retraction-watch``."""
    label: str | None = None
    record_id: str | None = None
    """The Retraction Watch record id, when the entry came from Retraction Watch."""

    @property
    def category(self) -> UpdateCategory:
        return category(self.kind)


@dataclass(frozen=True, slots=True)
class CrossrefWork:
    """What ``works/{doi}`` says about updates: the notices on it, and whether it is one."""

    doi: str
    type: str | None
    title: str | None
    updated_by: tuple[CrossrefUpdate, ...]
    """Notices about this work (its ``updated-by``)."""
    update_to: tuple[CrossrefUpdate, ...]
    """The updates this work announces about *other* works (its ``update-to``)."""

    @property
    def is_notice(self) -> bool:
        return bool(self.update_to)


def _str(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _date(value: Any) -> str | None:
    """``{"date-parts": [[2010, 2, 6]]}`` -> ``"2010-02-06"`` (fewer parts, shorter date)."""
    if not isinstance(value, dict):
        return None
    parts = value.get("date-parts")
    if not (isinstance(parts, list) and parts and isinstance(parts[0], list)):
        return None
    numbers = [p for p in parts[0] if isinstance(p, int) and not isinstance(p, bool)]
    if not numbers:
        return None
    return "-".join([f"{numbers[0]:04d}", *(f"{n:02d}" for n in numbers[1:3])])


def _doi(value: Any) -> str | None:
    text = _str(value)
    return text.lower() if text else None


def _entry(raw: Any, *, target: str | None, notice: str | None) -> CrossrefUpdate | None:
    """One ``update-to``/``updated-by`` entry; ``target``/``notice`` fill the side it omits."""
    if not isinstance(raw, dict):
        return None
    kind = _str(raw.get("type"))
    other = _doi(raw.get("DOI"))
    if kind is None:
        return None
    target_doi = target if target is not None else other
    notice_doi = notice if notice is not None else other
    if target_doi is None:
        return None
    return CrossrefUpdate(
        kind=normalise_type(kind),
        target_doi=target_doi,
        notice_doi=notice_doi,
        date=_date(raw.get("updated")),
        source=_str(raw.get("source")),
        label=_str(raw.get("label")),
        record_id=_str(raw.get("record-id")),
    )


def _unreadable(what: str) -> NetworkError:
    return NetworkError(
        f"{SERVICE} ({HOST}) {what}; nothing was concluded.", service=SERVICE, host=HOST
    )


def _message(data: bytes, what: str) -> dict[str, Any]:
    try:
        payload = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _unreadable(f"answered {what} with a body that is not JSON ({exc})") from exc
    message = payload.get("message") if isinstance(payload, dict) else None
    if not isinstance(message, dict):
        raise _unreadable(f"answered {what} without a 'message' object")
    return message


def parse_work(data: bytes, doi: str) -> CrossrefWork:
    """A ``works/{doi}`` body -> :class:`CrossrefWork`; raises ``NetworkError`` if unreadable."""
    wanted = doi.strip().lower()
    message = _message(data, f"the record of {wanted}")
    own = _doi(message.get("DOI")) or wanted
    if own != wanted:
        raise _unreadable(f"answered the record of {wanted} with the record of {own}")
    title_list = message.get("title")
    title = _str(title_list[0]) if isinstance(title_list, list) and title_list else None
    updated_by = tuple(
        u
        for raw in _list(message.get("updated-by"))
        if (u := _entry(raw, target=own, notice=None)) is not None
    )
    update_to = tuple(
        u
        for raw in _list(message.get("update-to"))
        if (u := _entry(raw, target=None, notice=own)) is not None and u.target_doi != own
    )
    return CrossrefWork(own, _str(message.get("type")), title, updated_by, update_to)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def parse_notices(data: bytes, doi: str) -> tuple[list[CrossrefUpdate], int]:
    """A ``works?filter=updates:{doi}`` page -> (updates of ``doi``, total-results).

    Only ``update-to`` entries naming ``doi`` are kept: a notice may update several works.
    """
    wanted = doi.strip().lower()
    message = _message(data, f"the notices about {wanted}")
    items = message.get("items")
    total = message.get("total-results")
    if not isinstance(items, list) or not isinstance(total, int) or isinstance(total, bool):
        raise _unreadable(f"answered the notices about {wanted} without items or total-results")
    found: list[CrossrefUpdate] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        notice = _doi(item.get("DOI"))
        for raw in _list(item.get("update-to")):
            update = _entry(raw, target=None, notice=notice)
            if update is not None and update.target_doi == wanted:
                found.append(update)
    return found, total


async def _get(
    client: httpx2.AsyncClient, url: str, params: dict[str, str] | None, what: str
) -> httpx2.Response:
    try:
        return await client.get(url, params=params)
    except NetworkError:
        raise
    except httpx2.TransportError as err:  # a client not built by make_client
        raise NetworkError(
            f"{SERVICE} could not be reached ({type(err).__name__}) for {what}.",
            service=SERVICE,
            host=HOST,
        ) from err


async def work(client: httpx2.AsyncClient, doi: str) -> CrossrefWork | None:
    """``works/{doi}``: the work's own update links, or ``None`` if Crossref has no such DOI."""
    wanted = doi.strip().lower()
    if not wanted:
        raise ValueError("an empty DOI cannot be looked up")
    what = f"the record of {wanted}"
    response = await _get(client, API_URL + "works/" + quote(wanted, safe="/"), None, what)
    if response.status_code == 404:
        return None
    if response.status_code != 200:
        raise _unreadable(f"answered HTTP {response.status_code} to {what}")
    return parse_work(response.content, wanted)


async def notices_about(client: httpx2.AsyncClient, doi: str) -> list[CrossrefUpdate]:
    """Every notice Crossref lists as updating ``doi`` (``works?filter=updates:{doi}``).

    Pages with ``offset`` while ``total-results`` says there are more; raises
    ``NetworkError`` when any page could not be read.
    """
    wanted = doi.strip().lower()
    if not wanted:
        raise ValueError("an empty DOI cannot be looked up")
    what = f"the notices about {wanted}"
    found: list[CrossrefUpdate] = []
    for page in range(MAX_PAGES):
        params = {"filter": f"updates:{wanted}", "rows": str(ROWS)}
        if page:
            params["offset"] = str(page * ROWS)
        response = await _get(client, API_URL + "works", params, what)
        if response.status_code != 200:
            raise _unreadable(f"answered HTTP {response.status_code} to {what}")
        updates, total = parse_notices(response.content, wanted)
        found.extend(updates)
        if (page + 1) * ROWS >= total:
            return found
    raise _unreadable(f"listed more than {MAX_PAGES * ROWS} notices about {wanted}")
