"""An editor's own copies of the cited works (``citeproof manuscript --sources DIR``): read
each file, and match it to the reference entry it is a copy of.

Why: most cited works are not open access, so their text cannot be fetched; an editor often
holds the PDFs.  Given the folder, each quotation of such a work is checked against the
editor's copy instead.  A file must say which work it is, in its own words, since file names
are whatever a download gave:

1. **an identifier**: a DOI, PMID or PMCID the file names in its first
   :data:`HEAD_CHARS` characters (where an article prints its own; its reference list at the
   end names other works) or in its metadata (a JATS ``<article-id>``, an HTML
   ``citation_doi``), equal to one the entry's work goes by: the work ``refs`` verified (or
   found with differing fields), else the work the stated metadata describes when the
   entry's identifier names another (a mismatch: the stated identifier is then known to be
   wrong and never matches), else the entry's own identifier (and a reference manager's
   item's, for an entry of a Word file's field: many styles print no DOI);
2. else **the title and the first author**: the entry's first author's surname (for an
   entry the reader could not split, its first word) in the file's first
   :data:`HEAD_CHARS` characters, and the title one way or the other: the entry's title (of
   three words or more; a shorter one only with the entry's year there too) in those
   characters, or the file's own title (from its metadata: a
   JATS or HTML title) inside the entry as printed, since the reader may have cut the
   entry's title wrongly or not at all; case, accents and punctuation aside, the title whole
   or at 0.90 of rapidfuzz's ``partial_ratio`` (as ``refs`` finds a title in a printed
   string: a character a PDF could not draw, a line-end hyphen); never when the file names
   a DOI and the entry's work another.

An entry takes the file that says so best: an identifier and the title with the first
author, then the title with the first author, then an identifier alone (an identifier the
entry states can be wrong, as a mismatch's is, and ``refs`` may not have been asked: the
title then decides), the first by name among equals; a file may be the copy of several
entries (a work listed twice).  A file matched to nothing, or that could not be read, is
reported with the reason.  Files are read as ``citeproof check`` reads a file (PDF,
JATS/XML, HTML, plain text), at most :data:`MAX_FILES` of them, the folder's own files and
those of its subfolders, links and hidden files passed over.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from rapidfuzz import fuzz

from citeproof.documents.model import Document
from citeproof.errors import BadInputError, CiteproofError, SourceNotFoundError
from citeproof.identifiers import find_identifiers
from citeproof.loading.files import document_from_bytes, file_origin, read_bytes
from citeproof.models.manuscript import EditorCopy
from citeproof.models.references import ReferenceResult
from citeproof.refs.stated import StatedReference, fold, surname

__all__ = [
    "FILE_SUFFIXES",
    "HEAD_CHARS",
    "MAX_FILES",
    "Copies",
    "WorkIds",
    "list_files",
    "match_copies",
    "read_copy",
    "work_ids",
]

#: Characters of a file's text where its own identifiers and title are looked for.
HEAD_CHARS: Final = 5_000
#: Files of --sources read at most.
MAX_FILES: Final = 1_000
FILE_SUFFIXES: Final = (".pdf", ".xml", ".nxml", ".html", ".htm", ".txt", ".md", ".text")
_MIN_TITLE_WORDS: Final = 3
#: How close a title must stand in a file's head (refs' threshold for a title: 0.90).
_TITLE_SCORE: Final = 0.90

MatchedBy = Literal["doi", "pmid", "pmcid", "title_author"]
Basis = Literal["verified", "partial", "suggested", "stated"]


@dataclass(frozen=True, slots=True)
class WorkIds:
    """The identifiers the work an entry cites goes by, and where they came from."""

    keys: tuple[str, ...]
    """``doi:…``, ``pmid:…``, ``pmcid:…``, best first (what a quotation is checked against)."""
    basis: Basis | None
    title: str | None
    first_author: str | None
    text: str = ""
    """The entry as printed, folded: where a file's own title is looked for when the reader
    could not tell the entry's title (a style it does not know)."""
    year: int | None = None


