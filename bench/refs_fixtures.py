"""Invented works and the answers five services would give about them, for ``bench_refs.py``.

Everything here is INVENTED: DOIs under the test prefix ``10.5555/``, PMIDs ``999xxxxx``,
OpenAlex ids ``W999xxxxx``, made-up people, journals and titles, and hosts under
``.example``.  The answers have the shape of the real ones (the fields, nesting and types of
``tests/sources/invented/refs-*`` and the other recordings there), so that the code reading
them does the work it does on real answers; none was copied from a real answer.

Each invented work has a code word in its title (``HX0042``), so a search request can be
answered for the work it asks about by finding that word in the query: the search engines'
own ranking is not what is measured.  Every body is built and encoded once, before any
timing, and the answering handler only looks bodies up, as a replay of recordings would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote

import httpx2

__all__ = ["GROUPS", "KINDS", "MIX", "Answers", "Reference", "Work", "catalogue", "references"]

_SUBJECTS = (
    "Drought tolerance",
    "Root architecture",
    "Leaf nitrogen uptake",
    "Seed dormancy and germination",
    "Pollinator visits",
    "Soil microbial respiration",
    "Fruit set after pruning",
    "Frost damage to buds",
    "Water use efficiency",
    "Stomatal conductance",
    "Flowering time",
    "Mycorrhizal colonisation",
)
_SETTINGS = (
    "in raised beds",
    "under invented greenhouse conditions",
    "across twelve invented allotments",
    "after a simulated late frost",
    "in mulched and bare plots",
    "over three invented growing seasons",
    "on sandy and clay soils",
)
_PEOPLE = (
    ("Wren", "Halloway"),
    ("Tamsin", "Okonkwo-Reyes"),
    ("Anneke", "de Vries"),
    ("Ingrid", "Lindqvist"),
    ("Paolo", "Marchetti"),
    ("Adaeze", "Abiodun"),
    ("Kenji", "Tanaka-Bell"),
    ("Réka", "Szabó"),
    ("Lúcia", "Ferreira"),
    ("Siobhan", "O'Donnell"),
    ("Marek", "Kowalczyk"),
    ("Layla", "Haddad"),
    ("Yuki", "Nakamura"),
    ("Tomás", "Ibarra"),
)
_VENUES = (
    ("Invented Journal of Horticulture", "Invented J Hortic", "9999-0001"),
    ("Invented Plant Science Letters", "Invented Plant Sci Lett", "9999-0002"),
    ("Annals of Invented Agronomy", "Ann Invented Agron", "9999-0003"),
    ("Invented Soil Biology Reports", "Invented Soil Biol Rep", "9999-0004"),
)
_CODE = re.compile(r"\bhx(\d{4})\b", re.IGNORECASE)
_JSON = "application/json"
_JSON_UTF8 = "application/json;charset=utf-8"
_JSONAPI = "application/vnd.api+json; charset=utf-8"


@dataclass(frozen=True, slots=True)
class Work:
    """One invented work, as every service records it."""

    n: int
    doi: str
    title: str
    authors: tuple[tuple[str, str], ...]
    """(given, family) pairs."""
    year: int
    venue: str
    abbrev: str
    issn: str
    volume: str
    issue: str
    page: str
    pmid: str | None
    dataset: bool
    """Registered with DataCite as a dataset (else a Crossref journal article)."""

    @property
    def openalex(self) -> str:
        return f"W{999_00000 + self.n}"


@dataclass(frozen=True, slots=True)
class Reference:
    """One reference string of the benchmark and the verdict it should get."""

    kind: str
    text: str
    expected: str


def _work(n: int) -> Work:
    people = [_PEOPLE[(n * 3 + k * 5) % len(_PEOPLE)] for k in range(1 + n % 4)]
    venue, abbrev, issn = _VENUES[n % len(_VENUES)]
    dataset = n % 5 == 4
    title = f"{_SUBJECTS[n % len(_SUBJECTS)]} of invented strain HX{n:04d} "
    title += _SETTINGS[(n // len(_SUBJECTS)) % len(_SETTINGS)]
    return Work(
        n=n,
        doi=f"10.5555/invented.bench.{'data.' if dataset else ''}{n}",
        title=("Hourly readings: " if dataset else "") + title,
        authors=tuple(dict.fromkeys(people)),
        year=2005 + n % 19,
        venue="Invented Data Repository" if dataset else venue,
        abbrev=abbrev,
        issn=issn,
        volume=str(3 + n % 17),
        issue=str(1 + n % 6),
        page=f"e{1000 + n}",
        pmid=None if dataset or n % 3 == 0 else str(99_900_000 + n),
        dataset=dataset,
    )


def catalogue(size: int) -> dict[int, Work]:
    """``size`` invented works, numbered 0 to size - 1."""
    return {n: _work(n) for n in range(size)}


# --------------------------------------------------------------------------- the strings


def _apa(w: Work, doi: str | None) -> str:
    names = [f"{family}, {given[0]}." for given, family in w.authors]
    people = names[0] if len(names) == 1 else ", ".join(names[:-1]) + ", & " + names[-1]
    if w.dataset:
        text = f"{people} ({w.year}). {w.title} [Data set]. {w.venue}."
    else:
        text = f"{people} ({w.year}). {w.title}. {w.venue}, {w.volume}({w.issue}), {w.page}."
    return text + (f" https://doi.org/{doi}" if doi else "")


def _vancouver(w: Work, doi: str | None) -> str:
    names = ", ".join(f"{family} {given[0]}" for given, family in w.authors)
    text = f"{names}. {w.title}. {w.abbrev}. {w.year};{w.volume}({w.issue}):{w.page}."
    return text + (f" doi:{doi}" if doi else "")


def _ieee(w: Work, doi: str | None) -> str:
    names = [f"{given[0]}. {family}" for given, family in w.authors]
    people = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    text = (
        f"{people}, “{w.title},” {w.venue}, vol. {w.volume}, no. {w.issue}, p. {w.page}, {w.year}"
    )
    return text + (f", doi: {doi}." if doi else ".")


_STYLES: tuple[Callable[[Work, str | None], str], ...] = (_apa, _vancouver, _ieee)

KINDS = (
    "doi matches",
    "pmid matches",
    "doi of another work",
    "found by search",
    "nothing found",
    "datacite doi",
)
_EXPECTED = {
    "doi matches": "verified",
    "pmid matches": "verified",
    "doi of another work": "mismatch",
    "found by search": "verified",
    "nothing found": "not_found",
    "datacite doi": "verified",
}
#: What identifier a kind's entry states: the groups the requests-per-reference targets are
#: judged on.
GROUPS = {
    "doi matches": "with a DOI",
    "doi of another work": "with a DOI",
    "datacite doi": "with a DOI",
    "pmid matches": "with a PMID",
    "found by search": "without an identifier",
    "nothing found": "without an identifier",
}
#: The order kinds come in, over and over: a bibliography's mix, pessimistic in fabrications.
#: Most entries of a real list cite a real work rightly (here 8 in 10: DOIs, PMIDs, entries
#: without an identifier, one dataset), and 2 in 10 are the fabrications citeproof is for (a
#: DOI of another work, a work no database holds), more than real lists hold.
MIX = (
    "doi matches",
    "found by search",
    "pmid matches",
    "doi of another work",
    "doi matches",
    "found by search",
    "datacite doi",
    "pmid matches",
    "nothing found",
    "doi matches",
)


def references(works: dict[int, Work], count: int, first: int = 0) -> list[Reference]:
    """``count`` references in the order of :data:`MIX`, each about a different work.

    ``first`` shifts which works are used, so a warm-up can use works the timed run does
    not.  "nothing found" names a work that is not in ``works`` (its code is past the end).
    """
    articles = [w for w in works.values() if not w.dataset]
    with_pmid = [w for w in articles if w.pmid]
    datasets = [w for w in works.values() if w.dataset]
    out: list[Reference] = []
    for i in range(first, first + count):
        kind = MIX[i % len(MIX)]
        style = _STYLES[(i // len(MIX)) % len(_STYLES)]
        a = articles[i % len(articles)]
        if kind == "doi matches":
            text = style(a, a.doi)
        elif kind == "pmid matches":
            p = with_pmid[i % len(with_pmid)]
            text = f"{_vancouver(p, None)} PMID: {p.pmid}."
        elif kind == "doi of another work":
            b = articles[(i + 7) % len(articles)]
            text = style(a, b.doi)
        elif kind == "found by search":
            text = style(a, None)
        elif kind == "nothing found":
            text = style(_work(len(works) + i), None)
        else:
            d = datasets[i % len(datasets)]
            text = _apa(d, d.doi)
        out.append(Reference(kind, text, _EXPECTED[kind]))
    return out


# --------------------------------------------------------------------------- the answers


def _date(year: int, n: int) -> dict[str, object]:
    month, day = 1 + n % 12, 1 + n % 28
    return {
        "date-parts": [[year, month, day]],
        "date-time": f"{year}-{month:02d}-{day:02d}T09:00:00Z",
        "timestamp": 1_100_000_000_000 + n * 86_400_000,
    }


def _crossref_author(k: int, given: str, family: str) -> dict[str, object]:
    return {
        "given": given,
        "family": family,
        "sequence": "first" if k == 0 else "additional",
        "affiliation": [{"name": "Invented Institute of Plant Science"}] if k == 0 else [],
    }


def _crossref_item(w: Work, score: float) -> dict[str, object]:
    """A ``works?query.bibliographic`` item with the fields citeproof ``select``s."""
    return {
        "DOI": w.doi,
        "score": score,
        "created": _date(w.year, w.n),
        "published-online": {"date-parts": [[w.year, 1 + w.n % 12, 1 + w.n % 28]]},
        "issued": {"date-parts": [[w.year, 1 + w.n % 12]]},
        "container-title": [w.venue],
        "author": [_crossref_author(k, g, f) for k, (g, f) in enumerate(w.authors)],
        "title": [w.title],
        "type": "journal-article",
    }


def _crossref_notice(w: Work, score: float) -> dict[str, object]:
    """A correction notice about ``w``, as a search finds it next to the work."""
    return {
        "DOI": f"{w.doi}.corr",
        "score": score,
        "created": _date(w.year + 1, w.n),
        "update-to": [
            {
                "updated": _date(w.year + 1, w.n),
                "DOI": w.doi,
                "type": "correction",
                "source": "publisher",
                "label": "Correction",
            }
        ],
        "issued": {"date-parts": [[w.year + 1, 2]]},
        "container-title": [w.venue],
        "title": [f"Correction: {w.title}"],
        "type": "journal-article",
    }


def _crossref_work(w: Work, works: dict[int, Work]) -> bytes:
    """``works/{doi}``: the whole record, with its deposited reference list."""
    cited = [works[(w.n * 7 + k) % len(works)] for k in range(20 + w.n % 15)]
    message = {
        "indexed": {**_date(2025, w.n), "version": "3.40.3"},
        "reference-count": len(cited),
        "publisher": "Invented Press for Horticulture",
        "issue": w.issue,
        "license": [
            {
                "start": _date(w.year, w.n),
                "content-version": "vor",
                "delay-in-days": 0,
                "URL": "https://creativecommons.org/licenses/by/4.0/",
            }
        ],
        "content-domain": {"domain": ["invented-press.example"], "crossmark-restriction": True},
        "short-container-title": [w.abbrev],
        "published-print": {"date-parts": [[w.year, 1 + w.n % 12]]},
        "DOI": w.doi,
        "type": "journal-article",
        "created": _date(w.year, w.n),
        "page": w.page,
        "update-policy": "https://doi.org/10.5555/invented.crossmark",
        "source": "Crossref",
        "is-referenced-by-count": w.n % 40,
        "title": [w.title],
        "prefix": "10.5555",
        "volume": w.volume,
        "author": [_crossref_author(k, g, f) for k, (g, f) in enumerate(w.authors)],
        "member": "99999",
        "reference": [
            {
                "key": f"ref{k + 1}",
                "doi-asserted-by": "publisher",
                "DOI": c.doi,
                "unstructured": _vancouver(c, None),
            }
            for k, c in enumerate(cited)
        ],
        "container-title": [w.venue],
        "language": "en",
        "link": [
            {
                "URL": f"https://invented-press.example/articles/{w.n}.pdf",
                "content-type": "application/pdf",
                "content-version": "vor",
                "intended-application": "text-mining",
            }
        ],
        "deposited": _date(w.year, w.n + 3),
        "score": 1,
        "resource": {"primary": {"URL": f"https://invented-press.example/articles/{w.n}"}},
        "subtitle": [],
        "short-title": [],
        "issued": {"date-parts": [[w.year, 1 + w.n % 12]]},
        "references-count": len(cited),
        "journal-issue": {
            "issue": w.issue,
            "published-print": {"date-parts": [[w.year, 1 + w.n % 12]]},
        },
        "alternative-id": [f"invented-{w.n}"],
        "URL": f"https://doi.org/{w.doi}",
        "relation": {},
        "ISSN": [w.issn],
        "issn-type": [{"type": "electronic", "value": w.issn}],
        "published": {"date-parts": [[w.year, 1 + w.n % 12]]},
    }
    return _dump(
        {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": message}
    )


def _crossref_page(items: list[dict[str, object]], rows: int) -> bytes:
    return _dump(
        {
            "status": "ok",
            "message-type": "work-list",
            "message-version": "1.0.0",
            "message": {
                "facets": {},
                "total-results": 1_000 + 37 * len(items),
                "items": items,
                "items-per-page": rows,
                "query": {"start-index": 0, "search-terms": None},
            },
        }
    )


def _openalex_work(w: Work) -> dict[str, object]:
    ids: dict[str, str] = {
        "openalex": f"https://openalex.org/{w.openalex}",
        "doi": f"https://doi.org/{w.doi}",
    }
    if w.pmid:
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{w.pmid}"
    return {
        "id": f"https://openalex.org/{w.openalex}",
        "doi": f"https://doi.org/{w.doi}",
        "title": w.title,
        "display_name": w.title,
        "publication_year": w.year,
        "ids": ids,
        "primary_location": {
            "id": f"doi:{w.doi}",
            "is_oa": True,
            "landing_page_url": f"https://doi.org/{w.doi}",
            "pdf_url": None,
            "source": {
                "id": f"https://openalex.org/S{9990000 + w.n % 4}",
                "display_name": w.venue,
                "issn_l": w.issn,
                "issn": [w.issn],
                "is_oa": True,
                "is_in_doaj": False,
                "is_core": False,
                "host_organization": "https://openalex.org/P9990001",
                "host_organization_name": "Invented Press for Horticulture",
                "type": "repository" if w.dataset else "journal",
            },
            "license": "cc-by",
            "license_id": "https://openalex.org/licenses/cc-by",
            "version": "publishedVersion",
            "is_accepted": True,
            "is_published": True,
        },
        "type": "dataset" if w.dataset else "article",
        "authorships": [
            {
                "author_position": "first" if k == 0 else "middle",
                "author": {
                    "id": f"https://openalex.org/A{9990000 + k}",
                    "display_name": f"{given} {family}",
                    "orcid": None,
                },
                "institutions": [],
                "countries": [],
                "is_corresponding": k == 0,
                "raw_author_name": f"{given[0]}. {family}",
                "raw_affiliation_strings": [],
                "affiliations": [],
            }
            for k, (given, family) in enumerate(w.authors)
        ],
    }


def _openalex_page(works: list[Work], per_page: int) -> bytes:
    return _dump(
        {
            "meta": {
                "count": 40 + len(works),
                "db_response_time_ms": 31,
                "page": 1,
                "per_page": per_page,
                "groups_count": None,
            },
            "results": [_openalex_work(w) for w in works],
            "group_by": [],
        }
    )


def _esummary_item(w: Work) -> str:
    assert w.pmid is not None
    first = f"{w.authors[0][1]} {w.authors[0][0][0]}"
    item = {
        "uid": w.pmid,
        "pubdate": f"{w.year} Mar",
        "epubdate": "",
        "source": w.abbrev,
        "authors": [
            {"name": f"{family} {given[0]}", "authtype": "Author", "clusterid": ""}
            for given, family in w.authors
        ],
        "lastauthor": f"{w.authors[-1][1]} {w.authors[-1][0][0]}",
        "title": w.title + ".",
        "sorttitle": w.title.lower(),
        "volume": w.volume,
        "issue": w.issue,
        "pages": w.page,
        "lang": ["eng"],
        "nlmuniqueid": "999000001",
        "issn": "",
        "essn": w.issn,
        "pubtype": ["Journal Article"],
        "recordstatus": "PubMed - indexed for MEDLINE",
        "pubstatus": "4",
        "articleids": [
            {"idtype": "pubmed", "idtypen": 1, "value": w.pmid},
            {"idtype": "doi", "idtypen": 3, "value": w.doi},
            {"idtype": "pii", "idtypen": 4, "value": w.page},
        ],
        "history": [
            {"pubstatus": "received", "date": f"{w.year - 1}/11/10 00:00"},
            {"pubstatus": "entrez", "date": f"{w.year}/03/05 06:00"},
        ],
        "references": [],
        "attributes": ["Has Abstract"],
        "pmcrefcount": "",
        "fulljournalname": w.venue,
        "elocationid": f"doi: {w.doi}",
        "doctype": "citation",
        "srccontriblist": [],
        "booktitle": "",
        "medium": "",
        "edition": "",
        "publisherlocation": "",
        "publishername": "",
        "srcdate": "",
        "reportnumber": "",
        "availablefromurl": "",
        "locationlabel": "",
        "doccontriblist": [],
        "docdate": "",
        "bookname": "",
        "chapter": "",
        "sortpubdate": f"{w.year}/03/01 00:00",
        "sortfirstauthor": first,
        "vernaculartitle": "",
    }
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


def _esearch(pmids: list[str], term: str) -> bytes:
    return _dump(
        {
            "header": {"type": "esearch", "version": "0.3"},
            "esearchresult": {
                "count": str(len(pmids)),
                "retmax": str(len(pmids)),
                "retstart": "0",
                "idlist": pmids,
                "translationset": [],
                "querytranslation": term,
            },
        }
    )


def _datacite_attributes(w: Work) -> dict[str, object]:
    return {
        "doi": w.doi,
        "titles": [
            {"title": "Twelve invented plots, one reading an hour", "titleType": "Subtitle"},
            {"title": w.title, "lang": "en"},
        ],
        "creators": [
            {
                "name": f"{family}, {given}",
                "nameType": "Personal",
                "givenName": given,
                "familyName": family,
                "affiliation": [],
                "nameIdentifiers": [],
            }
            for given, family in w.authors
        ],
        "publicationYear": w.year,
        "publisher": w.venue,
        "container": {},
        "types": {
            "ris": "DATA",
            "bibtex": "misc",
            "citeproc": "dataset",
            "schemaOrg": "Dataset",
            "resourceType": "Sensor readings",
            "resourceTypeGeneral": "Dataset",
        },
    }


def _datacite_record(w: Work) -> bytes:
    attributes = {
        **_datacite_attributes(w),
        "prefix": "10.5555",
        "suffix": w.doi.split("/", 1)[1],
        "identifiers": [{"identifier": f"https://doi.org/{w.doi}", "identifierType": "DOI"}],
        "subjects": [{"subject": "Soil moisture"}],
        "dates": [{"date": f"{w.year}-05-02", "dateType": "Issued"}],
        "language": "en",
        "version": "1.2",
        "rightsList": [
            {
                "rights": "Creative Commons Attribution 4.0 International",
                "rightsIdentifier": "cc-by-4.0",
            }
        ],
        "descriptions": [
            {"description": "Invented hourly readings.", "descriptionType": "Abstract"}
        ],
        "url": f"https://data.invented-repository.example/records/{w.n}",
        "state": "findable",
        "created": f"{w.year}-05-02T08:14:11.000Z",
        "registered": f"{w.year}-05-02T08:14:12.000Z",
        "published": str(w.year),
        "updated": "2024-01-09T16:40:03.000Z",
    }
    return _dump(
        {
            "data": {
                "id": w.doi,
                "type": "dois",
                "attributes": attributes,
                "relationships": {
                    "client": {"data": {"id": "invented.repository", "type": "clients"}}
                },
            }
        }
    )


def _dump(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class Answers:
    """Every invented answer, encoded once; :meth:`handle` serves them by request.

    ``calls`` counts the requests answered, ``unexpected`` keeps any request this class has
    no answer for (answered 404, so a miss shows in the verdicts as well as here).
    """

    def __init__(self, works: dict[int, Work], rows: int = 5) -> None:
        self.works = works
        self.rows = rows
        self.calls = 0
        self.unexpected: list[str] = []
        by_doi = {w.doi: w for w in works.values()}
        self._ra = {d: ("DataCite" if w.dataset else "Crossref") for d, w in by_doi.items()}
        self._crossref = {d: _crossref_work(w, works) for d, w in by_doi.items() if not w.dataset}
        self._datacite = {d: _datacite_record(w) for d, w in by_doi.items() if w.dataset}
        self._summary = {w.pmid: _esummary_item(w) for w in works.values() if w.pmid}
        self._biblio: dict[int, bytes] = {}
        self._openalex: dict[int, bytes] = {}
        size = len(works)
        for n in range(2 * size + 64):  # codes past the end: works no service knows
            others = [works[(n * 11 + k * 5 + 1) % size] for k in range(rows)]
            others = [o for o in others if o.n != n][: rows - 1 if n in works else rows]
            if n in works:
                w = works[n]
                items = [_crossref_item(w, 120.0), _crossref_notice(w, 95.0)]
                items += [_crossref_item(o, 60.0 - 4 * k) for k, o in enumerate(others[:3])]
                self._biblio[n] = _crossref_page(items, rows)
                self._openalex[n] = _openalex_page([w, *others], rows)
            else:
                items = [_crossref_item(o, 48.0 - 3 * k) for k, o in enumerate(others)]
                self._biblio[n] = _crossref_page(items, rows)
                self._openalex[n] = _openalex_page(others, rows)

    def _code(self, text: str) -> int | None:
        match = _CODE.search(text)
        return int(match.group(1)) if match else None

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        """The answer to ``request`` (a synchronous handler for ``httpx2.MockTransport``)."""
        self.calls += 1
        host, path, params = request.url.host, unquote(request.url.path), request.url.params
        if host == "doi.org" and path.startswith("/doiRA/"):
            doi = path[len("/doiRA/") :].lower()
            ra = self._ra.get(doi)
            entry = {"DOI": doi, "RA": ra} if ra else {"DOI": doi, "status": "DOI does not exist"}
            return _answer(request, 200, _dump([entry]), _JSON_UTF8)
        if host == "api.crossref.org" and path.startswith("/v1/works/"):
            body = self._crossref.get(path[len("/v1/works/") :].lower())
            if body is None:
                return _answer(request, 404, b"Resource not found.", "text/plain")
            return _answer(request, 200, body, _JSON)
        if host == "api.crossref.org" and path == "/v1/works" and "query.bibliographic" in params:
            n = self._code(params["query.bibliographic"])
            page = self._biblio.get(n if n is not None else -1)
            return _answer(request, 200, page or _crossref_page([], self.rows), _JSON)
        if host == "api.openalex.org" and path == "/works" and "search" in params:
            n = self._code(params["search"])
            page = self._openalex.get(n if n is not None else -1)
            return _answer(request, 200, page or _openalex_page([], self.rows), _JSON)
        if host == "eutils.ncbi.nlm.nih.gov" and path.endswith("/esearch.fcgi"):
            term = params.get("term", "")
            n = self._code(term)
            w = self.works.get(n) if n is not None else None
            return _answer(request, 200, _esearch([w.pmid] if w and w.pmid else [], term), _JSON)
        if host == "eutils.ncbi.nlm.nih.gov" and path.endswith("/esummary.fcgi"):
            form = parse_qs(request.content.decode()) if request.method == "POST" else {}
            ids = (form.get("id") or [params.get("id", "")])[0].split(",")
            found = [i for i in ids if i in self._summary]
            text = '{"header":{"type":"esummary","version":"0.3"},"result":{"uids":'
            text += json.dumps(found) + "".join(f',"{i}":{self._summary[i]}' for i in found)
            return _answer(request, 200, (text + "}}").encode(), _JSON)
        if host == "api.datacite.org" and path.startswith("/dois/"):
            body = self._datacite.get(path[len("/dois/") :].lower())
            if body is None:
                error = _dump(
                    {
                        "errors": [
                            {
                                "status": "404",
                                "title": "The resource you are looking for doesn't exist.",
                            }
                        ]
                    }
                )
                return _answer(request, 404, error, _JSONAPI)
            return _answer(request, 200, body, _JSONAPI)
        if host == "api.datacite.org" and path == "/dois":
            n = self._code(params.get("query", ""))
            w = self.works.get(n) if n is not None else None
            data = (
                [
                    {
                        "id": w.doi,
                        "type": "dois",
                        "attributes": _datacite_attributes(w),
                        "relationships": {},
                    }
                ]
                if w and w.dataset
                else []
            )
            return _answer(
                request, 200, _dump({"data": data, "meta": {"total": len(data)}}), _JSONAPI
            )
        self.unexpected.append(f"{request.method} {request.url}")
        return _answer(request, 404, b"not invented", "text/plain")


def _answer(request: httpx2.Request, status: int, body: bytes, media: str) -> httpx2.Response:
    return httpx2.Response(status, headers={"content-type": media}, content=body, request=request)
