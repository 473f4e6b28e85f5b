"""``citeproof refs`` end to end against the invented scholarly world (``tests/refs_world.py``).

Everything is replayed from ``tests/refs/recordings/`` (INVENTED answers, in the real formats
of doi.org, Crossref, DataCite, E-utilities, the PMC ID converter and OpenAlex) through the
real entry points: :func:`citeproof.service.references.verify_references` with ``replay=``,
the ``citeproof refs`` command with ``--replay``, and the MCP tool ``verify_references``.
Every test has its own ``CITEPROOF_HOME`` (tests/conftest.py), so the pins, the evidence log
and the Retraction Watch snapshot start empty.

One verdict per case: a title with its right DOI (verified), another paper's title with that
DOI (mismatch), a fabricated DOI (unresolvable), no identifier and found by search
(verified), no identifier and nothing found (not_found), PubMed failing (unavailable), the
title with other authors (partial), two editions of one book (ambiguous).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import jsonschema
import pytest
from click.testing import Result

from citeproof.models.references import ReferenceResult, ReferencesReport, ServiceAnswer
from citeproof.net.recordings import RequestKey, load_folder, request_key
from refs_world import (
    API_KEY,
    BIB_OUTAGE,
    BIB_PROBLEM,
    BIB_VERIFIED,
    CONTACT,
    CSL_ITEMS,
    PREFIX,
    RECORDINGS,
    REFERENCES,
    RW_CSV,
    UNLINKED,
    jsonl_text,
    record,
)

if TYPE_CHECKING:
    from conftest import CliRun

WORLD = {str(n): f"doi:{PREFIX}{n}" for n in range(1, 12)}
ANSWERED = ("ok", "empty", "missing")


@contextmanager
def _home(home: Path) -> Iterator[None]:
    """``CITEPROOF_HOME`` set to ``home`` and no other CITEPROOF_* setting, for a fixture
    wider than one test (the suite's own private home is per test)."""
    saved = {k: v for k, v in os.environ.items() if k.startswith("CITEPROOF_")}
    for name in saved:
        del os.environ[name]
    os.environ["CITEPROOF_HOME"] = str(home)
    try:
        yield
    finally:
        for name in [k for k in os.environ if k.startswith("CITEPROOF_")]:
            del os.environ[name]
        os.environ.update(saved)


def _verify(refs: Any, **options: Any) -> ReferencesReport:
    from citeproof.service.references import verify_references

    return verify_references(refs, **options)


@pytest.fixture(scope="module")
def strings_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("refs-home")


@pytest.fixture(scope="module")
def report(strings_home: Path) -> ReferencesReport:
    """Every reference string of the world, verified once (replayed, no retraction asked)."""
    with _home(strings_home):
        return _verify(list(REFERENCES.values()), replay=RECORDINGS, retraction=False)


@pytest.fixture(scope="module")
def by_name(report: ReferencesReport) -> dict[str, ReferenceResult]:
    return dict(zip(REFERENCES, report.references, strict=True))


def _asked(result: ReferenceResult) -> list[tuple[str, str, str]]:
    return [(a.service, a.purpose, a.status) for a in result.asked]


def _comparisons(result: ReferenceResult) -> dict[str, Any]:
    return {c.field: c for c in result.comparisons}


def _json(result: Result) -> dict[str, Any]:
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


# ------------------------------------------------------------------------------ the recordings


def test_recordings_are_invented_carry_no_contact_and_are_what_the_world_answers(
    tmp_path: Path,
) -> None:
    metas = sorted(RECORDINGS.glob("*.meta.json"))
    assert len(metas) >= 30
    for meta_path in metas:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        assert meta["provenance"].startswith("INVENTED for citeproof's tests"), meta_path.name
        for param in ("mailto=", "email=", "tool=", "api_key="):
            assert param not in meta["url"] and param not in meta.get("form", "")
    for path in RECORDINGS.iterdir():
        text = path.read_bytes().decode("utf-8")
        assert CONTACT not in text and API_KEY not in text, path.name
    readme = (RECORDINGS / "README.md").read_text(encoding="utf-8")
    assert "INVENTED" in readme and "python tests/refs_world.py" in readme
    services = {r.key().host for r in load_folder(RECORDINGS)}
    assert services == {
        "doi.org",
        "api.crossref.org",
        "api.datacite.org",
        "eutils.ncbi.nlm.nih.gov",
        "pmc.ncbi.nlm.nih.gov",
        "api.openalex.org",
    }
    # Regenerating gives the committed files byte for byte: they are not stale.
    record(tmp_path)
    fresh = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    committed = {p.name: p.read_bytes() for p in RECORDINGS.iterdir() if p.name != "README.md"}
    assert sorted(fresh) == sorted(committed)
    assert fresh == committed


# ------------------------------------------------------------------------------ one per verdict


def test_a_title_with_its_right_doi_is_verified_with_every_score(
    by_name: dict[str, ReferenceResult],
) -> None:
    r = by_name["verified"]
    assert r.verdict == "verified"
    assert r.work is not None and r.work.identifier == WORLD["1"] and r.work.source == "crossref"
    assert r.work.score is not None and r.work.score >= 0.9
    assert [(i.identifier, i.exists, i.registered_with) for i in r.identifiers] == [
        (WORLD["1"], True, "Crossref")
    ]
    fields = _comparisons(r)
    assert set(fields) == {"title", "authors", "year", "venue", "volume", "pages"}
    assert fields["title"].score == 1.0 and fields["title"].agreement == "agrees"
    assert fields["authors"].agreement == "agrees" and fields["authors"].score == 1.0
    assert fields["year"].score == 1.0 and fields["venue"].agreement == "agrees"
    assert all(c.threshold for c in r.comparisons)
    assert "0.90" in fields["title"].threshold
    # The identifier decided it: one request to its registry, no search.
    assert _asked(r) == [("crossref", "identifier", "ok")]
    assert r.differs == [] and r.suggested is None and r.candidates == []


def test_the_doi_of_another_paper_is_a_mismatch_and_the_search_suggests_the_stated_one(
    by_name: dict[str, ReferenceResult],
) -> None:
    r = by_name["mismatch"]
    assert r.verdict == "mismatch"
    assert "title" in r.differs
    assert r.work is not None and r.work.identifier == WORLD["1"]
    assert r.suggested is not None and r.suggested.identifier == WORLD["2"]
    assert r.suggested.title == "Rainwater harvesting for invented urban gardens"
    assert _comparisons(r)["title"].agreement == "differs"
    assert r.identifiers[0].exists is True
    # Crossref's search found the stated work: no other database was asked.
    searched = {a.service for a in r.asked if a.purpose == "search"}
    assert searched == {"crossref"}
    assert WORLD["2"] in r.reason and "not a finding" in r.reason


def test_a_fabricated_doi_is_unresolvable(by_name: dict[str, ReferenceResult]) -> None:
    r = by_name["unresolvable"]
    assert r.verdict == "unresolvable"
    assert r.identifiers[0].identifier == f"doi:{PREFIX}99"
    assert r.identifiers[0].exists is False
    # doi.org says it does not exist, and neither Crossref nor DataCite has it.
    assert sorted(_asked(r)) == [
        ("crossref", "identifier", "missing"),
        ("datacite", "identifier", "missing"),
        ("doi.org", "identifier", "missing"),
    ]
    assert r.work is None and r.suggested is None


def test_no_identifier_found_by_search_is_verified(by_name: dict[str, ReferenceResult]) -> None:
    r = by_name["found_by_search"]
    assert r.verdict == "verified"
    assert r.work is not None and r.work.identifier == WORLD["3"]
    assert r.identifiers == []
    # The first search validated: the cheapest decided, nothing more was asked.
    assert _asked(r) == [("crossref", "search", "ok")]
    assert _comparisons(r)["title"].agreement == "agrees"
    assert r.decided_by[:1] == ["title"]


def test_no_identifier_and_nothing_found_is_not_found_after_every_service_answered(
    by_name: dict[str, ReferenceResult],
) -> None:
    r = by_name["not_found"]
    assert r.verdict == "not_found"
    assert r.work is None and r.suggested is None and r.candidates == []
    assert {a.service for a in r.asked} == {"crossref", "pubmed", "openalex"}
    assert all(a.status in ("ok", "empty") for a in r.asked), _asked(r)
    assert all(a.responses for a in r.asked)
    # Crossref ranked other works (sharing a word): none of them is the entry.
    crossref = next(a for a in r.asked if a.service == "crossref")
    assert crossref.status == "ok"


def test_one_database_failing_is_unavailable_never_not_found(
    by_name: dict[str, ReferenceResult],
) -> None:
    r = by_name["outage"]
    assert r.verdict == "unavailable"
    pubmed = next(a for a in r.asked if a.service == "pubmed")
    assert pubmed.status == "failed"
    assert pubmed.reason is not None and "503" in pubmed.reason
    assert "three times" in pubmed.reason  # retried, then given up
    others = [a for a in r.asked if a.service != "pubmed"]
    assert others and all(a.status in ANSWERED for a in others)
    assert "pubmed" in r.reason


def test_the_same_title_with_other_authors_is_partial(
    by_name: dict[str, ReferenceResult],
) -> None:
    r = by_name["partial"]
    assert r.verdict == "partial"
    assert r.differs == ["authors"]
    assert r.work is not None and r.work.identifier == WORLD["4"]
    authors = _comparisons(r)["authors"]
    assert authors.stated == "Fischer H" and authors.agreement == "differs"
    assert _comparisons(r)["title"].agreement == "agrees"


def test_two_editions_are_ambiguous_and_both_are_candidates(
    by_name: dict[str, ReferenceResult],
) -> None:
    r = by_name["ambiguous"]
    assert r.verdict == "ambiguous"
    assert sorted(c.identifier for c in r.candidates) == [WORLD["5"], WORLD["6"]]
    assert {c.title for c in r.candidates} == {"A field guide to invented hedgerow birds"}
    assert len({c.score for c in r.candidates}) == 1
    assert r.work is None


def test_one_work_whose_pubmed_record_lacks_its_doi_is_one_work_not_two() -> None:
    """Crossref finds the work by its DOI, PubMed by its PMID (its summary names no DOI, as
    many older records do), and OpenAlex lists that DOI *and* that PMID for it: one work,
    which the entry matches (``test_refs_scoring`` holds the three records together; here
    Crossref's answer validates first, so the others are not asked at all)."""
    (r,) = _verify([UNLINKED], replay=RECORDINGS, retraction=False).references
    assert r.verdict == "verified", (r.reason, [c.identifier for c in r.candidates])
    assert r.work is not None and r.work.identifier == WORLD["11"]
    assert [a.service for a in r.asked] == ["crossref"]


def test_a_datacite_doi_is_read_from_datacite(by_name: dict[str, ReferenceResult]) -> None:
    r = by_name["dataset_doi"]
    assert r.verdict == "verified"
    assert r.work is not None and r.work.source == "datacite" and r.work.type == "Dataset"
    assert r.identifiers[0].registered_with == "DataCite"
    # Crossref first (the likely registry of a DOI outside DataCite's prefixes), then
    # doi.org names DataCite, which holds it.
    assert _asked(r) == [
        ("crossref", "identifier", "missing"),
        ("doi.org", "identifier", "ok"),
        ("datacite", "identifier", "ok"),
    ]


def test_a_dataset_without_doi_is_searched_in_datacite_too(
    by_name: dict[str, ReferenceResult],
) -> None:
    r = by_name["dataset_search"]
    assert r.verdict == "verified"
    assert r.work is not None and r.work.identifier == WORLD["8"]
    assert ("datacite", "search", "ok") in _asked(r)


def test_a_pmcid_is_converted_then_summarised(by_name: dict[str, ReferenceResult]) -> None:
    r = by_name["pmcid"]
    assert r.verdict == "verified"
    assert r.work is not None and r.work.pmid == "99930009" and r.work.source == "pubmed"
    assert _asked(r) == [("pubmed", "identifier", "ok"), ("pubmed", "identifier", "ok")]
    hosts = [d.url.split("/")[2] for a in r.asked for d in a.responses]
    assert hosts == ["pmc.ncbi.nlm.nih.gov", "eutils.ncbi.nlm.nih.gov"]


def test_the_counts_add_up(report: ReferencesReport) -> None:
    c = report.counts
    assert (c.total, c.verified, c.mismatch, c.unresolvable, c.not_found) == (12, 6, 1, 1, 1)
    assert (c.unavailable, c.partial, c.ambiguous, c.retracted) == (1, 1, 1, 0)
    assert report.offline is False
    assert [r.index for r in report.references] == list(range(1, 13))


# ------------------------------------------------------------------------------ files, the CLI


@pytest.mark.parametrize(
    ("bib", "verdicts", "code"),
    [
        (BIB_VERIFIED, ["verified", "verified", "verified"], 0),
        (BIB_PROBLEM, ["verified", "unresolvable"], 1),
        (BIB_OUTAGE, ["verified", "unavailable"], 3),
    ],
    ids=["all-verified", "a-problem", "unavailable"],
)
def test_a_bibtex_file_end_to_end_with_the_exit_code_of_its_verdicts(
    run_cli: CliRun, tmp_path: Path, bib: str, verdicts: list[str], code: int
) -> None:
    path = tmp_path / "world.bib"
    path.write_text(bib, encoding="utf-8")
    result = run_cli("refs", path, "--replay", RECORDINGS, "--json", "--no-retraction")
    assert result.exit_code == code, result.output
    data = _json(result)
    assert data["schema"] == "citeproof.references/1" and data["format"] == "bibtex"
    assert [r["verdict"] for r in data["references"]] == verdicts
    first = data["references"][0]["stated"]
    # LaTeX accents decoded, protective braces gone.
    assert first["authors"] == ["Müller, Jürgen", "Sørensen, Åse"]
    assert first["title"] == "Ground beetle DNA barcodes from invented Alpine pastures"
    assert first["label"] == "mueller2021" and first["doi"] == f"{PREFIX}10"
    assert data["references"][0]["work"]["identifier"] == WORLD["10"]
    # The command logs by default: one `reference` line per entry, named by its log_seq.
    from citeproof.evidence.log import EvidenceLog, default_log_path

    entries = {e.seq: e for e in EvidenceLog(default_log_path()).entries()}
    for ref in data["references"]:
        entry = entries[ref["log_seq"]]
        assert entry.kind == "reference" and entry.payload["verdict"] == ref["verdict"]


def test_bibtex_braces_urls_and_a_search_entry(run_cli: CliRun, tmp_path: Path) -> None:
    path = tmp_path / "world.bib"
    path.write_text(BIB_VERIFIED, encoding="utf-8")
    data = _json(run_cli("refs", path, "--replay", RECORDINGS, "--json", "--no-retraction"))
    _, searched, by_url = data["references"]
    assert searched["stated"]["title"] == "Pollinator visits to invented rooftop meadows"
    assert searched["stated"]["doi"] is None and searched["work"]["identifier"] == WORLD["3"]
    assert by_url["stated"]["doi"] == f"{PREFIX}1"  # a doi.org URL, upper case in the file
    assert by_url["stated"]["title"].startswith("Compost temperature")


def test_a_csl_json_file_and_csl_items(tmp_path: Path) -> None:
    path = tmp_path / "world.json"
    path.write_text(json.dumps(CSL_ITEMS), encoding="utf-8")
    from_file = _verify(path, replay=RECORDINGS, retraction=False)
    assert from_file.format == "csl" and from_file.source == str(path)
    article, dataset = from_file.references
    assert article.verdict == "verified" and article.identifiers[0].identifier == "pmid:99930002"
    assert article.work is not None and article.work.identifier == WORLD["2"]
    assert dataset.verdict == "verified"
    assert dataset.work is not None and dataset.work.identifier == WORLD["8"]
    assert ("datacite", "search", "ok") in _asked(dataset)
    from_items = _verify(CSL_ITEMS, replay=RECORDINGS, retraction=False)
    assert [r.verdict for r in from_items.references] == ["verified", "verified"]
    assert [r.work.identifier for r in from_items.references if r.work] == [
        WORLD["2"],
        WORLD["8"],
    ]


# ------------------------------------------------------------------------------ offline, pins


def _decided(r: ReferenceResult) -> dict[str, Any]:
    """What a verdict rests on (the ``asked`` statuses may differ: failed vs offline)."""
    return r.model_dump(
        include={
            "verdict",
            "work",
            "comparisons",
            "differs",
            "suggested",
            "candidates",
            "identifiers",
        }
    )


def test_an_offline_second_run_answers_from_the_pins_identically(
    report: ReferencesReport, strings_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_HOME", str(strings_home))  # the home the replay pinned into
    offline = _verify(list(REFERENCES.values()), offline=True, retraction=False)
    assert offline.offline is True
    assert [_decided(r) for r in offline.references] == [_decided(r) for r in report.references]
    assert offline.counts == report.counts
    for first, again in zip(report.references, offline.references, strict=True):
        for a, b in zip(first.asked, again.asked, strict=True):
            assert (a.service, a.purpose, a.query) == (b.service, b.purpose, b.query)
            if a.status in ANSWERED:  # pinned: the very same bytes again
                assert b.status == a.status
                assert [d.sha256 for d in b.responses] == [d.sha256 for d in a.responses]
            else:  # failures are never pinned
                assert b.status == "offline"


def test_offline_with_an_empty_home_is_unavailable_never_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path / "empty-home"))
    offline = _verify(list(REFERENCES.values()), offline=True, retraction=False)
    assert [r.verdict for r in offline.references] == ["unavailable"] * len(REFERENCES)
    assert all(a.status == "offline" for r in offline.references for a in r.asked)
    assert all(a.responses == [] for r in offline.references for a in r.asked)
    assert "--offline" in (offline.references[0].asked[0].reason or "")