@dataclass(slots=True)
class Copies:
    """The outcome of matching: each entry's copy, and every file's record."""

    documents: dict[str, Document] = field(default_factory=dict)
    """Entry id -> the Document of its copy."""
    files: dict[str, str] = field(default_factory=dict)
    """Entry id -> the copy's path inside the folder."""
    matched_by: dict[str, MatchedBy] = field(default_factory=dict)
    records: list[EditorCopy] = field(default_factory=list)


def _ids(doi: str | None, pmid: str | None, pmcid: str | None) -> list[str]:
    out = []
    if doi:
        out.append(f"doi:{doi.strip().lower()}")
    if pmid:
        out.append(f"pmid:{pmid.strip()}")
    if pmcid:
        value = pmcid.strip().upper()
        out.append(f"pmcid:{value if value.startswith('PMC') else 'PMC' + value}")
    return out


def work_ids(
    stated: StatedReference,
    result: ReferenceResult | None,
    csl: Mapping[str, Any] | None = None,
) -> WorkIds:
    """What the work an entry cites goes by (module rules, 1); ``csl`` is the item a
    reference manager stored for the entry (its DOI and PMID count as stated: many styles
    print no DOI)."""
    first = stated.authors[0] if stated.authors else None
    printed = f" {fold(stated.text)} "
    own = _ids(stated.doi, stated.pmid, stated.pmcid)
    if csl is not None:
        own += _ids(_str(csl.get("DOI")), _str(csl.get("PMID")), _str(csl.get("PMCID")))
    keys: list[str]
    basis: Basis | None
    title = stated.title
    if result is not None and result.verdict in ("verified", "partial") and result.work:
        w = result.work
        keys = _ids(w.doi, w.pmid, w.pmcid) + own
        basis = "verified" if result.verdict == "verified" else "partial"
        title = title or w.title
        first = first or (w.authors[0] if w.authors else None)
    elif result is not None and result.verdict == "mismatch":
        s = result.suggested
        keys = _ids(s.doi, s.pmid, s.pmcid) if s is not None else []
        basis = "suggested" if keys else None
    else:
        keys, basis = own, "stated" if own else None
    return WorkIds(tuple(dict.fromkeys(keys)), basis, title, first, printed, stated.year)


def _str(value: object) -> str | None:
    return str(value) if isinstance(value, str | int) and str(value).strip() else None


def list_files(folder: str | os.PathLike[str]) -> list[tuple[str, Path]]:
    """(name inside the folder, path) of each file the folder holds, sorted by name.

    Raises:
        SourceNotFoundError: the folder is not there.
        BadInputError: it holds more than :data:`MAX_FILES` readable files.
    """
    root = Path(folder)
    if not root.is_dir():
        raise SourceNotFoundError(
            f"--sources {os.fspath(folder)} is not a folder; give the folder holding your "
            "copies of the cited works (PDF, XML, HTML or text)."
        )
    found: list[tuple[str, Path]] = []
    for top, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and not (Path(top) / d).is_symlink()
        )
        for name in sorted(names):
            path = Path(top) / name
            if name.startswith(".") or not name.lower().endswith(FILE_SUFFIXES):
                continue
            if path.is_symlink() or not path.is_file():
                continue
            found.append((path.relative_to(root).as_posix(), path))
            if len(found) > MAX_FILES:
                raise BadInputError(
                    f"--sources {os.fspath(folder)} holds more than {MAX_FILES:,} files; give "
                    "a folder of the cited works only."
                )
    return sorted(found)


@dataclass(frozen=True, slots=True)
class _Head:
    keys: frozenset[str]
    dois: frozenset[str]
    words: str
    """The folded first characters, padded with spaces so whole words can be found."""
    title: str | None
    """The file's own title (its metadata's: JATS, HTML), folded."""


def _head(document: Document) -> _Head:
    head = document.text[:HEAD_CHARS]
    meta = document.meta
    keys = set(_ids(meta.doi, meta.pmid, meta.pmcid))
    for ident in find_identifiers(head):
        if ident.kind in ("doi", "pmid", "pmcid"):
            keys.update(_ids(*_one(ident.kind, ident.value)))
    dois = frozenset(k for k in keys if k.startswith("doi:"))
    title = fold(meta.title) if meta.title else None
    return _Head(frozenset(keys), dois, f" {fold(head)} ", title)


