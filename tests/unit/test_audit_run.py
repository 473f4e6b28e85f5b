"""Running an audit (``audit/run.py``, ``audit/metrics.py``): metrics, assembly, citations
against pinned sources, handles, retraction, the report and its log entry.

(First written against the survivors of a mutation-testing run.)

Groups: the metrics block (:func:`compute_metrics`, by its definitions in docs/audit.md);
assembly (reading order, which sentence holds an item, the per-item limits and the errors
a numbered citation gets, each naming the cause and the fix, quotes of a blockquote); the
audit of citations against sources pinned in the test's own cache (several quotes on one
citation, short quotes, retraction flags and their acknowledgement, preprints); and a handle
whose source every service says it does not know (NOT_CHECKABLE, reached through a recorded
response in a local folder: no network).
Reasons are compared by the words that tell a user the cause and the fix, not verbatim.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.audit import sentences
from citeproof.audit import works as audit_sources
from citeproof.audit.answer import CLAIM_KINDS
from citeproof.audit.assemble import MAX_QUOTE_CHARS, MAX_SENTENCE_CHARS, Draft, assemble
from citeproof.audit.citations import RawCitation
from citeproof.audit.metrics import compute_metrics
from citeproof.audit.parse import parse_answer
from citeproof.audit.run import audit_answer
from citeproof.audit.sentences import lead_in_end, scan_blocks, split_lines, split_sentences
from citeproof.models.audit import (
    VERDICTS,
    AuditReport,
    CitationReport,
    CitationVerdict,
    QuoteReport,
    SentenceReport,
)
from citeproof.net.recordings import write_recording
from citeproof.sources.ctgov import STUDIES_URL
from citeproof.sources.retractionwatch import import_csv
from pinned import pin_text

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
SOURCE = (
    "In the trial, the treatment reduced mortality by 30% over five years. "
    "The effect was not significant in the youngest group, and adverse events were rare.\n"
)
EXACT = "the treatment reduced mortality by 30% over five years"
WRONG = "adverse events were common in every group of the trial"
RW_CSV = Path(__file__).resolve().parents[2] / "examples" / "retraction-watch-invented.csv"
#: Retracted in the invented Retraction Watch snapshot.
RETRACTED_DOI = "doi:10.5555/invented.retracted.1"


def pin(*keys: str, text: str = SOURCE) -> None:
    """Pin ``text`` as the full text of each key in this test's own cache (no network)."""
    pin_text(*keys, text=text)


@pytest.fixture(autouse=True)
def fresh_memos(monkeypatch: pytest.MonkeyPatch) -> None:
    """Empty process-wide memos (pysbd's cuts, issued passages as Documents), so every test
    really runs the code it is about, whatever ran before it in the same process."""
    monkeypatch.setattr(sentences, "_CUTS", OrderedDict())
    monkeypatch.setattr(sentences, "_cuts_chars", 0)
    monkeypatch.setattr(audit_sources, "_TEXT_DOCUMENTS", OrderedDict())
    monkeypatch.setattr(audit_sources, "_text_chars", 0)


def audit_offline(text: str, **kw: Any) -> AuditReport:
    kw.setdefault("retraction", False)
    return audit_answer(text, offline=True, sign=False, now=lambda: WHEN, **kw)


# ---------------------------------------------------------------------------- metrics


def quote(verdict: CitationVerdict) -> QuoteReport:
    return QuoteReport(text="some quoted words", kind="inline", start=0, end=1, verdict=verdict)


def cite(
    verdict: CitationVerdict,
    *,
    quotes: tuple[CitationVerdict, ...] = (),
    flags: tuple[str, ...] = (),
    target: str = "1",
    resolved_to: str | None = None,
) -> CitationReport:
    return CitationReport(
        index=0,
        raw="[1]",
        kind="numbered",
        form="bracket",
        target=target,
        start=0,
        end=3,
        sentence=0,
        verdict=verdict,
        flags=list(flags),
        resolved_to=resolved_to,
        quotes=[quote(v) for v in quotes],
    )


def sentence(*citations: CitationReport, kind: str = "claim", index: int = 0) -> SentenceReport:
    return SentenceReport.model_validate(
        {
            "index": index,
            "text": "x",
            "status": "cited_problem" if citations else "uncited",
            "kind": kind,
            "start": 0,
            "end": 1,
            "citations": list(citations),
        }
    )


def test_by_verdict_counts_every_citation_of_a_verdict() -> None:
    s = sentence(cite("ok"), cite("ok"), cite("ok"), cite("forged"), cite("forged"))
    m = compute_metrics([s], CLAIM_KINDS)
    assert m.by_verdict == {**dict.fromkeys(VERDICTS, 0), "ok": 3, "forged": 2}
    assert m.fabricated == 2 and m.citations == 5


def test_quotes_count_only_checks_that_looked_for_the_words() -> None:
    # malformed and unavailable quotes were never looked for: they are not quote checks
    s = sentence(
        cite("ok", quotes=("ok", "ok", "near_quote")),
        cite("misquote", quotes=("misquote", "ok")),
        cite("unavailable", quotes=("unavailable",)),
        cite("malformed", quotes=("malformed",)),
    )
    m = compute_metrics([s], CLAIM_KINDS)
    assert (m.quotes, m.quotes_ok) == (5, 3)
    assert m.quote_accuracy == 0.6


