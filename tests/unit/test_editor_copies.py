"""The rules that match an editor's copies (``--sources``) to reference entries
(``citeproof.service.editor_copies``), on INVENTED files: what a wrong match would cost is a
quotation checked against another work's text, so each rule is pinned here."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from citeproof.errors import BadInputError, SourceNotFoundError
from citeproof.models.references import ReferenceResult, StatedFields, WorkFound
from citeproof.refs.listed import from_fields
from citeproof.service.editor_copies import (
    HEAD_CHARS,
    list_files,
    match_copies,
    work_ids,
)

HALLOWAY = from_fields(
    title="Compost temperature and earthworm density in invented allotments",
    authors=["Halloway, Wren"],
    year=2021,
    doi="10.5555/invented.world.1",
)
BRENNAN_WRONG_DOI = from_fields(
    title="Rainwater harvesting for invented urban gardens",
    authors=["Brennan, Aoife"],
    year=2020,
    doi="10.5555/invented.world.1",  # Halloway's DOI: a mismatch
)


def result(
    verdict: str, *, work: WorkFound | None = None, suggested: WorkFound | None = None
) -> ReferenceResult:
    return ReferenceResult(
        index=1,
        verdict=verdict,
        reason="invented",
        stated=StatedFields(text="x"),  # type: ignore[arg-type]
        work=work,
        suggested=suggested,
    )


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_verified_work_goes_by_its_records_identifiers_and_the_entrys() -> None:
    work = WorkFound(source="crossref", identifier="doi:10.5555/x", doi="10.5555/x", pmid="123")
    ids = work_ids(HALLOWAY, result("verified", work=work))
    assert ids.keys == ("doi:10.5555/x", "pmid:123", "doi:10.5555/invented.world.1")
    assert ids.basis == "verified"


def test_a_mismatchs_stated_identifier_never_names_its_work() -> None:
    ids = work_ids(BRENNAN_WRONG_DOI, result("mismatch"))
    assert ids.keys == () and ids.basis is None
    suggested = WorkFound(source="crossref", identifier="doi:10.5555/y", doi="10.5555/Y")
    ids = work_ids(BRENNAN_WRONG_DOI, result("mismatch", suggested=suggested))
    assert ids.keys == ("doi:10.5555/y",) and ids.basis == "suggested"
    assert work_ids(HALLOWAY, None).basis == "stated"


def test_files_are_matched_by_identifier_then_by_title_and_first_author(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "INVENTED. Compost temperature ... doi:10.5555/invented.world.1\n")
    write(
        tmp_path,
        "sub/b.txt",
        "INVENTED. Brennan A, Mwangi P. Rainwater Harvesting for Invented Urban Gardens.\n",
    )
    write(tmp_path, "c.txt", "INVENTED. A study of nothing the manuscript cites.\n")
    write(tmp_path, ".hidden.txt", "doi:10.5555/invented.world.1")
    write(tmp_path, "figure.png", "not a source")
    files = list_files(tmp_path)
    assert [name for name, _ in files] == ["a.txt", "c.txt", "sub/b.txt"]
    works = {
        "ref1": work_ids(HALLOWAY, None),
        "ref2": work_ids(BRENNAN_WRONG_DOI, result("mismatch")),
    }
    copies = match_copies(files, works)
    assert copies.files == {"ref1": "a.txt", "ref2": "sub/b.txt"}
    assert copies.matched_by == {"ref1": "doi", "ref2": "title_author"}
    records = {r.file: r for r in copies.records}
    assert records["c.txt"].entry_ids == [] and "no entry" in (records["c.txt"].reason or "")
    assert records["a.txt"].sha256 is not None


def test_a_file_naming_another_doi_is_not_matched_by_its_title(tmp_path: Path) -> None:
    write(
        tmp_path,
        "comment.txt",
        "INVENTED comment doi:10.5555/invented.comment.1 on Halloway W: Compost temperature "
        "and earthworm density in invented allotments.",
    )
    copies = match_copies(list_files(tmp_path), {"ref1": work_ids(HALLOWAY, None)})
    assert copies.files == {}


def test_only_the_head_of_a_file_says_which_work_it_is(tmp_path: Path) -> None:
    # A paper that cites Halloway's DOI in its own reference list is not Halloway's paper.
    write(
        tmp_path,
        "other.txt",
        "INVENTED other paper. " + "x " * HEAD_CHARS + "doi:10.5555/invented.world.1",
    )
    copies = match_copies(list_files(tmp_path), {"ref1": work_ids(HALLOWAY, None)})
    assert copies.files == {}


def test_an_unreadable_file_is_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    copies = match_copies(list_files(tmp_path), {"ref1": work_ids(HALLOWAY, None)})
    (record,) = copies.records
    assert record.file == "broken.pdf" and "could not be read" in (record.reason or "")


def test_a_folder_that_is_not_one_or_too_full_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(SourceNotFoundError, match="--sources"):
        list_files(tmp_path / "missing")
    import citeproof.service.editor_copies as editor_copies

    monkeypatch.setattr(editor_copies, "MAX_FILES", 2)
    for n in range(3):
        write(tmp_path, f"{n}.txt", "x")
    with pytest.raises(BadInputError, match="more than 2 files"):
        list_files(tmp_path)


def test_a_wrong_stated_doi_loses_to_the_title_when_refs_was_not_asked(tmp_path: Path) -> None:
    """Without a verification the entry's own DOI is all there is, and Brennan's is
    Halloway's: the file holding Brennan's title and name is the copy, not Halloway's."""
    write(
        tmp_path, "a.txt", "INVENTED. Halloway W. Compost temperature. doi:10.5555/invented.world.1"
    )
    write(
        tmp_path, "b.txt", "INVENTED. Brennan A. Rainwater harvesting for invented urban gardens."
    )
    works = {"ref1": work_ids(HALLOWAY, None), "ref2": work_ids(BRENNAN_WRONG_DOI, None)}
    copies = match_copies(list_files(tmp_path), works)
    assert copies.files == {"ref1": "a.txt", "ref2": "b.txt"}
    assert copies.matched_by == {"ref1": "doi", "ref2": "title_author"}


