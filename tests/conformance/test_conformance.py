"""The conformance suite: every planted citation through the audit, compared with the oracle.

Why it is shaped this way: one answer per category (25 planted cases each) plus 25 whole
answers mixing categories keeps the audit calls few (the suite must run in seconds) while
every citation keeps its own expected verdict.  Citations are matched to planted cases in
order, by the handle or identifier each case wrote, so an extra citation the audit invents
(say, a citation marker inside a quotation) or one it misses is reported on the case where it
happened.  On failure the message gives the pass count of every category.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import citeproof

from . import oracle
from .conftest import Built
from .generator import (
    CASES_PER_CATEGORY,
    CATEGORIES,
    SEED,
    Answer,
    Case,
    Plan,
    mutate_handle,
    plan,
)

CATEGORY_NAMES = [name for name, _ in CATEGORIES] + ["whole_answers"]


def _audit_function() -> Callable[..., Any] | None:
    try:
        from citeproof.audit.run import audit_answer
    except ImportError:
        return None
    return audit_answer


@dataclass
class Outcome:
    category: str
    label: str
    problems: list[str] = field(default_factory=list)


@dataclass
class Results:
    outcomes: list[Outcome]
    seconds: float
    cpu: float

    def of(self, category: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.category == category]

    def table(self) -> str:
        lines = []
        for name in CATEGORY_NAMES:
            mine = self.of(name)
            ok = sum(not o.problems for o in mine)
            lines.append(f"  {name:28} {ok:4}/{len(mine)}")
        return "\n".join(lines)


def _needle(case: Case, handles: Mapping[str, Sequence[str]]) -> str:
    """What the case's citation writes, to find it among the audit's citations."""
    cite = case.cite
    if cite is None or cite.style == "numbered":
        return ""
    if cite.style == "inline":
        inner = cite.ref.strip("[]()")
        return re.split(r"doi\.org/|doi:|PMID:? ", inner)[-1].strip()
    other = handles[cite.other[0]][cite.other[1]] if cite.other else None
    return mutate_handle(handles[cite.doc][cite.para], cite.mutate, other, case.index)


#: The contract's citation kinds a planted kind may be reported as (a doi.org link is a DOI
#: written as a URL).
_KINDS: dict[str, tuple[str, ...]] = {
    "handle": ("handle",),
    "pmid": ("pmid",),
    "pmcid": ("pmcid",),
    "doi": ("doi", "url"),
    "numbered": ("numbered",),
}


def _holds(citation: dict[str, Any], needle: str) -> bool:
    raw = str(citation.get("raw", ""))
    return needle in raw or needle.lower() in raw.lower()


def _flags(citation: dict[str, Any]) -> set[str]:
    return set(citation.get("flags") or []) & oracle.DESIGN_FLAGS


def _compare(
    answer: Answer, handles: Mapping[str, Sequence[str]], report: dict[str, Any]
) -> list[Outcome]:
    sentences: list[dict[str, Any]] = report["sentences"]
    cited = [c for s in sentences for c in s["citations"]]
    pos = 0
    outcomes: list[Outcome] = []
    everything: list[oracle.Expected] = []
    for case in answer.cases:
        out = Outcome(case.category, f"{case.category}#{case.index}")
        expected = [oracle.expect(p) for p in case.plants]
        everything += expected
        needle = _needle(case, handles)
        for plant, exp in zip(case.plants, expected, strict=True):
            found = next(
                (k for k in range(pos, len(cited)) if _holds(cited[k], needle)),
                None,
            )
            if found is None:
                out.problems.append(f"no citation containing {needle!r} (expected {exp.show()})")
                continue
            extra = [str(c.get("raw")) for c in cited[pos:found]]
            if extra:
                out.problems.append(f"unexpected citation(s) before it: {extra}")
            got = cited[found]
            pos = found + 1
            flags = _flags(got)
            if got.get("kind") not in _KINDS[plant.kind]:
                out.problems.append(f"kind: expected {plant.kind}, got {got.get('kind')}")
            if got.get("verdict") != exp.verdict or flags != set(exp.flags):
                out.problems.append(
                    f"{str(got.get('raw'))[:90]!r} ({plant.edit}): expected {exp.show()}, "
                    f"got {got.get('verdict')} {sorted(flags)} -- {got.get('reason')}"
                )
        for snippet, status in _probes(case, expected):
            holders = [s for s in sentences if snippet in s["text"]]
            got_status = holders[0]["status"] if holders else None
            if got_status != status:
                out.problems.append(f"sentence {snippet!r}: expected {status}, got {got_status}")
        outcomes.append(out)
    want = oracle.overall(everything, sum(c.uncited for c in answer.cases))
    if want is not None and report["verdict"] != want:
        note = f"overall: expected {want}, got {report['verdict']}"
        if answer.whole:
            outcomes[0].problems.append(note)
        else:
            outcomes.append(Outcome(answer.category, f"{answer.category}:overall", [note]))
    if answer.whole:  # a whole answer passes or fails as one
        merged = [p for o in outcomes for p in o.problems]
        return [Outcome("whole_answers", f"whole {answer.cases[0].index // 1000}", merged)]
    return outcomes


def _probes(case: Case, expected: Sequence[oracle.Expected]) -> list[tuple[str, str]]:
    probes = list(case.probes)
    if case.cite is not None and case.cite.style != "block":
        status = oracle.sentence_status(expected)
        if status is not None:
            probes.append((f"{case.tag} recorded", status))
    return probes


@pytest.fixture(scope="session")
def results(built: Built) -> Results:
    audit = _audit_function()
    if audit is None:
        pytest.skip("citeproof.audit.run.audit_answer is not written yet")
    started, cpu = time.perf_counter(), time.process_time()
    outcomes: list[Outcome] = []
    for answer, text in zip(built.plan.answers, built.texts, strict=True):
        report = audit(text, offline=True, sign=False, log=False)
        data = report.model_dump(mode="json") if hasattr(report, "model_dump") else report
        outcomes += _compare(answer, built.handles, data)
    return Results(outcomes, time.perf_counter() - started, time.process_time() - cpu)


# ------------------------------------------------------------------------- the generator


def test_the_plan_is_seeded_and_large_enough() -> None:
    first, again = plan(), plan()
    assert first.answers == again.answers
    assert {k: d.paragraphs for k, d in first.docs.items()} == {
        k: d.paragraphs for k, d in again.docs.items()
    }
    assert plan(SEED + 1).answers != first.answers
    per_category = [a for a in first.answers if not a.whole]
    assert len(per_category) >= 40
    assert all(len(a.cases) == CASES_PER_CATEGORY for a in per_category)
    assert sum(a.whole for a in first.answers) >= 25
    # every key is invented: PMIDs from 99100000, DOIs under the example prefix
    for key in first.docs:
        _scheme, value = key.split(":", 1)
        assert value.startswith(("991", "PMC991", "10.5555/"))


def _check_plants(the_plan: Plan) -> None:
    """The oracle's own check of the generator: exact edits fold to the source, ellipsis
    fragments are in order (skipping a negation exactly when planted so), near edits stay
    well above the threshold, absent quotes well below."""
    for answer in the_plan.answers:
        for case in answer.cases:
            for p in case.plants:
                if p.quote is None or p.span is None:
                    continue
                label = f"{case.category}#{case.index}"
                if p.edit in ("none", "fold", "marker", "partial"):
                    assert oracle.quote_is_exact(p), label
                    assert (p.quote != p.span) == (p.edit in ("fold", "partial")), label
                elif p.edit in ("ellipsis", "ellipsis_negation"):
                    skipped = oracle.skipped_spans(p)
                    assert skipped, label
                    assert oracle.hides_negation(skipped) == (p.edit != "ellipsis"), label
                elif p.edit == "absent":
                    assert oracle.similarity(p.quote, p.span) <= oracle.SAFE_FAR, label
                else:
                    assert not oracle.quote_is_exact(p), label
                    assert oracle.similarity(p.quote, p.span) >= oracle.SAFE_NEAR, label


def test_planted_edits_are_what_they_claim() -> None:
    _check_plants(plan())


@given(st.integers(min_value=0, max_value=2**32))
def test_any_seed_plants_consistent_cases(seed: int) -> None:
    _check_plants(plan(seed, per_category=4))


_CHECK_VERDICT = {
    "none": "EXACT",
    "fold": "EXACT",
    "marker": "EXACT",
    "partial": "EXACT",
    "ellipsis": "EXACT",
    "ellipsis_negation": "EXACT",
    "absent": "NOT_FOUND",
}


def test_the_matcher_agrees_with_the_planted_quote_verdicts(built: Built) -> None:
    """One level down: ``citeproof.check_text`` on each handle case's passage gives the
    check verdict the plant implies, so an audit disagreement is the audit's own."""
    wrong: list[str] = []
    for answer in built.plan.answers[: len(CATEGORIES)]:
        for case in answer.cases:
            cite = case.cite
            if cite is None or cite.style not in ("handle", "block") or cite.mutate:
                continue
            p = case.plants[0]
            if p.quote is None:
                continue
            passage = built.plan.docs[cite.doc].paragraphs[cite.para]
            r = citeproof.check_text(p.quote, passage)
            verdict = _CHECK_VERDICT.get(p.edit, "NEAR")
            flags = set(r.near.flags) if r.near is not None else set()
            exp = oracle.expect(p)
            if r.verdict != verdict or (verdict == "NEAR" and flags != set(exp.flags)):
                wrong.append(f"{case.category}#{case.index}: {r.verdict} {sorted(flags)}")
    assert not wrong, "\n".join(wrong[:40])


