"""How the pages read a report: the models' shape always, the data's leaves as given.

The pages read every report through the published models without validating it
(``citeproof.report.lenient``), so these tests pin the two halves of that promise: whatever a
report holds, a page can walk it as the models say (no missing attribute, no list that is a
string), and it shows what the report held rather than refusing it.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import lxml.html
from hypothesis import given
from hypothesis import strategies as st
from test_report_html import sample

from citeproof.models.audit import AnswerInfo, AuditReport, CitationReport, Metrics
from citeproof.models.check import CheckResult, SourceInfo
from citeproof.report import render_audit_html
from citeproof.report.lenient import given as given_model
from citeproof.report.lenient import read

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)


def test_a_report_of_nothing_has_the_models_shape() -> None:
    for nothing in ({}, None, "junk", [1, 2], 5):
        report = read(AuditReport, nothing)
        assert report.sentences == [] and report.references == [] and report.fail_on == []
        assert isinstance(report.metrics, Metrics) and isinstance(report.answer, AnswerInfo)
        assert report.metrics.by_verdict == {}
        assert report.signature is None and report.verdict is None
        assert report.model_fields_set == set()


def test_items_that_are_not_objects_are_models_with_nothing_given() -> None:
    report = read(AuditReport, {"sentences": ["junk", {"citations": [1, {"verdict": "ok"}]}]})
    first, second = report.sentences
    assert first.model_fields_set == set() and first.citations == []
    junk, cited = second.citations
    assert isinstance(junk, CitationReport) and junk.model_fields_set == set()
    assert cited.verdict == "ok" and cited.model_fields_set == {"verdict"}
    assert cited.flags == [] and cited.quotes == [] and cited.check is None


def test_an_optional_model_is_none_unless_the_report_gives_one() -> None:
    cit = read(CitationReport, {"check": {}, "handle": "text", "source": {"title": "T"}})
    assert cit.check is None and cit.handle is None
    assert isinstance(cit.source, SourceInfo) and cit.source.title == "T"
    check = read(CheckResult, {"verdict": "EXACT"})
    assert isinstance(check.source, SourceInfo) and check.source.model_fields_set == set()
    assert given_model(CheckResult, {}) is None and given_model(CheckResult, "x") is None


def test_leaves_are_the_reports_unchecked() -> None:
    metrics = read(Metrics, {"sentences": "<b>many</b>", "claims": None, "by_verdict": "x"})
    sentences: object = metrics.sentences  # declared an int; the report says otherwise
    assert sentences == "<b>many</b>"
    assert metrics.claims is None and metrics.model_fields_set == {
        "sentences",
        "claims",
        "by_verdict",
    }
    assert metrics.by_verdict == {}


def test_fields_are_read_by_their_json_names() -> None:
    assert read(AuditReport, {"schema": "citeproof.audit/1"}).schema_ == "citeproof.audit/1"
    assert read(AuditReport, {"schema_": "x"}).model_fields_set == set()


def test_a_model_is_taken_as_it_is() -> None:
    info = AnswerInfo(text="t", format="markdown", sha256="0" * 64)
    assert read(AnswerInfo, info) is info
    assert read(AuditReport, {"answer": info}).answer is info


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*at, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            found += _paths(inner, (*at, i))
    return found


@given(st.data())
def test_any_value_anywhere_in_a_report_renders(data: st.DataObject) -> None:
    """A report hand-edited, truncated or written by someone else: one value replaced by any
    JSON anywhere still gives a page, with the report embedded as it was given."""
    report, answer = sample()
    report = copy.deepcopy(report)
    path = data.draw(st.sampled_from(_paths(report)[1:]))
    target = report
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = data.draw(JSON)
    page = render_audit_html(report, answer, generated_at="2026-01-02T03:04:05Z")
    doc = lxml.html.document_fromstring(page)
    assert json.loads(doc.cssselect("script")[0].text) == report
