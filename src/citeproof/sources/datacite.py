"""DataCite REST: the record of a DataCite DOI, and a search of DataCite's metadata.

Why DataCite: Crossref answers 404 for every DOI another agency registered, and the DOIs a
bibliography cites outside journals (arXiv ``10.48550/…``, Zenodo, Dryad, Figshare, most
datasets and software) are DataCite's.  Without it those references would look invented.

Reading the answers (JSON:API; support.datacite.org, "REST API" and "Queries and
filtering"):

* ``GET dois/{doi}`` -> ``data.attributes``: ``doi``, ``titles[].title`` (the main title is
  the one without a ``titleType``; subtitles and translations carry one), ``creators[]``
  (``familyName``/``givenName`` for people, ``name`` alone for organisations),
  ``publicationYear`` (a number, a string in older records), ``publisher`` (a string, or an
  object with ``name`` under schema 4.5), ``container.title``, ``types.resourceTypeGeneral``.
  A 404 (``{"errors": [{"status": "404", ...}]}``) means DataCite holds no such DOI:
  ``None``, not a failure.  An answer about another DOI is refused.
* Authors are ``"Family, Given"`` as DataCite's own ``name`` writes them; the venue is the
  container's title, else the publisher (a dataset is cited as "… [Data set]. Zenodo.").
* ``GET dois?query=`` is an OpenSearch ``query_string`` with ``AND`` as its default
  operator, so every term must match: the caller sends title words, not a whole reference
  string.  Its syntax characters (``: / ( ) [ ] " ~ * ?`` ...) are turned into spaces and
  the text is lower-cased, so a title can neither break the query nor be read as
  ``AND``/``OR``/``NOT``.  ``sort=relevance`` is asked because the list is otherwise sorted
  by last update; ``disable-facets`` and ``fields[dois]`` keep the answer to the records.

Failures *raise* :class:`~citeproof.errors.UpstreamUnavailableError` (``upstream_failure``), as
the other search sources do.  The rate (DataCite's 500 requests per 5 minutes without
identification) is the client's, ``citeproof.net.ratelimit``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import httpx2

from citeproof.documents.markup import plain_text
from citeproof.models.references import WorkRecord
from citeproof.sources.base import family_first, get_or_fail, json_object, upstream_failure

__all__ = ["API_URL", "FIELDS", "MAX_ROWS", "record", "record_from_data", "search", "search_params"]

API_URL = "https://api.datacite.org/"
#: DataCite's cap on ``page[size]``.
MAX_ROWS = 1000
#: The attributes :func:`record_from_data` reads: the ``fields[dois]`` of a search.
FIELDS = "doi,titles,creators,publicationYear,publisher,container,types"

_SERVICE = "DataCite"
_HOST = "api.datacite.org"
_fail = upstream_failure(_SERVICE, _HOST)
# OpenSearch query_string syntax: these characters are operators, not words.
_SYNTAX = re.compile(r'[+\-=&|><!(){}\[\]^"~*?:\\/]')


def _str(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _title(titles: Any) -> str | None:
    """The main title: the first without a ``titleType``, else the first there is."""
    entries = [t for t in titles if isinstance(t, dict)] if isinstance(titles, list) else []
    for entry in sorted(entries, key=lambda t: t.get("titleType") is not None):
        if (text := plain_text(entry.get("title"))) is not None:
            return text
    return None


def _creator(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return None
    given = _str(raw.get("givenName"))
    return family_first(_str(raw.get("familyName")), given, _str(raw.get("name")))


def _year(value: Any) -> int | None:
    text = _str(value)
    match = re.match(r"([12][0-9]{3})", text or "")
    return int(match.group(1)) if match else None


def _venue(attributes: dict[str, Any]) -> str | None:
    container = attributes.get("container")
    if isinstance(container, dict) and (title := plain_text(container.get("title"))):
        return title
    publisher = attributes.get("publisher")
    if isinstance(publisher, dict):
        publisher = publisher.get("name")
    return plain_text(publisher)


def record_from_data(data: dict[str, Any]) -> WorkRecord | None:
    """One JSON:API ``dois`` resource as a record; ``None`` without a DOI."""
    attributes = data.get("attributes")
    if not isinstance(attributes, dict):
        return None
    doi = _str(attributes.get("doi")) or _str(data.get("id"))
    if doi is None:
        return None
    creators = attributes.get("creators")
    types = attributes.get("types")
    return WorkRecord(
        source="datacite",
        doi=doi.lower(),
        title=_title(attributes.get("titles")),
        authors=tuple(
            a for raw in (creators if isinstance(creators, list) else []) if (a := _creator(raw))
        ),
        year=_year(attributes.get("publicationYear")),
        venue=_venue(attributes),
        kind=_str(types.get("resourceTypeGeneral")) if isinstance(types, dict) else None,
        other_titles=_other_titles(attributes.get("titles")),
        types=_types(types),
        related=_related(attributes.get("relatedIdentifiers"), doi.lower()),
    )


def _other_titles(titles: Any) -> tuple[str, ...]:
    """Every title after the main one (subtitles joined, translated and alternative titles)."""
    entries = [t for t in titles if isinstance(t, dict)] if isinstance(titles, list) else []
    main = _title(titles)
    out: list[str] = []
    for entry in entries:
        text = plain_text(entry.get("title"))
        if not text or text == main:
            continue
        out.append(f"{main}: {text}" if entry.get("titleType") == "Subtitle" and main else text)
    return tuple(dict.fromkeys(out))


def _types(types: Any) -> tuple[str, ...]:
    if not isinstance(types, dict):
        return ()
    names = (types.get(k) for k in ("resourceTypeGeneral", "resourceType", "citeproc"))
    return tuple(dict.fromkeys(t for raw in names if (t := _str(raw))))


#: DataCite relations naming another version of the same work, in Crossref's words.
_VERSIONS = {
    "IsPreprintOf": "is-preprint-of",
    "HasPreprint": "has-preprint",
    "IsVersionOf": "is-version-of",
    "HasVersion": "has-version",
    "IsIdenticalTo": "is-identical-to",
}


def _related(value: Any, own: str) -> tuple[str, ...]:
    out: list[str] = []
    for raw in value if isinstance(value, list) else []:
        if not isinstance(raw, dict) or _str(raw.get("relatedIdentifierType")) != "DOI":
            continue
        kind = _VERSIONS.get(_str(raw.get("relationType")) or "")
        target = (_str(raw.get("relatedIdentifier")) or "").lower()
        target = re.sub(r"^https?://(?:dx\.)?doi\.org/", "", target)
        if kind and target.startswith("10.") and target != own:
            out.append(f"{kind}:doi:{target}")
    return tuple(dict.fromkeys(out))


async def record(client: httpx2.AsyncClient, doi: str) -> WorkRecord | None:
    """``dois/{doi}`` as a record; ``None`` when DataCite answers 404 (it has no such DOI)."""
    wanted = doi.strip().lower()
    if not wanted:
        raise ValueError("an empty DOI cannot be looked up")
    what = f"the record of {wanted}"
    response = await get_or_fail(client, API_URL + "dois/" + quote(wanted, safe="/"), what, _fail)
    if response.status_code == 404:
        return None
    data = json_object(response, what, _fail).get("data")
    found = record_from_data(data) if isinstance(data, dict) else None
    if found is None:
        raise _fail(f"answered {what} without a DOI record")
    if found.doi != wanted:
        raise _fail(f"answered {what} with the record of {found.doi}")
    return found


def search_params(query: str, rows: int = 5) -> dict[str, str]:
    """The ``dois`` search, exactly as sent: ``query`` made plain words (see the module)."""
    words = " ".join(_SYNTAX.sub(" ", query).lower().split())
    if not words:
        raise ValueError("an empty DataCite search cannot be sent")
    if not 1 <= rows <= MAX_ROWS:
        raise ValueError(f"rows must be between 1 and {MAX_ROWS}, not {rows}")
    return {
        "query": words,
        "page[size]": str(rows),
        "sort": "relevance",
        "disable-facets": "true",
        "fields[dois]": FIELDS,
    }


async def search(client: httpx2.AsyncClient, query: str, rows: int = 5) -> list[WorkRecord]:
    """The DataCite records that match every word of ``query``, most relevant first; an
    empty list when none does.  Raises ``UpstreamUnavailableError`` when the answer could not
    be read, so an unread search never looks like "no such work"."""
    params = search_params(query, rows)
    what = "a search"
    response = await get_or_fail(client, API_URL + "dois", what, _fail, params)
    items = json_object(response, what, _fail).get("data")
    if not isinstance(items, list):
        raise _fail(f"answered {what} without a data list")
    return [r for raw in items if isinstance(raw, dict) and (r := record_from_data(raw))]
