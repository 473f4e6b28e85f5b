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

Reading a work as a :class:`~citeproof.models.references.WorkRecord` (``citeproof refs``):

* ``bibliographic`` asks ``works?query.bibliographic=`` (the field query Crossref's own
  search-based reference matching uses: titles, authors, ISSNs and years) and keeps each item
  with Crossref's relevance ``score``, which the caller weighs; ``select=`` trims every item
  to the fields read here (``score`` is selectable), so five candidates stay a few KB.
* Authors are ``"Family, Given"`` (``"Family"`` alone when no given name is deposited), an
  organisation's ``name`` as it stands; the year is the first of ``issued``,
  ``published-print``, ``published-online``, ``created`` that has one (``issued`` is
  ``[[null]]`` on some proceedings).
* Titles lose their markup: publishers deposit JATS/HTML (``<i>KRAS</i>``) and line breaks
  inside ``title``, which are how the title was typeset, not what it says.
* A 404 from ``works/{doi}`` is ``None``: Crossref does not hold the DOI, which may be
  registered with DataCite or another agency (``citeproof.sources.doi.registration_agency``).

Etiquette: the ``mailto`` parameter of Crossref's polite pool is added on the wire by the
client (``citeproof.net.client.ContactTransport``), never here; the rate limit (10/s) is the
client's too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

import httpx2

from citeproof.documents.markup import plain_text
from citeproof.errors import NetworkError
from citeproof.models.references import WorkRecord
from citeproof.sources.base import family_first, get_or_fail

__all__ = [
    "API_URL",
    "CONCERN_TYPES",
    "RETRACTED_TYPES",
    "CrossrefUpdate",
    "CrossrefWork",
    "UpdateCategory",
    "bibliographic",
    "category",
    "normalise_type",
    "notices_about",
    "parse_notices",
    "parse_work",
    "record_from_message",
    "work",
    "work_record",
]

API_URL = "https://api.crossref.org/v1/"
SERVICE = "Crossref"
HOST = "api.crossref.org"
#: Notices asked per page of ``works?filter=updates:``; Crossref's own default, too.
ROWS = 20
#: A DOI with more notices than this is a broken answer, not a real record.
MAX_PAGES = 10
#: Crossref's own cap on ``rows``.
MAX_ROWS = 1000
#: The fields :func:`record_from_message` reads, plus the relevance score: the ``select=`` of
#: :func:`bibliographic`.
SELECT = (
    "DOI,title,subtitle,original-title,short-title,author,issued,published-print,"
    "published-online,created,container-title,short-container-title,ISSN,volume,issue,page,"
    "article-number,type,update-to,relation,score"
)
_DATE_FIELDS = ("issued", "published-print", "published-online", "created")

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


def _unreached(what: str) -> NetworkError:
    return NetworkError(f"{SERVICE} {what}.", service=SERVICE, host=HOST)


async def _work_body(client: httpx2.AsyncClient, doi: str) -> tuple[str, bytes] | None:
    """The DOI as asked and the body of ``works/{doi}``; ``None`` on Crossref's 404."""
    wanted = doi.strip().lower()
    if not wanted:
        raise ValueError("an empty DOI cannot be looked up")
    what = f"the record of {wanted}"
    response = await get_or_fail(
        client, API_URL + "works/" + quote(wanted, safe="/"), what, _unreached
    )
    if response.status_code == 404:
        return None
    if response.status_code != 200:
        raise _unreadable(f"answered HTTP {response.status_code} to {what}")
    return wanted, response.content


async def work(client: httpx2.AsyncClient, doi: str) -> CrossrefWork | None:
    """``works/{doi}``: the work's own update links, or ``None`` if Crossref has no such DOI."""
    found = await _work_body(client, doi)
    return None if found is None else parse_work(found[1], found[0])


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
        response = await get_or_fail(client, API_URL + "works", what, _unreached, params)
        if response.status_code != 200:
            raise _unreadable(f"answered HTTP {response.status_code} to {what}")
        updates, total = parse_notices(response.content, wanted)
        found.extend(updates)
        if (page + 1) * ROWS >= total:
            return found
    raise _unreadable(f"listed more than {MAX_PAGES * ROWS} notices about {wanted}")


# --- works as records of what they are (citeproof refs) -------------------------------------


def _first(value: Any) -> str | None:
    """The first string of a Crossref list field (``title``, ``container-title``)."""
    if isinstance(value, list):
        for item in value:
            if (text := plain_text(item)) is not None:
                return text
        return None
    return plain_text(value)


