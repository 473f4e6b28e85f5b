"""Hostile manuscripts stay bounded: a small file never grows to gigabytes or runs for
minutes, and what could not be read is reported."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import pytest

from citeproof.errors import CiteproofError
from citeproof.manuscript import read_manuscript
from citeproof.manuscript.fields import MAX_FIELD_DATA, read_field
from manuscript.build import Field, build_docx, p
from manuscript.works import HALLOWAY


@contextmanager
def within(seconds: float) -> Iterator[None]:
    start = time.perf_counter()
    yield
    assert time.perf_counter() - start < seconds


def test_markdown_nested_100k_deep_is_read_quickly() -> None:
    text = ">" * 100_000 + " deep [1]\n\n" + "[" * 100_000 + "\n"
    with within(10):
        m = read_manuscript(text.encode(), name="deep.md")
    assert m.format == "markdown"


def test_html_nested_100k_deep_is_read_or_refused_quickly() -> None:
    html = "<html><body>" + "<div>" * 100_000 + "text [1]" + "</div>" * 100_000 + "</body></html>"
    with within(10), suppress(CiteproofError):
        read_manuscript(html.encode(), name="deep.html")


def test_jats_nested_past_the_parser_limit_is_refused_quickly() -> None:
    xml = "<article><body>" + "<sec>" * 100_000 + "</sec>" * 100_000 + "</body></article>"
    with within(10), suppress(CiteproofError):
        read_manuscript(xml.encode())


def test_unbalanced_quotes_and_brackets_stay_linear() -> None:
    text = ("“ [ ( " * 40_000) + "\n"
    with within(10):
        m = read_manuscript(text.encode(), name="q.md")
    assert m.quotations == ()


def test_a_field_json_over_the_cap_is_not_parsed() -> None:
    huge = '{"citationItems": [' + "[" * (MAX_FIELD_DATA + 10)
    with within(2):
        data = read_field(" ADDIN ZOTERO_ITEM CSL_CITATION " + huge)
    assert data is not None and data.items == () and "over" in (data.error or "")


def test_a_deeply_nested_field_json_is_refused_not_recursed() -> None:
    deep = '{"citationItems": ' + "[" * 100_000 + "]" * 100_000 + "}"
    data = read_field(" ADDIN CSL_CITATION " + deep)
    assert data is not None and data.error


def test_endnote_xml_with_entities_is_refused() -> None:
    xml = '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]><EndNote><Cite>&a;</Cite></EndNote>'
    data = read_field(" ADDIN EN.CITE " + xml)
    assert data is not None and data.items == () and data.error


def test_many_fields_are_capped_and_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from citeproof.manuscript import read_docx

    monkeypatch.setattr(read_docx, "MAX_FIELDS", 50)
    m = read_manuscript(build_docx([p(*[Field([HALLOWAY], "[1]") for _ in range(60)])]))
    # past the cap a field's result is read as the text it prints
    assert [c.kind for c in m.citations].count("field") == 50
    assert any(pr.code == "too_many_fields" for pr in m.problems)


def test_a_latex_source_over_the_cap_is_refused_at_once() -> None:
    from citeproof.errors import DocumentError
    from citeproof.manuscript.read_latex import MAX_SOURCE_CHARS

    body = "Some words \\cite{k}. " * (MAX_SOURCE_CHARS // 20)
    source = f"\\documentclass{{article}}\\begin{{document}}{body}\\end{{document}}"
    with within(2), pytest.raises(DocumentError, match="at most"):
        read_manuscript(source.encode(), name="big.tex")