def test_citation_validity_leaves_out_the_unavailable() -> None:
    s = sentence(
        cite("ok"),
        cite("ok"),
        cite("near_quote"),
        cite("unresolvable"),
        cite("unavailable"),
        cite("unavailable"),
    )
    m = compute_metrics([s], CLAIM_KINDS)
    assert m.citation_validity == 0.75  # 3 real of 4 decided; the unavailable are not counted


def test_retracted_works_are_counted_by_what_they_resolved_to() -> None:
    # [1] and [2] both point at the same retracted DOI: one work.  A citation that resolved to
    # nothing is counted by its target.
    s = sentence(
        cite("ok", flags=("retracted",), target="1", resolved_to="doi:10.1/x"),
        cite("ok", flags=("retracted",), target="2", resolved_to="doi:10.1/x"),
        cite("ok", flags=("retracted",), target="doi:10.2/y"),
        cite("ok", flags=("concern",), target="doi:10.3/z", resolved_to="doi:10.3/z"),
    )
    assert compute_metrics([s], CLAIM_KINDS).retracted_cited == 2


def _citation(v: CitationVerdict, qs: list[CitationVerdict], retracted: bool, work: str) -> Any:
    flags = ("retracted",) if retracted else ()
    resolved = f"doi:{work}" if int(work) % 2 else None
    return cite(v, quotes=tuple(qs), flags=flags, target=work, resolved_to=resolved)


_VERDICT = st.sampled_from(VERDICTS)
_CITATION = st.builds(
    _citation,
    _VERDICT,
    st.lists(_VERDICT, max_size=3),
    st.booleans(),
    st.sampled_from(["1", "2", "3", "4"]),
)
_SENTENCE = st.tuples(
    st.lists(_CITATION, max_size=4), st.sampled_from(["claim", "blockquote", "heading"])
)


@given(st.lists(_SENTENCE, max_size=5))
def test_metrics_follow_their_definitions(rows: list[tuple[list[CitationReport], str]]) -> None:
    sentences = [sentence(*cits, kind=kind, index=i) for i, (cits, kind) in enumerate(rows)]
    m = compute_metrics(sentences, CLAIM_KINDS)
    cits = [c for cs, _ in rows for c in cs]
    claims = [cs for cs, kind in rows if kind in CLAIM_KINDS]
    looked = [
        q.verdict for c in cits for q in c.quotes if q.verdict in ("misquote", "near_quote", "ok")
    ]
    decided = [c.verdict for c in cits if c.verdict != "unavailable"]
    real = [v for v in decided if v not in ("malformed", "forged", "unresolvable", "mismatch")]

    def rate(part: int, whole: int) -> float | None:
        return round(part / whole, 4) if whole else None

    assert m.sentences == len(rows) and m.citations == len(cits)
    assert (m.claims, m.cited_claims) == (len(claims), sum(1 for cs in claims if cs))
    assert m.by_verdict == {v: sum(1 for c in cits if c.verdict == v) for v in VERDICTS}
    assert m.quotes == len(looked) and m.quotes_ok == looked.count("ok")
    assert m.quote_accuracy == rate(looked.count("ok"), len(looked))
    assert m.citation_validity == rate(len(real), len(decided))
    assert m.claim_coverage == rate(m.cited_claims, m.claims)
    fabricated = ("forged", "unresolvable", "mismatch")
    assert m.fabricated == sum(1 for c in cits if c.verdict in fabricated)
    works = {c.resolved_to or c.target for c in cits if "retracted" in c.flags}
    assert m.retracted_cited == len(works)


# ---------------------------------------------------------------------------- assembly

TEXT = "Alpha one.  Beta two.  \n"  # sentences at 0-10 and 12-21; gaps at 10-12 and 21-23


def test_assembly_orders_sentences_by_their_start() -> None:
    draft = Draft(sentences=[(12, 21, "claim"), (0, 10, "claim")])
    parsed = assemble(TEXT, "markdown", draft, None)
    got = [(s.index, s.start, s.raw) for s in parsed.sentences]
    assert got == [(0, 0, "Alpha one."), (1, 12, "Beta two.")]


def test_items_are_placed_in_the_sentence_that_holds_their_start() -> None:
    starts = (0, 9, 10, 11, 12, 20, 21, 22, 23, 24)
    draft = Draft(
        sentences=[(12, 21, "claim"), (0, 10, "claim"), (23, 23, "separator")],
        citations=[RawCitation(s, s + 1, "pmid", "bracket", "pmid:1") for s in starts],
    )
    parsed = assemble(TEXT + "xx", "markdown", draft, None)
    by_start = {c.start: c.sentence for c in parsed.citations}
    # a sentence holds [start, end); an empty one holds its own start; gaps hold nothing
    assert by_start == {
        0: 0,
        9: 0,
        10: -1,
        11: -1,
        12: 1,
        20: 1,
        21: -1,
        22: -1,
        23: 2,
        24: -1,
    }
    assert parsed.sentences[0].citations == (0, 1) and parsed.sentences[2].citations == (8,)