def test_cli_offline_after_a_replayed_run(run_cli: CliRun, tmp_path: Path) -> None:
    path = tmp_path / "world.bib"
    path.write_text(BIB_PROBLEM, encoding="utf-8")
    first = run_cli("refs", path, "--replay", RECORDINGS, "--json", "--no-retraction")
    again = run_cli("refs", path, "--offline", "--json", "--no-retraction")
    assert (first.exit_code, again.exit_code) == (1, 1)
    strip = [
        {k: v for k, v in r.items() if k not in ("asked", "log_seq")}
        for r in _json(first)["references"]
    ]
    assert [
        {k: v for k, v in r.items() if k not in ("asked", "log_seq")}
        for r in _json(again)["references"]
    ] == strip
    assert _json(again)["offline"] is True


# ------------------------------------------------------------------------------ evidence log


def _recorded_bodies() -> dict[RequestKey, set[str]]:
    """sha256 of every recorded body, by the request it answers (a POST's form left out,
    since an evidence line names the URL, not the form)."""
    out: dict[RequestKey, set[str]] = {}
    for rec in load_folder(RECORDINGS):
        key = request_key(rec.method, rec.url)
        out.setdefault(key, set()).add(hashlib.sha256(rec.body).hexdigest())
    return out


def test_each_reference_has_an_evidence_line_naming_every_answer_by_its_sha256() -> None:
    from citeproof.evidence.log import EvidenceLog, default_log_path

    names = ["verified", "pmcid", "found_by_search", "unresolvable"]
    report = _verify([REFERENCES[n] for n in names], replay=RECORDINGS, retraction=False, log=True)
    seqs = [r.log_seq for r in report.references]
    assert all(s is not None for s in seqs) and len(set(seqs)) == len(names)
    entries = {e.seq: e for e in EvidenceLog(default_log_path()).entries()}
    bodies = _recorded_bodies()
    for result in report.references:
        entry = entries[result.log_seq]  # type: ignore[index]
        assert entry.kind == "reference"
        payload = entry.payload
        assert payload["verdict"] == result.verdict and payload["index"] == result.index
        assert "log_seq" not in payload
        asked = [ServiceAnswer.model_validate(a) for a in payload["asked"]]
        assert asked == result.asked and asked
        for answer in asked:
            assert answer.responses, answer
            for digest in answer.responses:
                assert CONTACT not in digest.url and "tool=" not in digest.url
                recorded = bodies[request_key(digest.method, digest.url)]
                assert digest.sha256 in recorded, digest


