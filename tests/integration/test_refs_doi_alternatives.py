"""A DOI a line end broke with a doubt is tried in its other reading before it is called
unresolvable (the reader keeps both: ``StatedReference.doi_alternatives``).

Answered by an INVENTED emulated world (``tests/scholarly_world.py``): it holds the DOI
without the hyphen, and knows nothing of the reading with it.
"""

from __future__ import annotations

from citeproof.models.references import ReferenceResult
from citeproof.refs.listed import parse_reference_string
from scholarly_world import Person, Work, World, verify_printed

CELLS = Work(
    doi="10.5555/invented.cell2019.7",
    title="Invented cells divide in invented dishes",
    authors=(Person("Halloway", "Wren"),),
    year=2019,
    venue="Journal of Invented Cells",
    volume="1",
    first_page="2",
)


def _verify(text: str) -> ReferenceResult:
    return verify_printed(World([CELLS]), text)


def test_the_other_reading_of_a_broken_doi_is_tried_before_unresolvable() -> None:
    text = (
        "Halloway W. Invented cells divide in invented dishes. J Invent Cells. 2019;1:2. "
        "doi:10.5555/invented.cell-\n2019.7"
    )
    r = _verify(text)
    assert r.verdict == "verified", r.reason
    assert r.work is not None and r.work.identifier == "doi:10.5555/invented.cell2019.7"
    assert r.identifiers[0].identifier == "doi:10.5555/invented.cell2019.7"
    assert "line end" in (r.identifiers[0].reason or "")


def test_a_doi_that_does_not_exist_in_any_reading_is_still_unresolvable() -> None:
    text = (
        "Halloway W. Invented cells divide in invented dishes. J Invent Cells. 2019;1:2. "
        "doi:10.5555/invented.nope-\n2019.7"
    )
    assert _verify(text).verdict == "unresolvable"


def test_a_doi_a_pdf_broke_with_a_space_is_read_on_before_unresolvable() -> None:
    """Extraction left a space where the line ended ("10.5555/invented .cell2019.7"): the
    DOI as printed does not exist, read on across the space it does (the old code called
    the reference unresolvable)."""
    text = (
        "Halloway W (2019) Invented cells divide in invented dishes. J Invent Cells 1:2. "
        "doi:10.5555/invented .cell2019.7"
    )
    assert parse_reference_string(text).doi_alternatives == ("10.5555/invented.cell2019.7",)
    r = _verify(text)
    assert r.verdict == "verified", r.reason
    assert r.work is not None and r.work.identifier == "doi:10.5555/invented.cell2019.7"


def test_a_word_after_a_doi_is_not_read_on() -> None:
    stated = parse_reference_string("Halloway W. Cells. doi:10.5555/invented.cell. Available 2019")
    assert stated.doi_alternatives == ()