def test_citations_and_quotes_are_numbered_in_reading_order() -> None:
    text = '> a quoted line with "inner words" and more\n'
    draft = Draft(
        sentences=[(2, len(text) - 1, "blockquote")],
        citations=[
            RawCitation(30, 31, "pmid", "bracket", "pmid:2"),
            RawCitation(5, 6, "pmid", "bracket", "pmid:1"),
        ],
        # the blockquote holds an inline quote; one more shares the blockquote's start
        quotes=[
            (22, 33, "inner words", "inline", None),
            (2, 40, "A quoted line", "blockquote", None),
            (2, 8, "a quot", "inline", None),
        ],
    )
    parsed = assemble(text, "markdown", draft, None)
    assert [(c.index, c.target) for c in parsed.citations] == [(0, "pmid:1"), (1, "pmid:2")]
    got = [(q.index, q.start, q.end) for q in parsed.quotes]
    assert got == [(0, 2, 8), (1, 2, 40), (2, 22, 33)]
    assert parsed.sentences[0].quotes == (0, 1, 2)


def test_reference_entries_are_numbered_in_order() -> None:
    parsed = parse_answer(
        "Claim [1]. Claim [2].\n\n## References\n\n"
        "1. First. doi:10.1000/one\n2. Second. PMID: 12345678\n"
    )
    assert [r.index for r in parsed.references] == [0, 1]
    assert [c.reference for c in parsed.citations] == [0, 1]


def test_a_quote_of_exactly_the_limit_is_checked_one_more_is_an_error() -> None:
    words = ("w" * 9 + " ") * 200
    at_limit = words[: MAX_QUOTE_CHARS - 2] + "xy"
    over = words[: MAX_QUOTE_CHARS - 1] + "xy"
    assert (len(at_limit), len(over)) == (MAX_QUOTE_CHARS, MAX_QUOTE_CHARS + 1)
    ok = parse_answer(f'It said "{at_limit}" [PMID 12345678].\n')
    assert [(q.text, q.error) for q in ok.quotes] == [(at_limit, None)]
    (q,) = parse_answer(f'It said "{over}" [PMID 12345678].\n').quotes
    assert q.error is not None and q.error.code == "quote_too_long"
    assert "2,001 characters" in q.error.message and "up to 2,000" in q.error.message
    assert "Quote the words that support the claim" in q.error.message


def test_a_claim_of_exactly_the_limit_is_audited_one_more_is_an_error() -> None:
    intro = "A first claim here.\n\n"

    def claim(size: int) -> str:
        return "Drug " + "x" * (size - 12) + " works."

    parsed = parse_answer(intro + claim(MAX_SENTENCE_CHARS) + "\n")
    assert [len(s.raw) for s in parsed.sentences] == [19, MAX_SENTENCE_CHARS]
    assert [s.error for s in parsed.sentences] == [None, None]
    parsed = parse_answer(intro + claim(MAX_SENTENCE_CHARS + 1) + "\n")
    error = parsed.sentences[1].error
    assert error is not None and error.code == "sentence_too_long"
    assert "5,001 characters" in error.message and "up to 5,000" in error.message
    assert "Split it into separate claims" in error.message


def only_citation_error(text: str) -> tuple[str, str]:
    (citation,) = parse_answer(text).citations
    assert citation.error is not None
    return citation.error.code, citation.error.message


def test_a_number_without_a_reference_list_says_to_add_one() -> None:
    code, message = only_citation_error("Drug X works [4].\n")
    assert code == "no_reference_list"
    assert "[4]" in message and "no reference list" in message
    assert "add one with a DOI, PMID, PMCID or URL" in message


def test_a_number_missing_from_the_list_names_the_number() -> None:
    code, message = only_citation_error(
        "Drug X works [4].\n\n## References\n\n1. A study. doi:10.1000/xyz\n"
    )
    assert code == "no_reference_entry"
    assert "no entry 4" in message and "add it" in message


def test_an_entry_without_an_identifier_names_what_is_missing() -> None:
    answer = (
        "Drug X works [1].\n\n## References\n\n"
        "1. Smith J. A study of drug X in adults. J Drug Res. 2020;3:1-9.\n"
    )
    code, message = only_citation_error(answer)
    assert code == "reference_without_identifier"
    assert "Reference 1" in message and "DOI, PMID, PMCID or URL" in message
    assert "cannot be checked" in message
    # The entry is searched for in the scholarly record; offline no search can be made, so
    # nothing is concluded (unavailable), and the reason names the databases.
    (c,) = audit_offline(answer).citations()
    assert c.verdict == "unavailable" and "could not be read" in (c.reason or "")
    (c,) = audit_offline(answer, references=False).citations()
    assert c.verdict == "unresolvable" and "cannot be checked" in (c.reason or "")


