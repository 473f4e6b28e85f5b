"""Format detection from the bytes (the name is only a tie-breaker) and dispatch."""

from __future__ import annotations

import codecs
import sys
import types

import pytest

from citeproof.documents import parse
from citeproof.documents.detect import detect_format, parse_bytes
from citeproof.documents.model import Document
from citeproof.errors import UnsupportedFormatError

JATS = b"<article><front><article-meta><title-group><article-title>T</article-title>"
JATS += b"</title-group></article-meta></front><body><p>Body text.</p></body></article>"
PMC_DOCTYPE = b'<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving DTD" '
PMC_DOCTYPE += b'"JATS-archivearticle1.dtd">\n'


@pytest.mark.parametrize(
    "data",
    [
        b'<?xml version="1.0" encoding="UTF-8"?>\n' + JATS,
        PMC_DOCTYPE + JATS,
        JATS,
        b"\n\n  " + JATS,
        codecs.BOM_UTF8 + b"<!-- saved --><?pi x?>" + JATS,
        b'<?xml version="1.0"?><pmc-articleset>' + JATS + b"</pmc-articleset>",
        codecs.BOM_UTF16_LE
        + ('<?xml version="1.0" encoding="UTF-16"?>' + JATS.decode()).encode("utf-16-le"),
    ],
    ids=["xml-decl", "pmc-doctype", "bare", "whitespace", "bom-comment-pi", "articleset", "utf16"],
)
def test_jats_is_detected_and_parsed(data: bytes) -> None:
    assert detect_format(data) == "jats"
    doc = parse_bytes(data, name="download.txt")
    assert doc.format == "jats"
    assert "Body text." in doc.text


@pytest.mark.parametrize(
    "data",
    [
        b"<!DOCTYPE html><html><body><p>Hello page.</p></body></html>",
        b"<!doctype HTML>\n<p>Hello page.</p>",
        b"<html lang=en><p>Hello page.</p>",
        b"<p>Hello page.</p>",
        b"<!-- header --><div>Hello page.</div>",
        b'<?xml version="1.0"?><!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
        b'"x.dtd"><html xmlns="http://www.w3.org/1999/xhtml"><body><p>Hello page.</p></body>'
        b"</html>",
        b"Saved from the web\n<html><body><p>Hello page.</p></body></html>",
    ],
    ids=["doctype", "doctype-case", "html-tag", "fragment", "comment-first", "xhtml", "junk-first"],
)
def test_html_is_detected_whatever_the_name(data: bytes) -> None:
    assert detect_format(data, name="notes.txt") == "html"
    assert "Hello page." in parse_bytes(data, name="notes.txt").text


@pytest.mark.parametrize(
    "data",
    [
        b"Plain words about ducks.",
        b"<2 mg/kg was the dose>",
        b"x < y and y > z",
        "Caf\u00e9 \u2014 UTF-8 text".encode(),
        codecs.BOM_UTF16_BE + "Wide text".encode("utf-16-be"),
        b"",
    ],
)
def test_plain_text(data: bytes) -> None:
    assert detect_format(data, name="paper.html.bak") == "text"
    assert parse_bytes(data).format == "text"


def test_the_name_breaks_ties_only_for_markup_looking_text() -> None:
    data = b"Title line\n<custom-element>Body</custom-element>"
    assert detect_format(data) == "text"
    assert detect_format(data, name="Saved Page.HTM") == "html"
    assert detect_format(b"no markup at all", name="page.html") == "text"


def test_the_name_never_overrides_the_content() -> None:
    assert detect_format(b"just text", name="article.pdf") == "text"
    assert detect_format(b"<html><p>x</p></html>", name="article.xml") == "html"
    assert detect_format(JATS, name="index.html") == "jats"


@pytest.mark.parametrize(
    "data",
    [b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", b"\x00" * 10 + b"junk before %PDF-1.4\n"],
    ids=["magic", "leading-junk"],
)
def test_pdf_is_dispatched_to_the_pdf_parser(data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bytes] = []

    def fake_parse_pdf(raw: bytes) -> Document:
        seen.append(raw)
        return Document(text="from pdf", blocks=[], format="pdf")

    fake = types.ModuleType("citeproof.documents.pdf")
    fake.parse_pdf = fake_parse_pdf  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "citeproof.documents.pdf", fake)
    assert detect_format(data, name="notes.txt") == "pdf"
    assert parse(data).text == "from pdf"
    assert seen == [data]


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (b"PK\x03\x04\x14\x00\x06\x00", "ZIP"),
        (b"\x1f\x8b\x08\x00\x00\x00", "gzip"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "PNG"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "JPEG"),
        (b"GIF89a\x01\x00", "GIF"),
        (b"text then \x00 a NUL byte", "NUL"),
        (bytes(range(1, 9)) * 20, "control characters"),
        ("UTF-16 without a BOM".encode("utf-16-le"), "NUL"),
    ],
)
def test_binary_is_refused_naming_the_supported_formats(data: bytes, what: str) -> None:
    with pytest.raises(UnsupportedFormatError) as excinfo:
        parse_bytes(data, name="paper.txt")
    message = str(excinfo.value)
    assert what in message
    assert "PDF, JATS XML" in message and "plain text" in message


@pytest.mark.parametrize(
    ("data", "root"),
    [
        (b'<?xml version="1.0"?><eSummaryResult><DocSum/></eSummaryResult>', "eSummaryResult"),
        (b'<?xml version="1.0"?>\n<TEI xmlns="http://www.tei-c.org/ns/1.0"/>', "TEI"),
        (b'<!DOCTYPE eSearchResult PUBLIC "x" "y"><eSearchResult/>', "eSearchResult"),
    ],
)
def test_other_xml_is_refused_naming_its_root(data: bytes, root: str) -> None:
    with pytest.raises(UnsupportedFormatError, match=f"<{root}"):
        detect_format(data)


def test_xml_declaration_without_a_root_goes_to_the_xml_parser() -> None:
    assert detect_format(b'<?xml version="1.0"?>') == "jats"
    assert parse_bytes(b'<?xml version="1.0"?>  ').text == ""
