"""Which reader a reference list needs, and reading it: bytes in, references out.

Why the name first: a bibliography's extension is chosen by the tool that wrote it and is
almost always right (``.bib``, ``.ris``, ``.json`` from Zotero or Pandoc, ``.nxml``), while
the contents of two formats can look alike (a CSL-JSON object and any other JSON).  The
rule (:func:`sniff`):

1. ``.bib``/``.bibtex`` BibTeX; ``.ris`` RIS; ``.json`` CSL-JSON; ``.xml``/``.nxml`` JATS;
   ``.pdf`` PDF.
2. ``.md``/``.markdown``/``.txt``/``.text``: ``answer`` when the text has a reference
   list (:func:`citeproof.refs.listed.read_answer_references`), else ``list``.
3. Any other name, or none: the contents decide.  ``%PDF-`` in the first KiB is a PDF;
   text that parses as a JSON array or object is CSL-JSON; otherwise the document
   detector (:func:`citeproof.documents.detect.detect_format`) refuses binary data and
   names XML, which is JATS when its root is ``article``, ``pmc-articleset`` or
   ``ref-list``; text with a line
   ``TY  - `` is RIS, text with a line starting ``@type{`` is BibTeX, and other text is
   an answer or a list as in rule 2.

:func:`read_reference_list` reads with the format given or sniffed, and says what reading
found wrong with the list (``ReadReferences.problems``: numbers a numbered list skips or
uses twice, text of a PDF's list not read as entries), so the report can carry it;
:func:`read_references` is the same without the problems.  Whatever cannot be read
raises a ValueError whose message is one sentence saying why (not valid UTF-8, not JSON,
an HTML page, a PDF without a text layer, no reference found), which the caller reports as
bad input; the readers' own errors (:class:`~citeproof.errors.CiteproofError`) become such
ValueErrors too.  A file in which the format finds no reference at all is refused the same
way: an empty result is almost always the wrong file or the wrong format.

PDFs go through the document parser (:func:`citeproof.documents.detect.parse_bytes`) and
then :func:`citeproof.refs.pdf_list.read_document_references`.  Pure: bytes in, no I/O.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Literal, get_args

from citeproof.documents.detect import detect_format, parse_bytes
from citeproof.documents.plain import parse_text
from citeproof.documents.safe_xml import scan_prolog
from citeproof.errors import CiteproofError
from citeproof.refs.bibtex import iter_bibtex, read_bibtex
from citeproof.refs.csl import read_csl
from citeproof.refs.jats_list import read_jats_references
from citeproof.refs.listed import read_answer_list, read_answer_references, read_plain_list
from citeproof.refs.pdf_list import read_document_reference_list
from citeproof.refs.ris import iter_ris, read_ris
from citeproof.refs.stated import StatedReference

__all__ = ["FORMATS", "Format", "ReadReferences", "read_reference_list", "read_references", "sniff"]

Format = Literal["bibtex", "ris", "csl", "jats", "pdf", "answer", "list"]
FORMATS: tuple[Format, ...] = get_args(Format)

_BY_EXTENSION: dict[str, Format] = {
    ".bib": "bibtex",
    ".bibtex": "bibtex",
    ".ris": "ris",
    ".json": "csl",
    ".xml": "jats",
    ".nxml": "jats",
    ".pdf": "pdf",
}
_JATS_ROOTS = frozenset({"article", "pmc-articleset", "ref-list"})
_TEXT_EXTENSIONS = frozenset({".md", ".markdown", ".txt", ".text"})
_RIS_LINE = re.compile(r"^TY  - ", re.MULTILINE)
_BIBTEX_LINE = re.compile(r"^[ \t]*@[A-Za-z]+[ \t]*[{(]", re.MULTILINE)
_READS = "BibTeX, RIS, CSL-JSON, JATS XML, PDF, or a reference list as text"
_EMPTY: dict[Format, str] = {
    "bibtex": "The file holds no BibTeX entry (an entry starts like @article{key, ...).",
    "ris": "The file holds no RIS record (a record runs from a 'TY  - ' line to 'ER  - ').",
    "csl": "The CSL-JSON holds no reference (it is an empty array).",
    "pdf": "No reference list was found in the PDF: citeproof reads the entries after its "
    "last References (or Bibliography) heading.",
    "answer": "The text has no reference list: no References (or Sources) heading, and no "
    "numbered list at its end that the text cites.",
    "list": "The file holds no reference (it is empty, or only blank lines).",
}


def sniff(name: str, data: bytes) -> Format:
    """The format of a reference list named ``name`` (module rules); ValueError when the
    bytes are no format citeproof reads references from."""
    extension = posixpath.splitext(name.replace("\\", "/").lower())[1]
    if extension in _BY_EXTENSION:
        return _BY_EXTENSION[extension]
    if extension in _TEXT_EXTENSIONS:
        return _text_kind(_decode(data))
    return _by_content(data)


@dataclass(frozen=True, slots=True)
class ReadReferences:
    """A list as read: its format, its references, and what reading found wrong with it."""

    format: Format
    references: list[StatedReference]
    problems: tuple[str, ...] = ()
    """One sentence each: numbers skipped or used twice, text not read as entries."""


_Read = tuple[list[StatedReference], tuple[str, ...]]


def read_references(
    data: bytes, name: str, fmt: Format | None = None, *, limit: int | None = None
) -> tuple[Format, list[StatedReference]]:
    """The format (given or sniffed) and every reference of the list in ``data``."""
    read = read_reference_list(data, name, fmt, limit=limit)
    return read.format, read.references


def read_reference_list(
    data: bytes, name: str, fmt: Format | None = None, *, limit: int | None = None
) -> ReadReferences:
    """The format (given or sniffed), every reference of the list in ``data``, and what
    reading found wrong with the list.

    With ``limit``, a BibTeX or RIS file stops being read one reference past it (the
    caller refuses the list), so a file of a million tiny entries costs no more than that.
    """
    chosen = fmt or sniff(name, data)
    if chosen in _TEXT_READERS:
        # The bytes are let go once decoded: a caller that hands them over (as the service
        # does) does not hold a 100 MB list twice while it is parsed.
        text = _decode(data)
        del data
        read: _Read
        try:
            if chosen in _STREAMED and limit is not None:
                read = list(islice(_STREAMED[chosen](text), limit + 1)), ()
            else:
                read = _TEXT_READERS[chosen](text)
        except CiteproofError as exc:
            raise ValueError(str(exc)) from None
        references, problems = read
        if not references:
            raise ValueError(_EMPTY[chosen])
        return ReadReferences(chosen, references, problems)
    try:
        references, found = _read(chosen, data)
    except CiteproofError as exc:
        raise ValueError(str(exc)) from None
    if not references:
        raise ValueError(_empty(chosen, data))
    return ReadReferences(chosen, references, found)


def _read(fmt: Format, data: bytes) -> _Read:
    """A list that is not plain text: a PDF or a JATS article."""
    if fmt == "pdf":
        if b"%PDF-" not in data[:1024]:
            raise ValueError("The file is not a PDF (it does not start with %PDF-).")
        document = parse_bytes(data)
        if not document.has_text:
            raise ValueError(
                "The PDF has no text layer (it may be a scan), so its references cannot be "
                "read; run OCR on it or supply the list as text."
            )
        listed = read_document_reference_list(document)
        return listed.references, listed.problems
    return read_jats_references(data), ()


_STREAMED: dict[Format, Callable[[str], Iterator[StatedReference]]] = {
    "bibtex": iter_bibtex,
    "ris": iter_ris,
}


def _answer(text: str) -> _Read:
    listed = read_answer_list(text)
    return (listed.references, listed.problems) if listed is not None else ([], ())


def _plain(text: str) -> _Read:
    listed = read_plain_list(text)
    return listed.references, listed.problems


_TEXT_READERS: dict[Format, Callable[[str], _Read]] = {
    "bibtex": lambda text: (read_bibtex(text), ()),
    "ris": lambda text: (read_ris(text), ()),
    "csl": lambda text: (read_csl(text), ()),
    "answer": _answer,
    "list": _plain,
}


def _decode(data: bytes) -> str:
    """UTF-8 (BOM optional) or UTF-16/32 with a BOM, by the rule every parser uses."""
    try:
        return parse_text(data).text
    except CiteproofError as exc:
        raise ValueError(str(exc)) from None


def _text_kind(text: str) -> Format:
    return "answer" if read_answer_references(text) is not None else "list"


def _by_content(data: bytes) -> Format:
    if b"%PDF-" in data[:1024]:
        return "pdf"
    if data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"[", b"{") and _is_json(data):
        return "csl"
    if data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"<" and scan_prolog(data).root in _JATS_ROOTS:
        return "jats"
    try:
        kind = detect_format(data)
    except CiteproofError as exc:
        raise ValueError(str(exc)) from None
    if kind == "jats":
        return "jats"
    if kind == "html":
        raise ValueError(
            f"The file is an HTML page; citeproof refs reads {_READS}: save the page as PDF "
            "or copy its reference list into a text file."
        )
    if kind != "text":
        raise ValueError(f"The file is {kind} data, not a reference list; supply {_READS}.")
    text = _decode(data)
    if _RIS_LINE.search(text):
        return "ris"
    if _BIBTEX_LINE.search(text):
        return "bibtex"
    return _text_kind(text)


def _is_json(data: bytes) -> bool:
    try:
        json.loads(_decode(data))
    except (ValueError, RecursionError):
        return False
    return True


def _empty(fmt: Format, data: bytes) -> str:
    if fmt != "jats":
        return _EMPTY[fmt]
    root = scan_prolog(data).root
    found = f" (its root element is <{root}>)" if root else ""
    return (
        f"The XML has no <ref> in a <ref-list>{found}; supply a JATS article (PMC .nxml, "
        "Europe PMC fullTextXML) or the list in another format."
    )
