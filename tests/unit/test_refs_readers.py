"""The reference-list readers (``refs/bibtex``, ``ris``, ``csl``, ``listed``, ``jats_list``,
``pdf_list``, ``formats``): what each format states about each work.

A reader that drops an entry, splits one in two, or picks the wrong title makes a real
reference look fabricated (or a fabricated one look checked), so each test pins one thing
a user of ``citeproof refs`` relies on.  Fixtures are invented (``tests/fixtures/refs``);
the corpus test reads real PMC articles when ``../shared/corpus`` is beside the repository.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

import pdfgen
from citeproof.audit.reference_list import find_reference_section
from citeproof.audit.sentences import scan_blocks
from citeproof.identifiers import parse_identifier
from citeproof.refs.bibtex import read_bibtex
from citeproof.refs.csl import from_csl_item, read_csl
from citeproof.refs.formats import FORMATS, Format, read_references, sniff
from citeproof.refs.jats_list import read_jats_references
from citeproof.refs.listed import (
    BULLET,
    ENTRY_MARKER,
    REFERENCE_HEADING,
    from_fields,
    parse_reference_string,
    read_answer_references,
    read_list,
)
from citeproof.refs.ris import read_ris
from citeproof.refs.stated import fold, surname

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "refs"
CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


# --- BibTeX ---------------------------------------------------------------------------------


def test_bibtex_decodes_latex_accents_braces_and_names() -> None:
    """``M{\\"u}ller`` is Müller, ``{{DNA}}`` loses its braces, a braced body stays one
    author and ``and others`` is no author; a URL-form DOI is canonical."""
    first = read_bibtex(fixture("invented.bib"))[0]
    assert first.authors == ("Müller, J.", "Smith, Anne", "World Health Organization")
    assert first.title == "DNA repair in café workers"
    assert first.year == 2019
    assert first.doi == "10.5555/invented.2019.001"
    assert first.pmid == "31000001"  # eprint with eprinttype = pubmed
    assert (first.label, first.kind, first.where) == ("muller2019", "article", "line 5")
    assert first.text == (
        "Müller, J., Smith, Anne, World Health Organization. DNA repair in café workers. "
        "The Lancet Oncology. 2019."
    )


def test_bibtex_expands_string_macros_inside_concatenations() -> None:
    """bibtexparser resolves only a value that is one macro; ``lan # { } # onc`` is ours."""
    assert read_bibtex(fixture("invented.bib"))[0].venue == "The Lancet Oncology"
    (ref,) = read_bibtex('@string{j = "Invented"}\n@article{k, journal = j, title = {A b}}')
    assert ref.venue == "Invented"


def test_bibtex_reports_a_broken_entry_and_reads_the_next() -> None:
    """A failed block comes back as a reference with only its raw text and line, so the
    caller can give it a verdict; the entry after it is still read."""
    refs = read_bibtex(fixture("invented.bib"))
    assert len(refs) == 3
    broken = refs[1]
    assert broken.text.startswith("@article{broken2020,")
    assert broken.where == "line 14"
    assert (broken.label, broken.kind, broken.title, broken.authors) == (None, None, None, ())
    book = refs[2]
    assert (book.label, book.kind, book.year) == ("vanderberg2020", "book", 2020)
    assert book.authors == ("van der Berg, Jan",)
    assert surname(book.authors[0]) == "van der berg"
    assert book.extra_ids == ("url:https://example.org/invented/book",)


def test_bibtex_keeps_an_entry_whose_key_repeats() -> None:
    refs = read_bibtex("@misc{a, title = {First one}}\n@misc{a, title = {Second one}}")
    assert [(r.label, r.title, r.where) for r in refs] == [
        ("a", "First one", "line 1"),
        ("a", "Second one", "line 2"),
    ]


# --- RIS ------------------------------------------------------------------------------------


def test_ris_two_records() -> None:
    """Continuation lines join, a labelled PMID is taken, a bare AN from a database that is
    not PubMed is not, and a last record without ER is still read."""
    first, second = read_ris(fixture("invented.ris"))
    assert first.title == "A study of invented things"
    assert first.authors == ("Smith, John", "Doe, A.")
    assert (first.year, first.venue) == (2019, "Journal of Invented Results")
    assert (first.doi, first.pmid) == ("10.5555/invented.ris.1", "31000002")
    assert (first.label, first.kind, first.where) == ("smith2019", "JOUR", "line 2")
    assert (second.title, second.authors, second.year) == (
        "A book about nothing",
        ("Roe, R.",),
        2001,
    )
    assert (second.pmid, second.kind, second.where) == (None, "BOOK", "line 14")
    assert second.extra_ids == ("url:https://example.org/invented/roe",)


def test_ris_bare_accession_number_is_a_pmid_only_from_pubmed() -> None:
    record = "TY  - JOUR\nTI  - Invented title\nAN  - 31000006\n{db}ER  - \n"
    assert read_ris(record.format(db="DB  - PubMed\n"))[0].pmid == "31000006"
    assert read_ris(record.format(db=""))[0].pmid is None


# --- CSL-JSON -------------------------------------------------------------------------------


def test_csl_array() -> None:
    first, second = read_csl(fixture("invented-csl.json"))
    assert first.authors == ("van der Berg, Jan", "Invented Study Group")
    assert (first.title, first.year) == ("Invented outcomes of invented trials", 2019)
    assert (first.venue, first.doi, first.pmid) == (
        "Journal of Invented Results",
        "10.5555/invented.csl.1",
        "31000003",
    )
    assert (first.label, first.kind, first.where) == ("berg2019", "article-journal", "item 1")
    assert (second.year, second.doi) == (2018, "10.5555/invented.csl.2")  # raw date, DOI URL


def test_csl_single_object_and_from_csl_item() -> None:
    item = {"title": "One invented item", "author": [{"family": "Solo", "given": "H"}]}
    (ref,) = read_csl(json.dumps(item))
    assert (ref.title, ref.authors, ref.where) == ("One invented item", ("Solo, H",), "item 1")
    assert from_csl_item(item).where is None
    assert read_csl(item) == [ref]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ('{"results": [], "count": 0}', "none of the CSL-JSON fields"),
        ("[1, 2]", "is a number"),
        ('"text"', "is a string"),
        ("{not json", "not valid JSON"),
    ],
)
def test_csl_refuses_what_is_not_csl(data: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        read_csl(data)


# --- reference strings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "authors", "title", "year", "doi"),
    [
        (
            "Smith J, Doe A. Aspirin and stroke in older adults. Lancet. 2019;1:2. "
            "doi:10.5555/INVENTED.V1",
            ("Smith J", "Doe A"),
            "Aspirin and stroke in older adults",
            2019,
            "10.5555/invented.v1",
        ),
        (
            "Smith, J., & Doe, A. (2019). Title of an invented paper. Journal of Things, "
            "1(2), 3. https://doi.org/10.5555/invented.apa1",
            ("Smith, J.", "Doe, A."),
            "Title of an invented paper",
            2019,
            "10.5555/invented.apa1",
        ),
        (
            "[1] J. Smith, A. Doe, and B. Roe, “Deep learning for invented things,” IEEE "
            "Trans. Invented Imaging, vol. 3, no. 2, pp. 1–2, 2018.",
            ("J. Smith", "A. Doe", "B. Roe"),
            "Deep learning for invented things",
            2018,
            None,
        ),
        (
            "Smith, J. and Doe, A. (2017) Harvard style vs. the others. Journal, 3, pp. 1-2.",
            ("Smith, J.", "Doe, A."),
            "Harvard style vs. the others",
            2017,
            None,
        ),
        (
            "Ann Smith and Bo Doe. 2016. An author-year invented title. In Proceedings of X.",
            ("Ann Smith", "Bo Doe"),
            "An author-year invented title",
            2016,
            None,
        ),
    ],
)
def test_reference_string_styles(
    text: str, authors: tuple[str, ...], title: str, year: int, doi: str | None
) -> None:
    ref = parse_reference_string(text)
    assert (ref.authors, ref.title, ref.year, ref.doi) == (authors, title, year, doi)


