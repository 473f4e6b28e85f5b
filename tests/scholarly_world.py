"""A scholarly world of works that answers, as an ``httpx2.MockTransport`` handler, the
requests ``citeproof.refs.lookup`` makes, each in the real format of the service asked.

Why it exists: the reference verification must be measured on many works (tens of thousands)
without asking the real services, and every answer must have the shape the real one has, so
that citeproof's own parsers (``citeproof.sources.*``) do on it the work they do on real
answers.  The works are given by the caller: real metadata read back from published
renderings (``bench/bench_refs_real.py``) or INVENTED records (the unit tests).  Nothing in
this module is real data.

What it answers (``World.handler``):

* doi.org's "Which RA?" ``doiRA/{doi}``: ``[{"DOI":…,"RA":…}]``, or ``"DOI does not exist"``;
* Crossref ``works/{doi}`` (``Resource not found.`` as text/plain 404 for a DOI it does not
  hold), ``works?query.bibliographic=`` (BM25 over title, authors, venue, year, volume,
  issue and pages, with Elasticsearch's defaults k1 1.2 and b 0.75; every work sharing a
  word is a hit, as the real endpoint's ``should`` query is; ``score`` is the BM25 value)
  and ``works?filter=`` (``doi:``, ``updates:``, ``from-pub-date:``, ``until-pub-date:``,
  ``type:``); ``select=`` keeps only the named fields, as the real API does;
* DataCite ``dois/{doi}`` (JSON:API; 404 ``errors``) and ``dois?query=`` (every word must
  match, as ``query_string`` with the AND default operator does), ``fields[dois]`` honoured;
* E-utilities ``esearch`` (JSON; terms joined by ``AND``, each ``word[tiab]``, ``word[ti]``,
  ``name[au]``, ``name[1au]``, ``year[dp]``, ``journal[ta]`` or an untagged word; every term
  must match), ``esummary`` (form POST, JSON), ``efetch`` (PubMed XML with
  ``PublicationTypeList``) and ``ecitmatch.cgi`` (the pipe-separated citation matcher);
* the PMC ID converter;
* OpenAlex ``works?search=`` (AND of the words, stop words dropped, a light plural stemmer:
  the real search stems English words), ``works?filter=`` (``doi:``, ``title.search:``,
  ``publication_year:``) and ``works/doi:{doi}``; ``select=`` honoured.

A request the world has no answer for raises :class:`WorldGap`, so a gap is never silent.
Searches use an inverted index built once (BM25 weights precomputed per posting), so a
search over 20,000 works costs a fraction of a millisecond.

``tests/refs_world.py`` (whose answer builders ``bench/refs_fixtures.py`` shares) answers for
eleven invented works with a plain word-overlap ranking, so that the reference tests'
recordings never move; this module answers for thousands of records with rankings close to
the services' own (BM25, AND of the words), which is what the real-data evaluation needs.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, unquote
from xml.sax.saxutils import escape

import httpx2
import numpy as np

if TYPE_CHECKING:
    from citeproof.models.references import ReferenceResult

__all__ = ["Person", "Work", "World", "WorldGap", "verify_printed", "words"]

#: The default date every answer carries (its ``Date`` header, Crossref's ``indexed``).
WORLD_DATE = datetime(2026, 4, 20, 9, 30, tzinfo=UTC)


class WorldGap(AssertionError):
    """The world has no answer for a request: a new request kind to add, never a silence."""


# --------------------------------------------------------------------------------------------
# Works


@dataclass(frozen=True, slots=True)
class Person:
    family: str
    given: str = ""

    @property
    def initials(self) -> str:
        """``JA`` for ``John Adam``, ``J-P`` kept as ``JP``: PubMed's form."""
        return "".join(p[0] for p in re.split(r"[\s.\-]+", self.given) if p and p[0].isalpha())

    @property
    def pubmed(self) -> str:
        """As PubMed prints a name: ``Smith JA``."""
        return f"{self.family} {self.initials}".strip()

    @property
    def display(self) -> str:
        """As OpenAlex prints a name: ``John A. Smith``."""
        return f"{self.given} {self.family}".strip()


@dataclass(frozen=True, slots=True)
class Work:
    """One work as the registries hold it; empty strings are fields the record lacks."""

    doi: str
    title: str = ""
    authors: tuple[Person, ...] = ()
    year: int | None = None
    month: int | None = None
    day: int | None = None
    venue: str = ""
    """The journal, the proceedings or the book a chapter is in."""
    venue_short: str = ""
    """The abbreviation Crossref lists as ``short-container-title``."""
    other_venues: tuple[str, ...] = ()
    """Further ``container-title`` strings (a chapter's book and its series)."""
    volume: str = ""
    issue: str = ""
    first_page: str = ""
    last_page: str = ""
    kind: str = "journal-article"
    """Crossref's type (``journal-article``, ``book-chapter``, ``proceedings-article``,
    ``book``, ``dataset`` …); ``""`` when it is not known (a record read back from
    renderings, which never print it): the answers then carry no type rather than an
    invented one."""
    publisher: str = ""
    agency: str = "Crossref"
    """Who registered the DOI: ``Crossref`` or ``DataCite`` (its record lives there)."""
    pmid: str | None = None
    pmcid: str | None = None
    in_openalex: bool = True
    pubmed_lists_doi: bool = True
    pub_types: tuple[str, ...] = ("Journal Article",)
    isbn: tuple[str, ...] = ()
    issn: tuple[str, ...] = ()
    updates: tuple[tuple[str, str], ...] = ()
    """For a notice: (DOI updated, update type such as ``retraction``)."""
    openalex_id: str = ""
    """``W…``; derived from the DOI when empty."""

    @property
    def key(self) -> str:
        return self.doi.lower()

    @property
    def page(self) -> str:
        if self.first_page and self.last_page and self.last_page != self.first_page:
            return f"{self.first_page}-{self.last_page}"
        return self.first_page