# ---------------------------------------------------------------------------- the audit


#: Categories where the audit and the oracle disagree and the oracle is judged right; each
#: entry says why, and goes when the audit is fixed (strict: a fix makes the test XPASS).
KNOWN_DISAGREEMENTS: dict[str, str] = {}


def _category_params() -> list[Any]:
    return [
        pytest.param(
            name,
            marks=pytest.mark.xfail(reason=KNOWN_DISAGREEMENTS[name], strict=True),
        )
        if name in KNOWN_DISAGREEMENTS
        else name
        for name in CATEGORY_NAMES
    ]


@pytest.mark.parametrize("category", _category_params())
def test_audit_conforms(results: Results, category: str) -> None:
    mine = results.of(category)
    assert mine, f"no outcomes for {category}"
    failed = [o for o in mine if o.problems]
    detail = "\n".join(f"{o.label}: {'; '.join(o.problems)}" for o in failed[:12])
    assert not failed, (
        f"{category}: {len(mine) - len(failed)}/{len(mine)} pass\n{detail}\n\n"
        f"all categories:\n{results.table()}"
    )


def test_the_audit_of_the_whole_suite_is_fast(built: Built, results: Results) -> None:
    """Building and auditing every case stays well inside the suite's 30 s budget.  CPU time
    is asserted (wall time is printed): other processes on a busy machine must not fail it."""
    print(
        f"conformance: build {built.seconds:.1f} s wall / {built.cpu:.1f} s CPU, "
        f"audit {results.seconds:.1f} s wall / {results.cpu:.1f} s CPU"
    )
    print(results.table())
    assert built.cpu + results.cpu < 25, (built.cpu, results.cpu)