def test_a_blockquote_without_citations_takes_those_of_the_next_sentence() -> None:
    block = "> the quoted words of a source here\n\n"
    cases = {
        "The next one [PMID 12345678].\n": (0,),
        "An uncited paragraph.\n": (),
        "# A heading [PMID 12345678]\n": (),  # a heading is not the quote's claim
        "": (),  # the blockquote is the last thing in the answer
    }
    for after, linked in cases.items():
        (q,) = parse_answer(block + after).quotes
        assert (q.kind, q.citations) == ("blockquote", linked), after


def test_a_blockquote_is_not_linked_to_a_code_block_after_it() -> None:
    text = "> quoted words\n\ncode [x]\n"
    draft = Draft(
        sentences=[(2, 14, "blockquote"), (16, 24, "code")],
        citations=[RawCitation(21, 24, "pmid", "bracket", "pmid:1")],
        quotes=[(2, 14, "quoted words", "blockquote", None)],
    )
    (q,) = assemble(text, "markdown", draft, None).quotes
    assert q.citations == ()


_LINK_CASES = {
    # quotes (start, end), citations (name, start, end), the names each quote is linked to
    "between a quote and the next": (
        [(10, 20), (30, 40)],
        [("X", 20, 22), ("Z", 30, 32), ("W", 40, 42)],
        [("X",), ("W",)],
    ),
    "else after the last quote": (
        [(10, 20), (30, 40)],
        [("V", 0, 10), ("W", 40, 42)],
        [("W",), ("W",)],
    ),
    "else before the quote": ([(10, 20)], [("V", 0, 10), ("U", 12, 14)], [("V",)]),
    "else every citation": ([(10, 20)], [("U", 12, 14), ("T", 15, 16)], [("T", "U")]),
    "three quotes": (
        [(10, 20), (30, 40), (50, 60)],
        [("X", 22, 24), ("Y", 42, 44), ("Z", 62, 64)],
        [("X",), ("Y",), ("Z",)],
    ),
    "a citation inside the next quote is not between": (
        [(10, 20), (30, 40)],
        [("X", 32, 34), ("W", 42, 44)],
        [("W",), ("W",)],
    ),
}


def test_inline_quotes_are_linked_by_position_at_the_exact_boundaries() -> None:
    for name, (quotes, cits, expected) in _LINK_CASES.items():
        draft = Draft(
            sentences=[(0, 100, "claim")],
            citations=[RawCitation(s, e, "pmid", "bracket", t) for t, s, e in cits],
            quotes=[(s, e, "w" * (e - s), "inline", None) for s, e in quotes],
        )
        parsed = assemble("x" * 100, "markdown", draft, None)
        targets = [c.target for c in parsed.citations]
        got = [tuple(sorted(targets[i] for i in q.citations)) for q in parsed.quotes]
        assert got == expected, name


# ---------------------------------------------------------------------------- blocks


def kinds(text: str) -> list[tuple[str, str]]:
    return [(b.kind, text[b.start : b.end]) for b in scan_blocks(text)]


def test_lines_are_split_from_the_start_of_the_text() -> None:
    assert split_lines("ab\ncd") == [(0, 2), (3, 5)]
    assert split_lines("ab\r\ncd\re", 1, 7) == [(1, 2), (4, 6), (7, 7)]


def test_blocks_are_found_only_inside_the_range() -> None:
    text = "First para.\n\nSecond para.\n"
    assert [(b.start, b.end) for b in scan_blocks(text, 0, 11)] == [(0, 11)]
    assert [(b.start, b.end) for b in scan_blocks(text, 13, None)] == [(13, 25)]


def test_a_table_row_starts_with_a_pipe_and_has_two() -> None:
    text = "a | b | c\n  | a |\n"
    assert kinds(text) == [("paragraph", "a | b | c"), ("table_row", "| a |")]


def test_fenced_code_runs_to_its_closing_fence() -> None:
    assert kinds("```\n```\nAfter para.\n") == [("code", "```\n```"), ("paragraph", "After para.")]
    text = "~~~~\ncode\n\n~~~ not closing\n~~~~~\nNext para.\n"
    assert kinds(text) == [("code", text[: text.index("\nNext")]), ("paragraph", "Next para.")]
    (block, _) = scan_blocks(text)
    assert block.lines == ((block.start, block.end),)


def test_atx_closing_hashes_are_not_part_of_the_heading() -> None:
    assert kinds("# Title ##  \n## Two #\n### C#\n") == [
        ("heading", "Title"),
        ("heading", "Two"),
        ("heading", "C#"),
    ]


def test_a_setext_heading_is_one_line_of_at_most_120_characters() -> None:
    intro = "Intro para.\n\n"
    for size, expected in ((120, "heading"), (121, "paragraph")):
        title = "T" * size
        got = kinds(f"{intro}{title}\n---\n")
        assert got[0] == ("paragraph", "Intro para.")
        assert got[1] == (expected, title), size


def test_a_bold_lead_in_has_at_most_six_words_and_no_bracket() -> None:
    six = "**one two three four five six** rest"
    assert lead_in_end(six, 0, len(six)) == six.index(" rest")
    seven = "**one two three four five six seven** rest"
    assert lead_in_end(seven, 0, len(seven)) is None
    assert lead_in_end("**Bold [1]**: rest", 0, 18) is None
    assert lead_in_end("**Bold**: rest", 0, 14) == 9
    assert lead_in_end("**Bold** rest", 0, 5) is None  # the bold span runs past the range