def _one(kind: str, value: str) -> tuple[str | None, str | None, str | None]:
    return (
        value if kind == "doi" else None,
        value if kind == "pmid" else None,
        value if kind == "pmcid" else None,
    )


def _by_title(work: WorkIds, head: _Head) -> bool:
    """Module rules, 2: the first author in the file's head, and the title one way or the
    other (the entry's in the file's head, or the file's own inside the entry as printed:
    the reader may have cut the entry's title wrongly, or not at all)."""
    stated_dois = {k for k in work.keys if k.startswith("doi:")}
    if head.dois and stated_dois and not head.dois & stated_dois:
        return False  # the file says it is another work
    if work.first_author:
        name = surname(work.first_author)
    else:  # the entry's first word, which is its first author's name in most styles
        name = next((w for w in work.text.split() if len(w) > 1 and w.isalpha()), "")
    if not name or f" {name} " not in head.words:
        return False
    # a title of one or two words ("Bad medicine") identifies a work only with its year
    least = 1 if work.year is not None and f" {work.year} " in head.words else _MIN_TITLE_WORDS
    title = fold(work.title) if work.title else ""
    if len(title.split()) >= least and _within(title, head.words):
        return True
    own = head.title or ""
    return len(own.split()) >= least and _within(own, work.text)


def _within(title: str, text: str) -> bool:
    """Whether the folded ``title`` stands in the folded ``text``, whole or nearly (as
    ``refs`` finds a record's title in a printed string: a character a PDF could not draw,
    a typo, a line-end hyphen do not break it)."""
    if f" {title} " in text:
        return True
    return fuzz.partial_ratio(title, text) >= _TITLE_SCORE * 100


def read_copy(path: Path) -> Document:
    """A copy's Document, read as ``citeproof check`` reads a file (under the size cap)."""
    data = read_bytes(path)
    return document_from_bytes(data, file_origin(os.fspath(path), data), path.name)


def _match(work: WorkIds, head: _Head) -> tuple[int, MatchedBy] | None:
    """How well a file's head says it is ``work``: 3 an identifier and the title with the
    first author (or the entry states no title to compare), 2 the title with the first
    author, 1 an identifier alone (a stated identifier can be wrong: the title decides
    between two files); None for no match."""
    shared = [k for k in work.keys if k in head.keys]
    titled = _by_title(work, head)
    if shared:
        kind: MatchedBy = shared[0].split(":", 1)[0]  # type: ignore[assignment]  # doi|pmid|pmcid
        comparable = bool(work.title and work.first_author)
        return (3 if titled or not comparable else 1), kind
    return (2, "title_author") if titled else None


def match_copies(
    files: Sequence[tuple[str, Path]],
    works: Mapping[str, WorkIds],
    load: Callable[[Path], Document] = read_copy,
) -> Copies:
    """Read each file with ``load`` and match it to the entries of ``works`` (entry id ->
    what its work goes by), by the module rules."""
    copies = Copies()
    heads: list[tuple[str, Path, Document, _Head]] = []
    unread: dict[str, str] = {}
    for name, path in files:
        try:
            document = load(path)
        except CiteproofError as exc:
            unread[name] = f"it could not be read: {' '.join(str(exc).split())}"
            continue
        heads.append((name, path, document, _head(document)))
    for entry_id, work in works.items():
        best: tuple[int, str, Document, MatchedBy] | None = None
        for name, _, document, head in heads:
            found = _match(work, head)
            if found is not None and (best is None or found[0] > best[0]):
                best = (found[0], name, document, found[1])
        if best is not None:
            _, name, document, matched = best
            copies.files[entry_id], copies.documents[entry_id] = name, document
            copies.matched_by[entry_id] = matched
    for name, _, document, _ in heads:
        entries = [e for e, f in copies.files.items() if f == name]
        by = copies.matched_by[entries[0]] if entries else None
        sha = document.origin.sha256 if document.origin is not None else None
        reason = None if entries else "no entry's work names this file's identifier or title"
        copies.records.append(
            EditorCopy(file=name, sha256=sha, entry_ids=entries, matched_by=by, reason=reason)
        )
    for name, reason in unread.items():
        copies.records.append(EditorCopy(file=name, reason=reason))
    copies.records.sort(key=lambda r: r.file)
    return copies
