"""Build the conformance suite once per session: pin the invented documents, issue their
handles, change or remove the documents the plan says to, import the invented retraction
list, and render the answers with the real handles.

Why one home for the whole session: building a thousand planted cases costs seconds, and
every test here reads the same documents, so the per-test private ``CITEPROOF_HOME`` of
``tests/conftest.py`` is replaced (for this directory only) by one session home, with a
fixed handle secret so that the rendered answers are the same on every run.
"""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from .generator import Doc, Plan, jats, plan, render_answer

HANDLE_KEY = "conformance-suite-fixed-handle-secret-0001"
RETRIEVED = "2026-01-02T03:04:05Z"
_RW_HEADER = (
    "Record ID,Title,Subject,Institution,Journal,Publisher,Country,Author,URLS,ArticleType,"
    "RetractionDate,RetractionDOI,RetractionPubMedID,OriginalPaperDate,OriginalPaperDOI,"
    "OriginalPaperPubMedID,RetractionNature,Reason,Paywalled,Notes"
).split(",")


@dataclass
class Built:
    plan: Plan
    texts: list[str]  # one rendered answer per plan.answers item
    handles: dict[str, list[str]]
    seconds: float  # wall clock
    cpu: float  # CPU time of this process (what the budget test asserts: load-independent)


def _set_env(home: Path) -> dict[str, str]:
    saved = {k: v for k, v in os.environ.items() if k.startswith("CITEPROOF_")}
    for name in saved:
        del os.environ[name]
    os.environ["CITEPROOF_HOME"] = str(home)
    os.environ["CITEPROOF_HANDLE_KEY"] = HANDLE_KEY
    return saved


def _restore(saved: dict[str, str]) -> None:
    for name in [k for k in os.environ if k.startswith("CITEPROOF_")]:
        del os.environ[name]
    os.environ.update(saved)


@pytest.fixture(scope="session")
def conformance_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("conformance-home")


@pytest.fixture(autouse=True)
def _private_home(conformance_home: Path) -> Iterator[Path]:
    """Overrides the suite-wide fixture of the same name: one home for this directory."""
    saved = _set_env(conformance_home)
    try:
        yield conformance_home
    finally:
        _restore(saved)


def _pin(cache: object, key: str, doc: Doc, paragraphs: list[str]) -> None:
    from citeproof.store.cache import Cache

    assert isinstance(cache, Cache)
    if doc.references:
        data, media, served = jats(doc, paragraphs), "application/xml", "pmc-oa"
    else:
        data, media, served = doc.text(paragraphs).encode(), "text/plain", "web"
    cache.pin(
        key,
        data,
        retrieved_at=RETRIEVED,
        served_by=served,
        media_type=media,
        meta={"coverage": "full_text"},
    )


def _retraction_csv(path: Path, the_plan: Plan) -> None:
    rows = [(doi, "Retraction") for doi in the_plan.retracted] + [
        (doi, "Expression of concern") for doi in the_plan.concern
    ]
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(_RW_HEADER)
        for n, (doi, nature) in enumerate(rows, start=1):
            record = dict.fromkeys(_RW_HEADER, "")
            record.update(
                {
                    "Record ID": str(990000 + n),
                    "Title": f"Invented example record {n}",
                    "Journal": "Journal of Invented Examples",
                    "Publisher": "Example Press",
                    "URLS": "",
                    "ArticleType": "Research Article;",
                    "RetractionDate": "3/1/2025 0:00",
                    "RetractionDOI": f"10.5555/cpconf.notice.{n}",
                    "RetractionPubMedID": "0",
                    "OriginalPaperDate": "5/3/2023 0:00",
                    "OriginalPaperDOI": doi,
                    "OriginalPaperPubMedID": "0",
                    "RetractionNature": nature,
                    "Reason": "+Concerns/Issues About Data;",
                    "Paywalled": "No",
                    "Notes": "INVENTED EXAMPLE DATA - not a real record",
                }
            )
            writer.writerow([record[c] for c in _RW_HEADER])


def build(home: Path) -> Built:
    """Pin, issue, alter and render (``home`` must be the active CITEPROOF_HOME)."""
    from citeproof.handles.registry import passages_for
    from citeproof.sources.retractionwatch import import_csv
    from citeproof.store.cache import Cache
    from citeproof.store.paths import default_dirs

    started, cpu = time.perf_counter(), time.process_time()
    the_plan = plan()
    handles: dict[str, list[str]] = {}
    with Cache(default_dirs().cache_db) as cache:
        for doc in the_plan.docs.values():
            for key in (doc.key, *doc.aliases):
                _pin(cache, key, doc, doc.paragraphs)
        for doc in the_plan.docs.values():
            if not doc.handles or doc.references:
                continue
            listed = passages_for(doc.key, offline=True, limit=1000).passages
            by_text = {p.text: p.handle for p in listed if p.handle is not None}
            handles[doc.key] = [by_text[p] for p in doc.paragraphs]
        for doc in the_plan.docs.values():
            if doc.after == "truncate":
                _pin(cache, doc.key, doc, doc.paragraphs[: doc.keep])
            elif doc.after == "remove":
                assert cache.remove(doc.key)
    csv_path = home / "retraction-watch-conformance.csv"
    _retraction_csv(csv_path, the_plan)
    import_csv(csv_path, as_of=date(2026, 1, 1))
    texts = [render_answer(a, handles) for a in the_plan.answers]
    return Built(the_plan, texts, handles, time.perf_counter() - started, time.process_time() - cpu)


@pytest.fixture(scope="session")
def built(conformance_home: Path) -> Iterator[Built]:
    saved = _set_env(conformance_home)
    try:
        yield build(conformance_home)
    finally:
        _restore(saved)