# ---------------------------------------------------------------------------- sentences


def cut(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text, 0, len(text), (), ())]


def test_a_repeated_sentence_is_cut_where_it_repeats() -> None:
    assert cut("Dr. Lee came in. Dr. Lee came in.") == ["Dr. Lee came in.", "Dr. Lee came in."]


TRICKY = "Dr. Smith came. He left."  # the punctuation fallback would also cut after "Dr."


def test_when_pysbd_fails_the_punctuation_splitter_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(text: str) -> list[str]:
        raise RuntimeError("pysbd broke")

    monkeypatch.setattr(sentences, "_segment", fails)
    assert cut(TRICKY) == ["Dr.", "Smith came.", "He left."]


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        # what pysbd says, when it can be found in the text in order
        (["Dr. Smith came. ", "He left."], ["Dr. Smith came.", "He left."]),
        # pieces that are not text or are blank are passed over
        ([None, "Dr. Smith came. ", "  ", "He left."], ["Dr. Smith came.", "He left."]),
        # pieces that cannot be aligned with the text: the punctuation splitter instead
        (["Dr. Smith came.", "She left."], ["Dr.", "Smith came.", "He left."]),
    ],
)
def test_pysbd_pieces_are_aligned_with_the_text(
    monkeypatch: pytest.MonkeyPatch, pieces: list[object], expected: list[str]
) -> None:
    monkeypatch.setattr(sentences, "_segment", lambda text: pieces)
    assert cut(TRICKY) == expected


def test_a_one_character_first_sentence_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sentences, "_segment", lambda text: ["A", "B is next."])
    assert cut("AB is next.") == ["A", "B is next."]


# ---------------------------------------------------------------------------- citations


def test_several_quotes_on_one_citation_the_worst_decides_and_every_flag_is_kept() -> None:
    pin("doi:10.1000/xyz")
    report = audit_offline(
        f'It found "30% over five" and "{WRONG}" and "{EXACT}" [doi:10.1000/xyz].\n'
    )
    (c,) = report.citations()
    assert [q.verdict for q in c.quotes] == ["ok", "misquote", "ok"]
    assert c.verdict == "misquote" and c.quote == WRONG
    assert "short_quote" in c.flags  # from the short quote, which did not decide
    assert c.reason == c.quotes[1].reason and c.reason
    # the deciding quote's check is the citation's; the others keep their own
    assert c.check is not None and c.check.quote == WRONG and c.check.verdict != "EXACT"
    assert c.quotes[1].check is None
    assert c.quotes[2].check is not None and c.quotes[2].check.verdict == "EXACT"
    assert c.source is not None and c.resolved_to == "doi:10.1000/xyz"
    assert report.metrics.quotes == 3 and report.metrics.quotes_ok == 2


def test_a_short_quote_is_ok_only_when_it_is_in_the_source_verbatim() -> None:
    pin("doi:10.1000/xyz")
    report = audit_offline(
        'It was "not significant" [doi:10.1000/xyz]. Then "very significant" [doi:10.1000/xyz].\n'
    )
    found, missing = report.citations()
    assert (found.verdict, found.flags, found.reason) == ("ok", ["short_quote"], None)
    assert (missing.verdict, missing.flags) == ("near_quote", ["short_quote"])
    assert "under 20 characters" in (missing.reason or "")
    assert found.check is None and missing.check is None  # too short for the matcher


# ---------------------------------------------------------------------------- handles


def not_found_replay(folder: Path, nct: str) -> Path:
    """ClinicalTrials.gov's answer for a study it does not hold (404), recorded locally."""
    folder.mkdir()
    write_recording(
        folder,
        "notfound",
        url=STUDIES_URL + nct,
        status=404,
        headers={"content-type": "application/json"},
        body=b'{"message":"Study not found"}',
        date=WHEN,
    )
    return folder


def test_a_handle_whose_source_no_service_knows_is_unresolvable(tmp_path: Path) -> None:
    # Every service asked answered that it does not know the work (NOT_CHECKABLE): the handle
    # names nothing that exists, which is not the same as a source that could not be read.
    replay = not_found_replay(tmp_path / "replay", "NCT00000000")
    handle = "nct:NCT00000000/body.p1~ABCDEFGH"
    report = audit_answer(
        f"Trial X worked [{handle}].\n", replay=replay, retraction=False, sign=False
    )
    (c,) = report.citations()
    assert c.handle is not None and c.handle.status == "unresolvable"
    assert c.verdict == "unresolvable" and c.resolved_to == "nct:NCT00000000"
    reason = c.reason or ""
    assert "not issued here" in reason and "has no study NCT00000000" in reason
    assert report.verdict == "fail" and report.metrics.fabricated == 1
    # the same work cited plainly is unresolvable for the same reason
    plain = audit_answer(
        "Trial X worked [NCT00000000].\n", replay=replay, retraction=False, sign=False
    )
    (p,) = plain.citations()
    assert p.verdict == "unresolvable" and "has no study NCT00000000" in (p.reason or "")


# ---------------------------------------------------------------------------- retraction


