"""PubMed records (E-utilities ``efetch`` ``PubmedArticleSet`` XML) to Document.

A PubMed record is the only text citeproof can check for most of the literature: title and
abstract, no full text.  The XML comes from the network, so it goes through the same
hardened ``parse_xml_safely`` as JATS (no DTD, no network, no entity expansion).

Decisions:

* ``parse_pubmed`` reads the *first* ``PubmedArticle`` or ``PubmedBookArticle`` of the set,
  as ``parse_jats`` reads the first article of a ``pmc-articleset``: a Document is one work.
  ``pubmed_records`` lists every record, for callers that fetched several at once.
* The title is one block (region ``title``).  Each ``AbstractText`` is one block (region
  ``abstract``) whose section path is ``("Abstract", Label)`` for structured abstracts and
  ``("Abstract",)`` otherwise.  Labels live only in the section path, not in the text: a
  quote of the abstract never includes "BACKGROUND:", and ``citeproof text`` shows the
  abstract's prose as PubMed's own plain-text export does without the labels.
* ``OtherAbstract`` (plain-language summaries, other languages) follows, section path
  ``("Other abstract", Label)``; copyright lines are front matter, as is the journal line
  ("Lancet. 1998;351(9103):637-41"), placed after the abstract so the paper's own words
  come first.
* The DOI is taken from ``PubmedData/ArticleIdList`` (only the record's own list: each
  reference in ``ReferenceList`` has an ``ArticleIdList`` too), else ``ELocationID``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from lxml import etree

from citeproof.documents._text import Context, DocBuilder, collapse
from citeproof.documents.model import Document, DocumentMeta
from citeproof.documents.safe_xml import entity_chars, local_name, parse_xml_safely
from citeproof.errors import UnsupportedFormatError

__all__ = ["CommentCorrection", "PubmedRecord", "parse_pubmed", "pubmed_records"]

_RECORDS = ("PubmedArticle", "PubmedBookArticle")
_MAX_DEPTH = 200


class CommentCorrection(NamedTuple):
    """One ``CommentsCorrections`` link: ``RetractionIn``, ``ErratumIn``, ``CommentIn`` ...

    ``pmid`` is None when PubMed gives only a ``RefSource`` (older notices often do), which
    is kept because a retraction notice without a PMID is still a retraction notice.
    """

    ref_type: str
    pmid: str | None
    source: str | None = None


@dataclass(frozen=True, slots=True)
class PubmedRecord:
    """What the retraction and resolution code needs from one PubMed record."""

    pmid: str | None
    title: str | None
    publication_types: list[str]
    comments_corrections: list[CommentCorrection]
    doi: str | None = None
    pmcid: str | None = None


def parse_pubmed(data: bytes) -> Document:
    """Parse the first record of an efetch ``PubmedArticleSet`` into title + abstract blocks."""
    record = next(_records(_root(data)), None)
    if record is None:
        raise UnsupportedFormatError(
            "The PubMed answer holds no PubmedArticle or PubmedBookArticle (the PMID may not "
            "exist); check the identifier and try again."
        )
    return _Reader(record).run()


def pubmed_records(data: bytes) -> list[PubmedRecord]:
    """Every record in an efetch answer, with publication types and comments/corrections."""
    out: list[PubmedRecord] = []
    for record in _records(_root(data)):
        ids = _ids(record)
        title = _title_el(record)
        out.append(
            PubmedRecord(
                pmid=_pmid(record),
                title=_inline_text(title) if title is not None else None,
                publication_types=[
                    t
                    for t in (_inline_text(p) for p in _descendants(record, "PublicationType"))
                    if t
                ],
                comments_corrections=[
                    CommentCorrection(
                        cc.get("RefType", ""),
                        _child_text(cc, "PMID"),
                        _child_text(cc, "RefSource"),
                    )
                    for cc in _descendants(record, "CommentsCorrections")
                ],
                doi=ids.get("doi"),
                pmcid=ids.get("pmc"),
            )
        )
    return out


# --- finding things in a record -----------------------------------------------------------


def _root(data: bytes) -> etree._Element | None:
    root = parse_xml_safely(data)
    if root is not None and local_name(root) not in ("PubmedArticleSet", *_RECORDS):
        raise UnsupportedFormatError(
            f"The XML has root element <{local_name(root)}>, not <PubmedArticleSet>; supply "
            "an E-utilities efetch answer (db=pubmed, retmode=xml)."
        )
    return root


def _records(root: etree._Element | None) -> Iterator[etree._Element]:
    if root is None:
        return iter(())
    if local_name(root) in _RECORDS:
        return iter((root,))
    return (el for el in root if local_name(el) in _RECORDS)


def _kid(el: etree._Element | None, *names: str) -> etree._Element | None:
    return None if el is None else next((c for c in el if local_name(c) in names), None)


def _path(el: etree._Element | None, *names: str) -> etree._Element | None:
    for name in names:
        el = _kid(el, name)
    return el


def _descendants(record: etree._Element, name: str) -> Iterator[etree._Element]:
    """Descendants named ``name`` outside ``ReferenceList`` (whose entries are other works)."""
    for el in record.iter():
        if local_name(el) == name and not any(
            local_name(up) == "ReferenceList" for up in el.iterancestors()
        ):
            yield el


def _child_text(el: etree._Element, name: str) -> str | None:
    kid = _kid(el, name)
    return (_inline_text(kid) or None) if kid is not None else None


def _citation(record: etree._Element) -> etree._Element | None:
    """``MedlineCitation`` of an article, ``BookDocument`` of a book chapter."""
    return _kid(record, "MedlineCitation", "BookDocument")


def _article(record: etree._Element) -> etree._Element | None:
    citation = _citation(record)
    return _kid(citation, "Article") if local_name(record) == "PubmedArticle" else citation


def _pmid(record: etree._Element) -> str | None:
    pmid = _kid(_citation(record), "PMID")
    return collapse(pmid.text or "") or None if pmid is not None else None


def _title_el(record: etree._Element) -> etree._Element | None:
    article = _article(record)
    title = _kid(article, "ArticleTitle")
    if title is None or not _inline_text(title):
        book = _kid(_kid(article, "Book"), "BookTitle")
        title = book if book is not None else title
    return title


def _ids(record: etree._Element) -> dict[str, str]:
    """The record's own identifiers: ArticleIdList first, ELocationID as the fallback."""
    ids: dict[str, str] = {}
    data = _kid(record, "PubmedData", "PubmedBookData")
    for aid in _kids(_kid(data, "ArticleIdList"), "ArticleId"):
        value = collapse(aid.text or "")
        if value:
            ids.setdefault(aid.get("IdType", ""), value)
    for loc in _kids(_article(record), "ELocationID"):
        value = collapse(loc.text or "")
        if value and loc.get("ValidYN", "Y") == "Y":
            ids.setdefault(loc.get("EIdType", ""), value)
    if "pmc" in ids:
        ids["pmc"] = "PMC" + ids["pmc"].upper().removeprefix("PMC")
    return ids


