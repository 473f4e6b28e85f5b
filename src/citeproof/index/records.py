"""One record of a dump, read as the fields a :class:`~citeproof.models.references.WorkRecord`
holds, with its identifiers and the notices it carries.  Pure: no I/O.

Why here and not the sources' parsers: the index sits beside ``citeproof.sources`` and may
not import it, and the dumps are not quite the API answers the sources read.  The Crossref
public data file's items *are* ``works/{doi}`` messages and an OpenAlex snapshot line *is*
a work object, so :func:`crossref_item` and :func:`openalex_work` read them by the same rules
as ``sources.crossref.record_from_message`` and ``sources.openalex.record_from_work``
(authors ``Family, Given``; the year from ``issued`` then the print and online dates; titles
without markup; the venue's other names, ISSNs and every type), and :func:`datacite_resource`
follows ``sources.datacite.record_from_data``.  Those rules are written again here, on
purpose, rather than shared, until the sources can import a module below both; a change to
one must be made to the other (``tests/index/test_index_records.py`` pins the agreement on the
corpus's real Crossref records).  Titles without markup are the first rule shared so:
``citeproof.documents.markup.plain_text`` reads them for both.

What a dump record adds to an API answer:

* **identifiers**: every identifier that names the record (``doi:``, ``pmid:``, ``pmcid:``,
  ``arxiv:``, ``openalex:``, ``dblp:``), which is what merges records into works.  An arXiv
  record's ``doi`` (the journal version's DOI) and an OpenAlex work's other locations are
  *other versions*, kept in ``related``, not identity: a preprint and its article are two
  works a reference may cite either of.
* **notices**: Crossref ``update-to`` (this record announces a retraction of another DOI) and
  ``updated-by`` (another DOI announces one about this record), PubMed
  ``CommentsCorrections`` (``RetractionIn``, ``RetractionOf``, ``ExpressionOfConcernIn`` ...),
  OpenAlex ``is_retracted``, and Retraction Watch's rows.
* a **record key** (``pubmed:123``) under which a newer version of the record replaces the
  older, and a **version** (PubMed's ``PMID/@Version``).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citeproof.documents.markup import plain_text

if TYPE_CHECKING:
    from lxml import etree

__all__ = [
    "FIELDS",
    "ID_KINDS",
    "MAX_AUTHORS",
    "SOURCES",
    "TUPLE_FIELDS",
    "Deletion",
    "Notice",
    "Parsed",
    "arxiv_record",
    "crossref_item",
    "datacite_resource",
    "dblp_record",
    "decode_blob",
    "decode_ids",
    "encode_blob",
    "id_key",
    "normalise_id",
    "notice_kind",
    "openalex_merge",
    "openalex_work",
    "pubmed_article",
    "pubmed_deletions",
    "retraction_watch_row",
    "search_text",
]

#: The databases whose records the index holds, in the order a work's records are listed.
SOURCES: tuple[str, ...] = ("crossref", "pubmed", "openalex", "datacite", "arxiv", "dblp")
#: The identifier kinds a record is found by.
ID_KINDS: tuple[str, ...] = ("doi", "pmid", "pmcid", "arxiv", "openalex", "dblp")
#: The WorkRecord fields a stored record holds, in this order.
FIELDS: tuple[str, ...] = (
    "source",
    "doi",
    "pmid",
    "pmcid",
    "openalex",
    "arxiv",
    "dblp",
    "title",
    "authors",
    "year",
    "venue",
    "kind",
    "is_notice",
    "volume",
    "issue",
    "pages",
    "other_titles",
    "venue_names",
    "issn",
    "types",
    "related",
)
#: The fields that hold a tuple (the others hold one value or None).
TUPLE_FIELDS = frozenset({"authors", "other_titles", "venue_names", "issn", "types", "related"})
_TUPLES = TUPLE_FIELDS


@dataclass(frozen=True, slots=True)
class Notice:
    """A retraction, correction or concern about ``target``, as one source states it."""

    target: str
    """The identifier key of the work the notice is about (``doi:10.1/x``)."""
    kind: str
    """Normalised: ``retraction``, ``expression_of_concern``, ``correction``, ``erratum`` …"""
    notice: str | None
    """The identifier key of the notice itself, when it has one."""
    date: str | None
    source: str
    label: str | None = None
    reason: str | None = None
    record_id: str | None = None


@dataclass(frozen=True, slots=True)
class Parsed:
    """One record of a dump."""

    rkey: str
    """``<source>:<its own id>``: a later record with this key replaces this one."""
    version: int
    ids: tuple[str, ...]
    values: tuple[Any, ...]
    """The :data:`FIELDS`, in order."""
    notices: tuple[Notice, ...] = ()
    date: str | None = None
    """The record's own date (revised, indexed, updated), ``YYYY-MM-DD``: the dump's date
    is the newest of these."""

    def field(self, name: str) -> Any:
        return self.values[FIELDS.index(name)]


@dataclass(frozen=True, slots=True)
class Deletion:
    """A record the dump withdraws: a PubMed ``DeleteCitation``, an OpenAlex merge."""

    rkey: str
    alias: str | None = None
    """Where the withdrawn id now points (OpenAlex's ``merge_into_id``)."""


# --- identifiers ----------------------------------------------------------------------------

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(
    r"^(?:arxiv:\s*|https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE
)
_ARXIV = re.compile(
    r"(?:[0-9]{4}\.[0-9]{4,5}|[a-z][a-z.-]*(?:\.[a-z]{2})?/[0-9]{7})", re.IGNORECASE
)
_OPENALEX = re.compile(r"(?:https?://openalex\.org/)?(W[0-9]{1,12})", re.IGNORECASE)
_DBLP_PREFIX = re.compile(r"^(?:https?://dblp\.(?:org|uni-trier\.de)/rec/(?:bibtex/)?|dblp:)")


def normalise_id(kind: str, value: str) -> str | None:
    """The canonical form of an identifier of ``kind``, or None when it is not one.

    DOIs are ASCII-lower-cased (as ``citeproof.identifiers`` does: DOIs ignore ASCII case);
    PMIDs lose leading zeros; a PMCID or arXiv id loses its version; OpenAlex ids are
    ``W`` and digits.
    """
    text = value.strip()
    if not text:
        return None
    if kind == "doi":
        if text.startswith("https://doi.org/"):
            text = text[16:]
        elif not text.startswith("10."):
            text = _DOI_PREFIX.sub("", text).strip()
        text = text.translate(_ASCII_LOWER)
        return text if text.startswith("10.") and "/" in text and " " not in text else None
    if kind == "pmid":
        if text.lower().startswith("pmid:"):
            text = text[5:].strip()
        return text.lstrip("0") or None if text.isdigit() and text.isascii() else None
    if kind == "pmcid":
        bare = text.upper().removeprefix("PMCID:").strip().removeprefix("PMC").split(".")[0]
        return f"PMC{bare.lstrip('0')}" if bare.isdigit() and bare.isascii() else None
    if kind == "arxiv":
        bare = _ARXIV_PREFIX.sub("", text).strip()
        bare = re.sub(r"v[0-9]+$", "", bare).removesuffix(".pdf")
        return bare.lower() if _ARXIV.fullmatch(bare) else None
    if kind == "openalex":
        match = _OPENALEX.fullmatch(text)
        return match.group(1).upper() if match else None
    if kind == "dblp":
        bare = _DBLP_PREFIX.sub("", text).removesuffix(".html").removesuffix(".xml")
        return bare if bare and " " not in bare and "/" in bare else None
    raise ValueError(f"unknown identifier kind {kind!r}")


def id_key(kind: str, value: Any) -> str | None:
    """``kind:canonical value``, or None."""
    if not isinstance(value, str):
        return None
    canonical = normalise_id(kind, value)
    return f"{kind}:{canonical}" if canonical else None


def _ids(*pairs: tuple[str, Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(k for kind, value in pairs if (k := id_key(kind, value))))


# --- text -----------------------------------------------------------------------------------


def _first(value: Any) -> str | None:
    for item in value if isinstance(value, list) else [value]:
        if (text := plain_text(item)) is not None:
            return text
    return None


def _all(value: Any) -> list[str]:
    return [t for item in _list(value) if (t := plain_text(item)) is not None]


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _year(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        match = _YEAR.search(value)
        return int(match.group(0)) if match else None
    return None


_YEAR = re.compile(r"(?<![0-9])(1[5-9][0-9]{2}|20[0-9]{2})(?![0-9])")


def _unique(values: Iterable[str | None], *, drop: Iterable[str | None] = ()) -> tuple[str, ...]:
    found = dict.fromkeys(values)
    found.pop(None, None)
    found.pop("", None)
    for name in drop:
        found.pop(name, None)
    return tuple(found)  # type: ignore[arg-type]


#: The most authors a record keeps: what ``citeproof.refs.scoring`` compares (collaboration
#: papers list thousands, and every one would be stored and indexed for nothing).
MAX_AUTHORS = 100


def _values(**fields: Any) -> tuple[Any, ...]:
    for name in _TUPLES:
        value = fields.get(name)
        fields[name] = tuple(value) if value else ()
    fields["is_notice"] = bool(fields.get("is_notice"))
    authors = fields["authors"]
    if len(authors) > MAX_AUTHORS:
        fields["authors"] = authors[:MAX_AUTHORS]
    return tuple(map(fields.get, FIELDS))


_KIND_WORDS = re.compile(r"[\s_-]+")


def notice_kind(raw: str) -> str:
    """``"Expression of Concern"`` / ``partial-retraction`` -> snake case, lower (Crossref's
    update types, which PubMed's and Retraction Watch's words are mapped onto)."""
    return _KIND_WORDS.sub("_", raw.strip().lower()).strip("_") or "unknown"


# --- Crossref -------------------------------------------------------------------------------

_CROSSREF_DATES = ("issued", "published-print", "published-online", "created")
_VERSION_RELATIONS = ("has-preprint", "is-preprint-of", "has-version", "is-version-of")


def _date_parts(value: Any) -> str | None:
    parts = _dict(value).get("date-parts")
    if not (isinstance(parts, list) and parts and isinstance(parts[0], list)):
        return None
    numbers = [p for p in parts[0] if isinstance(p, int) and not isinstance(p, bool)]
    if not numbers:
        return None
    return "-".join([f"{numbers[0]:04d}", *(f"{n:02d}" for n in numbers[1:3])])


def _person(raw: Any, family: str = "family", given: str = "given") -> str | None:
    if not isinstance(raw, dict):
        return None
    last, first = plain_text(raw.get(family)), plain_text(raw.get(given))
    if last and first:
        return f"{last}, {first}"
    return last or plain_text(raw.get("name")) or first


def crossref_item(item: Mapping[str, Any]) -> Parsed | None:
    """One item of the Crossref public data file (a ``works/{doi}`` message)."""
    doi = normalise_id("doi", item.get("DOI") or "") if isinstance(item.get("DOI"), str) else None
    if doi is None:
        return None
    titles = _all(item.get("title"))
    title = titles[0] if titles else None
    venues = _all(item.get("container-title"))
    kind = plain_text(item.get("type"))
    year = next((int(d[:4]) for n in _CROSSREF_DATES if (d := _date_parts(item.get(n)))), None)
    notices: list[Notice] = []
    for raw in _list(item.get("update-to")):
        other = id_key("doi", _dict(raw).get("DOI"))
        if other and other != f"doi:{doi}" and (kind_ := plain_text(_dict(raw).get("type"))):
            notices.append(_crossref_notice(raw, other, f"doi:{doi}", kind_))
    for raw in _list(item.get("updated-by")):
        other = id_key("doi", _dict(raw).get("DOI"))
        if (kind_ := plain_text(_dict(raw).get("type"))) and other != f"doi:{doi}":
            notices.append(_crossref_notice(raw, f"doi:{doi}", other, kind_))
    subtitles = [f"{title}: {s}" for s in _all(item.get("subtitle")) if title and s not in title]
    values = _values(
        source="crossref",
        doi=doi,
        title=title,
        authors=[a for raw in _list(item.get("author"))[:MAX_AUTHORS] if (a := _person(raw))],
        year=year,
        venue=venues[0] if venues else None,
        kind=kind,
        is_notice=any(n.target != f"doi:{doi}" for n in notices),
        volume=plain_text(item.get("volume")),
        issue=plain_text(item.get("issue")),
        pages=plain_text(item.get("page")) or plain_text(item.get("article-number")),
        other_titles=_unique(
            [
                *subtitles,
                *_all(item.get("original-title")),
                *_all(item.get("short-title")),
                *titles[1:],
            ],
            drop=[title],
        ),
        venue_names=_unique([*venues[1:], *_all(item.get("short-container-title"))]),
        issn=_unique(plain_text(i) for i in _list(item.get("ISSN"))),
        types=_unique([kind, plain_text(item.get("subtype"))]),
        related=_crossref_related(item.get("relation")),
    )
    indexed = _dict(item.get("indexed")).get("date-time")
    return Parsed(
        rkey=f"crossref:{doi}",
        version=0,
        ids=(f"doi:{doi}",),
        values=values,
        notices=tuple(notices),
        date=indexed[:10] if isinstance(indexed, str) else _date_parts(item.get("deposited")),
    )


def _crossref_notice(raw: Any, target: str, notice: str | None, kind: str) -> Notice:
    entry = _dict(raw)
    return Notice(
        target=target,
        kind=notice_kind(kind),
        notice=notice,
        date=_date_parts(entry.get("updated")),
        source="crossref",
        label=plain_text(entry.get("label")),
        record_id=plain_text(entry.get("record-id")),
    )


def _crossref_related(value: Any) -> tuple[str, ...]:
    relation = _dict(value)
    out: list[str] = []
    for name in _VERSION_RELATIONS:
        for raw in _list(relation.get(name)):
            entry = _dict(raw)
            id_type = entry.get("id-type")
            kind = "doi" if id_type == "doi" else "arxiv" if id_type == "arxiv" else None
            target = id_key(kind, entry.get("id")) if kind else None
            if target:
                out.append(f"{name}:{target}")
    return _unique(out)


# --- OpenAlex -------------------------------------------------------------------------------

_OPENALEX_NOTICE_TYPES = frozenset({"retraction", "erratum"})
_DOI_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\..+)$", re.IGNORECASE)


def openalex_work(work: Mapping[str, Any]) -> Parsed | None:
    """One line of the OpenAlex works snapshot."""
    raw_id = work.get("id")
    bare_id = normalise_id("openalex", raw_id) if type(raw_id) is str else None
    if bare_id is None:
        return None
    wid = f"openalex:{bare_id}"
    ids = work.get("ids")
    ids = ids if type(ids) is dict else {}
    doi = id_key("doi", ids.get("doi") or work.get("doi"))
    pmid = id_key("pmid", _url_tail(ids.get("pmid"))) if ids.get("pmid") else None
    pmcid = id_key("pmcid", _url_tail(ids.get("pmcid"))) if ids.get("pmcid") else None
    kind = plain_text(work.get("type"))
    primary = _dict(work.get("primary_location"))
    source = _dict(primary.get("source"))
    venue = plain_text(source.get("display_name")) or plain_text(
        _dict(work.get("host_venue")).get("display_name")
    )
    others = work.get("locations")
    locations = (
        [primary, *(x for x in others if type(x) is dict)] if type(others) is list else [primary]
    )
    names: list[str | None] = []
    related: list[str] = []
    for location in locations:
        where = location.get("source")
        if type(where) is dict:
            names.append(plain_text(where.get("display_name")))
            names.append(plain_text(where.get("abbreviated_title")))
        key = _location_key(location.get("landing_page_url"))
        if key and key != doi:
            related.append(f"has-version:{key}")
    authors = []
    for entry in _list(work.get("authorships"))[:MAX_AUTHORS]:
        if type(entry) is dict:
            person = entry.get("author")
            name = plain_text(person.get("display_name")) if type(person) is dict else None
            if name := name or plain_text(entry.get("raw_author_name")):
                authors.append(name)
    biblio = _dict(work.get("biblio"))
    first, last = plain_text(biblio.get("first_page")), plain_text(biblio.get("last_page"))
    issn = source.get("issn")
    if type(issn) is not list:
        issn = [source.get("issn_l")]
    notices: tuple[Notice, ...] = ()
    if work.get("is_retracted") is True:
        notices = (
            Notice(target=wid, kind="retraction", notice=None, date=None, source="openalex"),
        )
    values = _values(
        source="openalex",
        doi=_bare(doi),
        pmid=_bare(pmid),
        pmcid=_bare(pmcid),
        openalex=bare_id,
        title=plain_text(work.get("title")) or plain_text(work.get("display_name")),
        authors=authors,
        year=_year(work.get("publication_year")),
        venue=venue,
        kind=kind,
        is_notice=kind in _OPENALEX_NOTICE_TYPES,
        volume=plain_text(biblio.get("volume")),
        issue=plain_text(biblio.get("issue")),
        pages=f"{first}-{last}" if first and last and last != first else first,
        venue_names=_unique(names, drop=[venue]),
        issn=_unique(plain_text(i) for i in issn),
        types=_unique([kind, plain_text(work.get("type_crossref"))]),
        related=_unique(related),
    )
    updated = work.get("updated_date")
    return Parsed(
        rkey=f"openalex:{bare_id}",
        version=0,
        ids=tuple(k for k in (wid, doi, pmid, pmcid) if k),
        values=values,
        notices=notices,
        date=updated[:10] if type(updated) is str else None,
    )


def _bare(key: str | None) -> str | None:
    return key.split(":", 1)[1] if key else None


def _url_tail(value: Any) -> Any:
    return value.rstrip("/").rsplit("/", 1)[-1] if isinstance(value, str) else value


def _location_key(url: Any) -> str | None:
    if not isinstance(url, str):
        return None
    match = _DOI_URL.match(url.strip())
    if match:
        return id_key("doi", match.group(1))
    if "arxiv.org/abs/" in url:
        return id_key("arxiv", url.strip())
    return None


def openalex_merge(row: Mapping[str, str]) -> Deletion | None:
    """One row of the snapshot's ``merged_ids`` CSV: the merged-away work goes, its id
    pointing to the work it was merged into."""
    gone = id_key("openalex", row.get("id"))
    into = id_key("openalex", row.get("merge_into_id"))
    return Deletion(f"openalex:{_bare(gone)}", into) if gone else None


# --- DataCite -------------------------------------------------------------------------------

_DATACITE_VERSIONS = {
    "IsPreprintOf": "is-preprint-of",
    "HasPreprint": "has-preprint",
    "IsVersionOf": "is-version-of",
    "HasVersion": "has-version",
    "IsIdenticalTo": "is-identical-to",
}


def datacite_resource(resource: Mapping[str, Any]) -> Parsed | None:
    """One DOI record of the DataCite public data file (a JSON:API ``dois`` resource, or its
    ``attributes`` alone)."""
    attributes = _dict(resource.get("attributes")) or dict(resource)
    doi = normalise_id("doi", str(attributes.get("doi") or resource.get("id") or ""))
    if doi is None:
        return None
    entries = [t for t in _list(attributes.get("titles")) if isinstance(t, dict)]
    entries.sort(key=lambda t: t.get("titleType") is not None)
    title = next((t for e in entries if (t := plain_text(e.get("title")))), None)
    others: list[str] = []
    for entry in entries:
        text = plain_text(entry.get("title"))
        if text and text != title:
            subtitle = entry.get("titleType") == "Subtitle" and title
            others.append(f"{title}: {text}" if subtitle else text)
    types = _dict(attributes.get("types"))
    container = plain_text(_dict(attributes.get("container")).get("title"))
    publisher = attributes.get("publisher")
    publisher = plain_text(publisher.get("name") if isinstance(publisher, dict) else publisher)
    arxiv = doi[len("10.48550/arxiv.") :] if doi.startswith("10.48550/arxiv.") else None
    related = []
    for raw in _list(attributes.get("relatedIdentifiers")):
        entry = _dict(raw)
        relation = _DATACITE_VERSIONS.get(str(entry.get("relationType")))
        id_type = str(entry.get("relatedIdentifierType") or "").lower()
        target = (
            id_key(id_type, entry.get("relatedIdentifier")) if id_type in ("doi", "arxiv") else None
        )
        if relation and target and target != f"doi:{doi}":
            related.append(f"{relation}:{target}")
    values = _values(
        source="datacite",
        doi=doi,
        arxiv=normalise_id("arxiv", arxiv) if arxiv else None,
        title=title,
        authors=[
            a
            for raw in _list(attributes.get("creators"))
            if (a := _person(raw, "familyName", "givenName"))
        ],
        year=_year(attributes.get("publicationYear")),
        venue=container or publisher,
        kind=plain_text(types.get("resourceTypeGeneral")),
        other_titles=_unique(others),
        venue_names=_unique([publisher], drop=[container or publisher]),
        types=_unique(
            plain_text(types.get(k)) for k in ("resourceTypeGeneral", "resourceType", "citeproc")
        ),
        related=_unique(related),
    )
    updated = attributes.get("updated")
    return Parsed(
        rkey=f"datacite:{doi}",
        version=0,
        ids=_ids(("doi", doi), ("arxiv", arxiv or "")),
        values=values,
        date=updated[:10] if isinstance(updated, str) else None,
    )


# --- arXiv ----------------------------------------------------------------------------------

_LATEX_ACCENT = re.compile(r"\\([`'^\"~=.uvHc])\{?\\?([A-Za-z])\}?")
_ACCENTS = {
    "`": "\u0300",
    "'": "\u0301",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
}
_LATEX_LETTERS = {
    r"\o": "ø",
    r"\O": "Ø",
    r"\aa": "å",
    r"\AA": "Å",
    r"\ss": "ß",
    r"\l": "ł",
    r"\L": "Ł",
    r"\ae": "æ",
    r"\AE": "Æ",
    r"\oe": "œ",
    r"\i": "ı",
}
_LATEX_LETTER = re.compile(r"\{?(\\(?:aa|AA|ss|ae|AE|oe|o|O|l|L|i))\b\}?")


def _delatex(text: str | None) -> str | None:
    """The LaTeX accents arXiv metadata keeps (``Bal\\'azs``) as the letters they print;
    anything else of TeX is left as written."""
    if not text or "\\" not in text:
        return text
    text = _LATEX_ACCENT.sub(
        lambda m: unicodedata.normalize("NFC", m.group(2) + _ACCENTS[m.group(1)]), text
    )
    text = _LATEX_LETTER.sub(lambda m: _LATEX_LETTERS[m.group(1)], text)
    return " ".join(text.replace("{", "").replace("}", "").split()) or None


def arxiv_record(entry: Mapping[str, Any]) -> Parsed | None:
    """One line of the arXiv metadata snapshot."""
    raw_id = entry.get("id")
    arxiv = normalise_id("arxiv", raw_id) if isinstance(raw_id, str) else None
    if arxiv is None:
        return None
    authors = []
    for parts in _list(entry.get("authors_parsed")):
        names = [_delatex(plain_text(p)) for p in _list(parts)]
        last, first = [*names, None, None][:2]
        if last:
            authors.append(f"{last}, {first}" if first else last)
    if not authors and isinstance(entry.get("authors"), str):
        authors = [
            a
            for a in (_delatex(plain_text(x)) for x in re.split(r",| and ", entry["authors"]))
            if a
        ]
    versions = _list(entry.get("versions"))
    created = _dict(versions[0]).get("created") if versions else None
    year = _year(created) if isinstance(created, str) else None
    if year is None and re.match(r"[0-9]{4}\.", arxiv):
        year = 2000 + int(arxiv[:2])
    journal = plain_text(entry.get("journal-ref"))
    doi = id_key("doi", entry.get("doi") or "")
    values = _values(
        source="arxiv",
        doi=f"10.48550/arxiv.{arxiv}",
        arxiv=arxiv,
        title=_delatex(plain_text(entry.get("title"))),
        authors=authors,
        year=year,
        venue="arXiv",
        kind="preprint",
        venue_names=_unique([journal]),
        types=("preprint",),
        related=(f"is-preprint-of:{doi}",) if doi else (),
    )
    updated = entry.get("update_date")
    return Parsed(
        rkey=f"arxiv:{arxiv}",
        version=0,
        ids=(f"arxiv:{arxiv}", f"doi:10.48550/arxiv.{arxiv}"),
        values=values,
        date=updated[:10] if isinstance(updated, str) else None,
    )


# --- PubMed ---------------------------------------------------------------------------------

#: CommentsCorrections RefTypes that are notices: (kind, whether the *other* record is the
#: notice (``…In``) or this record is (``…Of``/``…For``/``…From``)).
_PUBMED_LINKS: dict[str, tuple[str, bool]] = {
    "RetractionIn": ("retraction", True),
    "RetractionOf": ("retraction", False),
    "PartialRetractionIn": ("partial_retraction", True),
    "PartialRetractionOf": ("partial_retraction", False),
    "ExpressionOfConcernIn": ("expression_of_concern", True),
    "ExpressionOfConcernFor": ("expression_of_concern", False),
    "ErratumIn": ("erratum", True),
    "ErratumFor": ("erratum", False),
    "CorrectedandRepublishedIn": ("correction", True),
    "CorrectedandRepublishedFrom": ("correction", False),
    "RetractedandRepublishedIn": ("retraction", True),
    "RetractedandRepublishedFrom": ("retraction", False),
}
_PUBMED_NOTICE_TYPES = frozenset(
    {"retraction of publication", "published erratum", "expression of concern"}
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}


def _text(el: etree._Element | None) -> str | None:
    if el is None:
        return None
    return plain_text("".join(el.itertext()))


def _xml_date(el: etree._Element | None) -> str | None:
    if el is None:
        return None
    year = _year(el.findtext("Year"))
    if year is None:
        return None
    month_text = (el.findtext("Month") or "").strip()
    month = int(month_text) if month_text.isdigit() else _MONTHS.get(month_text[:3].lower())
    day_text = (el.findtext("Day") or "").strip()
    if month is None:
        return f"{year:04d}"
    if not day_text.isdigit():
        return f"{year:04d}-{month:02d}"
    return f"{year:04d}-{month:02d}-{int(day_text):02d}"


def pubmed_article(el: etree._Element) -> Parsed | None:
    """One ``PubmedArticle`` (or ``PubmedBookArticle``) of a baseline or update file."""
    citation = _pubmed_citation(el)
    if citation is None:
        return None
    pmid, version = _pubmed_pmid(citation)
    if pmid is None:
        return None
    book = citation.find("Book")
    article = citation.find("Article")
    container = article if article is not None else citation
    journal = container.find("Journal")
    issue = journal.find("JournalIssue") if journal is not None else None
    title = _pubmed_title(container, book)
    types = _unique(_text(t) for t in container.iterfind("PublicationTypeList/PublicationType"))
    doi, pmcid = _pubmed_ids(el.find("PubmedData"), container)
    venue, venue_names, issns = _pubmed_venue(citation, journal, book)
    values = _values(
        source="pubmed",
        doi=doi,
        pmid=pmid,
        pmcid=pmcid,
        title=title,
        authors=[
            a for author in container.iterfind("AuthorList/Author") if (a := _pubmed_author(author))
        ],
        year=_pubmed_year(container, issue, book),
        venue=venue,
        kind=types[0] if types else None,
        is_notice=any(t.lower() in _PUBMED_NOTICE_TYPES for t in types),
        volume=_text(issue.find("Volume")) if issue is not None else None,
        issue=_text(issue.find("Issue")) if issue is not None else None,
        pages=_pubmed_pages(container),
        other_titles=_pubmed_other_titles(container, title),
        venue_names=venue_names,
        issn=issns,
        types=types,
    )
    return Parsed(
        rkey=f"pubmed:{pmid}",
        version=version,
        ids=_ids(("pmid", pmid), ("doi", doi or ""), ("pmcid", pmcid or "")),
        values=values,
        notices=_pubmed_notices(citation, f"pmid:{pmid}", types),
        date=_xml_date(citation.find("DateRevised")) or _xml_date(citation.find("DateCompleted")),
    )


def _pubmed_citation(el: etree._Element) -> etree._Element | None:
    """The citation of an article (``MedlineCitation``) or of a book (``BookDocument``)."""
    citation = el.find("MedlineCitation")
    return citation if citation is not None else el.find("BookDocument")


def _pubmed_pmid(citation: etree._Element) -> tuple[str | None, int]:
    """The PMID (None when there is none, or it is no PMID) and its ``Version``: a record
    with a higher version replaces the lower."""
    pmid_el = citation.find("PMID")
    if pmid_el is None:
        return None, 1
    version_text = (pmid_el.get("Version") or "1").strip()
    version = int(version_text) if version_text.isdigit() else 1
    return normalise_id("pmid", pmid_el.text or ""), version


def _pubmed_title(container: etree._Element, book: etree._Element | None) -> str | None:
    """The article's title, or for a book chapter without one, the book's."""
    title = _text(container.find("ArticleTitle"))
    if title is None and book is not None:
        title = _text(book.find("BookTitle"))
    return title


def _pubmed_other_titles(container: etree._Element, title: str | None) -> tuple[str, ...]:
    """The original-language title, and the English one a translated title is bracketed
    as (``[Title in English].``), which references cite."""
    vernacular = _text(container.find("VernacularTitle"))
    others = [vernacular] if vernacular else []
    if title and title.startswith("[") and "]" in title:
        others.append(title[1 : title.rindex("]")])
    return _unique(others, drop=[title])


def _pubmed_year(
    container: etree._Element, issue: etree._Element | None, book: etree._Element | None
) -> int | None:
    """The issue's (or the book's) publication year, else the electronic article date's:
    what a reference prints."""
    pub_date = issue.find("PubDate") if issue is not None else None
    if pub_date is None and book is not None:
        pub_date = book.find("PubDate")
    year = (
        _year(pub_date.findtext("Year") or pub_date.findtext("MedlineDate"))
        if pub_date is not None
        else None
    )
    if year is None:
        year = _year(_xml_date(container.find("ArticleDate")))
    return year


def _pubmed_ids(
    data: etree._Element | None, container: etree._Element
) -> tuple[str | None, str | None]:
    """(DOI, PMCID): the first of each in ``PubmedData``'s ArticleIdList, the DOI else from
    the article's ``ELocationID``."""
    doi = pmcid = None
    for article_id in data.iterfind("ArticleIdList/ArticleId") if data is not None else ():
        id_type = article_id.get("IdType")
        if id_type == "doi" and doi is None:
            doi = normalise_id("doi", article_id.text or "")
        elif id_type == "pmc" and pmcid is None:
            pmcid = normalise_id("pmcid", article_id.text or "")
    for location in container.iterfind("ELocationID"):
        if location.get("EIdType") == "doi" and doi is None:
            doi = normalise_id("doi", location.text or "")
    return doi, pmcid


def _pubmed_pages(container: etree._Element) -> str | None:
    """``MedlinePgn``, else the start and end pages, else an online article's ``pii``
    location (its article number)."""
    pages = _text(container.find("Pagination/MedlinePgn"))
    if pages is None:
        start = _text(container.find("Pagination/StartPage"))
        end = _text(container.find("Pagination/EndPage"))
        pages = f"{start}-{end}" if start and end else start
    if pages is None:
        pages = next(
            (
                _text(loc)
                for loc in container.iterfind("ELocationID")
                if loc.get("EIdType") == "pii"
            ),
            None,
        )
    return pages


def _pubmed_venue(
    citation: etree._Element, journal: etree._Element | None, book: etree._Element | None
) -> tuple[str | None, tuple[str, ...], tuple[str, ...]]:
    """(venue, its other names, ISSNs): the journal's title (a book's publisher when it has
    none), its ISO and NLM abbreviations, and its ISSNs with the linking one."""
    info = citation.find("MedlineJournalInfo")
    venue = _text(journal.find("Title")) if journal is not None else None
    if venue is None and book is not None:
        venue = _text(book.find("Publisher/PublisherName"))
    abbreviations = [
        _text(journal.find("ISOAbbreviation")) if journal is not None else None,
        _text(info.find("MedlineTA")) if info is not None else None,
    ]
    issns = [_text(i) for i in journal.iterfind("ISSN")] if journal is not None else []
    if info is not None:
        issns.append(_text(info.find("ISSNLinking")))
    return venue, _unique(abbreviations, drop=[venue]), _unique(issns)


def _pubmed_author(author: etree._Element) -> str | None:
    collective = _text(author.find("CollectiveName"))
    if collective:
        return collective
    last = _text(author.find("LastName"))
    initials = _text(author.find("Initials")) or _text(author.find("ForeName"))
    if last and initials:
        return f"{last} {initials}"
    return last


def _pubmed_notices(
    citation: etree._Element, own: str, types: tuple[str, ...]
) -> tuple[Notice, ...]:
    notices: list[Notice] = []
    for link in citation.iterfind("CommentsCorrectionsList/CommentsCorrections"):
        found = _PUBMED_LINKS.get(link.get("RefType") or "")
        other = id_key("pmid", link.findtext("PMID") or "")
        if found is None or other is None:
            continue
        kind, other_is_notice = found
        target, notice = (own, other) if other_is_notice else (other, own)
        notices.append(
            Notice(target, kind, notice, None, "pubmed", label=_text(link.find("RefSource")))
        )
    if "Retracted Publication" in types and not any(
        n.target == own and n.kind == "retraction" for n in notices
    ):
        notices.append(
            Notice(own, "retraction", None, None, "pubmed", label="Retracted Publication")
        )
    return tuple(notices)


def pubmed_deletions(el: etree._Element) -> list[Deletion]:
    """The PMIDs a ``DeleteCitation`` withdraws."""
    return [
        Deletion(f"pubmed:{pmid}")
        for pmid_el in el.iterfind("PMID")
        if (pmid := normalise_id("pmid", pmid_el.text or ""))
    ]


# --- DBLP -----------------------------------------------------------------------------------

#: DBLP's publication elements; ``www`` (person pages) and ``data`` are not works cited.
DBLP_RECORDS = frozenset(
    {
        "article",
        "inproceedings",
        "proceedings",
        "book",
        "incollection",
        "phdthesis",
        "mastersthesis",
    }
)
_DBLP_HOMONYM = re.compile(r"\s+[0-9]{4}$")


def dblp_record(el: etree._Element) -> Parsed | None:
    """One publication element of the DBLP dump."""
    key = el.get("key")
    dblp = normalise_id("dblp", key) if key else None
    if dblp is None:
        return None
    title = _text(el.find("title"))
    if title and title.endswith(".") and not title.endswith(".."):
        title = title[:-1]
    dois: list[str] = []
    arxivs: list[str] = []
    for ee in el.iterfind("ee"):
        found = _location_key((ee.text or "").strip())
        if found and found.startswith("doi:"):
            dois.append(found)
        elif found:
            arxivs.append(found)
    corr = dblp.startswith("journals/corr/")
    venue = _text(el.find("journal")) or _text(el.find("booktitle"))
    kind = el.tag if isinstance(el.tag, str) else None
    values = _values(
        source="dblp",
        doi=_bare(dois[0]) if dois else None,
        arxiv=_bare(arxivs[0]) if corr and arxivs else None,
        dblp=dblp,
        title=title,
        authors=[_DBLP_HOMONYM.sub("", a) for e in el.iterfind("author") if (a := _text(e))],
        year=_year(_text(el.find("year"))),
        venue=venue,
        kind=kind,
        volume=_text(el.find("volume")),
        issue=_text(el.find("number")),
        pages=_text(el.find("pages")),
        venue_names=_unique([_text(el.find("publisher")), _text(el.find("series"))], drop=[venue]),
        types=_unique([kind, el.get("publtype")]),
        related=() if corr else tuple(f"has-preprint:{a}" for a in arxivs),
    )
    return Parsed(
        rkey=f"dblp:{dblp}",
        version=0,
        ids=(f"dblp:{dblp}", *dois, *(arxivs if corr else ())),
        values=values,
        date=el.get("mdate"),
    )


# --- Retraction Watch -----------------------------------------------------------------------

_RW_NATURES = {
    "retraction": "retraction",
    "expression of concern": "expression_of_concern",
    "correction": "correction",
    "reinstatement": "reinstatement",
}
_RW_NONE = frozenset({"", "unavailable", "na", "n/a", "none", "0"})


def _rw_date(value: str) -> str | None:
    head = value.strip().split(" ")[0]
    if not head:
        return None
    parts = head.split("/")
    if len(parts) == 3 and all(p.isdigit() for p in parts):
        month, day, year = (int(p) for p in parts)
        return f"{year:04d}-{month:02d}-{day:02d}"
    return head[:10]


def _rw_id(kind: str, value: str) -> str | None:
    text = value.strip().removesuffix(".0")
    return None if text.lower() in _RW_NONE else id_key(kind, text)


def retraction_watch_row(row: Mapping[str, str]) -> list[Notice]:
    """A Retraction Watch row: one notice per identifier of the original paper.

    The natures map to Crossref's update types as ``sources.retractionwatch`` maps them.
    """
    nature = " ".join(row.get("RetractionNature", "").split())
    kind = _RW_NATURES.get(nature.lower(), notice_kind(nature) if nature else "unknown")
    notice = _rw_id("doi", row.get("RetractionDOI", "")) or _rw_id(
        "pmid", row.get("RetractionPubMedID", "")
    )
    targets = [
        t
        for t in (
            _rw_id("doi", row.get("OriginalPaperDOI", "")),
            _rw_id("pmid", row.get("OriginalPaperPubMedID", "")),
        )
        if t
    ]
    return [
        Notice(
            target=target,
            kind=kind,
            notice=notice,
            date=_rw_date(row.get("RetractionDate", "")),
            source="retractionwatch",
            label=nature or None,
            reason=" ".join(row.get("Reason", "").split()) or None,
            record_id=row.get("Record ID", "").strip() or None,
        )
        for target in targets
    ]


# --- what the index stores and searches -----------------------------------------------------

#: Words every bibliographic text has in quantity: kept out of the search index, where they
#: would cost space and time and rank nothing.
STOPWORDS: tuple[str, ...] = (
    "a",
    "an",
    "and",
    "are",
    "as",
    "at",
    "by",
    "for",
    "from",
    "in",
    "is",
    "of",
    "on",
    "or",
    "the",
    "to",
    "with",
)


def search_text(parsed: Parsed) -> str:
    """The text a record is searched by: titles, authors, venue and its other names,
    year, volume, issue and pages, what Crossref's ``query.bibliographic`` matches a
    reference against."""
    v = dict(zip(FIELDS, parsed.values, strict=True))
    titles = " ".join(t for t in (v["title"], *v["other_titles"]) if t)
    authors = " ; ".join(v["authors"][:50])
    numbers = [str(v["year"]) if v["year"] else None, v["volume"], v["issue"], v["pages"]]
    bib = " ".join(t for t in (titles, authors, v["venue"], *v["venue_names"], *numbers) if t)
    return bib


def encode_blob(parsed: Parsed) -> bytes:
    """A record as stored: its identifiers and fields, as compact JSON (UTF-8).

    Not deflated: a record is a few hundred bytes, which deflate shrinks by a third at a
    cost of a tenth of the build's time, and the index is already a small fraction of the
    dumps' size (bench/README.md).
    """
    return json.dumps(
        [parsed.ids, *parsed.values], ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")


def decode_ids(blob: bytes) -> list[str]:
    """The identifiers of a stored record, its fields left unread."""
    ids: list[str] = json.loads(blob)[0]
    return ids


def decode_blob(blob: bytes) -> tuple[tuple[str, ...], dict[str, Any]]:
    """(identifiers, WorkRecord fields) of a stored record."""
    ids, *values = json.loads(blob)
    fields: dict[str, Any] = {}
    for name, value in zip(FIELDS, values, strict=True):
        if name in _TUPLES:
            fields[name] = tuple(value)
        elif value is not None or name == "source":
            fields[name] = value
    return tuple(ids), fields
