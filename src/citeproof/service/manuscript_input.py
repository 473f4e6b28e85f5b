"""Read the manuscript a command is given: a file, a LaTeX folder or archive, or standard
input; and tell a manuscript from an AI answer.

Why apart from the run (:mod:`citeproof.service.manuscripts`): ``citeproof audit`` needs the
second half alone, to refuse a manuscript in one line naming ``citeproof manuscript``
instead of reading a PDF as text ("not valid UTF-8") or a paper as an answer.

What is read: a folder or archive (``.tar.gz``, ``.tgz``, ``.tar``, ``.zip`` that is not a
Word file, a gzipped ``.tex``) through :mod:`citeproof.loading.manuscript_files`; a ``.tex``
file with the sources of its folder, itself the main file; any other file, or standard
input, as its bytes (at most :data:`~citeproof.manuscript.reader.MAX_MANUSCRIPT_BYTES`).
The manuscript's ``sha256`` is its bytes' (an archive's), or for a folder that of the lines
``<sha256>  <name>`` of its source files sorted by name, as ``sha256sum`` prints them.
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path
from typing import IO

from citeproof.documents.detect import detect_format
from citeproof.errors import BadInputError, CiteproofError, UnsupportedFormatError
from citeproof.loading.files import read_bytes
from citeproof.loading.manuscript_files import SOURCE_SUFFIXES, manuscript_files, read_archive
from citeproof.manuscript.reader import MAX_MANUSCRIPT_BYTES, detect_manuscript, read_manuscript
from citeproof.manuscript.structure import Manuscript
from citeproof.models.manuscript import ManuscriptInfo

__all__ = ["folder_is_manuscript", "manuscript_kind", "read_manuscript_input"]

_LATEX_NAMES = (".tex", ".ltx", ".latex")


def _digest_members(members: dict[str, bytes]) -> str:
    lines = "".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in sorted(members.items()))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def _is_archive(data: bytes) -> bool:
    """A tar, gzip or ZIP archive that is not a Word package (the manuscript's sources)."""
    if data[:2] == b"\x1f\x8b" or data[257:262] == b"ustar":
        return True
    return data[:4] == b"PK\x03\x04" and _docx_or_other(data) == "zip"


def _docx_or_other(data: bytes) -> str:
    try:
        return "docx" if detect_manuscript(data) == "docx" else "other"
    except UnsupportedFormatError:
        return "zip"


def read_manuscript_input(
    source: str | os.PathLike[str], *, stdin: IO[bytes] | None = None
) -> tuple[Manuscript, ManuscriptInfo]:
    """The manuscript at ``source`` (a file, a folder, an archive, or ``-``), read.

    A ``.tex`` file is read with the files of its folder (its ``.bib``, ``.bbl`` and the
    files it ``\\input`` s), as the folder would be, with that file as the main one.

    Raises:
        BadInputError, SourceNotFoundError, SourceTooLargeError, UnsupportedFormatError,
        DocumentError, EncodingError: one line saying what to give instead.
    """
    shown = os.fspath(source)
    path = Path(shown)
    name: str | None = None if shown == "-" else (path.name or shown)
    members: dict[str, bytes] | None = None
    if shown != "-" and path.is_dir():
        members = manuscript_files(path)
        if not members:
            raise BadInputError(
                f"{shown} holds no manuscript source ({', '.join(SOURCE_SUFFIXES)}); give "
                "the manuscript's file or its LaTeX folder."
            )
        manuscript = read_manuscript(b"", members=members)
        digest = _digest_members(members)
    else:
        data = read_bytes(shown, max_bytes=MAX_MANUSCRIPT_BYTES, stdin=stdin)
        digest = hashlib.sha256(data).hexdigest()
        if _is_archive(data):
            members = read_archive(io.BytesIO(data), len(data), name=name or "standard input")
            if not members:
                raise BadInputError(
                    f"{name or 'standard input'} is an archive that holds no manuscript source "
                    f"({', '.join(SOURCE_SUFFIXES)}); give the manuscript's file or its "
                    "LaTeX folder."
                )
            manuscript = read_manuscript(b"", members=members)
        elif name is not None and name.lower().endswith(_LATEX_NAMES):
            members = _beside(path, data)
            manuscript = read_manuscript(data, name=path.name, members=members)
        else:
            manuscript = read_manuscript(data, name=name)
    info = ManuscriptInfo(
        name=name,
        format=manuscript.format,
        sha256=digest,
        title=manuscript.title,
        members=list(manuscript.members),
        characters=len(manuscript.text),
    )
    return manuscript, info


def _beside(path: Path, data: bytes) -> dict[str, bytes]:
    """The sources of a ``.tex`` file's folder, the file itself under its own name; only the
    file when the folder cannot be read as a manuscript's (too many files, say)."""
    try:
        members = manuscript_files(path.parent if str(path.parent) else Path("."))
    except CiteproofError:
        members = {}
    members[path.name] = data
    return members


def manuscript_kind(data: bytes, *, name: str | None = None) -> str | None:
    """What manuscript ``data`` is, in words ("a PDF"), when it is a manuscript rather than
    text an AI answer could be: a PDF, a Word file, an archive, a JATS article or an HTML
    page (text starting with ``<``), a LaTeX source (its first line of code is
    ``\\documentclass``); None for anything else (Markdown, plain text, JSON claims)."""
    if b"%PDF-" in data[:1024]:
        return "a PDF"
    if data[:4] == b"PK\x03\x04":
        # a file's head may cut the archive's index off; the parts' names come first
        word = b"word/document.xml" in data or _docx_or_other(data) == "docx"
        return "a Word document" if word else "a ZIP archive"
    if data[:2] == b"\x1f\x8b" or data[257:262] == b"ustar":
        return "an archive"
    head = data[:65536].decode("utf-8", "ignore").lstrip("\ufeff \t\r\n")
    if head.startswith("<"):
        try:
            kind = detect_format(data, name=name)
        except CiteproofError:
            return None
        return {"jats": "a JATS XML article", "html": "an HTML page"}.get(kind)
    code = next(
        (ln for ln in head.splitlines() if ln.strip() and not ln.lstrip().startswith("%")), ""
    )
    return "a LaTeX source" if code.lstrip().startswith("\\documentclass") else None


def folder_is_manuscript(path: str | os.PathLike[str]) -> bool:
    """Whether a folder holds a LaTeX or Markdown manuscript's sources (at its top)."""
    try:
        return any(p.suffix.lower() in _LATEX_NAMES for p in Path(path).iterdir())
    except OSError:
        return False
