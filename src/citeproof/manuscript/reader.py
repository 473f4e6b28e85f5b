"""One entry point: bytes (and, for LaTeX, the files beside it) in, a Manuscript out.

Which reader, by the content (the name only breaks ties, as for documents):

1. ``%PDF-`` in the first KiB: PDF.
2. A ZIP package holding ``word/document.xml``: Word (another ZIP is refused: an archive of
   LaTeX sources is unpacked by the caller into ``members`` first).
3. Text (UTF-8, or UTF-16/32 with a byte-order mark): LaTeX when the name ends in ``.tex``,
   ``.ltx`` or ``.latex``, or the text has ``\\documentclass`` or ``\\begin{document}``;
   JATS or HTML when the document detector says so (an ``<article>`` root, an HTML page);
   otherwise Markdown, which plain text is read as.

With ``members`` and no ``data``, the main LaTeX file is chosen among them
(:func:`main_member`).  The readers do the format's part;
:func:`citeproof.manuscript.finish.assemble` links, finds quotations and reports problems.
Pure: no I/O.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Mapping
from typing import Final

from citeproof.documents import decode_text
from citeproof.documents.detect import detect_format
from citeproof.errors import SourceTooLargeError, UnsupportedFormatError
from citeproof.manuscript.draft import Draft
from citeproof.manuscript.finish import SCANS, assemble
from citeproof.manuscript.read_docx import read_docx
from citeproof.manuscript.read_html import read_html
from citeproof.manuscript.read_jats import read_jats
from citeproof.manuscript.read_latex import read_latex
from citeproof.manuscript.read_markdown import read_markdown
from citeproof.manuscript.read_pdf import read_pdf
from citeproof.manuscript.structure import Manuscript, ManuscriptFormat

__all__ = ["MAX_MANUSCRIPT_BYTES", "detect_manuscript", "main_member", "read_manuscript"]

#: Bytes of one manuscript file read (a PDF or Word file with its images; text is far less).
MAX_MANUSCRIPT_BYTES: Final = 200 * 1024 * 1024
_LATEX_NAMES = (".tex", ".ltx", ".latex")
_LATEX_MARKS = re.compile(r"\\documentclass\b|\\begin\s*\{document\}")
_PREFERRED = ("main", "ms", "paper", "manuscript", "article")
_INPUT = re.compile(r"\\(?:input|include|subfile)\s*\{([^}]*)\}")


def detect_manuscript(data: bytes, name: str | None = None) -> ManuscriptFormat:
    """The manuscript format of ``data`` (module rules); refuses what no reader takes."""
    if b"%PDF-" in data[:1024]:
        return "pdf"
    if data[:4] == b"PK\x03\x04":
        try:
            names = zipfile.ZipFile(io.BytesIO(data)).namelist()
        except (zipfile.BadZipFile, ValueError):
            names = []
        if "word/document.xml" in names:
            return "docx"
        raise UnsupportedFormatError(
            "The file is a ZIP archive but not a Word document; give a LaTeX archive as a "
            "folder or archive of its files, which citeproof unpacks first."
        )
    lower = (name or "").lower()
    if lower.endswith(_LATEX_NAMES):
        return "latex"
    head = data[:65536].decode("utf-8", "ignore")
    if _LATEX_MARKS.search(head) and not head.lstrip().startswith("<"):
        return "latex"
    kind = detect_format(data, name=name)
    if kind == "jats":
        return "jats"
    if kind == "html":
        return "html"
    if kind == "text":
        return "markdown"
    raise UnsupportedFormatError(
        f"The file is {kind} data, not a manuscript; citeproof reads Word (.docx), LaTeX, "
        "PDF, JATS XML, HTML and Markdown or plain text."
    )


def main_member(members: Mapping[str, bytes]) -> str:
    """The main file of a LaTeX folder or archive: a ``.tex`` with ``\\documentclass`` that
    no other file reads, preferring the usual names (``main.tex``, ``ms.tex`` ...), then the
    shallowest, then the largest."""
    texs = [n for n in members if n.lower().endswith(_LATEX_NAMES)]
    if not texs:
        raise UnsupportedFormatError("The files given hold no LaTeX source (.tex).")
    heads = {n: members[n][:200_000].decode("utf-8", "ignore") for n in texs}
    roots = [n for n in texs if _LATEX_MARKS.search(heads[n])] or texs
    read = {
        m.group(1).strip().removesuffix(".tex") for h in heads.values() for m in _INPUT.finditer(h)
    }
    free = [
        n
        for n in roots
        if n.removesuffix(".tex").split("/")[-1] not in {r.split("/")[-1] for r in read}
    ] or roots

    def rank(n: str) -> tuple[int, int, int]:
        stem = n.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
        return (0 if stem in _PREFERRED else 1, n.count("/"), -len(members[n]))

    return min(free, key=rank)


def read_manuscript(
    data: bytes,
    *,
    name: str | None = None,
    members: Mapping[str, bytes] | None = None,
) -> Manuscript:
    """Read a whole manuscript into one model (module rules).

    Raises:
        UnsupportedFormatError: bytes no manuscript reader takes (or a ZIP bomb of a Word file).
        SourceTooLargeError: over :data:`MAX_MANUSCRIPT_BYTES`.
        DocumentError: a file that parses but cannot be used (a PDF without text, LaTeX
            nested past the caps).
        EncodingError: text that is not UTF-8 (or UTF-16/32 with a byte-order mark).
    """
    if not data and members:
        name = main_member(members)
        data = members[name]
    if len(data) > MAX_MANUSCRIPT_BYTES:
        raise SourceTooLargeError(
            f"The manuscript is {len(data):,} bytes; citeproof reads at most "
            f"{MAX_MANUSCRIPT_BYTES:,}."
        )
    fmt = detect_manuscript(data, name)
    draft: Draft
    scans: frozenset[str] = SCANS
    if fmt == "pdf":
        draft = read_pdf(data)
    elif fmt == "docx":
        draft = read_docx(data)
    elif fmt == "jats":
        draft, scans = read_jats(data), frozenset()
    elif fmt == "html":
        draft = read_html(data)
    elif fmt == "latex":
        text = decode_text(data, what=name or "LaTeX source")
        draft, scans = read_latex(text, members, name), frozenset()
    else:
        draft = read_markdown(decode_text(data, what=name or "manuscript"), members)
    return assemble(draft, scans=scans, name=name)