def test_an_entry_the_reader_could_not_split_is_found_by_the_files_own_title(
    tmp_path: Path,
) -> None:
    jats = (
        "<article><front><article-meta><title-group><article-title>Pollinator visits to "
        "invented rooftop meadows</article-title></title-group></article-meta></front><body>"
        "<p>INVENTED. Adeyemi F, Novak L.</p></body></article>"
    )
    write(tmp_path, "copy.xml", jats)
    unsplit = from_fields(title=None, authors=[], year=None)  # no title, no author
    unsplit = replace(
        unsplit, text="Adeyemi, F, Novak, L. Pollinator visits to invented rooftop meadows. 2022."
    )
    copies = match_copies(list_files(tmp_path), {"ref1": work_ids(unsplit, None)})
    assert copies.matched_by == {"ref1": "title_author"}


def test_a_short_title_needs_the_year_and_a_near_title_is_enough(tmp_path: Path) -> None:
    short = from_fields(title="Bad medicine", authors=["Smith, Richard"], year=2012)
    write(tmp_path, "a.txt", "INVENTED. Bad medicine. Richard Smith. A review.")
    assert match_copies(list_files(tmp_path), {"r": work_ids(short, None)}).files == {}
    write(tmp_path, "a.txt", "INVENTED. Bad medicine. Richard Smith. 2012. A review.")
    assert match_copies(list_files(tmp_path), {"r": work_ids(short, None)}).files == {"r": "a.txt"}
    # a character a PDF could not draw does not stop the title
    greek = from_fields(title="Lysis time in invented bacteriophage λ", authors=["Dennehy, J"])
    write(tmp_path, "b.txt", "INVENTED. Lysis time in invented bacteriophage ? by J Dennehy")
    copies = match_copies(list_files(tmp_path), {"g": work_ids(greek, None)})
    assert copies.files == {"g": "b.txt"}


def test_a_reference_managers_doi_counts_as_stated(tmp_path: Path) -> None:
    printed = from_fields(title="Worm counts", authors=["Halloway, W"], year=None)
    write(tmp_path, "w.txt", "INVENTED paper. doi:10.5555/invented.world.9")
    csl = {"DOI": "10.5555/INVENTED.WORLD.9", "PMID": 99930009}
    ids = work_ids(printed, None, csl)
    assert ids.keys == ("doi:10.5555/invented.world.9", "pmid:99930009")
    assert match_copies(list_files(tmp_path), {"w": ids}).matched_by == {"w": "doi"}