def test_an_overlong_quote_does_not_sink_the_rest_of_the_answer(built: Built) -> None:
    """Limits are per item: one quote over the cap gets its own verdict, and the 25 planted
    cases before it keep theirs."""
    audit = _audit_function()
    if audit is None:
        pytest.skip("citeproof.audit.run.audit_answer is not written yet")
    from citeproof.audit.parse import MAX_QUOTE_CHARS

    answer, text = built.plan.answers[0], built.texts[0]
    handle = built.handles[next(iter(built.handles))][0]
    words = ("the beds stayed moist " * (MAX_QUOTE_CHARS // 10))[: MAX_QUOTE_CHARS + 50]
    longer = text + f'\nOne more observation is recorded [{handle} "{words}"].\n'
    report = audit(longer, offline=True, sign=False, log=False).model_dump(mode="json")
    outcomes = [o for o in _compare(answer, built.handles, report) if "overall" not in o.label]
    assert len(outcomes) == CASES_PER_CATEGORY
    assert all(not o.problems for o in outcomes), [o.problems for o in outcomes if o.problems]
    last = [c for s in report["sentences"] for c in s["citations"]][-1]
    assert last["verdict"] != "ok", last
    print(f"over-long quote: {last['verdict']} {last.get('flags')} -- {last.get('reason')}")
