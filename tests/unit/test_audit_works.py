"""The audit's cited works (:mod:`citeproof.audit.works`): loads, handles, options, memos.

(First written against the survivors of a mutation-testing run.)

Groups: an issued handle whose source can no longer be read (the failure's kind and words
reach the handle's verdict); the matcher options an audit is given (they decide NEAR against
a misquote, and which other source ``find_source`` accepts); ``find_source`` searches only
the cache offline (and says so), and through the audit's replay online; an offline audit
writes no cache and no issued-passage store just to look, and a shared cache that will not
open leaves each load to open its own; and the process-wide memo of issued passages as
Documents (one Document per passage's words, kept within :data:`TEXT_DOCUMENTS_KEEP_CHARS`).
Sources are pinned in the test's own cache or answered by local recordings: no network.
Equivalent survivors (per-audit memos, the shared cache and store opened once) are not pinned.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from citeproof import service
from citeproof.audit import sentences
from citeproof.audit import works as audit_sources
from citeproof.audit.parse import parse_answer
from citeproof.audit.run import audit_answer, audit_parsed
from citeproof.audit.works import TEXT_DOCUMENTS_KEEP_CHARS
from citeproof.errors import BadInputError, NetworkError
from citeproof.models.audit import AuditReport
from citeproof.net.recordings import write_recording
from citeproof.service import pipeline as pipeline_module
from citeproof.store.issued import default_store_path
from citeproof.store.paths import default_dirs
from pinned import pin_text

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
KEY = "doi:10.1000/xyz"
SOURCE = (
    "In the trial, the treatment reduced mortality by 30% over five years. "
    "The effect was not significant in the youngest group, and adverse events were rare.\n"
)
EXACT = "the treatment reduced mortality by 30% over five years"
#: One word of a sentence of SOURCE changed: NEAR under the default threshold.
ONE_WORD_OFF = "the treatment reduced mortality by 30% over seven years"
EPMC = "https://www.ebi.ac.uk/europepmc/webservices/rest/search"
LITSENSE = "https://www.ncbi.nlm.nih.gov/research/litsense2-api/api/sentences/"


def pin(key: str, text: str = SOURCE) -> None:
    """Pin ``text`` as the full text of ``key`` in this test's own cache (no network)."""
    pin_text(key, text=text)


def issue(key: str) -> str:
    """The handle of ``key``'s first passage, issued (and stored) offline."""
    from citeproof.handles.registry import passages_for

    handle = passages_for(key, offline=True, limit=10).passages[0].handle
    assert handle is not None
    return handle


@pytest.fixture(autouse=True)
def fresh_memos(monkeypatch: pytest.MonkeyPatch) -> None:
    """Empty the process-wide memos, so each test runs the code it is about."""
    monkeypatch.setattr(sentences, "_CUTS", OrderedDict())
    monkeypatch.setattr(sentences, "_cuts_chars", 0)
    monkeypatch.setattr(audit_sources, "_TEXT_DOCUMENTS", OrderedDict())
    monkeypatch.setattr(audit_sources, "_text_chars", 0)


def audit_offline(text: str, **kw: Any) -> AuditReport:
    """An unsigned offline audit of ``text``, without retraction status."""
    return audit_answer(text, offline=True, sign=False, retraction=False, now=lambda: WHEN, **kw)


# ---------------------------------------------------------------- a handle's source fails


@pytest.mark.parametrize(
    ("error", "verdict"),
    [
        (NetworkError("the service is down; try later"), "unavailable"),
        (BadInputError("the record is not a work"), "unresolvable"),
    ],
)
def test_an_issued_handle_whose_source_fails_to_load_takes_the_failures_kind(
    monkeypatch: pytest.MonkeyPatch, error: Exception, verdict: str
) -> None:
    pin(KEY)
    handle = issue(KEY)

    def failing(key: str, **kw: Any) -> Any:
        raise error

    monkeypatch.setattr(pipeline_module, "load_source", failing)
    (c,) = audit_offline(f"It says so [{handle}].\n").citations()
    assert c.handle is not None and c.handle.status == verdict
    assert (c.verdict, c.resolved_to) == (verdict, KEY)
    assert c.reason == str(error)  # issued here: the failure's own words, nothing added


def test_a_failure_without_words_gives_an_empty_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    pin(KEY)
    handle = issue(KEY)

    def failing(key: str, **kw: Any) -> Any:
        raise NetworkError("")

    monkeypatch.setattr(pipeline_module, "load_source", failing)
    (c,) = audit_offline(f"It says so [{handle}].\n").citations()
    assert c.verdict == "unavailable"
    assert c.handle is not None and not c.handle.reason  # nothing invented in its place


# ---------------------------------------------------------------- options and find_source


def audit_with(text: str, **kw: Any) -> AuditReport:
    """An offline :func:`audit_parsed` of ``text`` (which takes the matcher options)."""
    parsed = parse_answer(text)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return audit_parsed(
        parsed, answer_sha256=digest, offline=True, retraction=False, now=lambda: WHEN, **kw
    )


def test_the_audits_matcher_options_decide_near_against_misquote() -> None:
    pin(KEY)
    answer = f'It says "{ONE_WORD_OFF}" [{KEY}].\n'
    (default,) = audit_with(answer).citations()
    assert default.check is not None and default.check.verdict == "NEAR"
    strict = service.match_options(near_threshold=1.0)
    (c,) = audit_with(answer, options=strict).citations()
    assert c.check is not None and c.check.verdict == "NOT_FOUND"
    assert c.verdict == "misquote"