@pytest.fixture
def snapshot() -> None:
    """The invented Retraction Watch snapshot of examples/ (offline retraction status)."""
    import_csv(RW_CSV)


@pytest.mark.usefixtures("snapshot")
def test_a_retracted_work_is_flagged_on_every_citation_and_asked_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import citeproof.audit.run

    asked: list[str] = []
    real = citeproof.retraction.status.retraction_report

    def counting(key: str, **kw: Any) -> Any:
        asked.append(key)
        return real(key, **kw)

    monkeypatch.setattr(citeproof.audit.run, "retraction_report", counting)
    pin(RETRACTED_DOI)
    report = audit_offline(
        f'Compost helps "{EXACT}" [{RETRACTED_DOI}]. Again [{RETRACTED_DOI}]. '
        "And [doi:10.5555/INVENTED.RETRACTED.1].\n",
        retraction=True,
    )
    cits = report.citations()
    assert asked == [RETRACTED_DOI]
    for c in cits:
        assert c.verdict == "ok" and c.flags[-1] == "retracted"
        assert "retraction_acknowledged" not in c.flags  # the DOI's own words do not count
        assert c.retraction is not None and c.retraction.status == "RETRACTED"
    assert cits[0].flags == ["retracted"]  # an exact quote adds no flag of its own
    assert report.metrics.retracted_cited == 1
    assert report.verdict == "fail" and all(s.status == "cited_problem" for s in report.sentences)