def test_reference_string_vancouver_venue_and_ieee_label() -> None:
    assert parse_reference_string("Smith J. An invented title. N Engl J Med. 2019;1:2.").venue == (
        "N Engl J Med"
    )
    ieee = parse_reference_string('[7] J. Smith, "An invented title," Invented Trans., 2018.')
    assert (ieee.label, ieee.venue) == ("7", "Invented Trans")


def test_reference_string_without_a_style_is_left_whole() -> None:
    """No guess: the search uses the text as a whole."""
    ref = parse_reference_string("Notes from a meeting about invented things, 2015, unpublished")
    assert (ref.title, ref.authors, ref.year) == (None, (), 2015)
    assert ref.text == "Notes from a meeting about invented things, 2015, unpublished"


def test_reference_string_ids_beyond_the_first_are_kept() -> None:
    ref = parse_reference_string(
        "Smith J. Invented. doi:10.5555/a1, 10.5555/b2 PMCID: PMC123 NCT01234567"
    )
    assert (ref.doi, ref.pmcid) == ("10.5555/a1", "PMC123")
    assert ref.extra_ids == ("doi:10.5555/b2", "nct:NCT01234567")


def test_a_stated_identifier_that_is_not_one_is_reported_not_dropped() -> None:
    ref = from_fields(title="Invented", doi="not a doi", pmid="PMID: 12", urls=["https://x.org/a"])
    assert (ref.doi, ref.pmid) == (None, "12")
    assert ref.extra_ids == ("doi:not a doi", "url:https://x.org/a")