def test_find_source_in_an_offline_audit_searches_only_the_cache() -> None:
    pin(KEY)
    answer = 'It says "patients who walked daily slept better at night" [doi:10.1000/xyz].\n'
    (c,) = audit_offline(answer, find_source=True).citations()
    assert c.verdict == "misquote" and c.check is not None
    places = c.check.searched_elsewhere
    assert places and places[0].state != "not_asked"  # the cache was searched
    remote = places[1:]
    assert remote and all(p.state == "not_asked" for p in remote)
    assert all("--offline" in (p.reason or "") for p in remote)


def test_find_source_uses_the_audits_options_to_accept_a_source_elsewhere() -> None:
    pin(KEY, text="Another paper: patients who walked daily slept better.\n")
    pin("doi:10.1000/other")  # holds the quote's words with one word changed
    answer = f'It says "{ONE_WORD_OFF}" [{KEY}].\n'
    (near,) = audit_with(answer, find_source=True).citations()
    assert near.verdict == "misquote" and near.flags == ["found_elsewhere"]
    assert near.check is not None and near.check.found_elsewhere is not None
    assert [(f.identifier, f.verdict) for f in near.check.found_elsewhere] == [
        ("doi:10.1000/other", "NEAR")
    ]
    strict = service.match_options(near_threshold=1.0)
    (c,) = audit_with(answer, find_source=True, options=strict).citations()
    assert c.verdict == "misquote" and c.flags == []
    assert c.check is not None and c.check.found_elsewhere == []


def test_find_source_in_an_online_audit_searches_through_the_audits_replay(
    tmp_path: Path,
) -> None:
    pin(KEY)
    words = "patients who walked daily slept better at night"
    replay = tmp_path / "replay"
    replay.mkdir()
    for name, url, body in [
        (
            "europepmc",
            f'{EPMC}?format=json&pageSize=10&query="{words}" AND OPEN_ACCESS:y&resultType=lite',
            b'{"hitCount":0,"resultList":{"result":[]}}',
        ),
        ("litsense", f"{LITSENSE}?query={words}&rerank=true", b"[]"),
    ]:
        write_recording(
            replay,
            name,
            url=url,
            status=200,
            body=body,
            date=WHEN,
            headers={"content-type": "application/json"},
        )
    report = audit_answer(
        f'It says "{words}" [{KEY}].\n',
        replay=replay,
        retraction=False,
        sign=False,
        find_source=True,
        now=lambda: WHEN,
    )
    (c,) = report.citations()
    assert c.verdict == "misquote" and c.check is not None
    assert c.check.searched_elsewhere is not None
    remote = {p.where: (p.state, p.reason) for p in c.check.searched_elsewhere[1:]}
    assert remote == {
        "europepmc": ("answered", "no candidate beyond the cited source"),
        "litsense": ("answered", "no candidate beyond the cited source"),
    }


# ---------------------------------------------------------------- nothing written offline


def test_an_offline_audit_creates_no_cache_and_no_passage_store() -> None:
    cache_db = default_dirs().cache_db
    assert not cache_db.exists() and not default_store_path().exists()
    handle = "doi:10.1000/xyz/body.p1~ABCDEFGH"
    bare, handled = audit_offline(f"A [{KEY}]. B [{handle}].\n").citations()
    assert bare.verdict == "unavailable" and "--offline" in (bare.reason or "")
    assert handled.verdict == "unavailable"
    assert not cache_db.exists()
    assert not default_store_path().exists()


def test_when_the_shared_cache_will_not_open_each_load_opens_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pin(KEY)

    def broken(*, offline: bool) -> Any:
        raise OSError("the cache is locked")

    monkeypatch.setattr(audit_sources, "open_cache_for", broken)
    (c,) = audit_offline(f'It says "{EXACT}" [{KEY}].\n').citations()
    assert (c.verdict, c.resolved_to) == ("ok", KEY)
    assert c.check is not None and c.check.verdict == "EXACT"


# ---------------------------------------------------------------- issued passages as Documents


class Loads:
    """A stand-in for ``document_from_text(text)`` that counts what it was asked to load."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, text: str) -> Any:
        self.calls.append(text)
        return object()


def test_a_passages_document_is_made_once_and_kept_within_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loads = Loads()
    monkeypatch.setattr(audit_sources, "document_from_text", loads)
    make = audit_sources._text_document
    largest = TEXT_DOCUMENTS_KEEP_CHARS // 8  # the longest passage that is kept
    texts = [chr(ord("a") + i) * largest for i in range(10)]
    first = make(texts[0])
    assert make(texts[0]) is first and loads.calls == [texts[0]]
    # exactly the bound is kept: eight of the longest fill it without an eviction
    for text in texts[1:8]:
        make(text)
    for text in texts[:8]:
        make(text)
    assert len(loads.calls) == 8
    # two more evict the two oldest, and only those
    make(texts[8])
    make(texts[9])
    assert len(loads.calls) == 10
    assert audit_sources._text_chars == TEXT_DOCUMENTS_KEEP_CHARS
    for text in texts[2:]:
        make(text)
    assert len(loads.calls) == 10
    make(texts[1])
    assert loads.calls[-1] == texts[1] and len(loads.calls) == 11
    make(texts[0])
    assert loads.calls[-1] == texts[0] and len(loads.calls) == 12
    assert audit_sources._text_chars == TEXT_DOCUMENTS_KEEP_CHARS


def test_a_passage_over_the_per_passage_limit_is_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loads = Loads()
    monkeypatch.setattr(audit_sources, "document_from_text", loads)
    over = "x" * (TEXT_DOCUMENTS_KEEP_CHARS // 8 + 1)
    assert audit_sources._text_document(over) is not audit_sources._text_document(over)
    assert loads.calls == [over, over] and audit_sources._text_chars == 0
