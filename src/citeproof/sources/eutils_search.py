"""PubMed searches through E-utilities: ``esearch`` for the PMIDs, ``esummary`` for titles.

Why two steps: ``esearch`` answers ids only, and a search record is useless to a reader
without titles.  ``esummary`` is asked by **POST** (``id`` in a form body), in batches of
:data:`SUMMARY_BATCH`, because a GET with hundreds of ids builds a URL that proxies and
servers refuse; NCBI's own advice is POST for more than about 200 ids.  E-utilities treat
a POSTed form exactly like the same parameters in a query string.

Failures are *raised* as :class:`~citeproof.errors.NetworkError` (a search is data, not a
source outcome): the caller (``citeproof.search.queries``) turns them into a "failed" record.  A
summary batch that fails fails the whole search, so a record never holds titles for some
hits and silently none for the others.

A summary is also what ``citeproof refs`` compares a reference with
(:meth:`PubmedSummary.to_record`): the authors as PubMed prints them (``"Smith J"``,
collective names as written), the venue as ``fulljournalname`` (``source`` is the NLM
abbreviation; ``booktitle`` for a book), the first ``pubtype`` as the kind, and a
"Retraction of Publication", "Published Erratum" or "Expression of Concern" record is a
notice about another work (a "Retracted Publication" is the retracted work itself).
``ecitmatch`` is not used: it matches journal, volume and first page, which a stated
reference does not carry; the caller searches with ``esearch`` field tags instead.

The client adds ``tool``/``email``/``api_key`` on the wire (``citeproof.net.client``); to a
POST it adds them to the URL's query, never to the form this module builds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2

from citeproof.documents.markup import plain_text
from citeproof.identifiers import KINDS
from citeproof.models.references import WorkRecord
from citeproof.sources.base import json_object, upstream_failure

__all__ = [
    "ESEARCH_URL",
    "ESUMMARY_URL",
    "MAX_RETMAX",
    "SUMMARY_BATCH",
    "EsearchPage",
    "PubmedSummary",
    "esearch",
    "esummary",
    "esummary_answers",
]

ESEARCH_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi"
ESUMMARY_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esummary.fcgi"
#: esearch returns at most 10,000 ids per request.
MAX_RETMAX = 10_000
#: Ids per esummary POST: small answers, and a failure costs one batch's retry only.
SUMMARY_BATCH = 200

_SERVICE = "NCBI E-utilities"
_HOST = "eutils.ncbi.nlm.nih.gov"
_PMID = KINDS["pmid"]
_EUTILS_DATE = re.compile(r"[0-9]{4}(/[0-9]{2}(/[0-9]{2})?)?", re.ASCII)
#: Publication types of a record that is a notice about another work.
_NOTICE_TYPES = frozenset(
    {"retraction of publication", "published erratum", "expression of concern"}
)


@dataclass(frozen=True, slots=True)
class EsearchPage:
    """``esearchresult``: the total ``count`` and the PMIDs of this page, in rank order."""

    count: int
    ids: list[str] = field(default_factory=list)
    retstart: int = 0


@dataclass(frozen=True, slots=True)
class PubmedSummary:
    """What esummary says about one PMID that a search record shows."""

    pmid: str
    title: str | None = None
    pubdate: str | None = None
    doi: str | None = None
    pmcid: str | None = None
    pub_types: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    """As PubMed prints them: ``"Smith J"``, ``"Smith JA"``, a collective name."""
    venue: str | None = None
    """``fulljournalname``, else ``source`` (the NLM abbreviation), else ``booktitle``."""
    venue_names: tuple[str, ...] = ()
    """The venue's other names: the NLM abbreviation (``source``) beside the full name."""
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    issn: tuple[str, ...] = ()
    vernacular_title: str | None = None
    """The title in its original language, when the record's title is a translation."""

    @property
    def year(self) -> int | None:
        match = re.match(r"([12][0-9]{3})", self.pubdate or "")
        return int(match.group(1)) if match else None

    def to_record(self) -> WorkRecord:
        """The summary as the record ``citeproof refs`` compares a reference with."""
        title = None
        if self.title:
            title = plain_text(self.title)
        return WorkRecord(
            source="pubmed",
            doi=self.doi,
            pmid=self.pmid,
            pmcid=self.pmcid,
            title=title,
            authors=self.authors,
            year=self.year,
            venue=self.venue,
            kind=self.pub_types[0] if self.pub_types else None,
            is_notice=any(t.strip().lower() in _NOTICE_TYPES for t in self.pub_types),
            volume=self.volume,
            issue=self.issue,
            pages=self.pages,
            other_titles=_other_titles(title, self.vernacular_title),
            venue_names=self.venue_names,
            issn=self.issn,
            types=self.pub_types,
        )


