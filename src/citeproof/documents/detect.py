"""Decide what a byte string is and hand it to the parser for that format.

The bytes decide, not the file name: saved web pages arrive as ``.txt``, PMC articles as
``.nxml`` or ``.xml`` or with no name at all, and a checker that trusted extensions would
check the wrong text without saying so.  The rule, in order:

1. ``%PDF-`` in the first 1024 bytes: PDF (readers accept leading junk, so do we).
2. Known binary signatures (ZIP, gzip, PNG, JPEG ...), NUL bytes, or mostly control
   characters: refused with ``UnsupportedFormatError``.  UTF-16/32 text needs a BOM.
3. Markup at the start (after a BOM, whitespace, comments and processing instructions): an
   XML declaration or DOCTYPE or a root element.  Root/DOCTYPE ``html`` is HTML; root
   ``article`` or ``pmc-articleset`` is JATS; any other root after an XML declaration or
   DOCTYPE is XML that citeproof does not read (refused).  Root/DOCTYPE
   ``PubmedArticleSet`` (an E-utilities efetch answer) is PubMed.  A known HTML element as
   the first tag (a fragment such as ``<p>...``) is HTML.
4. A body whose first non-space byte is ``{`` and that parses as JSON: a ClinicalTrials.gov
   v2 study (key ``protocolSection``, or a ``studies`` list) is ``ctgov``; an openFDA answer
   (a ``results`` list whose first entry holds label sections) is ``openfda``; any other
   JSON is refused, naming its keys.  Text that merely starts with ``{`` and is not JSON
   goes on to the next rules.
5. ``<html``, ``<head``, ``<body`` or ``<!doctype html`` within the first KiB: HTML.
6. Everything else is plain text.

The name is only a tie-breaker for step 6: a ``.html``/``.htm``/``.xhtml`` file whose
content starts with an unknown tag, or with text before its first tag, is parsed as HTML.
A ``.txt`` file holding a whole HTML page is HTML, and a ``.pdf`` that is not one is not.
"""

from __future__ import annotations

import json
import re

from citeproof.documents._decode import split_bom
from citeproof.documents._text import word_set
from citeproof.documents.model import DocFormat, Document
from citeproof.documents.safe_xml import scan_prolog
from citeproof.errors import UnsupportedFormatError

__all__ = ["control_bytes", "detect_format", "parse_bytes"]

SUPPORTED = (
    "PDF, JATS XML (PMC / Europe PMC articles), PubMed XML (E-utilities efetch), "
    "ClinicalTrials.gov v2 and openFDA drug label JSON, HTML and plain text"
)

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a ZIP archive (a .docx, .epub or .xlsx file is one)"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"BZh91AY&SY", "bzip2-compressed data"),
    (b"\xfd7zXZ\x00", "xz-compressed data"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"RIFF", "a RIFF container (WebP, WAV or AVI)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office file (.doc, .xls)"),
    (b"{\\rtf", "an RTF document"),
    (b"\x7fELF", "an executable program"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x00asm", "a WebAssembly module"),
)
_HTML_NAMES = (".html", ".htm", ".xhtml", ".shtml")
_HTML_HINT = re.compile(rb"<(?:html|head|body)[\s>/]|<!doctype\s+html", re.IGNORECASE)
_HTML_TAGS = word_set(
    "html head body title meta link base style script noscript div span p a b i u em strong "
    "small section article main header footer nav aside h1 h2 h3 h4 h5 h6 ul ol li dl dt dd "
    "table thead tbody tfoot tr td th caption blockquote pre code figure figcaption img br hr "
    "form input button label select textarea iframe sup sub abbr cite q time mark details "
    "summary template svg center font"
)
# Control characters that never occur in text (tab, LF, FF, CR and ESC are allowed).
_CONTROL = frozenset(range(32)) - {9, 10, 12, 13, 27}
_CONTROL_BYTES = bytes(sorted(_CONTROL))
"""The same bytes for ``bytes.translate``: deleting them counts them in one C pass."""


def detect_format(data: bytes, *, name: str | None = None) -> DocFormat:
    """The format of ``data`` by the rules in the module docstring; refuses binary input."""
    head = data[:1024]
    if b"%PDF-" in head:
        return "pdf"
    codec, payload = split_bom(data)
    if codec in (None, "utf-8"):
        _refuse_binary(payload[:8192])
        sniff = payload
    else:
        sniff = _transcode_head(payload, codec)
    if codec in (None, "utf-8") and payload.lstrip(b" \t\r\n")[:1] == b"{":
        fmt = _json_format(payload)
        if fmt is not None:
            return fmt
    return _markup_format(sniff, name) or "text"


