"""The audit verifies the answer's references (docs/references.md, "The audit uses it").

Replays the invented world's recordings (tests/refs_world.py): a numbered citation whose
entry names another work than its DOI is ``mismatch`` and fails the audit, an entry without
an identifier is searched and resolved to the work found, nothing found is unresolvable, a
sentence's "Smith et al. (2019)" that the record contradicts is ``mismatch``, the metrics
count it all, and the page shows the References section.  The cited works' texts are not
recorded, so a citation that gets as far as loading its work is ``unavailable``: these tests
are about the references, not the quotes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeproof.audit.run import audit_answer
from citeproof.models.audit import AuditReport, CitationReport
from citeproof.net.replay import ReplayTransport
from refs_world import PREFIX, RECORDINGS, REFERENCES

ANSWER = f"""Compost warms the soil of allotments [1]. Rainwater is harvested in gardens [2].
Pollinators visit rooftop meadows [3]. Vineyards plant by the moon [4].
Halloway et al. (2021) counted earthworms (doi:{PREFIX}1).
Brennan et al. (2020) measured rainwater (doi:{PREFIX}1).

## References

1. {REFERENCES["verified"]}
2. {REFERENCES["mismatch"]}
3. {REFERENCES["found_by_search"]}
4. {REFERENCES["not_found"]}
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> AuditReport:
    import os

    saved = os.environ.get("CITEPROOF_HOME")
    os.environ["CITEPROOF_HOME"] = str(tmp_path_factory.mktemp("audit-refs-home"))
    try:
        return audit_answer(ANSWER, replay=RECORDINGS, retraction=False, sign=False)
    finally:
        if saved is None:
            del os.environ["CITEPROOF_HOME"]
        else:
            os.environ["CITEPROOF_HOME"] = saved


def _by_raw(report: AuditReport, raw: str, nth: int = 0) -> CitationReport:
    found = [c for c in report.citations() if c.raw.strip("()[]") == raw.strip("()[]")]
    return found[nth]


def test_an_entry_naming_another_work_than_its_doi_is_a_mismatch_and_fails(
    report: AuditReport,
) -> None:
    c = _by_raw(report, "[2]")
    assert c.verdict == "mismatch"
    assert c.reason == (  # the audit's words, then the reference check's, as two sentences
        f"the entry and its identifier name different works. doi:{PREFIX}1 is another work: "
        f"its title, authors, venue, volume, pages differ from the entry's. The stated "
        f"metadata describes "
        f"doi:{PREFIX}2 (title, authors, year, venue agree). This is a lead to check by hand, "
        "not a finding."
    )
    assert report.verdict == "fail"
    assert "mismatch" in report.fail_on


def test_an_entry_without_an_identifier_is_searched_and_resolved(report: AuditReport) -> None:
    c = _by_raw(report, "[3]")
    assert c.resolved_to == f"doi:{PREFIX}3"
    assert c.verdict != "unresolvable"


def test_an_entry_nobody_holds_is_unresolvable(report: AuditReport) -> None:
    c = _by_raw(report, "[4]")
    assert c.verdict == "unresolvable"
    assert c.reason == (  # not "... no identifier and No work in ..."
        "the reference names no identifier. No record in crossref, pubmed, openalex matches "
        "the entry; each answered, and the closest records are listed. The work may be missing "
        "from these databases or cited with errors. This is a lead to check by hand, not a "
        "finding."
    )


def test_a_verified_entry_goes_on_to_the_usual_checks(report: AuditReport) -> None:
    c = _by_raw(report, "[1]")
    assert c.verdict not in ("mismatch", "unresolvable")
    assert c.resolved_to == f"doi:{PREFIX}1"


def test_a_work_the_replay_cannot_load_is_unavailable_never_malformed(
    report: AuditReport,
) -> None:
    """The works' texts were never recorded: citeproof could not read them, which says
    nothing against the citation (it was ``malformed``, an accusation of the answer)."""
    for raw in ("[1]", "[3]"):
        c = _by_raw(report, raw)
        assert c.verdict == "unavailable", (raw, c.verdict, c.reason)


def test_a_sentence_naming_other_authors_than_the_record_is_a_mismatch(
    report: AuditReport,
) -> None:
    right = _by_raw(report, f"doi:{PREFIX}1", 0)
    wrong = _by_raw(report, f"doi:{PREFIX}1", 1)
    assert right.verdict != "mismatch"
    assert wrong.verdict == "mismatch"
    assert "authors: stated Brennan" in (wrong.reason or "")


def test_the_metrics_and_the_report_carry_the_references(report: AuditReport) -> None:
    m = report.metrics
    assert m.references == 4
    assert m.references_verified == 2  # the entry with its DOI and the one found by search
    assert m.by_verdict["mismatch"] == 2
    assert m.fabricated == m.by_verdict["forged"] + m.by_verdict["unresolvable"] + 2
    assert [r.verdict for r in report.references] == [
        "verified",
        "mismatch",
        "verified",
        "not_found",
    ]
    assert report.references[1].suggested is not None
    assert report.references[1].suggested.identifier == f"doi:{PREFIX}2"


def test_the_references_checks_ask_only_what_was_recorded() -> None:
    """Every request the references check makes for this answer is in the recordings: the
    replay refuses nothing but the cited works' texts, which these tests do not record."""
    from citeproof.audit.parse import parse_answer
    from citeproof.audit.run import _check_references  # the references step alone

    seen: list[ReplayTransport] = []
    original = ReplayTransport.from_folder

    def spy(folder: Path, **kw: object) -> ReplayTransport:
        transport = original(folder, **kw)  # type: ignore[arg-type]
        seen.append(transport)
        return transport

    ReplayTransport.from_folder = spy  # type: ignore[method-assign,assignment]
    try:
        _check_references(parse_answer(ANSWER), False, RECORDINGS)
    finally:
        ReplayTransport.from_folder = original  # type: ignore[method-assign]
    assert seen and all(not t.refused for t in seen), [t.refused for t in seen]


def test_the_page_shows_the_references(report: AuditReport, tmp_path: Path) -> None:
    from citeproof.report.page import render_audit_html

    html = render_audit_html(report.model_dump(mode="json"))
    assert "Reference 2" in html and "Wrong work" in html
    assert f"{PREFIX}2" in html