def _other_titles(title: str | None, vernacular: str | None) -> tuple[str, ...]:
    """The original-language title, and a translated title without PubMed's brackets
    ("[Title in English]" marks a translation the article itself does not print)."""
    out: list[str] = []
    if vernacular:
        out.append(plain_text(vernacular) or vernacular)
    if title and title.startswith("[") and "]" in title:
        out.append(title[1 : title.rindex("]")])
    return tuple(t for t in dict.fromkeys(out) if t and t != title)


_fail = upstream_failure(_SERVICE, _HOST)


def esearch_params(
    term: str,
    *,
    retmax: int,
    retstart: int = 0,
    mindate: str | None = None,
    maxdate: str | None = None,
) -> dict[str, str]:
    """The esearch query, exactly as sent (``retstart`` only past the first page).

    ``mindate``/``maxdate`` are E-utilities dates (``2015``, ``2015/06``, ``2015/06/30``);
    esearch needs both or neither, so a missing bound is filled with 1800 or 3000.
    """
    if not term.strip():
        raise ValueError("an empty PubMed query cannot be searched")
    if not 1 <= retmax <= MAX_RETMAX:
        raise ValueError(f"retmax must be between 1 and {MAX_RETMAX}, not {retmax}")
    if retstart < 0:
        raise ValueError(f"retstart must not be negative, not {retstart}")
    for value in (mindate, maxdate):
        if value is not None and not _EUTILS_DATE.fullmatch(value):
            raise ValueError(f"{value!r} is not an E-utilities date (YYYY, YYYY/MM, YYYY/MM/DD)")
    params = {"db": "pubmed", "term": term, "retmax": str(retmax), "retmode": "json"}
    if retstart:
        params["retstart"] = str(retstart)
    if mindate is not None or maxdate is not None:
        params["datetype"] = "pdat"
        params["mindate"] = mindate or "1800"
        params["maxdate"] = maxdate or "3000"
    return params


async def esearch(client: httpx2.AsyncClient, params: dict[str, str]) -> EsearchPage:
    """One esearch GET with ``params`` (see :func:`esearch_params`)."""
    response = await client.get(ESEARCH_URL, params=params)
    payload = json_object(response, "a search", _fail)
    result = payload.get("esearchresult")
    if not isinstance(result, dict):
        raise _fail("answered a search without an esearchresult")
    error = result.get("ERROR") or result.get("error")
    if isinstance(error, str) and error.strip():
        raise _fail(f"refused the search: {error.strip()}")
    try:
        count = int(result.get("count", ""))
        retstart = int(result.get("retstart", 0))
    except (TypeError, ValueError) as exc:
        raise _fail("answered a search without a numeric count") from exc
    raw_ids = result.get("idlist")
    if not isinstance(raw_ids, list):
        raise _fail("answered a search without an idlist")
    ids = [str(i) for i in raw_ids if isinstance(i, str | int) and _PMID.is_canonical(str(i))]
    return EsearchPage(count=count, ids=ids, retstart=retstart)


def _summary(pmid: str, raw: dict[str, Any]) -> PubmedSummary:
    doi, pmcid = _article_ids(raw.get("articleids"))
    title = raw.get("title")
    pubdate = raw.get("pubdate")
    types = raw.get("pubtype")
    venue, venue_names = _venues(raw)
    return PubmedSummary(
        pmid=pmid,
        title=title.strip() or None if isinstance(title, str) else None,
        pubdate=pubdate.strip() or None if isinstance(pubdate, str) else None,
        doi=doi,
        pmcid=pmcid,
        pub_types=tuple(t for t in types if isinstance(t, str)) if isinstance(types, list) else (),
        authors=_author_names(raw.get("authors")),
        venue=venue,
        venue_names=venue_names,
        volume=_text(raw.get("volume")),
        issue=_text(raw.get("issue")),
        pages=_text(raw.get("pages")) or _elocation(raw.get("elocationid")),
        issn=tuple(i for i in dict.fromkeys((_text(raw.get("issn")), _text(raw.get("essn")))) if i),
        vernacular_title=_text(raw.get("vernaculartitle")),
    )


