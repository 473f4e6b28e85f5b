"""The audit report: statuses and metrics from parsed answers, the schema, and signatures.

Answers here cite nothing that needs a source read (malformed handles, numbers without
entries, unrecognised JSON citations) or nothing at all, so no network and no cache is used.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeproof.audit.metrics import compute_metrics
from citeproof.audit.run import audit_answer
from citeproof.audit.signing import (
    key_id,
    load_report_json,
    report_bytes,
    sign_report,
    signed_bytes,
    verify_report,
)
from citeproof.errors import BadInputError
from citeproof.models.audit import VERDICTS, AuditReport, SentenceReport
from citeproof.store.keys import LogKey

KEY = LogKey.generate("test-key")
WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

ANSWER = """# Findings

**Summary.** Drug X helps [pmcid:PMC1~x]. Drug Y is unproven [3].

An uncited claim sits here.

## References

1. Nothing useful here.
"""


def audit(text: str = ANSWER, **kw: Any) -> AuditReport:
    kw.setdefault("key", KEY)
    return audit_answer(text, offline=True, retraction=False, now=lambda: WHEN, **kw)


def test_statuses_and_metrics() -> None:
    report = audit()
    assert report.schema_ == "citeproof.audit/1"
    by_text = {s.text.strip(): s for s in report.sentences}
    assert by_text["Findings"].status == "not_a_claim"
    assert by_text["**Summary.**"].status == "not_a_claim"
    assert by_text["Drug X helps [pmcid:PMC1~x]."].status == "cited_problem"
    assert by_text["An uncited claim sits here."].status == "uncited"
    m = report.metrics
    assert (m.claims, m.cited_claims, m.citations) == (3, 2, 2)
    assert m.by_verdict == {**dict.fromkeys(VERDICTS, 0), "malformed": 1, "unresolvable": 1}
    assert m.fabricated == 1 and m.citation_validity == 0.0
    assert m.quotes == 0 and m.quote_accuracy is None
    assert m.claim_coverage == round(2 / 3, 4)
    assert report.verdict == "fail" and report.fail_on == [
        "forged",
        "malformed",
        "unresolvable",
        "mismatch",
        "misquote",
        "retracted",
    ]
    assert report.created_at == "2026-01-02T03:04:05Z"


def test_spans_point_into_the_answer() -> None:
    report = audit()
    text = report.answer.text
    assert text == ANSWER
    for s in report.sentences:
        assert text[s.start : s.end] == s.text
        for c in s.citations:
            assert text[c.start : c.end] == c.raw


def test_an_over_long_sentence_is_reported_not_rejected() -> None:
    long = "word " * 1200 + "[pmcid:PMC1/body.p1~ABCDEFGH]."
    report = audit(long + "\n\nA short uncited claim.\n")
    first = report.sentences[0]
    assert first.error is not None and "characters" in first.error
    assert first.citations[0].verdict == "malformed"
    assert report.sentences[1].status == "uncited"


def test_empty_answer_passes_with_null_rates() -> None:
    report = audit("")
    assert report.verdict == "pass" and report.metrics.claim_coverage is None


def test_compute_metrics_counts_distinct_retracted_works() -> None:
    report = audit("A [pmcid:PMC1~x].\n")
    (sentence,) = report.sentences
    (cit,) = sentence.citations
    flagged = cit.model_copy(update={"flags": ["retracted"], "resolved_to": "doi:10.1/x"})
    twice = sentence.model_copy(update={"citations": [flagged, flagged]})
    metrics = compute_metrics(
        [twice, SentenceReport(**{**twice.model_dump(), "index": 1})], {"claim"}
    )
    assert metrics.retracted_cited == 1 and metrics.citations == 4


def test_report_round_trips_through_json() -> None:
    report = audit()
    data = json.loads(json.dumps(report.model_dump(mode="json")))
    assert AuditReport.model_validate(data) == report
    assert data["schema"] == "citeproof.audit/1" and "schema_" not in data


# ---------------------------------------------------------------------------- signing


def test_signature_round_trip() -> None:
    report = audit()
    assert report.signature is not None
    assert (
        report.signature.key_id == key_id(KEY.verifier) and report.signature.algorithm == "ed25519"
    )
    data = report.model_dump(mode="json")
    assert verify_report(data, KEY.verifier).valid
    # re-signing replaces, and the signed bytes never include the signature
    again = sign_report(report, KEY)
    assert signed_bytes(again.model_dump(mode="json")) == signed_bytes(data)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _paths(v, (*prefix, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _paths(v, (*prefix, i))]
    return [prefix]


SIGNED = audit().model_dump(mode="json")
LEAVES = [p for p in _paths(SIGNED) if p[0] != "signature"]


@settings(deadline=None)
@given(st.sampled_from(LEAVES))
def test_any_tampered_field_is_invalid(path: tuple[Any, ...]) -> None:
    data = json.loads(json.dumps(SIGNED))
    node = data
    for step in path[:-1]:
        node = node[step]
    old = node[path[-1]]
    node[path[-1]] = "tampered" if old != "tampered" else "other"
    result = verify_report(data, KEY.verifier)
    assert not result.valid and "changed after signing" in result.reason


def test_report_bytes_are_canonical_json() -> None:
    from citeproof.evidence.canonical import canonical_bytes

    assert report_bytes(SIGNED) == canonical_bytes(SIGNED)
    odd = {"b": [1.5, "é\u2028", None, True], "a": {"z": -0.0, "y": "\U0001f600"}}
    assert report_bytes(odd) == canonical_bytes(odd)
    with pytest.raises(BadInputError):
        report_bytes({"x": float("nan")})


def test_an_added_field_is_invalid() -> None:
    data = json.loads(json.dumps(SIGNED))
    data["extra"] = 1
    assert not verify_report(data, KEY.verifier).valid


def test_another_key_unsigned_and_damaged_signatures() -> None:
    other = LogKey.generate("other")
    result = verify_report(SIGNED, other.verifier)
    assert not result.valid and "signed by" in result.reason
    unsigned = {k: v for k, v in SIGNED.items() if k != "signature"}
    assert verify_report(unsigned, KEY.verifier).reason == "the report is not signed."
    damaged = {**SIGNED, "signature": {**SIGNED["signature"], "value": "***"}}
    assert "base64" in verify_report(damaged, KEY.verifier).reason
    wrong_alg = {**SIGNED, "signature": {**SIGNED["signature"], "algorithm": "rsa"}}
    assert not verify_report(wrong_alg, KEY.verifier).valid


def test_load_report_json_refuses_what_is_not_a_report() -> None:
    assert load_report_json(json.dumps(SIGNED))["verdict"] == "fail"
    for bad in ("not json", "[]", '{"schema": "citeproof.check/1"}'):
        with pytest.raises(BadInputError):
            load_report_json(bad)


def test_unsigned_when_asked() -> None:
    assert audit(sign=False).signature is None