# ------------------------------------------------------------------------------ retraction


def test_a_retracted_work_is_flagged_from_the_retraction_watch_snapshot(
    run_cli: CliRun, tmp_path: Path
) -> None:
    from citeproof.sources.retractionwatch import import_csv

    import_csv(RW_CSV)  # the private home's default snapshot
    names = ["retracted", "verified", "pmcid"]  # retracted; not listed; only corrected
    report = _verify([REFERENCES[n] for n in names], replay=RECORDINGS, retraction=True)
    retracted, clean, corrected = report.references
    assert retracted.verdict == "verified" and retracted.retracted is True
    assert retracted.work is not None and retracted.work.retraction == "RETRACTED"
    assert "retracted" in retracted.reason
    assert clean.retracted is False
    assert clean.work is not None and clean.work.retraction != "RETRACTED"
    assert corrected.retracted is False and corrected.verdict == "verified"
    assert report.counts.retracted == 1

    listed = tmp_path / "refs.jsonl"
    listed.write_text(json.dumps(REFERENCES["retracted"]) + "\n", encoding="utf-8")
    result = run_cli("refs", listed, "--replay", RECORDINGS, "--json")
    assert result.exit_code == 1, result.output
    (line,) = _json(result)["references"]
    assert line["verdict"] == "verified" and line["retracted"] is True