def _article_ids(article_ids: Any) -> tuple[str | None, str | None]:
    """The first DOI (lower case) and the first PMCID (``PMC...``) among ``articleids``."""
    doi = pmcid = None
    for article_id in article_ids or []:
        if not isinstance(article_id, dict):
            continue
        kind, value = article_id.get("idtype"), article_id.get("value")
        if not isinstance(value, str) or not value.strip():
            continue
        if kind == "doi" and doi is None:
            doi = value.strip().lower()
        elif kind == "pmc" and pmcid is None and value.strip().upper().startswith("PMC"):
            pmcid = value.strip().upper()
    return doi, pmcid


def _author_names(authors: Any) -> tuple[str, ...]:
    return tuple(
        name
        for author in (authors if isinstance(authors, list) else [])
        if isinstance(author, dict) and (name := _text(author.get("name")))
    )


def _venues(raw: dict[str, Any]) -> tuple[str | None, tuple[str, ...]]:
    """The venue's full name (else its abbreviation, else the book's title), and the other
    names the summary gives it."""
    full = _text(raw.get("fulljournalname"))
    source, book = _text(raw.get("source")), _text(raw.get("booktitle"))
    others = tuple(n for n in dict.fromkeys((source, book)) if n and n != full)
    return full or source or book, others


def _elocation(value: Any) -> str | None:
    """An article number from ``elocationid`` (``"pii: e005088. doi: 10.1161/..."``): what
    an online-only article prints where pages go; a DOI there is not a page."""
    text = _text(value)
    if not text:
        return None
    for part in text.split("."):
        label, _, number = part.strip().partition(":")
        if label.strip().lower() in ("pii", "elocation") and number.strip():
            return number.strip()
    return None


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return " ".join(value.split()) or None


async def esummary(
    client: httpx2.AsyncClient, pmids: Sequence[str], *, batch_size: int = SUMMARY_BATCH
) -> dict[str, PubmedSummary]:
    """Summaries for ``pmids``, one POST per batch; PMIDs esummary lacks are absent."""
    found, _ = await esummary_answers(client, pmids, batch_size=batch_size)
    return found


async def esummary_answers(
    client: httpx2.AsyncClient, pmids: Sequence[str], *, batch_size: int = SUMMARY_BATCH
) -> tuple[dict[str, PubmedSummary], dict[str, str]]:
    """Summaries for ``pmids``, and the PMIDs esummary *said* it has no record of (its
    ``error`` for them: "cannot get document summary").  A PMID in neither was left out of
    the answer, which says nothing about it: only an explicit error is "no such record"."""
    if not 1 <= batch_size <= 500:
        raise ValueError(f"batch_size must be between 1 and 500, not {batch_size}")
    wanted = list(dict.fromkeys(p.strip() for p in pmids))
    for pmid in wanted:
        if not _PMID.is_canonical(pmid):
            raise ValueError(f"{pmid!r} is not a PMID")
    out: dict[str, PubmedSummary] = {}
    refused: dict[str, str] = {}
    for start in range(0, len(wanted), batch_size):
        batch = wanted[start : start + batch_size]
        form = {"db": "pubmed", "id": ",".join(batch), "retmode": "json"}
        response = await client.post(ESUMMARY_URL, data=form)
        payload = json_object(response, f"esummary of {len(batch)} PMIDs", _fail)
        result = payload.get("result")
        if not isinstance(result, dict):
            raise _fail(f"answered esummary of {len(batch)} PMIDs without a result")
        for pmid in batch:
            raw = result.get(pmid)
            if not isinstance(raw, dict):
                continue
            if raw.get("error"):
                refused[pmid] = str(raw.get("error"))
            else:
                out[pmid] = _summary(pmid, raw)
    return out, refused