# --- plain lists and answers ----------------------------------------------------------------


def test_numbered_list_with_continuation_lines() -> None:
    text = (
        "References\n"
        "1. Smith J, Doe A. Aspirin and invented strokes. J Invented Res.\n"
        "   2019;1:2. doi:10.5555/invented.l1\n"
        "2) Roe R. A second invented title. Invented Letters.\n"
        "2017. A wrapped line that starts with a year.\n"
        "[3] Poe E. Third invented title. Invented Med J. 2016;3:4.\n"
    )
    refs = read_list(text)
    assert [r.label for r in refs] == ["1", "2", "3"]
    assert [r.where for r in refs] == ["line 2", "line 4", "line 6"]
    assert refs[0].doi == "10.5555/invented.l1"
    assert refs[0].text.endswith("J Invented Res. 2019;1:2. doi:10.5555/invented.l1")
    assert refs[1].text.endswith("2017. A wrapped line that starts with a year.")


def test_unnumbered_list_one_per_line_with_hanging_indents() -> None:
    text = (
        "Smith J. First invented title. J Invented Res. 2019;1:2.\n"
        "Doe A. Second invented title. Invented Letters,\n"
        "    2018;3:4.\n"
        "\n"
        "Roe R. Third invented title.\n"
        "  Invented Med J. 2017.\n"
    )
    refs = read_list(text)
    assert [r.title for r in refs] == [
        "First invented title",
        "Second invented title",
        "Third invented title",
    ]
    assert [r.where for r in refs] == ["line 1", "line 2", "line 5"]


def test_answer_with_a_references_section() -> None:
    refs = read_answer_references(fixture("invented-answer.md"))
    assert refs is not None
    assert [(r.label, r.where) for r in refs] == [("1", "line 8"), ("2", "line 10")]
    assert refs[0].doi == "10.5555/invented.md.1"
    assert (refs[1].pmid, refs[1].title) == ("31000005", "The lasting effect of invented aspirin")


def test_answer_without_a_reference_list_is_none() -> None:
    assert read_answer_references("## Summary\n\nAspirin helps.\n\n1. A step.\n2. Another.") is None


def test_answer_reference_list_is_the_one_the_audit_finds() -> None:
    """One copy of the rules: the audit and ``citeproof refs`` cut the same entries."""
    text = fixture("invented-answer.md")
    section = find_reference_section(text, scan_blocks(text))
    refs = read_answer_references(text)
    assert section is not None and refs is not None
    assert [str(e.number) for e in section.entries] == [r.label for r in refs]
    bare = "Text [1].\n\n[1] Smith J. Invented. doi:10.5555/t1\n[2] Doe A. Also invented."
    audit = find_reference_section(bare, scan_blocks(bare))
    ours = read_answer_references(bare)
    assert audit is not None and ours is not None
    assert [str(e.number) for e in audit.entries] == [r.label for r in ours] == ["1", "2"]


