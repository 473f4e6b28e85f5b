"""RIS files (EndNote, Zotero, Mendeley, publisher exports), read with rispy.

Fields: the title is ``TI`` or ``T1``; authors ``AU`` and ``A1`` (editors, ``A2``, are not
the work's authors); the year the first of ``PY``, ``Y1`` or ``DA`` that holds one; the
venue the first of ``T2``, ``JO``, ``JF``, ``JA`` and ``J2`` (``T2`` is the journal or the
book a chapter is in); ``DO`` the DOI; ``TY`` the kind (``JOUR``, ``BOOK`` ...); ``ID`` the
label; ``UR`` URLs that name a DOI, PMID or PMCID fill those fields when ``DO`` and the
rest are missing, other URLs go to ``extra_ids``.

A PMID is taken only where it cannot be anything else, because RIS has no PMID tag and
``AN`` (accession number) holds whatever the exporting database numbers its records by:
an ``AN``, ``C2``, ``M1`` or note written ``PMID: 123`` (or ``PMCID: PMC123``), or a bare
``AN`` number when ``DB``/``DP`` says the record came from PubMed or MEDLINE.

A record is ``TY  - `` to ``ER  - ``; tags RIS does not define are passed over; rispy
drops a last record that has no ``ER``, so one is added; ``where`` is ``line N`` of the
record's ``TY`` line.

Reading is streamed (:func:`iter_ris`): the lines are read one by one and handed to rispy a
few hundred records at a time, each batch cut before the ``TY`` line of a record, so a
list of 50,000 records never holds its text twice over, nor all of rispy's records at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import rispy  # type: ignore[import-untyped]

from citeproof.identifiers import find_identifiers
from citeproof.refs.listed import from_fields
from citeproof.refs.stated import StatedReference, year_in

__all__ = ["iter_ris", "read_ris"]

_TAG = re.compile(r"([A-Z][A-Z0-9])  -")  # what rispy takes for a tag line
_PUBMED = re.compile(r"pubmed|medline|\bnlm\b", re.IGNORECASE)
_LABELLED_SOURCES = ("accession_number", "custom2", "note", "notes")
_VENUES = ("secondary_title", "journal_name", "alternate_title3", "alternate_title2")
_YEARS = ("year", "publication_year", "date")
#: Records handed to rispy at once.
_RECORDS_PER_READ = 500


def read_ris(text: str) -> list[StatedReference]:
    """Every record of a RIS file, in file order (module rules)."""
    return list(iter_ris(text))


def iter_ris(text: str) -> Iterator[StatedReference]:
    """The records of a RIS file one by one, in file order (module rules)."""
    text = text.lstrip("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines: list[str] = []
    starts: list[int] = []
    inside = False
    closed = 0
    for number, line in enumerate(_lines(text), start=1):
        tag = _TAG.match(line)
        # A batch ends before a ``TY`` tag line that starts a record, so what comes between
        # records stays with the record before it, as in the whole text.
        if closed >= _RECORDS_PER_READ and not inside and tag and tag.group(1) == "TY":
            yield from _read(lines, starts)
            lines, starts, closed = [], [], 0
        lines.append(line)
        # The line number of each record's ``TY``, read the way rispy reads records.
        if not inside and line.startswith("TY"):
            inside = True
            starts.append(number)
        elif inside and tag and tag.group(1) == "ER":
            inside = False
            closed += 1
    yield from _read(lines, starts)


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` (split on ``\\n`` only), one at a time."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


def _read(lines: list[str], starts: list[int]) -> Iterator[StatedReference]:
    text = _unwrapped(lines)
    if starts and not _closed(text):
        text += "\nER  - \n"
    try:
        records: list[dict[str, Any]] = rispy.loads(text, skip_unknown_tags=True)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f"The RIS file could not be read ({type(exc).__name__}: {exc}).") from None
    for i, record in enumerate(records):
        yield _reference(record, f"line {starts[i]}" if i < len(starts) else None)


def _unwrapped(lines: list[str]) -> str:
    """Continuation lines joined to their tag's line and blank lines dropped, as rispy would
    read them, except that rispy fails on either right after a ``TY`` line (it continues
    the previous record's last tag)."""
    out: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        if out and not _TAG.match(line) and _TAG.match(out[-1]):
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def _closed(text: str) -> bool:
    """Whether the last record ends with ``ER``."""
    for line in reversed(text.split("\n")):
        if m := _TAG.match(line):
            return m.group(1) == "ER"
    return True


def _reference(record: dict[str, Any], where: str | None) -> StatedReference:
    authors = [*_values(record.get("authors")), *_values(record.get("first_authors"))]
    year = next((y for y in (year_in(_one(record.get(k))) for k in _YEARS) if y), None)
    venue = next(
        (v for v in (_one(record.get(k)) for k in (*_VENUES, "alternate_title1")) if v), None
    )
    pmid, pmcid = _pubmed_ids(record)
    return from_fields(
        title=_one(record.get("title")) or _one(record.get("primary_title")) or None,
        authors=authors,
        year=year,
        venue=venue,
        doi=_one(record.get("doi")) or None,
        pmid=pmid,
        pmcid=pmcid,
        label=_one(record.get("id")) or None,
        where=where,
        kind=_one(record.get("type_of_reference")) or None,
        urls=_values(record.get("urls")),
    )


def _values(value: Any) -> list[str]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    return [s for s in (" ".join(str(v).split()) for v in items) if s]


def _one(value: Any) -> str:
    values = _values(value)
    return values[0] if values else ""


def _pubmed_ids(record: dict[str, Any]) -> tuple[str | None, str | None]:
    """A PMID and PMCID only where the record writes them as such (module rules)."""
    pmid: str | None = None
    pmcid: str | None = None
    for key in _LABELLED_SOURCES:
        for value in _values(record.get(key)):
            for ident in find_identifiers(value):
                if ident.kind == "pmid" and pmid is None:
                    pmid = ident.value
                elif ident.kind == "pmcid" and pmcid is None:
                    pmcid = ident.value
    accession = _one(record.get("accession_number"))
    source = f"{_one(record.get('name_of_database'))} {_one(record.get('database_provider'))}"
    if pmid is None and accession.isdigit() and _PUBMED.search(source):
        pmid = accession
    return pmid, pmcid