# --------------------------------------------------------------------------------------------
# Words

_STOP = frozenset(
    "a an and are as at be but by for from if in into is it no not of on or such that the "
    "their then there these they this to was will with".split()
)


def words(text: str) -> list[str]:
    """Lower-case words and numbers without accents or punctuation: what the indexes hold."""
    bare = (
        "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
        .replace("ø", "o")
        .replace("ß", "ss")
        .replace("ł", "l")
    )
    return re.findall(r"[^\W_]+", bare.casefold())


def _stem(word: str) -> str:
    """A light English plural stemmer: what makes ``cells`` find ``cell``."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _content(text: str) -> list[str]:
    return [_stem(w) for w in words(text) if w not in _STOP]


class _Bm25:
    """An inverted index with BM25 weights per posting (Elasticsearch's k1 and b)."""

    def __init__(self, docs: Sequence[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.size = len(docs)
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        mean = float(lengths.mean()) if self.size else 1.0
        postings: dict[str, dict[int, int]] = {}
        for n, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                postings.setdefault(term, {})[n] = tf
        self.docs: dict[str, np.ndarray] = {}
        self.weights: dict[str, np.ndarray] = {}
        self.sets: dict[str, frozenset[int]] = {}
        for term, found in postings.items():
            ids = np.fromiter(found, dtype=np.int64, count=len(found))
            tf = np.fromiter(found.values(), dtype=np.float64, count=len(found))
            df = len(found)
            idf = math.log(1 + (self.size - df + 0.5) / (df + 0.5))
            norm = tf + k1 * (1 - b + b * lengths[ids] / (mean or 1.0))
            self.docs[term] = ids
            self.weights[term] = idf * tf * (k1 + 1) / norm
        self._postings = postings

    def holding(self, term: str) -> frozenset[int]:
        """The documents holding ``term`` (cached: AND searches ask for the same words)."""
        found = self.sets.get(term)
        if found is None:
            found = frozenset(self._postings.get(term, ()))
            self.sets[term] = found
        return found

    def scores(self, terms: Iterable[str]) -> np.ndarray:
        total = np.zeros(self.size, dtype=np.float64)
        for term, count in Counter(terms).items():
            ids = self.docs.get(term)
            if ids is not None:
                total[ids] += count * self.weights[term]
        return total

    def ranked(self, terms: Sequence[str], rows: int) -> tuple[list[tuple[int, float]], int]:
        """The ``rows`` best documents sharing a term, best first, and how many share one."""
        if not self.size or not terms:
            return [], 0
        total = self.scores(terms)
        hits = int(np.count_nonzero(total))
        if not hits:
            return [], 0
        rows = min(rows, hits)
        top = np.argpartition(-total, rows - 1)[:rows] if rows < self.size else np.arange(self.size)
        best = sorted(((int(i), float(total[i])) for i in top), key=lambda p: (-p[1], p[0]))
        return [p for p in best if p[1] > 0][:rows], hits

    def all_of(self, terms: Sequence[str], among: Iterable[int] | None = None) -> list[int]:
        """Documents holding every term, ranked by BM25 (ties: the order given)."""
        wanted = list(dict.fromkeys(terms))
        if not wanted:
            return []
        sets = sorted((self.holding(t) for t in wanted), key=len)
        found = set(sets[0])
        for s in sets[1:]:
            found &= s
            if not found:
                return []
        if among is not None:
            found &= set(among)
        if not found:
            return []
        total = self.scores(wanted)
        return sorted(found, key=lambda i: (-total[i], i))


# --------------------------------------------------------------------------------------------
# Headers, as the real services send them

_HTTP_DATE = "%a, %d %b %Y %H:%M:%S GMT"


def _headers(date: datetime) -> dict[str, dict[str, str]]:
    when = date.strftime(_HTTP_DATE)
    return {
        "crossref": {
            "access-control-allow-origin": "*",
            "access-control-expose-headers": "Link",
            "connection": "close",
            "content-type": "application/json",
            "date": when,
            "server": "Jetty(9.4.40.v20210413)",
            "x-api-pool": "polite",
            "x-rate-limit-interval": "1s",
            "x-rate-limit-limit": "10",
        },
        "ncbi": {
            "access-control-allow-origin": "*",
            "cache-control": "private",
            "connection": "close",
            "content-type": "application/json; charset=UTF-8",
            "date": when,
            "server": "Finatra",
            "x-ratelimit-limit": "3",
            "x-ratelimit-remaining": "2",
        },
        "datacite": {
            "access-control-allow-origin": "*",
            "cache-control": "max-age=0, private, must-revalidate",
            "connection": "close",
            "content-type": "application/vnd.api+json; charset=utf-8",
            "date": when,
            "server": "nginx/1.25.3",
        },
        "openalex": {
            "access-control-allow-origin": "*",
            "connection": "close",
            "content-type": "application/json",
            "date": when,
            "server": "cloudflare",
            "x-ratelimit-limit": "1000",
        },
        "doi": {
            "access-control-allow-origin": "*",
            "connection": "close",
            "content-type": "application/json;charset=utf-8",
            "date": when,
            "server": "cloudflare",
        },
        "idconv": {"content-type": "application/json", "date": when},
    }


def _dump(payload: Any) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def _crossref_dump(payload: Any) -> bytes:
    # Crossref's serialiser escapes every "/" in strings.
    return _dump(payload).replace(b"/", b"\\/")


def _selected(
    full: dict[str, Any], select: str | None, always: Sequence[str] = ()
) -> dict[str, Any]:
    if not select:
        return full
    keep = [k.strip() for k in select.split(",") if k.strip()]
    return {k: full[k] for k in (*always, *keep) if k in full}


# --------------------------------------------------------------------------------------------
# The world


@dataclass(slots=True)
class _Index:
    works: list[Work]
    bm25: _Bm25


Route = Callable[[httpx2.Request], httpx2.Response]


@dataclass
class World:
    """Works, the indexes each service searches, and the handler that answers for them."""

    works: Sequence[Work]
    date: datetime = WORLD_DATE
    calls: Counter[str] = field(default_factory=Counter)
    """Requests answered, by service (``doi.org``, ``crossref``, ``datacite``, ``pubmed``,
    ``idconv``, ``openalex``)."""

    def __post_init__(self) -> None:
        self.by_doi: dict[str, Work] = {}
        for w in self.works:
            self.by_doi.setdefault(w.key, w)
        self.by_pmid = {w.pmid: w for w in self.works if w.pmid}
        self.by_pmcid = {w.pmcid.upper(): w for w in self.works if w.pmcid}
        self._headers = _headers(self.date)
        crossref = [w for w in self.by_doi.values() if w.agency == "Crossref"]
        self.crossref = _Index(crossref, _Bm25([_bibliographic(w) for w in crossref]))
        datacite = [w for w in self.by_doi.values() if w.agency == "DataCite"]
        self.datacite = _Index(datacite, _Bm25([_content(_everything(w)) for w in datacite]))
        openalex = [w for w in self.by_doi.values() if w.in_openalex]
        self.openalex = _Index(openalex, _Bm25([_content(w.title) for w in openalex]))
        pubmed = [w for w in self.works if w.pmid]
        self.pubmed = _Index(pubmed, _Bm25([words(w.title) for w in pubmed]))
        self._pubmed_authors: dict[str, set[int]] = {}
        self._pubmed_first: dict[str, set[int]] = {}
        for n, w in enumerate(pubmed):
            for i, p in enumerate(w.authors):
                for name in (" ".join(words(p.family)), " ".join(words(p.pubmed))):
                    self._pubmed_authors.setdefault(name, set()).add(n)
                    if i == 0:
                        self._pubmed_first.setdefault(name, set()).add(n)
        self.routes: list[tuple[str, str, Callable[[str], bool], Route]] = [
            ("doi.org", "GET", lambda p: p.startswith("/doiRA/"), self._doi_ra),
            ("api.crossref.org", "GET", lambda p: p.startswith("/v1/works/"), self._crossref_work),
            ("api.crossref.org", "GET", lambda p: p.startswith("/works/"), self._crossref_work),
            (
                "api.crossref.org",
                "GET",
                lambda p: p in ("/v1/works", "/works"),
                self._crossref_list,
            ),
            ("api.datacite.org", "GET", lambda p: p.startswith("/dois/"), self._datacite_record),
            ("api.datacite.org", "GET", lambda p: p == "/dois", self._datacite_search),
            (
                "eutils.ncbi.nlm.nih.gov",
                "GET",
                lambda p: p.endswith("/esearch.fcgi"),
                self._esearch,
            ),
            (
                "eutils.ncbi.nlm.nih.gov",
                "POST",
                lambda p: p.endswith("/esummary.fcgi"),
                self._esummary,
            ),
            (
                "eutils.ncbi.nlm.nih.gov",
                "GET",
                lambda p: p.endswith("/esummary.fcgi"),
                self._esummary,
            ),
            ("eutils.ncbi.nlm.nih.gov", "GET", lambda p: p.endswith("/efetch.fcgi"), self._efetch),
            ("eutils.ncbi.nlm.nih.gov", "POST", lambda p: p.endswith("/efetch.fcgi"), self._efetch),
            (
                "eutils.ncbi.nlm.nih.gov",
                "GET",
                lambda p: p.endswith("/ecitmatch.cgi"),
                self._ecitmatch,
            ),
            ("pmc.ncbi.nlm.nih.gov", "GET", lambda p: p.startswith("/tools/idconv/"), self._idconv),
            ("api.openalex.org", "GET", lambda p: p == "/works", self._openalex_list),
            ("api.openalex.org", "GET", lambda p: p.startswith("/works/"), self._openalex_one),
        ]

    # ---------------------------------------------------------------------------- dispatch

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        """The world's answer to one request (for ``httpx2.MockTransport``)."""
        host, path = request.url.host, request.url.path
        for where, method, matches, route in self.routes:
            if host == where and request.method == method and matches(path):
                return route(request)
        raise WorldGap(f"the world has no answer for {request.method} {request.url}")

    def transport(self) -> httpx2.MockTransport:
        return httpx2.MockTransport(self.handler)

    def _json(self, service: str, status: int, payload: Any) -> httpx2.Response:
        self.calls[service] += 1
        body = _crossref_dump(payload) if service == "crossref" else _dump(payload)
        key = "ncbi" if service == "pubmed" else service
        key = "doi" if service == "doi.org" else key
        return httpx2.Response(status, headers=self._headers[key], content=body)

    # ---------------------------------------------------------------------------- doi.org

    def _doi_ra(self, request: httpx2.Request) -> httpx2.Response:
        doi = unquote(request.url.path.removeprefix("/doiRA/"))
        work = self.by_doi.get(doi.lower())
        if work is None:
            return self._json("doi.org", 200, [{"DOI": doi, "status": "DOI does not exist"}])
        return self._json("doi.org", 200, [{"DOI": doi, "RA": work.agency}])

    # ---------------------------------------------------------------------------- Crossref

    def crossref_message(self, work: Work) -> dict[str, Any]:
        """The full ``works/{doi}`` message of ``work``."""
        return _crossref_message(work, self.date)

    def _crossref_work(self, request: httpx2.Request) -> httpx2.Response:
        path = unquote(request.url.path)
        doi = path.split("/works/", 1)[1].lower()
        work = self.by_doi.get(doi)
        if work is None or work.agency != "Crossref":
            self.calls["crossref"] += 1
            plain = {**self._headers["crossref"], "content-type": "text/plain"}
            return httpx2.Response(404, headers=plain, content=b"Resource not found.")
        payload = {
            "status": "ok",
            "message-type": "work",
            "message-version": "1.0.0",
            "message": self.crossref_message(work),
        }
        return self._json("crossref", 200, payload)

    def crossref_search(self, query: str, rows: int) -> tuple[list[tuple[Work, float]], int]:
        """``query.bibliographic``: BM25 over the bibliographic words, best first, and how
        many works share a word with the query."""
        ranked, hits = self.crossref.bm25.ranked(words(query), rows)
        return [(self.crossref.works[i], round(s, 5)) for i, s in ranked], hits

    def _crossref_filter(self, spec: str) -> list[Work]:
        found = list(self.crossref.works)
        for part in (p for p in spec.split(",") if p):
            name, _, value = part.partition(":")
            value = value.lower()
            if name == "doi":
                found = [w for w in found if w.key == value]
            elif name == "updates":
                found = [w for w in found if any(d.lower() == value for d, _ in w.updates)]
            elif name == "type":
                found = [w for w in found if w.kind == value]
            elif name in ("from-pub-date", "until-pub-date"):
                year = int(value[:4])
                after = name == "from-pub-date"
                found = [
                    w
                    for w in found
                    if w.year is not None and (w.year >= year if after else w.year <= year)
                ]
            else:
                raise WorldGap(f"the world's Crossref has no filter {name!r}")
        return found

    def _crossref_list(self, request: httpx2.Request) -> httpx2.Response:
        params = request.url.params
        rows = int(params.get("rows", "20"))
        offset = int(params.get("offset", "0"))
        select = params.get("select")
        known = {"query.bibliographic", "rows", "offset", "select", "filter", "mailto"}
        unknown = set(params) - known
        if unknown:
            raise WorldGap(f"the world's Crossref cannot answer the parameters {sorted(unknown)}")
        query = params.get("query.bibliographic")
        if query is not None:
            ranked, total = self.crossref_search(query, offset + rows)
            if "filter" in params:
                allowed = {w.key for w in self._crossref_filter(params["filter"])}
                ranked = [(w, s) for w, s in ranked if w.key in allowed]
                total = len(ranked)
            page = ranked[offset : offset + rows]
            items = [{**_selected(self.crossref_message(w), select), "score": s} for w, s in page]
        elif "filter" in params:
            found = self._crossref_filter(params["filter"])
            total = len(found)
            items = [
                {**_selected(self.crossref_message(w), select), "score": 0.0}
                for w in found[offset : offset + rows]
            ]
        else:
            raise WorldGap(f"the world's Crossref has no answer for {request.url}")
        payload = {
            "status": "ok",
            "message-type": "work-list",
            "message-version": "1.0.0",
            "message": {
                "facets": {},
                "total-results": total,
                "items": items,
                "items-per-page": rows,
                "query": {"start-index": offset, "search-terms": query},
            },
        }
        return self._json("crossref", 200, payload)

    # ---------------------------------------------------------------------------- DataCite

    def _datacite_record(self, request: httpx2.Request) -> httpx2.Response:
        doi = unquote(request.url.path.removeprefix("/dois/")).lower()
        work = self.by_doi.get(doi)
        if work is None or work.agency != "DataCite":
            gone = {
                "errors": [
                    {"status": "404", "title": "The resource you are looking for doesn't exist."}
                ]
            }
            return self._json("datacite", 404, gone)
        return self._json("datacite", 200, {"data": _datacite_resource(work, None, full=True)})

    def _datacite_search(self, request: httpx2.Request) -> httpx2.Response:
        params = request.url.params
        if "query" not in params:
            raise WorldGap(f"the world's DataCite has no answer for {request.url}")
        rows = int(params.get("page[size]", "25"))
        terms = _content(params["query"])
        found = [self.datacite.works[i] for i in self.datacite.bm25.all_of(terms)]
        payload = {
            "data": [_datacite_resource(w, params.get("fields[dois]")) for w in found[:rows]],
            "meta": {"total": len(found), "totalPages": max(1, -(-len(found) // rows)), "page": 1},
            "links": {"self": str(request.url)},
        }
        return self._json("datacite", 200, payload)

    # ---------------------------------------------------------------------------- PubMed

    def pubmed_matches(self, term: str) -> list[Work]:
        """esearch: ``AND`` of tagged terms, each of which must match (PubMed's rank: the
        newest first, here the title's BM25 for a stable order)."""
        index = self.pubmed
        found: set[int] | None = None
        title_terms: list[str] = []
        for part in (p.strip() for p in re.split(r"\s+AND\s+", term.strip())):
            if not part:
                continue
            if re.search(r"\s(OR|NOT)\s", part) or part.startswith("("):
                raise WorldGap(f"the world's PubMed cannot read the term {part!r}")
            m = re.fullmatch(r'"?(?P<text>[^\[\]"]+)"?(?:\[(?P<tag>[a-z0-9 ]+)\])?', part, re.I)
            if m is None:
                raise WorldGap(f"the world's PubMed cannot read the term {part!r}")
            text, tag = m.group("text"), (m.group("tag") or "all").lower()
            here: set[int]
            if tag in ("tiab", "ti", "title", "title/abstract", "all", "all fields"):
                wanted = words(text)
                title_terms.extend(wanted)
                here = set(index.bm25.all_of(wanted)) if wanted else set()
            elif tag in ("au", "author", "1au"):
                table = self._pubmed_first if tag == "1au" else self._pubmed_authors
                here = set(table.get(" ".join(words(text)), ()))
            elif tag in ("dp", "pdat"):
                here = {n for n, w in enumerate(index.works) if str(w.year) == text.strip()[:4]}
            elif tag in ("ta", "journal"):
                want = " ".join(words(text))
                here = {
                    n
                    for n, w in enumerate(index.works)
                    if want in (" ".join(words(w.venue)), " ".join(words(w.venue_short)))
                }
            elif tag in ("vi", "volume"):
                here = {n for n, w in enumerate(index.works) if w.volume == text.strip()}
            elif tag in ("pg", "pagination"):
                page = text.strip().lower()
                here = {n for n, w in enumerate(index.works) if w.first_page.lower() == page}
            else:
                raise WorldGap(f"the world's PubMed has no field tag [{tag}]")
            found = here if found is None else found & here
        if not found:
            return []
        total = index.bm25.scores(title_terms)
        return [index.works[i] for i in sorted(found, key=lambda i: (-total[i], i))]

    def _esearch(self, request: httpx2.Request) -> httpx2.Response:
        params = request.url.params
        term = params.get("term", "")
        if params.get("retmode") != "json":
            raise WorldGap("the world's esearch answers retmode=json only")
        retmax = int(params.get("retmax", "20"))
        retstart = int(params.get("retstart", "0"))
        found = [w.pmid for w in self.pubmed_matches(term) if w.pmid]
        page = found[retstart : retstart + retmax]
        result: dict[str, Any] = {
            "count": str(len(found)),
            "retmax": str(len(page)),
            "retstart": str(retstart),
            "idlist": page,
            "translationset": [],
            "querytranslation": term.replace("[tiab]", "[Title/Abstract]").replace(
                "[au]", "[Author]"
            ),
        }
        if not found:
            result["warninglist"] = {
                "phrasesignored": [],
                "quotedphrasesnotfound": [],
                "outputmessages": ["No items found."],
            }
        header = {"type": "esearch", "version": "0.3"}
        return self._json("pubmed", 200, {"header": header, "esearchresult": result})

    def _form(self, request: httpx2.Request) -> dict[str, str]:
        if request.method == "POST":
            return dict(parse_qsl(request.content.decode()))
        return dict(request.url.params)

    def _esummary(self, request: httpx2.Request) -> httpx2.Response:
        form = self._form(request)
        if form.get("retmode") != "json":
            raise WorldGap("the world's esummary answers retmode=json only")
        ids = [i.strip() for i in form.get("id", "").split(",") if i.strip()]
        summary: dict[str, Any] = {"uids": ids}
        for pmid in ids:
            work = self.by_pmid.get(pmid)
            summary[pmid] = (
                _pubmed_summary(work)
                if work
                else {"uid": pmid, "error": "cannot get document summary"}
            )
        header = {"type": "esummary", "version": "0.3"}
        return self._json("pubmed", 200, {"header": header, "result": summary})

    def _efetch(self, request: httpx2.Request) -> httpx2.Response:
        form = self._form(request)
        if form.get("db") != "pubmed" or form.get("retmode", "xml") != "xml":
            raise WorldGap(f"the world's efetch answers db=pubmed XML only, not {form}")
        ids = [i.strip() for i in form.get("id", "").split(",") if i.strip()]
        articles = "".join(_pubmed_article(self.by_pmid[p]) for p in ids if p in self.by_pmid)
        body = (
            '<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, '
            '1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n'
            f"<PubmedArticleSet>{articles}</PubmedArticleSet>\n"
        )
        self.calls["pubmed"] += 1
        headers = {**self._headers["ncbi"], "content-type": "text/xml; charset=UTF-8"}
        return httpx2.Response(200, headers=headers, content=body.encode())

    def ecitmatch(self, journal: str, year: str, volume: str, page: str, author: str) -> str | None:
        """The PMID of the one work the fields name, as ECitMatch finds it; None otherwise."""
        journal_w = " ".join(words(journal))
        family = words(author)[:1]
        found = []
        for w in self.pubmed.works:
            if journal_w and journal_w not in (
                " ".join(words(w.venue)),
                " ".join(words(w.venue_short)),
            ):
                continue
            if year and str(w.year) != year.strip():
                continue
            if volume and w.volume != volume.strip():
                continue
            if page and w.first_page != page.strip():
                continue
            if family and (not w.authors or words(w.authors[0].family)[:1] != family):
                continue
            found.append(w)
        return found[0].pmid if len(found) == 1 else None

    def _ecitmatch(self, request: httpx2.Request) -> httpx2.Response:
        params = request.url.params
        if params.get("db") != "pubmed" or params.get("retmode") != "xml":
            raise WorldGap("the world's ECitMatch answers db=pubmed&retmode=xml only")
        lines = []
        for raw in params.get("bdata", "").replace("\r", "\n").split("\n"):
            if not raw.strip():
                continue
            fields = raw.split("|")
            if len(fields) < 6:
                raise WorldGap(f"the world's ECitMatch cannot read {raw!r}")
            journal, year, volume, page, author, key = fields[:6]
            pmid = self.ecitmatch(journal, year, volume, page, author)
            lines.append("|".join([journal, year, volume, page, author, key, pmid or "NOT_FOUND"]))
        self.calls["pubmed"] += 1
        headers = {**self._headers["ncbi"], "content-type": "text/plain; charset=UTF-8"}
        return httpx2.Response(200, headers=headers, content=("\n".join(lines) + "\n").encode())

    # ---------------------------------------------------------------------------- PMC

    def _idconv(self, request: httpx2.Request) -> httpx2.Response:
        params = request.url.params
        ids = [i for i in params.get("ids", "").split(",") if i]
        idtype = params.get("idtype", "")
        records: list[dict[str, Any]] = []
        for requested in ids:
            work = {
                "pmcid": self.by_pmcid.get(requested.upper()),
                "pmid": self.by_pmid.get(requested),
                "doi": self.by_doi.get(requested.lower()),
            }.get(idtype)
            if work is not None and work.pmcid:
                records.append(
                    {
                        "pmcid": work.pmcid,
                        "pmid": int(work.pmid or 0),
                        "doi": work.doi,
                        "requested-id": requested,
                    }
                )
            else:
                records.append(
                    {
                        "requested-id": requested,
                        "status": "error",
                        "errmsg": "Identifier not found in PMC",
                    }
                )
        echo = f"ids={','.join(ids)}&idtype={idtype}&format=json"
        payload = {
            "status": "ok",
            "response-date": self.date.strftime("%Y-%m-%d %H:%M:%S"),
            "request": {
                "format": "json",
                "idtype": idtype,
                "ids": ids,
                "echo": echo,
                "versions": "no",
                "showaiid": "no",
            },
            "records": records,
        }
        return self._json("idconv", 200, payload)

    # ---------------------------------------------------------------------------- OpenAlex

    def openalex_search(self, query: str) -> list[Work]:
        """``search=``: works whose title holds every (stemmed, non-stop) word."""
        return [self.openalex.works[i] for i in self.openalex.bm25.all_of(_content(query))]

    def _openalex_filter(self, spec: str, among: list[Work] | None) -> list[Work]:
        found = list(self.openalex.works) if among is None else among
        for part in (p for p in spec.split(",") if p):
            name, _, value = part.partition(":")
            if name == "doi":
                doi = value.lower().removeprefix("https://doi.org/")
                found = [w for w in found if w.key == doi]
            elif name == "title.search":
                allowed = set(self.openalex_search(value))
                found = [w for w in found if w in allowed]
            elif name == "publication_year":
                found = [w for w in found if str(w.year) == value]
            else:
                raise WorldGap(f"the world's OpenAlex has no filter {name!r}")
        return found

    def _openalex_list(self, request: httpx2.Request) -> httpx2.Response:
        params = request.url.params
        unknown = set(params) - {
            "search",
            "filter",
            "per_page",
            "page",
            "select",
            "mailto",
            "api_key",
        }
        if unknown:
            raise WorldGap(f"the world's OpenAlex cannot answer the parameters {sorted(unknown)}")
        per_page = int(params.get("per_page", "25"))
        page = int(params.get("page", "1"))
        found: list[Work] | None = None
        if "search" in params:
            found = self.openalex_search(params["search"])
        if "filter" in params:
            found = self._openalex_filter(params["filter"], found)
        if found is None:
            raise WorldGap(f"the world's OpenAlex has no answer for {request.url}")
        shown = found[(page - 1) * per_page : page * per_page]
        payload = {
            "meta": {
                "count": len(found),
                "db_response_time_ms": 21,
                "page": page,
                "per_page": per_page,
                "groups_count": None,
            },
            "results": [_selected(_openalex_work(w), params.get("select")) for w in shown],
            "group_by": [],
        }
        return self._json("openalex", 200, payload)

    def _openalex_one(self, request: httpx2.Request) -> httpx2.Response:
        key = unquote(request.url.path.removeprefix("/works/"))
        kind, _, value = key.partition(":")
        work = None
        if kind == "doi":
            work = self.by_doi.get(value.lower().removeprefix("https://doi.org/"))
        elif kind == "pmid":
            work = self.by_pmid.get(value)
        elif kind == "pmcid":
            work = self.by_pmcid.get(
                value.upper() if value.upper().startswith("PMC") else f"PMC{value}"
            )
        else:
            raise WorldGap(f"the world's OpenAlex cannot look up {key!r}")
        if work is None or not work.in_openalex:
            return self._json(
                "openalex",
                404,
                {"error": "404 Not Found", "message": f"{key} is not a valid OpenAlex ID"},
            )
        return self._json("openalex", 200, _openalex_work(work))


# --------------------------------------------------------------------------------------------
# What each index holds


def _bibliographic(work: Work) -> list[str]:
    people = " ".join(f"{p.given} {p.family}" for p in work.authors)
    fields = (
        work.title,
        people,
        work.venue,
        *work.other_venues,
        work.venue_short,
        str(work.year or ""),
        work.volume,
        work.issue,
        work.first_page,
        work.last_page,
    )
    return words(" ".join(fields))


def _everything(work: Work) -> str:
    people = " ".join(f"{p.given} {p.family}" for p in work.authors)
    return f"{work.title} {people} {work.publisher} {work.venue} {work.year or ''}"


# --------------------------------------------------------------------------------------------
# Answers in each service's format


def _date_parts(work: Work) -> list[int]:
    parts = [work.year] if work.year else []
    if work.year and work.month:
        parts.append(work.month)
        if work.day:
            parts.append(work.day)
    return [p for p in parts if p is not None]


def _stamp(when: datetime) -> dict[str, Any]:
    return {
        "date-parts": [[when.year, when.month, when.day]],
        "date-time": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "timestamp": int(when.timestamp() * 1000),
    }


def _crossref_message(work: Work, date: datetime) -> dict[str, Any]:
    prefix = work.doi.split("/", 1)[0]
    message: dict[str, Any] = {
        "indexed": {**_stamp(date), "version": "3.50.1"},
        "reference-count": 0,
        "publisher": work.publisher,
        "content-domain": {"domain": [], "crossmark-restriction": False},
        "short-container-title": [work.venue_short] if work.venue_short else [],
        "DOI": work.doi,
        "type": work.kind or None,
        "source": "Crossref",
        "is-referenced-by-count": 0,
        "title": [work.title] if work.title else [],
        "prefix": prefix,
        "member": "0",
        "container-title": [work.venue, *work.other_venues] if work.venue else [],
        "original-title": [],
        "score": 1,
        "resource": {"primary": {"URL": f"https://doi.org/{work.doi}"}},
        "subtitle": [],
        "short-title": [],
        "references-count": 0,
        "URL": f"https://doi.org/{work.doi}",
        "relation": {},
        "subject": [],
    }
    if work.authors:
        message["author"] = [
            {
                **({"given": p.given} if p.given else {}),
                "family": p.family,
                "sequence": "first" if i == 0 else "additional",
                "affiliation": [],
            }
            for i, p in enumerate(work.authors)
        ]
    parts = _date_parts(work)
    if parts:
        issued = {"date-parts": [parts]}
        message["issued"] = issued
        message["published"] = issued
        message["published-print"] = issued
        year = parts[0]
        created = datetime(
            max(year, 1970),
            parts[1] if len(parts) > 1 else 1,
            parts[2] if len(parts) > 2 else 1,
            10,
            0,
            tzinfo=UTC,
        )
        message["created"] = _stamp(created)
        message["deposited"] = _stamp(created)
    else:
        message["issued"] = {"date-parts": [[None]]}
    for name, value in (("volume", work.volume), ("issue", work.issue), ("page", work.page)):
        if value:
            message[name] = value
    if work.issn:
        message["ISSN"] = list(work.issn)
        message["issn-type"] = [{"type": "print", "value": v} for v in work.issn]
    if work.isbn:
        message["ISBN"] = list(work.isbn)
        message["isbn-type"] = [{"type": "print", "value": v} for v in work.isbn]
    if work.updates:
        message["update-to"] = [
            {
                "updated": {"date-parts": [parts or [2020]]},
                "DOI": doi,
                "type": kind,
                "source": "publisher",
                "label": kind.replace("_", " ").title(),
            }
            for doi, kind in work.updates
        ]
    return message


_DATACITE_TYPES = {
    "dataset": ("DATA", "misc", "dataset", "Dataset", "Dataset"),
    "software": ("COMP", "misc", "article", "SoftwareSourceCode", "Software"),
    "posted-content": ("RPRT", "article", "article", "ScholarlyArticle", "Preprint"),
}


def _datacite_resource(work: Work, fields: str | None, *, full: bool = False) -> dict[str, Any]:
    ris, bibtex, citeproc, schema, general = _DATACITE_TYPES.get(
        work.kind, ("JOUR", "article", "article-journal", "ScholarlyArticle", "Text")
    )
    attributes: dict[str, Any] = {
        "doi": work.doi.lower(),
        "titles": [{"title": work.title}] if work.title else [],
        "creators": [
            {
                "name": f"{p.family}, {p.given}" if p.given else p.family,
                "nameType": "Personal",
                **({"givenName": p.given} if p.given else {}),
                "familyName": p.family,
                "affiliation": [],
                "nameIdentifiers": [],
            }
            for p in work.authors
        ],
        "publicationYear": work.year,
        "publisher": work.publisher or None,
        "container": {"type": "Series", "title": work.venue} if work.venue else {},
        "types": {
            "ris": ris,
            "bibtex": bibtex,
            "citeproc": citeproc,
            "schemaOrg": schema,
            "resourceTypeGeneral": general,
        },
    }
    if full:
        prefix, _, suffix = work.doi.lower().partition("/")
        attributes = {
            "prefix": prefix,
            "suffix": suffix,
            "identifiers": [],
            "alternateIdentifiers": [],
            **attributes,
            "subjects": [],
            "contributors": [],
            "dates": [{"date": str(work.year), "dateType": "Issued"}] if work.year else [],
            "language": None,
            "relatedIdentifiers": [],
            "sizes": [],
            "formats": [],
            "version": None,
            "rightsList": [],
            "descriptions": [],
            "url": f"https://doi.org/{work.doi}",
            "metadataVersion": 1,
            "schemaVersion": "http://datacite.org/schema/kernel-4",
            "source": "api",
            "isActive": True,
            "state": "findable",
            "published": str(work.year or ""),
        }
    elif fields:
        keep = {f.strip() for f in fields.split(",")}
        attributes = {k: v for k, v in attributes.items() if k in keep}
    return {"id": work.doi.lower(), "type": "dois", "attributes": attributes, "relationships": {}}


_MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def _pubmed_summary(work: Work) -> dict[str, Any]:
    assert work.pmid is not None
    ids: list[dict[str, Any]] = [{"idtype": "pubmed", "idtypen": 1, "value": work.pmid}]
    if work.pubmed_lists_doi:
        ids.append({"idtype": "doi", "idtypen": 3, "value": work.doi})
    if work.pmcid:
        ids.append({"idtype": "pmc", "idtypen": 8, "value": work.pmcid})
        ids.append({"idtype": "pmcid", "idtypen": 5, "value": f"pmc-id: {work.pmcid};"})
    pubdate = " ".join(
        str(p) for p in (work.year, _MONTHS[work.month - 1] if work.month else None, work.day) if p
    )
    return {
        "uid": work.pmid,
        "pubdate": pubdate,
        "epubdate": "",
        "source": work.venue_short or work.venue,
        "authors": [
            {"name": p.pubmed, "authtype": "Author", "clusterid": ""} for p in work.authors
        ],
        "lastauthor": work.authors[-1].pubmed if work.authors else "",
        "title": work.title + ("." if work.title and not work.title.endswith((".", "?")) else ""),
        "sorttitle": work.title.lower(),
        "volume": work.volume,
        "issue": work.issue,
        "pages": work.page,
        "lang": ["eng"],
        "issn": "",
        "essn": work.issn[0] if work.issn else "",
        "pubtype": list(work.pub_types),
        "recordstatus": "PubMed - indexed for MEDLINE",
        "pubstatus": "4",
        "articleids": ids,
        "history": [],
        "references": [],
        "attributes": [],
        "pmcrefcount": 0,
        "fulljournalname": work.venue,
        "elocationid": f"doi: {work.doi}" if work.pubmed_lists_doi else "",
        "doctype": "citation",
        "booktitle": "",
        "medium": "",
        "edition": "",
        "sortpubdate": f"{work.year or 1900}/{work.month or 1:02d}/{work.day or 1:02d} 00:00",
        "sortfirstauthor": work.authors[0].pubmed if work.authors else "",
        "vernaculartitle": "",
    }


def _pubmed_article(work: Work) -> str:
    """One ``PubmedArticle`` as efetch writes it (the elements citeproof reads)."""
    authors = "".join(
        f'<Author ValidYN="Y"><LastName>{escape(p.family)}</LastName>'
        f"<ForeName>{escape(p.given)}</ForeName><Initials>{escape(p.initials)}</Initials></Author>"
        for p in work.authors
    )
    types = "".join(
        f'<PublicationType UI="D016428">{escape(t)}</PublicationType>' for t in work.pub_types
    )
    ids = f'<ArticleId IdType="pubmed">{work.pmid}</ArticleId>'
    if work.pubmed_lists_doi:
        ids += f'<ArticleId IdType="doi">{escape(work.doi)}</ArticleId>'
    if work.pmcid:
        ids += f'<ArticleId IdType="pmc">{work.pmcid}</ArticleId>'
    month = f"<Month>{_MONTHS[work.month - 1]}</Month>" if work.month else ""
    return (
        '<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM">'
        f'<PMID Version="1">{work.pmid}</PMID><Article PubModel="Print">'
        f'<Journal><JournalIssue CitedMedium="Print"><Volume>{escape(work.volume)}</Volume>'
        f"<Issue>{escape(work.issue)}</Issue><PubDate><Year>{work.year or ''}</Year>{month}"
        f"</PubDate></JournalIssue><Title>{escape(work.venue)}</Title>"
        f"<ISOAbbreviation>{escape(work.venue_short)}</ISOAbbreviation></Journal>"
        f"<ArticleTitle>{escape(work.title)}</ArticleTitle>"
        f"<Pagination><MedlinePgn>{escape(work.page)}</MedlinePgn></Pagination>"
        f'<AuthorList CompleteYN="Y">{authors}</AuthorList><Language>eng</Language>'
        f"<PublicationTypeList>{types}</PublicationTypeList></Article>"
        "</MedlineCitation><PubmedData><PublicationStatus>ppublish</PublicationStatus>"
        f"<ArticleIdList>{ids}</ArticleIdList></PubmedData></PubmedArticle>"
    )


def _stable(text: str) -> int:
    """A number from ``text`` that is the same in every process (``hash`` is salted)."""
    return int.from_bytes(hashlib.sha1(text.encode(), usedforsecurity=False).digest()[:8]) % 10**9


def _openalex_id(work: Work) -> str:
    if work.openalex_id:
        return work.openalex_id
    return f"W4{_stable(work.key):09d}"


_OPENALEX_TYPES = {
    "journal-article": "article",
    "proceedings-article": "article",
    "book-chapter": "book-chapter",
    "book": "book",
    "dataset": "dataset",
    "posted-content": "preprint",
}


def _openalex_work(work: Work) -> dict[str, Any]:
    wid = f"https://openalex.org/{_openalex_id(work)}"
    ids: dict[str, str] = {"openalex": wid, "doi": f"https://doi.org/{work.key}"}
    if work.pmid:
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{work.pmid}"
    if work.pmcid:
        ids["pmcid"] = f"https://www.ncbi.nlm.nih.gov/pmc/articles/{work.pmcid[3:]}"
    source: dict[str, Any] | None = None
    if work.venue:
        source = {
            "id": f"https://openalex.org/S{_stable(work.venue):09d}",
            "display_name": work.venue,
            "issn_l": work.issn[0] if work.issn else None,
            "issn": list(work.issn) or None,
            "is_oa": False,
            "is_in_doaj": False,
            "is_core": True,
            "host_organization": None,
            "host_organization_name": work.publisher or None,
            "type": "book series" if work.kind == "book-chapter" else "journal",
        }
    kind = "retraction" if any(t == "retraction" for _, t in work.updates) else None
    return {
        "id": wid,
        "doi": f"https://doi.org/{work.key}",
        "title": work.title or None,
        "display_name": work.title or None,
        "publication_year": work.year,
        "ids": ids,
        "type": kind or (_OPENALEX_TYPES.get(work.kind, "other") if work.kind else None),
        "authorships": [
            {
                "author_position": "first"
                if i == 0
                else ("last" if i == len(work.authors) - 1 else "middle"),
                "author": {"id": None, "display_name": p.display, "orcid": None},
                "institutions": [],
                "countries": [],
                "is_corresponding": False,
                "raw_author_name": p.display,
                "raw_affiliation_strings": [],
                "affiliations": [],
            }
            for i, p in enumerate(work.authors)
        ],
        "primary_location": {
            "id": f"doi:{work.key}",
            "is_oa": False,
            "landing_page_url": f"https://doi.org/{work.key}",
            "pdf_url": None,
            "source": source,
            "license": None,
            "license_id": None,
            "version": "publishedVersion",
            "is_accepted": True,
            "is_published": True,
        },
        "biblio": {
            "volume": work.volume or None,
            "issue": work.issue or None,
            "first_page": work.first_page or None,
            "last_page": work.last_page or None,
        },
        "is_retracted": False,
    }


def verify_printed(world: World, text: str) -> ReferenceResult:
    """One printed reference read and verified as ``verify_all`` does, every service
    answered by ``world`` alone: what the reference tests of a single entry need."""
    import asyncio

    from citeproof.refs.listed import parse_reference_string
    from citeproof.refs.verification import verify_all

    stated = parse_reference_string(text)

    async def run() -> list[ReferenceResult]:
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(world.handler)) as client:
            return await verify_all(client, [stated], retraction=None)

    (result,) = asyncio.run(run())
    return result