def parse_bytes(data: bytes, *, name: str | None = None) -> Document:
    """Detect the format of ``data`` and parse it with that format's parser.

    Each parser is imported when its format is first met (``# start-up``): reading a text
    file must not import the PDF library, nor a PDF the HTML parser.
    """
    fmt = detect_format(data, name=name)
    if fmt == "pdf":
        try:
            from citeproof.documents.pdf import (
                parse_pdf,  # start-up
            )
        except ModuleNotFoundError as exc:
            if exc.name != "citeproof.documents.pdf":
                raise
            raise UnsupportedFormatError(
                "The input is a PDF, but this installation of citeproof has no PDF reader; "
                "install citeproof with PDF support or supply the text as HTML, XML or text."
            ) from None
        return parse_pdf(data)
    if fmt == "jats":
        from citeproof.documents.jats import parse_jats  # start-up

        return parse_jats(data)
    if fmt == "pubmed":
        from citeproof.documents.pubmed import (
            parse_pubmed,  # start-up
        )

        return parse_pubmed(data)
    if fmt == "ctgov":
        from citeproof.documents.ctgov import (
            parse_ctgov,  # start-up
        )

        return parse_ctgov(data)
    if fmt == "openfda":
        from citeproof.documents.openfda import (
            parse_openfda,  # start-up
        )

        return parse_openfda(data)
    if fmt == "html":
        from citeproof.documents.html import parse_html  # start-up

        return parse_html(data)
    from citeproof.documents.plain import parse_text  # start-up

    return parse_text(data)


def _refuse_binary(head: bytes) -> None:
    for magic, what in _MAGIC:
        if head.startswith(magic):
            raise UnsupportedFormatError(
                f"The input is {what}, not a document citeproof can read; supported formats "
                f"are {SUPPORTED}."
            )
    if b"\x00" in head:
        raise UnsupportedFormatError(
            "The input is binary data (it contains NUL bytes), not a document citeproof can "
            f"read; supported formats are {SUPPORTED} (UTF-8, or UTF-16 with a byte-order mark)."
        )
    if head and control_bytes(head) > len(head) // 10:
        raise UnsupportedFormatError(
            "The input is binary data (most of its first bytes are control characters), not "
            f"a document citeproof can read; supported formats are {SUPPORTED}."
        )


def control_bytes(data: bytes) -> int:
    """How many bytes of ``data`` are control characters that never occur in text.

    ``bytes.translate`` deletes them at C speed; the Python loop it replaces
    (``sum(b in _CONTROL for b in data)``) cost a set lookup per byte.
    """
    return len(data) - len(data.translate(None, _CONTROL_BYTES))


def _transcode_head(payload: bytes, codec: str) -> bytes:
    """The start of UTF-16/32 text as UTF-8, so one ASCII sniffer serves every encoding."""
    unit = 4 if codec.startswith("utf-32") else 2
    cut = min(len(payload), 8192) // unit * unit
    return payload[:cut].decode(codec, errors="replace").encode("utf-8")


def _markup_format(data: bytes, name: str | None) -> DocFormat | None:
    prolog = scan_prolog(data, limit=65536)
    root = (prolog.root or "").lower()
    doctype = (prolog.doctype_name or "").lower()
    if doctype == "html" or root == "html":
        return "html"
    if root in ("article", "pmc-articleset") or doctype in ("article", "pmc-articleset"):
        return "jats"
    if root == "pubmedarticleset" or doctype == "pubmedarticleset":
        return "pubmed"
    if prolog.has_xml_decl or prolog.doctype_name is not None:
        if prolog.root is None:
            return "jats"  # no root element: let the XML parser say precisely what is wrong
        raise UnsupportedFormatError(
            f"The input is XML with root element <{prolog.root}>, which citeproof does not "
            f"read; supported formats are {SUPPORTED} (JATS articles have root <article>)."
        )
    if root in _HTML_TAGS or _HTML_HINT.search(data[:1024]):
        return "html"
    if name and name.lower().endswith(_HTML_NAMES) and b"<" in data[:1024]:
        return "html"
    return None


def _json_format(payload: bytes) -> DocFormat | None:
    """``ctgov`` or ``openfda`` for the JSON citeproof reads; None when it is not JSON.

    The whole body is parsed: key order in these answers is not promised, and a sniff of the
    first bytes would misroute an answer whose ``meta`` block comes first.
    """
    try:
        value = json.loads(payload)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None  # text that happens to start with "{"
    if isinstance(value, dict):
        if isinstance(value.get("protocolSection"), dict) or isinstance(value.get("studies"), list):
            return "ctgov"
        results = value.get("results")
        if isinstance(results, list) and results and _is_label(results[0]):
            return "openfda"
        keys = ", ".join(sorted(str(k) for k in value)[:8]) or "none"
        what = f"a JSON object with keys {keys}"
    else:
        what = f"JSON holding a {type(value).__name__}"
    raise UnsupportedFormatError(
        f"The input is {what}, which citeproof does not read: the JSON it reads is a "
        "ClinicalTrials.gov v2 study and an openFDA drug label answer; supported formats "
        f"are {SUPPORTED}."
    )


def _is_label(entry: object) -> bool:
    """An openFDA label: a dict with ``set_id`` or a section that is a list of strings."""
    if not isinstance(entry, dict):
        return False
    return "set_id" in entry or any(
        isinstance(v, list) and v and all(isinstance(x, str) for x in v) for v in entry.values()
    )