def test_without_a_snapshot_the_same_work_is_not_flagged(tmp_path: Path) -> None:
    report = _verify([REFERENCES["retracted"]], replay=RECORDINGS, retraction=True)
    (r,) = report.references
    assert r.verdict == "verified" and r.retracted is False
    # The network retraction sources were not recorded: nothing could be established.
    assert r.work is not None and r.work.retraction == "UNVERIFIABLE"


# ------------------------------------------------------------------------------ batch, resume


def test_files_and_a_jsonl_of_references_to_output_then_resume_asks_nothing(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.bib").write_text(BIB_VERIFIED, encoding="utf-8")
    Path("b.jsonl").write_text(jsonl_text(), encoding="utf-8")
    first = run_cli(
        "refs", "a.bib", "b.jsonl", "-o", "out.jsonl", "--replay", RECORDINGS, "--no-retraction"
    )
    assert first.exit_code == 0, first.output
    assert first.stdout == ""
    assert "6 references (6 verified) -> out.jsonl" in first.stderr
    written = Path("out.jsonl").read_bytes()
    lines = [json.loads(line) for line in written.splitlines()]
    assert sorted(line["id"] for line in lines) == sorted(
        ["a.bib#1", "a.bib#2", "a.bib#3", "j-compost", "j-rain", "b.jsonl#3"]
    )
    by_id = {line["id"]: line for line in lines}
    assert all(line["verdict"] == "verified" for line in lines)
    assert by_id["j-rain"]["work"]["identifier"] == WORLD["2"]
    assert by_id["j-rain"]["source"] == "b.jsonl" and by_id["j-rain"]["index"] == 2
    assert by_id["a.bib#1"]["stated"]["authors"] == ["Müller, Jürgen", "Sørensen, Åse"]
    assert by_id["b.jsonl#3"]["work"]["identifier"] == WORLD["3"]

    # Every line is done: the second run reads nothing and asks nothing.  Its replay folder is
    # empty, so a request would have been answered "unavailable" and appended a line.
    empty = tmp_path / "no-recordings"
    empty.mkdir()
    again = run_cli(
        "refs",
        "a.bib",
        "b.jsonl",
        "-o",
        "out.jsonl",
        "--resume",
        "--replay",
        empty,
        "--no-retraction",
    )
    assert again.exit_code == 0, again.output
    assert "0 references () -> out.jsonl" in again.stderr
    assert Path("out.jsonl").read_bytes() == written


def test_resume_verifies_only_the_lines_not_yet_written(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("b.jsonl").write_text(jsonl_text(), encoding="utf-8")
    first = run_cli("refs", "b.jsonl", "-o", "out.jsonl", "--replay", RECORDINGS, "--no-retraction")
    assert first.exit_code == 0, first.output
    lines = Path("out.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if json.loads(line)["id"] != "j-rain"]
    Path("out.jsonl").write_text("".join(kept), encoding="utf-8")
    again = run_cli(
        "refs", "b.jsonl", "-o", "out.jsonl", "--resume", "--replay", RECORDINGS, "--no-retraction"
    )
    assert again.exit_code == 0, again.output
    assert "1 references (1 verified) -> out.jsonl" in again.stderr
    ids = [json.loads(line)["id"] for line in Path("out.jsonl").read_text().splitlines()]
    assert sorted(ids) == ["b.jsonl#3", "j-compost", "j-rain"] and ids[-1] == "j-rain"


def test_a_resumed_run_exits_as_the_uninterrupted_run_would(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run stopped after writing the unresolvable entry, then resumed, leaves the same
    output as one uninterrupted run, which exits 1; the resumed run must not report 0 for
    a list whose output holds a fabricated DOI."""
    monkeypatch.chdir(tmp_path)
    Path("a.bib").write_text(BIB_PROBLEM, encoding="utf-8")
    quiet = ("--replay", RECORDINGS, "--no-retraction", "--no-log")
    whole = run_cli("refs", "a.bib", "-o", "out.jsonl", *quiet)
    assert whole.exit_code == 1, whole.output
    lines = Path("out.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    stopped = [line for line in lines if json.loads(line)["verdict"] == "unresolvable"]
    Path("out.jsonl").write_text("".join(stopped), encoding="utf-8")  # as if killed here
    resumed = run_cli("refs", "a.bib", "-o", "out.jsonl", "--resume", *quiet)
    assert sorted(Path("out.jsonl").read_text(encoding="utf-8").splitlines()) == sorted(
        line.rstrip("\n") for line in lines
    )
    assert resumed.exit_code == whole.exit_code, resumed.stderr


# ------------------------------------------------------------------------------ MCP


def _mcp_call(arguments: dict[str, Any]) -> tuple[Any, dict[str, Any] | None]:
    from mcp import Client

    from citeproof.mcp.server import build_server
    from citeproof.mcp.tools import ToolSettings

    server = build_server(ToolSettings(replay=str(RECORDINGS)))

    async def go() -> tuple[Any, dict[str, Any] | None]:
        async with Client(server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            return await client.call_tool("verify_references", arguments), tools[
                "verify_references"
            ].output_schema

    return anyio.run(go)


def test_the_mcp_tool_verifies_two_references() -> None:
    refs: list[Any] = [REFERENCES["verified"], CSL_ITEMS[0]]  # a string, a CSL-JSON object
    result, schema = _mcp_call({"references": refs})
    assert not result.is_error, result.content
    data = result.structured_content
    assert isinstance(data, dict) and schema is not None
    jsonschema.validate(data, schema)
    report = ReferencesReport.model_validate(data)
    assert [r.verdict for r in report.references] == ["verified", "verified"]
    assert [r.work.identifier for r in report.references if r.work] == [WORLD["1"], WORLD["2"]]
    assert report.references[1].identifiers[0].identifier == "pmid:99930002"
    assert all(r.log_seq is not None for r in report.references)  # the server logs by default


def test_the_mcp_tool_refuses_more_than_100_references() -> None:
    result, _ = _mcp_call({"references": [REFERENCES["verified"]] * 101})
    assert result.is_error
    assert result.structured_content is None
    (block,) = result.content
    text = getattr(block, "text", "")
    assert text.startswith("Error executing tool verify_references")
    assert "100" in text