def _kids(el: etree._Element | None, name: str) -> Iterator[etree._Element]:
    return iter(()) if el is None else (c for c in el if local_name(c) == name)


def _inline_text(el: etree._Element) -> str:
    b = DocBuilder(Context("paragraph", "body", single=True))
    _inline(b, el, 0)
    return collapse(" ".join(b.block_texts()))


def _inline(b: DocBuilder, el: etree._Element, depth: int) -> None:
    """Mixed content (``<i>``, ``<sup>``, MathML) as the text a reader sees."""
    b.add(el.text)
    for child in el:
        name = local_name(child)
        if not name:
            if isinstance(child, etree._Entity):
                b.add(entity_chars(child.name))
        elif name == "math" or depth > _MAX_DEPTH:
            b.add("".join(collapse(t) for t in child.itertext()))
        else:
            _inline(b, child, depth + 1)
        b.add(child.tail)


def _journal_line(article: etree._Element | None) -> str:
    """The journal line, "Journal. Year;Volume(Issue):Pages", from Journal and Pagination."""
    journal = _kid(article, "Journal")
    if journal is None:
        return ""
    name = _child_text(journal, "Title") or _child_text(journal, "ISOAbbreviation") or ""
    issue = _kid(journal, "JournalIssue")
    date = _kid(issue, "PubDate")
    year = ""
    if date is not None:
        year = _child_text(date, "Year") or _child_text(date, "MedlineDate") or ""
    volume = _child_text(issue, "Volume") if issue is not None else None
    number = _child_text(issue, "Issue") if issue is not None else None
    pages = _path(article, "Pagination", "MedlinePgn")
    line = year + (f";{volume}" if volume else "") + (f"({number})" if number else "")
    if pages is not None and pages.text:
        line += ":" + collapse(pages.text)
    return f"{name}. {line}".strip(" .") if line else name


# --- the Document -----------------------------------------------------------------------------


class _Reader:
    """Builds the Document of one record: title, abstract(s), then front matter."""

    def __init__(self, record: etree._Element) -> None:
        self.record = record
        self.b = DocBuilder(Context("paragraph", "abstract"))

    def run(self) -> Document:
        record, article = self.record, _article(self.record)
        title_el = _title_el(record)
        if title_el is not None:
            self._block(title_el, Context("title", "title"))
        self._abstract(_kid(article, "Abstract"), ("Abstract",))
        for other in _kids(_citation(record), "OtherAbstract"):
            self._abstract(other, ("Other abstract",))
        self._literal(_journal_line(article), Context("journal", "front-matter"))
        ids = _ids(record)
        meta = DocumentMeta(
            title=_inline_text(title_el) or None if title_el is not None else None,
            doi=ids.get("doi"),
            pmid=_pmid(record),
            pmcid=ids.get("pmc"),
        )
        text = self.b.text()
        return Document(text=text, blocks=self.b.blocks, format="pubmed", meta=meta)

    def _abstract(self, abstract: etree._Element | None, section: tuple[str, ...]) -> None:
        if abstract is None:
            return
        for part in abstract:
            name = local_name(part)
            if name == "AbstractText":
                label = collapse(part.get("Label") or "")
                path = (*section, label) if label else section
                self._block(part, Context("paragraph", "abstract", path))
            elif name == "CopyrightInformation":
                self._block(part, Context("copyright", "front-matter", section))

    def _block(self, el: etree._Element, ctx: Context) -> None:
        old = self.b.begin(ctx)
        _inline(self.b, el, 0)
        self.b.begin(old)

    def _literal(self, text: str, ctx: Context) -> None:
        old = self.b.begin(ctx)
        self.b.add(text)
        self.b.begin(old)
