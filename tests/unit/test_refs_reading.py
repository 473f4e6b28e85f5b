"""Issue 22, the reading side: a real bibliography is read as its author wrote it, so that
nothing the layout did becomes an accusation.

* A DOI that a line end broke (``10.1016/j`` / ``.cell.2019.01.001``) is read whole, by
  every reader that sees line breaks (a plain list, an answer's list, a PDF's list, the
  audit's reference entries); a hyphen or a full stop at the line end keeps the other
  reading as ``doi_alternatives``.
* An entry that names nothing to look up ("Smith", "Nature, 2019", ``doi:10.``,
  ``PMID: 0``) is empty, and says what it wrote as an identifier that is none.
* A numbered list whose numbers skip (``3.``, ``7.``, ``12.``) is three entries, never one,
  and the skip is said.

Pure: no files but a PDF built in memory, no network.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from citeproof.audit.parse import parse_answer
from citeproof.documents.pdf import parse_pdf
from citeproof.errors import ReferenceListError
from citeproof.identifiers import find_identifiers, find_malformed_identifiers, mend_line_breaks
from citeproof.refs.formats import read_reference_list
from citeproof.refs.listed import (
    parse_reference_string,
    read_answer_list,
    read_answer_references,
    read_list,
    read_plain_list,
)
from citeproof.refs.pdf_list import read_document_reference_list
from citeproof.refs.stated import searchable
from citeproof.service.references import stated_reference, verify_references

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pdfgen

CELL = "10.1016/j.cell.2019.01.001"
ENTRY = "Smith J, Doe A. Aspirin and the risk of stroke in adults. Cell. 2019;176:1-12."

# ------------------------------------------------------------------- 1. a DOI a line end broke

BROKEN: dict[str, tuple[str, tuple[str, ...]]] = {
    # before a full stop, as Chicago breaks: no doubt
    "doi:10.1016/j\n.cell.2019.01.001": (CELL, ()),
    # after the prefix's slash, indented continuation, a doi.org address
    "https://doi.org/10.1016/\n    j.cell.2019.01.001": (CELL, ()),
    "doi: 10.1016\n/j.cell.2019.01.001": (CELL, ()),
    "doi:10.\n1016/j.cell.2019.01.001": (CELL, ()),
    # after a full stop, the next line lower case or a digit: joined, the cut DOI kept too
    "doi:10.1016/j.\ncell.2019.01.001": (CELL, ("10.1016/j",)),
    # a hyphen after a full stop was put there by hyphenation: dropped first
    "doi:10.1016/j.cell.2019.-\n01.001": (CELL, ("10.1016/j.cell.2019.-01.001",)),
    # a hyphen after a letter or digit is the DOI's own: kept first
    "doi:10.1016/s0140-\n6736(97)11096-0": (
        "10.1016/s0140-6736(97)11096-0",
        ("10.1016/s01406736(97)11096-0",),
    ),
    # Windows line ends, and a DOI broken over three lines
    "doi:10.1016/j\r\n.cell.2019\r\n.01.001": (CELL, ()),
}


@pytest.mark.parametrize("text", list(BROKEN))
def test_a_doi_a_line_end_broke_is_read_whole(text: str) -> None:
    doi, others = BROKEN[text]
    assert [i.key for i in find_identifiers(text)] == [f"doi:{doi}"]
    mended, readings = mend_line_breaks(text)
    assert doi in mended.lower() and readings.get(doi, ()) == others
    stated = parse_reference_string(f"{ENTRY} {text}")
    assert (stated.doi, stated.doi_alternatives) == (doi, others)


_PART = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9]{0,6}", fullmatch=True)


@st.composite
def broken_dois(draw: st.DrawFn) -> tuple[str, str]:
    """A DOI, and the DOI as a line end breaks it at one of its ``. / - _``: before the
    character (Chicago's rule) or after it (where URL breaking puts it)."""
    parts = [draw(_PART)]
    for _ in range(draw(st.integers(1, 4))):
        parts.append(draw(st.sampled_from(".-_/")) + draw(_PART))
    doi = f"10.{draw(st.integers(1000, 99999))}/" + "".join(parts)
    cuts = [i for i, ch in enumerate(doi) if ch in "./-_" and i > doi.index("/")]
    at = draw(st.sampled_from(cuts))
    after = draw(st.booleans()) and doi[at] != "."
    cut = at + 1 if after else at
    assume(doi[cut:] and not doi[cut:][0].isspace())
    return doi, f"{doi[:cut]}\n    {doi[cut:]}"


@given(broken_dois())
def test_wherever_a_line_end_breaks_a_doi_one_reading_is_the_doi(case: tuple[str, str]) -> None:
    doi, text = case
    mended, readings = mend_line_breaks(f"Smith J. A title. Cell. 2019. doi:{text}")
    (found,) = find_identifiers(mended)
    assert doi.lower() in (found.value, *readings.get(found.value, ()))


@pytest.mark.parametrize(
    "text",
    [
        "doi:10.1000/xyz.\nPMID: 12345.",  # a full stop, then a capital: the next sentence
        "doi:10.1000/xyz.\n2. Doe A. Next entry.",  # the next entry's number
        "doi:10.1000/xyz.\n[2] Doe A. Next entry.",
        "doi:10.1000/0-\n2. Next reference",  # a DOI may end in a hyphen
        "doi:10.1000/xyz,\n.b",  # the comma ended the DOI
        "doi:10.1000/xyz\n\n.b",  # a blank line is no line break inside anything
        "doi:10.1000/xyz\nSmith J. Next entry.",  # nothing marks a break
        "Published in 2010.\nit was",  # a year is no DOI
    ],
)
def test_a_line_end_that_ends_a_doi_is_left_alone(text: str) -> None:
    assert mend_line_breaks(text) == (text, {})


def test_a_plain_list_joins_the_line_that_only_carries_the_rest_of_a_doi() -> None:
    text = f"{ENTRY} doi:10.1016/j\n.cell.2019.01.001\nDoe A. Another paper on stroke. 2020.\n"
    first, second = read_list(text)
    assert first.doi == CELL and first.text.endswith(f"doi:{CELL}")
    assert second.text == "Doe A. Another paper on stroke. 2020."
    numbered = f"1. {ENTRY} doi:10.1016/j.cell.2019.-\n01.001\n2. Doe A. Another paper. 2020.\n"
    got = read_list(numbered)
    assert [(r.label, r.doi) for r in got] == [("1", CELL), ("2", None)]
    assert got[0].doi_alternatives == ("10.1016/j.cell.2019.-01.001",)


def test_an_answer_and_the_audit_read_the_whole_doi() -> None:
    answer = (
        "Aspirin lowers the risk of stroke [1].\n\n## References\n\n"
        f"1. {ENTRY} doi:10.1016/j\n   .cell.2019.01.001\n"
    )
    (ref,) = read_answer_references(answer) or []
    assert ref.doi == CELL
    # The audit resolves [1] to the entry's first identifier: the whole DOI.
    (entry,) = parse_answer(answer).references
    assert [i.key for i in entry.identifiers] == [f"doi:{CELL}"]


def test_a_pdf_reference_list_reads_dois_its_lines_broke() -> None:
    first = "J Sleep. 2019;3:45. doi:10.1016/"
    lines = {
        1: [f"1. Smith J. Walking and sleep. {first}j", ".cell.2019.01.001"],
        2: [f"2. Lee K. Running and sleep. {first}j.cell.2019.-", "01.001"],
        3: [f"3. Ng T. Standing and sleep. {first}", "j.cell.2019.01.001"],
    }
    doc = parse_pdf(pdfgen.reference_list(lines.__getitem__, count=3))
    listed = read_document_reference_list(doc)
    assert [r.doi for r in listed.references] == [CELL, CELL, CELL]
    assert listed.references[1].doi_alternatives == ("10.1016/j.cell.2019.-01.001",)


# ---------------------------------------------------------------- 2. entries naming nothing


@pytest.mark.parametrize(
    "entry",
    [
        "Smith",
        "Halloway2021",
        "Halloway et al. 2021",
        "Nature, 2019.",
        "The Lancet. 2019.",
        "doi:10.",
        "PMID: 0",
        "https://doi.org/",
    ],
)
def test_an_entry_that_names_nothing_to_look_up_is_empty(entry: str) -> None:
    stated = parse_reference_string(entry)
    assert stated.is_empty and not searchable(stated.text)


@pytest.mark.parametrize(
    "entry",
    [
        ENTRY,
        "Smith J, Doe A. Nature. 2019.",  # three names to search by
        "Nature 2019;571:1-10",  # a venue, its volume and first page
        "doi:10.1016/j.cell.2019.01.001",
        "PMID: 31234567",
        "山田太郎. 日本の土壌生態学の研究. 2019.",  # words a script writes without spaces
    ],
)
def test_an_entry_that_names_something_is_not_empty(entry: str) -> None:
    assert not parse_reference_string(entry).is_empty


def test_what_is_written_as_an_identifier_but_is_none_is_said() -> None:
    stated = parse_reference_string("Smith J. doi:10. PMID: 0 PMC0")
    assert stated.malformed_ids == ("doi:10.", "PMID: 0", "PMC0")
    assert stated.identifiers == ()
    assert find_malformed_identifiers("DOI: https://doi.org/10.1016/x PMID: 123") == []
    (why,) = find_malformed_identifiers("doi:10.")
    assert why == ("doi:10.", "'doi:10.' is not a valid DOI.")
    csl = stated_reference({"DOI": "10.", "PMID": "0"})
    assert csl.malformed_ids == ("doi:10.", "pmid:0") and csl.is_empty


def test_an_object_that_is_no_reference_is_refused() -> None:
    for item in ({}, {"reference": 5}, {"publisher": "Elsevier"}):
        with pytest.raises(ReferenceListError, match="Reference 1 is an object that has none"):
            stated_reference(item)


def test_a_list_of_which_nothing_can_be_looked_up_is_refused_before_anything_is_asked() -> None:
    with pytest.raises(ReferenceListError) as caught:
        verify_references(["Smith"], offline=True, retraction=False)
    assert str(caught.value).startswith(
        "no entry of the list names anything to look up: entry 1 is only 'Smith'; give each "
    )
    with pytest.raises(ReferenceListError, match="'pmid:0' is not a valid PMID"):
        verify_references([{"DOI": "10.", "PMID": "0"}], offline=True, retraction=False)
    with pytest.raises(ReferenceListError) as caught:
        verify_references(["doi:10.", "PMID: 0", "Nature, 2019."], offline=True, retraction=False)
    message = str(caught.value)
    assert "\n" not in message and "and 1 more like them" in message
    assert "entry 1 is only 'doi:10.' ('doi:10.' is not a valid DOI" in message
    assert "'PMID: 0' is not a valid PMID (PMIDs start at 1)" in message


# ------------------------------------------------------------ 4. numbers that skip or repeat

SKIPPING = (
    "3. Smith J. Walking and sleep in older adults. J Sleep Res. 2019;3:45.\n"
    "7. Lee K. Running and sleep in older adults. J Sleep Res. 2020;4:46.\n"
    "12. Brown M. Sitting and sleep in older adults.\n"
    "2017. J Sleep Res;5:47.\n"  # a wrapped line that starts with the year: no entry
)


def test_every_numbered_line_starts_an_entry_whatever_the_gap() -> None:
    listed = read_plain_list(SKIPPING)
    assert [r.label for r in listed.references] == ["3", "7", "12"]
    assert listed.references[2].text.endswith("2017. J Sleep Res;5:47.")
    assert listed.problems == (
        "The numbering skips 1-2, 4-6, 8-11: no entry was read for 9 numbers; check the list.",
    )


def test_a_number_used_twice_or_going_back_is_said_and_read_apart() -> None:
    text = "1. First paper title here.\n2. Second paper title.\n2. Again two.\n9. Nine.\n5. Five.\n"
    listed = read_plain_list(text)
    assert [r.label for r in listed.references] == ["1", "2", "2", "9", "5"]
    assert listed.problems == (
        "The numbering skips 3-4, 6-8: no entry was read for 5 numbers; check the list.",
        "More than one entry is numbered 2; each is read apart.",
        "Entry 5 comes after entry 9 (the numbers go back); it is read as an entry of its own.",
    )
    # A list that starts again at 1 (a second list) is no repeat.
    assert read_plain_list("1. A one.\n2. A two.\n1. B one.\n2. B two.\n").problems == ()


def test_an_answers_list_is_read_the_same_way() -> None:
    answer = "Walking helps [3]. Running too [7]. Sitting not [12].\n\n## References\n\n" + SKIPPING
    listed = read_answer_list(answer)
    assert listed is not None and [r.label for r in listed.references] == ["3", "7", "12"]
    assert "The numbering skips 1-2, 4-6, 8-11" in listed.problems[0]
    bare = (
        "Walking helps [3]. Running [7].\n\n[3] Smith J. A. doi:10.1/a\n[7] Lee K. B. doi:10.1/b\n"
    )
    heading_less = read_answer_list(bare)
    assert heading_less is not None and [r.label for r in heading_less.references] == ["3", "7"]


@pytest.mark.parametrize(("name", "fmt"), [("refs.txt", "list"), ("answer.md", "answer")])
def test_the_reader_returns_the_problems_with_the_references(name: str, fmt: str) -> None:
    text = SKIPPING if fmt == "list" else "Walking helps [3].\n\n## References\n\n" + SKIPPING
    read = read_reference_list(text.encode(), name)
    assert read.format == fmt and len(read.references) == 3
    assert read.problems[0].startswith("The numbering skips 1-2, 4-6, 8-11")
