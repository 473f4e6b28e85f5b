"""Reference verification against REAL Crossref records from ../shared/corpus.

The corpus holds real ``works/{doi}`` answers (habanero's recordings); each is replayed as
Crossref's answer, beside an invented doi.org "Which RA?" answer naming Crossref (labelled
so in the recording).  A reference written from the record verifies, with every field
agreeing; the same DOI under another paper's title is a mismatch naming the title; a real
404 from Crossref, with doi.org and DataCite saying the same, is unresolvable.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from citeproof.net.recordings import write_recording
from citeproof.service.references import verify_references

WHEN = datetime(2026, 4, 20, tzinfo=UTC)
RECORDS = {
    "10.1371/journal.pone.0033693": "habanero-crossref-works-10.1371-journal.pone.0033693.json",
    "10.1016/j.neurobiolaging.2010.03.024": (
        "habanero-crossref-works-10.1016-j.neurobiolaging.2010.03.024.json"
    ),
}
INVENTED = "INVENTED for citeproof's tests: doi.org's Which-RA answer format, not a real answer"


def _ra(folder: Path, doi: str, answer: list[dict[str, str]], name: str) -> None:
    write_recording(
        folder,
        name,
        url=f"https://doi.org/doiRA/{doi}",
        status=200,
        headers={"content-type": "application/json"},
        body=json.dumps(answer).encode(),
        date=WHEN,
        provenance=INVENTED,
    )


@pytest.fixture
def replay(corpus: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "replay"
    folder.mkdir()
    for n, (doi, file) in enumerate(RECORDS.items()):
        body = (corpus / "crossref" / file).read_bytes()
        write_recording(
            folder,
            f"crossref-{n}",
            url=f"https://api.crossref.org/v1/works/{doi}",
            status=200,
            headers={"content-type": "application/json"},
            body=body,
            date=WHEN,
            provenance=f"the real Crossref answer in ../shared/corpus/crossref/{file}",
        )
        _ra(folder, doi, [{"DOI": doi, "RA": "Crossref"}], f"ra-{n}")
    missing = "10.1371/notarealdoi"
    write_recording(
        folder,
        "crossref-404",
        url=f"https://api.crossref.org/v1/works/{missing}",
        status=404,
        headers={"content-type": "text/plain"},
        body=(
            corpus / "crossref" / "habanero-crossref-works-10.1371-notarealdoi.404.txt"
        ).read_bytes(),
        date=WHEN,
        provenance="the real Crossref 404 in ../shared/corpus/crossref",
    )
    _ra(folder, missing, [{"DOI": missing, "status": "DOI does not exist"}], "ra-404")
    write_recording(
        folder,
        "datacite-404",
        url=f"https://api.datacite.org/dois/{missing}",
        status=404,
        headers={"content-type": "application/vnd.api+json"},
        body=b'{"errors":[{"status":"404","title":"The resource you are looking for doesn\'t '
        b'exist."}]}',
        date=WHEN,
        provenance="INVENTED for citeproof's tests, in DataCite's 404 format",
    )
    return folder


def _record(corpus: Path, doi: str) -> dict[str, object]:
    message = json.loads((corpus / "crossref" / RECORDS[doi]).read_bytes())["message"]
    assert isinstance(message, dict)
    return message


def test_a_reference_written_from_the_real_record_verifies(corpus: Path, replay: Path) -> None:
    doi = "10.1371/journal.pone.0033693"
    m = _record(corpus, doi)
    authors = m["author"]
    assert isinstance(authors, list)
    first = authors[0]["family"]
    year = m["issued"]["date-parts"][0][0]  # type: ignore[index]
    title = m["title"][0]  # type: ignore[index]
    text = f"{first} S, et al. {title}. PLoS One. {year};7(3):e33693. doi:{doi}"
    (r,) = verify_references([text], replay=replay, retraction=False).references
    assert r.verdict == "verified", r.reason
    assert r.work is not None and r.work.doi == doi and r.work.year == year
    agreements = {c.field: c.agreement for c in r.comparisons}
    assert agreements["title"] == "agrees"
    assert (agreements["volume"], agreements["pages"]) == ("agrees", "agrees")  # 7, e33693
    assert [a.service for a in r.asked] == ["crossref"]  # one request decides a DOI


def test_the_same_doi_under_another_papers_title_is_a_mismatch(corpus: Path, replay: Path) -> None:
    other = _record(corpus, "10.1016/j.neurobiolaging.2010.03.024")
    title = other["title"][0]  # type: ignore[index]
    text = f"Someone A. {title}. Neurobiol Aging. 2011. doi:10.1371/journal.pone.0033693"
    (r,) = verify_references([text], replay=replay, retraction=False).references
    assert r.verdict == "mismatch", r.reason
    assert "title" in r.differs
    assert r.work is not None and r.work.doi == "10.1371/journal.pone.0033693"


def test_a_doi_crossref_answers_404_for_is_unresolvable(replay: Path) -> None:
    text = "Nobody N. A paper that never was. PLoS One. 2012. doi:10.1371/notarealdoi"
    (r,) = verify_references([text], replay=replay, retraction=False).references
    assert r.verdict == "unresolvable", r.reason
    assert {a.service: a.status for a in r.asked} == {
        "doi.org": "missing",
        "crossref": "missing",
        "datacite": "missing",
    }