# --- JATS -----------------------------------------------------------------------------------


def test_jats_element_and_mixed_citations() -> None:
    refs = read_jats_references(fixture("invented-jats.xml").encode())
    assert [r.label for r in refs] == ["1", "2", "r3", "r4", "5"]
    element, mixed, untagged, book, alternatives = refs
    assert element.authors == ("Smith, John A", "Doe, B")
    assert (element.title, element.venue, element.year) == (
        "A DNA study of invented things",
        "J Invented Res",
        2019,
    )
    assert (element.doi, element.pmid, element.kind) == (
        "10.5555/invented.jats.1",
        "31000004",
        "journal",
    )
    assert element.text.startswith("Smith John A, Doe B, et al. A DNA study of invented things.")
    assert mixed.text == (
        "Roe, R. (2018). Another invented title. Invented Letters 5, 1–2. "
        "doi:10.5555/INVENTED.JATS.2"
    )
    assert (mixed.authors, mixed.year, mixed.doi) == (("Roe, R.",), 2018, "10.5555/invented.jats.2")
    assert (untagged.title, untagged.authors) == (
        "An untagged invented reference",
        ("Brown K", "Green L"),
    )
    assert (book.title, book.venue, book.authors) == ("An Invented Handbook", None, ())  # editors
    assert book.doi == "10.5555/invented.jats.4"
    assert alternatives.text == "Alt A. Twice written invented work. Invented Rev. 2016."
    assert alternatives.authors == ("Alt, A",)
    assert element.where == "line 6"


def _corpus_articles() -> list[Path]:
    return sorted((CORPUS / "pmc-jats").glob("*.nxml"))


def test_real_jats_articles_every_ref_and_its_tagged_doi() -> None:
    """Every ``<ref>`` of a real article becomes one reference, each tagged DOI is the
    reference's DOI, and any other DOI it reports is written inside that ``<ref>``."""
    articles = _corpus_articles()
    if not articles:
        pytest.skip(f"../shared/corpus not found: {CORPUS / 'pmc-jats'} has no .nxml")
    for path in articles:
        data = path.read_bytes()
        tree = etree.fromstring(data)
        refs_xml = [
            r for r in tree.iter("ref") if any(a.tag == "ref-list" for a in r.iterancestors())
        ]
        refs = read_jats_references(data)
        assert len(refs) == len(refs_xml), path.name
        for xml, ref in zip(refs_xml, refs, strict=True):
            tagged = [p.text or "" for p in xml.iter("pub-id") if p.get("pub-id-type") == "doi"]
            if tagged:
                assert ref.doi == parse_identifier(tagged[0].strip()).value, path.name
            elif ref.doi:
                assert ref.doi in etree.tostring(xml, encoding="unicode").lower(), path.name
            assert ref.text, path.name


# --- PDF and formats ------------------------------------------------------------------------


def _reference_pdf() -> bytes:
    lines = [
        "Introduction",
        "Aspirin was studied in invented trials [1] and later ones [2, 3].",
        "References",
        "1. Smith J, Doe A. Aspirin and invented strokes in older adults.",
        "J Invented Res. 2019;1:2. doi:10.5555/invented.pdf1",
        "2. Roe R. A second invented title. Invented Letters. 2018;3:4.",
        "3. Poe E, Moe F. Third invented title. Invented Med J. 2017;5:6.",
    ]
    return pdfgen.build_pdf([pdfgen.column(lines, gap_before=[0, 2])])


def test_pdf_reference_list() -> None:
    fmt, refs = read_references(_reference_pdf(), "paper.pdf")
    assert fmt == "pdf"
    assert [r.label for r in refs] == ["1", "2", "3"]
    assert [r.where for r in refs] == ["page 1"] * 3
    assert refs[0].title == "Aspirin and invented strokes in older adults"
    assert refs[0].doi == "10.5555/invented.pdf1"
    assert refs[2].authors == ("Poe E", "Moe F")


