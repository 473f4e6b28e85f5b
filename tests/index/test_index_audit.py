"""The audit asks a local index for a cited work's retraction status too, as ``citeproof
refs`` does: offline, the index's notice is what says the work is retracted.

The index is the one built from the INVENTED dumps (``conftest.built``): its Crossref item
``10.5555/invented.idx.2`` is retracted by the notice ``10.5555/invented.idx.2r``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeproof.audit.run import audit_answer

# INVENTED: a work of tests/index/dumps, cited by an answer as a model writes it.
ANSWER = (
    "Rain barrels supply most of the water an urban garden needs [1].\n\n"
    "References\n"
    "1. Lindqvist R. Rainwater harvesting for invented urban gardens. Invented Urban "
    "Horticulture. 2020;7:55-61. doi:10.5555/invented.idx.2\n"
)


@pytest.fixture
def no_rw_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A data folder of its own, without a Retraction Watch snapshot or a cache: offline,
    nothing but the index can know the work is retracted."""
    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CITEPROOF_INDEX", raising=False)


def _citation(index: Path | None) -> dict[str, object]:
    given = {"index": index} if index is not None else {}  # without: as audits were called
    report = audit_answer(ANSWER, offline=True, sign=False, **given)
    ((citation,),) = [s.citations for s in report.sentences if s.citations]
    return citation.model_dump(mode="json")


@pytest.mark.usefixtures("no_rw_snapshot")
def test_offline_the_audit_says_retracted_from_the_index(built: Path) -> None:
    citation = _citation(built)
    assert citation["resolved_to"] == "doi:10.5555/invented.idx.2"
    retraction = citation["retraction"]
    assert isinstance(retraction, dict)
    assert retraction["status"] == "RETRACTED", retraction
    (index,) = [s for s in retraction["sources"] if s["source"] == "index"]
    assert index["state"] != "not_asked", index
    assert "retracted" in citation["flags"]  # type: ignore[operator]


@pytest.mark.usefixtures("no_rw_snapshot")
def test_the_index_variable_is_asked_as_the_option_is(
    built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_INDEX", str(built))
    retraction = _citation(None)["retraction"]
    assert isinstance(retraction, dict) and retraction["status"] == "RETRACTED"


@pytest.mark.usefixtures("no_rw_snapshot")
def test_without_the_index_offline_the_status_is_unverifiable(built: Path) -> None:
    """The contrast that shows the index answered above (and what the audit said before it
    asked the index: the work verified from the index, its status UNVERIFIABLE)."""
    retraction = _citation(None)["retraction"]
    assert isinstance(retraction, dict) and retraction["status"] == "UNVERIFIABLE"


# INVENTED: a manuscript citing the same work.
MANUSCRIPT = (
    "# Water in invented gardens\n\n"
    "Rain barrels supply most of the water an urban garden needs [1].\n\n"
    "## References\n\n"
    "1. Lindqvist R. Rainwater harvesting for invented urban gardens. Invented Urban "
    "Horticulture. 2020;7:55-61. doi:10.5555/invented.idx.2\n"
)


@pytest.mark.usefixtures("no_rw_snapshot")
def test_a_manuscript_checked_with_the_index_lists_the_work_as_retracted(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``citeproof manuscript`` verifies its references through the same door as ``refs``,
    which asks the index for the retraction status: offline, only it can say so."""
    from citeproof.service.manuscripts import check_manuscript

    paper = tmp_path / "paper.md"
    paper.write_text(MANUSCRIPT, encoding="utf-8")
    monkeypatch.setenv("CITEPROOF_INDEX", str(built))
    report = check_manuscript(paper, offline=True, sign=False)
    assert [(r.identifier, r.status) for r in report.retracted] == [
        ("doi:10.5555/invented.idx.2", "RETRACTED")
    ]
    monkeypatch.delenv("CITEPROOF_INDEX")
    assert check_manuscript(paper, offline=True, sign=False).retracted == []