def _person(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return None
    return family_first(_str(raw.get("family")), _str(raw.get("given")), _str(raw.get("name")))


def _year(message: dict[str, Any]) -> int | None:
    for name in _DATE_FIELDS:
        date = _date(message.get(name))
        if date is not None:
            return int(date[:4])
    return None


def record_from_message(message: dict[str, Any]) -> WorkRecord:
    """One Crossref work (a ``works/{doi}`` message or a ``works`` item) as a record."""
    own = _doi(message.get("DOI"))
    notices = [
        u
        for raw in _list(message.get("update-to"))
        if (u := _entry(raw, target=None, notice=own)) is not None and u.target_doi != own
    ]
    title = _first(message.get("title"))
    venues = _all(message.get("container-title"))
    return WorkRecord(
        source="crossref",
        doi=own,
        title=title,
        authors=tuple(a for raw in _list(message.get("author")) if (a := _person(raw))),
        year=_year(message),
        venue=venues[0] if venues else None,
        kind=_str(message.get("type")),
        is_notice=bool(notices),
        volume=_str(message.get("volume")),
        issue=_str(message.get("issue")),
        pages=_str(message.get("page")) or _str(message.get("article-number")),
        other_titles=_other_titles(title, message),
        venue_names=tuple(
            dict.fromkeys((*venues[1:], *_all(message.get("short-container-title"))))
        ),
        issn=tuple(dict.fromkeys(i for raw in _list(message.get("ISSN")) if (i := _str(raw)))),
        types=tuple(t for t in (_str(message.get("type")), _str(message.get("subtype"))) if t),
        related=_related(message.get("relation")),
    )


def _all(value: Any) -> list[str]:
    """Every string of a Crossref list field, in order."""
    return [t for item in _list(value) if (t := plain_text(item)) is not None]


def _other_titles(title: str | None, message: dict[str, Any]) -> tuple[str, ...]:
    """The title joined with its subtitle, and the original-language and short titles: a
    reference may print any of them."""
    out: list[str] = []
    for subtitle in _all(message.get("subtitle")):
        if title and subtitle.casefold() not in title.casefold():
            out.append(f"{title}: {subtitle}")
    out.extend(_all(message.get("original-title")))
    out.extend(_all(message.get("short-title")))
    out.extend(_all(message.get("title"))[1:])
    return tuple(t for t in dict.fromkeys(out) if t != title)


#: Crossref relations that name another version of the same work.
_VERSION_RELATIONS = frozenset(
    {"has-preprint", "is-preprint-of", "has-version", "is-version-of", "is-identical-to"}
)


def _related(value: Any) -> tuple[str, ...]:
    """``relation`` -> ``("is-preprint-of:doi:10.1/x", ...)``: the other versions a record
    names (a preprint and its journal article are one work cited two ways)."""
    if not isinstance(value, dict):
        return ()
    out: list[str] = []
    for kind in sorted(_VERSION_RELATIONS & value.keys()):
        for raw in _list(value.get(kind)):
            if not isinstance(raw, dict) or _str(raw.get("id-type")) != "doi":
                continue
            target = _doi(re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", str(raw.get("id"))))
            if target and target.startswith("10."):
                out.append(f"{kind}:doi:{target}")
    return tuple(dict.fromkeys(out))


async def work_record(client: httpx2.AsyncClient, doi: str) -> WorkRecord | None:
    """``works/{doi}`` as a record; ``None`` when Crossref answers 404 (it has no such DOI)."""
    found = await _work_body(client, doi)
    if found is None:
        return None
    wanted, body = found
    what = f"the record of {wanted}"
    message = _message(body, what)
    record = record_from_message(message)
    if record.doi is not None and record.doi != wanted:
        raise _unreadable(f"answered {what} with the record of {record.doi}")
    return record


def _score(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return 0.0


async def bibliographic(
    client: httpx2.AsyncClient, query: str, rows: int = 5
) -> list[tuple[WorkRecord, float]]:
    """The works Crossref ranks for a reference (``works?query.bibliographic=``), best first,
    each with Crossref's relevance score; an empty list when nothing matched.

    Raises ``NetworkError`` when the answer could not be read: an unread search must never
    look like "no such work".
    """
    text = " ".join(query.split())
    if not text:
        raise ValueError("an empty reference cannot be searched in Crossref")
    if not 1 <= rows <= MAX_ROWS:
        raise ValueError(f"rows must be between 1 and {MAX_ROWS}, not {rows}")
    what = "a bibliographic search"
    params = {"query.bibliographic": text, "rows": str(rows), "select": SELECT}
    response = await get_or_fail(client, API_URL + "works", what, _unreached, params)
    if response.status_code != 200:
        raise _unreadable(f"answered HTTP {response.status_code} to {what}")
    items = _message(response.content, what).get("items")
    if not isinstance(items, list):
        raise _unreadable(f"answered {what} without items")
    found: list[tuple[WorkRecord, float]] = []
    for item in items:
        if isinstance(item, dict) and _doi(item.get("DOI")) is not None:
            found.append((record_from_message(item), _score(item.get("score"))))
    return found