@pytest.mark.parametrize(
    ("name", "data", "fmt"),
    [
        ("refs.bib", b"@article{a, title={x}}", "bibtex"),
        ("refs.ris", b"TY  - JOUR\nER  - \n", "ris"),
        ("refs.json", b"[]", "csl"),
        ("article.nxml", b"<article/>", "jats"),
        ("refs.md", b"Text [1].\n\n## Sources\n\n1. Smith J. Invented.", "answer"),
        ("refs.txt", b"Smith J. Invented title. Journal. 2019.", "list"),
        ("-", b'[{"title": "x"}]', "csl"),
        ("-", b'{"title": "x"}', "csl"),
        ("-", b"<ref-list><ref/></ref-list>", "jats"),
        ("-", b"Notes\nTY  - JOUR\nER  - \n", "ris"),
        ("-", b"% comment\n@book{k, title = {x}}", "bibtex"),
        ("-", b"1. Smith J. Invented title.", "list"),
    ],
)
def test_sniff(name: str, data: bytes, fmt: Format) -> None:
    assert sniff(name, data) == fmt


def test_sniff_pdf_by_content_and_formats_listed() -> None:
    assert sniff("download", _reference_pdf()) == "pdf"
    assert FORMATS == ("bibtex", "ris", "csl", "jats", "pdf", "answer", "list")


@pytest.mark.parametrize(
    ("data", "name", "fmt", "says"),
    [
        (b"\xff\xfe\xfd not utf-8 \xc3", "refs.bib", None, "not valid"),
        (b"<!doctype html><html><body>x</body></html>", "page", None, "HTML page"),
        (b"\n\n", "refs.txt", None, "holds no reference"),
        (b"@comment{nothing}", "refs.bib", None, "no BibTeX entry"),
        (b"just text", "refs.txt", "answer", "no reference list"),
        (b"<TEI><text/></TEI>", "x.xml", None, "root element is <TEI>"),
        (b"plain text", "x.pdf", None, "not a PDF"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "image", None, "PNG image"),
    ],
)
def test_unreadable_input_is_one_value_error(
    data: bytes, name: str, fmt: Format | None, says: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(says)):
        read_references(data, name, fmt)


def test_read_references_reads_each_fixture() -> None:
    expected = {
        "invented.bib": ("bibtex", 3),
        "invented.ris": ("ris", 2),
        "invented-csl.json": ("csl", 2),
        "invented-jats.xml": ("jats", 5),
        "invented-answer.md": ("answer", 2),
    }
    for name, (fmt, count) in expected.items():
        found, refs = read_references((FIXTURES / name).read_bytes(), name)
        assert (found, len(refs)) == (fmt, count), name


# --- properties -----------------------------------------------------------------------------

_WORD = st.text(st.characters(whitelist_categories=("Lu", "Ll")), min_size=1, max_size=8)


@given(
    st.lists(_WORD, min_size=1, max_size=3).map(" ".join),
    st.lists(_WORD, min_size=1, max_size=3).map(" ".join),
)
def test_surname_of_family_comma_given_is_the_folded_family(family: str, given: str) -> None:
    assert surname(f"{family}, {given}") == fold(family)


_LINE = st.one_of(
    st.just(""),
    st.sampled_from(["1.", "2)", "[3]", "(4)", "- ", "2017.", "  ", "References"]).flatmap(
        lambda head: st.lists(_WORD, max_size=6).map(lambda ws: f"{head} {' '.join(ws)}")
    ),
    st.lists(_WORD, min_size=1, max_size=8).map(" ".join),
)


@given(st.lists(_LINE, max_size=12))
def test_read_list_never_loses_a_lines_text(lines: list[str]) -> None:
    """Each non-blank line's text (less a leading list marker) is in some entry, except a
    first line that only names the list."""
    text = "\n".join(lines)
    joined = " ".join(r.text for r in read_list(text))
    nonblank = [line for line in lines if line.strip()]
    for i, line in enumerate(nonblank):
        if i == 0 and REFERENCE_HEADING.fullmatch(line):
            continue
        marker = ENTRY_MARKER.match(line) or BULLET.match(line)
        content = " ".join(line[marker.end() if marker else 0 :].split())
        assert content in joined


@given(st.text(max_size=200))
def test_a_reference_string_keeps_its_text_and_a_title_from_it(text: str) -> None:
    ref = parse_reference_string(text, numbered=False)
    assert ref.text == " ".join(text.split())
    if ref.title:
        assert ref.title in ref.text