@pytest.mark.usefixtures("snapshot")
def test_a_failed_lookup_for_one_work_does_not_stop_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A work whose retraction status cannot be had carries no retraction; a retracted work
    cited after it is still flagged (the lookup failing is that work's, not the audit's)."""
    import citeproof.audit.run
    from citeproof.errors import CiteproofError

    failing = "doi:10.5555/fails.first"
    real = citeproof.retraction.status.retraction_report

    def flaky(key: str, **kw: Any) -> Any:
        if key == failing:
            raise CiteproofError("retraction sources could not be read")
        return real(key, **kw)

    monkeypatch.setattr(citeproof.audit.run, "retraction_report", flaky)
    pin(failing, RETRACTED_DOI)
    report = audit_offline(
        f'First "{EXACT}" [{failing}]. Then "{EXACT}" [{RETRACTED_DOI}].\n', retraction=True
    )
    first, second = report.citations()
    assert first.verdict == "ok" and first.retraction is None and first.flags == []
    assert second.retraction is not None and second.retraction.status == "RETRACTED"
    assert second.flags == ["retracted"]


@pytest.mark.usefixtures("snapshot")
def test_saying_the_work_is_retracted_acknowledges_it() -> None:
    pin(RETRACTED_DOI)
    report = audit_offline(
        f"A later-retracted study claimed compost helps [{RETRACTED_DOI}]. "
        "Compost helps [1].\n\n## References\n\n"
        "1. Compost study (retracted in 2024). doi:10.5555/invented.retracted.1\n",
        retraction=True,
    )
    said, entry = report.citations()
    assert said.flags == ["retracted", "retraction_acknowledged"]
    assert entry.flags == ["retracted", "retraction_acknowledged"]
    assert entry.resolved_to == RETRACTED_DOI and entry.retraction is not None
    assert report.verdict == "pass"


@pytest.mark.usefixtures("snapshot")
def test_a_reference_entry_whose_only_retract_word_is_its_identifier_does_not_acknowledge() -> None:
    pin(RETRACTED_DOI)
    report = audit_offline(
        "Compost helps [1].\n\n## References\n\n"
        "1. Compost study. https://doi.org/10.5555/INVENTED.RETRACTED.1\n",
        retraction=True,
    )
    (c,) = report.citations()
    assert c.flags == ["retracted"] and report.verdict == "fail"


@pytest.mark.usefixtures("snapshot")
def test_a_concern_is_flagged_and_a_work_that_is_not_real_is_not_asked() -> None:
    report = audit_offline(
        "Watering from below [doi:10.5555/invented.concern.1]. A broken one [pmcid:PMC1~x].\n",
        retraction=True,
    )
    concern, broken = report.citations()
    assert concern.verdict == "unavailable" and concern.flags == ["concern"]
    assert broken.verdict == "malformed" and broken.retraction is None
    no_asking = audit_offline("Watering from below [doi:10.5555/invented.concern.1].\n")
    (c,) = no_asking.citations()
    assert c.flags == [] and c.retraction is None


# ---------------------------------------------------------------------------- the report


def test_preprints_are_flagged_by_id_or_by_server_prefix() -> None:
    report = audit_offline(
        "A [doi:10.1101/2020.01.01.123456]. B [PPR123456]. C [doi:10.1000/xyz]. "
        "D [doi:10.48550/arXiv.2001.00001]. E [pmcid:PMC1~x].\n"
    )
    flags = [c.flags for c in report.citations()]
    assert flags == [["preprint"], ["preprint"], [], ["preprint"], []]


def test_created_at_is_utc_and_the_generator_names_the_version() -> None:
    from datetime import timedelta, timezone

    from citeproof import __version__

    later = datetime(2026, 1, 2, 5, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    report = audit_answer("Nothing cited here.\n", sign=False, now=lambda: later)
    assert report.created_at == "2026-01-02T03:04:05Z"
    assert report.generator == f"citeproof {__version__}"
    assert report.answer.format == "markdown" and report.verdict == "warn"
    assert report.sentences[0].status == "uncited"
    from citeproof.evidence.log import default_log_path

    assert not default_log_path().exists()  # logging is asked for, not the default
    as_text = audit_answer('{"claims": []}', input_format="markdown", sign=False)
    assert as_text.answer.format == "markdown" and as_text.metrics.sentences == 1
    odd = "A claim with a lone \ud800 surrogate.\n"
    hashed = audit_answer(odd, sign=False)
    assert hashed.answer.sha256 == hashlib.sha256(odd.encode("utf-8", "surrogatepass")).hexdigest()


def test_the_log_entry_commits_to_the_signed_report(tmp_path: Path) -> None:
    from citeproof.audit.signing import key_id, report_bytes
    from citeproof.evidence.log import open_log
    from citeproof.store.keys import LogKey

    key = LogKey.generate("run-mutants")
    path = tmp_path / "log.jsonl"
    answer = "Drug X works [4].\n"
    report = audit_answer(answer, offline=True, key=key, log=path, fail_on="malformed,forged")
    (entry,) = [e for e in open_log(path).entries() if e.kind == "audit"]
    data = report.model_dump(mode="json")
    assert entry.payload == {
        "schema": "citeproof.audit/1",
        "answer_sha256": hashlib.sha256(answer.encode()).hexdigest(),
        "verdict": "warn",
        "metrics": data["metrics"],
        "fail_on": ["malformed", "forged"],
        "report_sha256": hashlib.sha256(report_bytes(data)).hexdigest(),
        "signed_by": key_id(key.verifier),
    }
    unsigned = audit_answer(answer, offline=True, sign=False, log=path)
    last = [e for e in open_log(path).entries() if e.kind == "audit"][-1]
    assert unsigned.signature is None and last.payload["signed_by"] is None
    assert last.payload["verdict"] == "fail"
    from citeproof.evidence.log import default_log_path

    audit_answer(answer, offline=True, sign=False, log=True)
    assert [e.kind for e in open_log(default_log_path()).entries()] == ["audit"]


# ---------------------------------------------------------------------------- issued handles


def issue(key: str) -> str:
    from citeproof.handles.registry import passages_for

    listing = passages_for(key, offline=True, limit=10)
    handle = listing.passages[0].handle
    assert handle is not None
    return handle


def test_a_quote_after_an_issued_handle_is_checked_against_its_passage() -> None:
    pin("doi:10.1000/xyz")
    handle = issue("doi:10.1000/xyz")
    report = audit_offline(
        f'It says "{EXACT}" [{handle}]. Also [{handle} "{WRONG}"]. Plain [{handle}].\n'
    )
    exact, wrong, plain = report.citations()
    for c in (exact, wrong, plain):
        assert c.kind == "handle" and c.resolved_to == "doi:10.1000/xyz"
        assert c.handle is not None and c.handle.status == "ok"
        assert c.source is not None and c.source.identifier == "doi:10.1000/xyz"
    assert (exact.verdict, exact.flags) == ("ok", [])
    assert exact.check is not None and exact.check.verdict == "EXACT"
    # the check names the handle as its input and the work as the identifier
    assert exact.check.source.input == handle
    assert exact.check.source.identifier == "doi:10.1000/xyz"
    assert wrong.verdict == "misquote" and wrong.quote == WRONG and wrong.reason
    assert (plain.verdict, plain.check, plain.quotes) == ("ok", None, [])
    assert report.verdict == "fail"


def test_a_handle_whose_document_changed_keeps_the_passage_as_issued() -> None:
    pin("doi:10.1000/xyz")
    handle = issue("doi:10.1000/xyz")
    pin("doi:10.1000/xyz", text=SOURCE.replace("rare", "frequent"))
    report = audit_offline(f'It says "{EXACT}" [{handle}].\n')
    (c,) = report.citations()
    assert c.verdict == "ok"  # the words are in the passage as issued
    assert c.flags == ["version_changed", "text_changed"]
    assert c.quotes[0].flags == ["version_changed", "text_changed"]
    assert c.handle is not None and c.handle.as_issued_text == SOURCE.strip()
    (bare,) = audit_offline(f"It says so [{handle}].\n").citations()
    assert (bare.verdict, bare.flags) == ("ok", ["version_changed", "text_changed"])


# ---------------------------------------------------------------------------- more citations


def test_on_a_tie_the_first_quote_decides() -> None:
    pin("doi:10.1000/xyz")
    other = "adverse events were rare"
    report = audit_offline(f'It says "{EXACT}" and "{other}" [doi:10.1000/xyz].\n')
    (c,) = report.citations()
    assert c.verdict == "ok" and c.quote == EXACT
    assert c.check is not None and c.check.quote == EXACT
    assert c.quotes[0].check is None
    assert c.quotes[1].check is not None and c.quotes[1].check.quote == other


def test_one_over_long_quote_makes_its_citation_malformed() -> None:
    pin("doi:10.1000/xyz")
    long = "word " * 450
    report = audit_offline(f'It says "{EXACT}" and "{long.strip()}" [doi:10.1000/xyz].\n')
    (c,) = report.citations()
    assert c.verdict == "malformed" and "characters" in (c.reason or "")


def test_a_numbered_citation_is_checked_against_its_entrys_first_identifier() -> None:
    pin("doi:10.1000/xyz")
    report = audit_offline(
        f'It says "{EXACT}" [1].\n\n## References\n\n1. The trial. doi:10.1000/xyz PMID: 12345678\n'
    )
    (c,) = report.citations()
    assert (c.kind, c.resolved_to, c.verdict) == ("numbered", "doi:10.1000/xyz", "ok")
    assert (c.number, c.reference, c.target) == (1, 0, "1")
    assert report.sentences[0].status == "cited_ok" and report.verdict == "pass"
    assert c.source is not None and c.check is not None and c.check.verdict == "EXACT"


def test_an_address_no_service_may_be_asked_about_is_malformed(tmp_path: Path) -> None:
    replay = tmp_path / "replay"
    replay.mkdir()  # nothing recorded: nothing may be fetched
    report = audit_answer(
        "Claim [http://10.0.0.1/paper].\n", replay=replay, retraction=False, sign=False
    )
    (c,) = report.citations()
    assert c.verdict == "malformed" and c.flags == []
    assert "private" in (c.reason or "") and "public" in (c.reason or "")


def test_a_source_that_fails_to_load_is_unavailable_and_loaded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from citeproof.errors import NetworkError
    from citeproof.service import pipeline as pipeline_module

    calls: list[str] = []

    def down(key: str, **kw: Any) -> Any:
        calls.append(key)
        raise NetworkError("the service is down; try later")

    monkeypatch.setattr(pipeline_module, "load_source", down)
    report = audit_offline("A [doi:10.1000/xyz]. B [doi:10.1000/xyz].\n")
    assert calls == ["doi:10.1000/xyz"]
    for c in report.citations():
        assert (c.verdict, c.flags) == ("unavailable", [])
        assert c.reason == "the service is down; try later"
    assert report.verdict == "incomplete"


def test_the_same_quote_against_two_sources_is_checked_against_each() -> None:
    pin("doi:10.1000/xyz")
    pin("doi:10.1000/other", text="Another paper: patients who walked daily slept better.\n")
    report = audit_offline(
        f'It says "{EXACT}" [doi:10.1000/other]. Again "{EXACT}" [doi:10.1000/xyz].\n'
    )
    other, xyz = report.citations()
    assert (other.verdict, xyz.verdict) == ("misquote", "ok")


def test_quotes_the_matcher_cannot_take_and_the_shortest_it_can() -> None:
    pin("doi:10.1000/xyz")
    twenty = "reduced mortality by"
    assert len(twenty) == 20
    report = audit_offline(
        f'Zero "\u200b\u200b" [doi:10.1000/xyz]. Twenty "{twenty}" [doi:10.1000/xyz].\n'
    )
    empty, shortest = report.citations()
    assert (empty.verdict, empty.flags, empty.check) == ("malformed", [], None)
    reason = empty.reason or ""
    assert "the quote cannot be checked" in reason and "empty" in reason
    assert (shortest.verdict, shortest.flags) == ("ok", [])
    assert shortest.check is not None and shortest.check.verdict == "EXACT"


def test_find_source_flags_a_quote_found_in_another_cached_document() -> None:
    pin("doi:10.1000/xyz")
    pin("doi:10.1000/other", text="Another paper: patients who walked daily slept better.\n")
    answer = 'It says "patients who walked daily slept better" [doi:10.1000/xyz].\n'
    (found,) = audit_offline(answer, find_source=True).citations()
    assert found.verdict == "misquote" and found.flags == ["found_elsewhere"]
    assert found.check is not None and found.check.found_elsewhere
    (plain,) = audit_offline(answer).citations()
    assert plain.verdict == "misquote" and plain.flags == []


@pytest.mark.usefixtures("snapshot")
def test_only_real_works_are_asked_about_retraction_and_every_one_is() -> None:
    pin(RETRACTED_DOI)
    forged = f"{RETRACTED_DOI}/body.p1~ABCDEFGH"
    report = audit_offline(
        f"Forged [{forged}]. A page [https://example.org/x]. Fine [doi:10.1000/xyz]. "
        f'Real "{WRONG}" [{RETRACTED_DOI}].\n',
        retraction=True,
    )
    bad, page, fine, real = report.citations()
    assert fine.retraction is not None and fine.flags == []
    assert real.verdict == "misquote" and real.reason and "similarity" in real.reason
    assert bad.verdict == "forged" and bad.resolved_to == RETRACTED_DOI
    assert bad.flags == [] and bad.retraction is None
    assert page.retraction is None
    assert real.flags == ["retracted"] and real.retraction is not None
    # retraction is asked by default
    (default,) = audit_answer(f"Real [{RETRACTED_DOI}].\n", offline=True, sign=False).citations()
    assert default.flags == ["retracted"]
