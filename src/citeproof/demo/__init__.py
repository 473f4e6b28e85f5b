"""``citeproof demo``: the whole loop, offline, on invented example papers.

Why a built-in demo rather than a script in the docs: it must work right after
``pip install .`` on a machine with no network and no clone of the repository, so the
example papers (``walking.nxml``, ``coffee.nxml``, both INVENTED and labelled so) and a
Retraction Watch row (``retraction-watch-demo.csv``, invented) are package data, and the
service answers the demo needs are written at run time in the recorded-response format from
those files (with their real md5), then replayed: the same path a user's ``--replay``
takes, with no special casing in the library.

Everything it writes goes under one folder (``--out``, else a new temporary folder): its own
``CITEPROOF_HOME`` (cache, evidence log, keys), the recordings, the answer it audits and the
audit page.  Nothing touches the user's own cache, log or keys.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from importlib import resources
from pathlib import Path
from typing import Any, Final

from citeproof.audit.run import audit_answer
from citeproof.net.recordings import write_recording
from citeproof.report.page import write_audit_html
from citeproof.service.logbook import open_log
from citeproof.service.lookups import passages_for, retraction_report
from citeproof.service.pipeline import check
from citeproof.service.storage import import_csv

__all__ = ["DemoResult", "run_demo"]

WALKING: Final = "PMC9900001"
COFFEE: Final = "PMC9900002"
_BUCKET: Final = "https://pmc-oa-opendata.s3.amazonaws.com"
_IDCONV: Final = "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles/"
_ESUMMARY: Final = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esummary.fcgi"
_WHEN: Final = datetime(2026, 1, 1, tzinfo=UTC)
_PAPERS: Final = {
    WALKING: ("walking.nxml", "99100001", "10.5555/citeproof.demo.1", False),
    COFFEE: ("coffee.nxml", "99100002", "10.5555/invented.retracted.1", True),
}


@dataclass
class DemoResult:
    """What the demo did, for the summary and for tests."""

    folder: Path
    page: Path
    steps: list[tuple[str, str]] = field(default_factory=list)
    audit_verdict: str = ""
    seconds: float = 0.0


def _data(name: str) -> bytes:
    return resources.files("citeproof.demo").joinpath(name).read_bytes()


def _listing(prefix: str, key: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
        f"<Name>pmc-oa-opendata</Name><Prefix>{prefix}</Prefix><KeyCount>1</KeyCount>"
        "<MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>"
        f"<Contents><Key>{key}</Key><Size>1</Size></Contents></ListBucketResult>"
    ).encode()


def write_recordings(folder: Path) -> None:
    """The ID converter, PMC Cloud Service and PubMed summary answers for the two invented
    papers."""

    def record(name: str, url: str, body: bytes, kind: str) -> None:
        write_recording(
            folder, name, url=url, status=200, headers={"content-type": kind}, body=body, date=_WHEN
        )

    for pmcid, (file, pmid, doi, retracted) in _PAPERS.items():
        data = _data(file)
        lower = pmcid.lower()
        meta = {
            "pmcid": pmcid,
            "version": 1,
            "pmid": int(pmid),
            "doi": doi,
            "title": f"Invented example paper {pmcid}",
            "is_pmc_openaccess": True,
            "is_manuscript": False,
            "is_retracted": retracted,
            "license_code": "CC0",
            "xml_url": f"s3://pmc-oa-opendata/{pmcid}.1/{pmcid}.1.xml"
            f"?md5={hashlib.md5(data).hexdigest()}",
        }
        idconv = {
            "status": "ok",
            "records": [{"pmcid": pmcid, "pmid": int(pmid), "doi": doi, "requested-id": pmcid}],
        }
        record(
            f"idconv-{lower}",
            f"{_IDCONV}?ids={pmcid}&idtype=pmcid&format=json",
            json.dumps(idconv).encode(),
            "application/json",
        )
        for kind, value in (("doi", doi), ("pmid", pmid)):
            record(
                f"idconv-{kind}-{lower}",
                f"{_IDCONV}?ids={value}&idtype={kind}&format=json",
                json.dumps(
                    {
                        "status": "ok",
                        "records": [
                            {"pmcid": pmcid, "pmid": int(pmid), "doi": doi, "requested-id": value}
                        ],
                    }
                ).encode(),
                "application/json",
            )
        record(
            f"pmc-list-{lower}",
            f"{_BUCKET}/?list-type=2&prefix={pmcid}.",
            _listing(f"{pmcid}.", f"{pmcid}.1/{pmcid}.1.xml"),
            "application/xml",
        )
        record(
            f"pmc-meta-{lower}",
            f"{_BUCKET}/{pmcid}.1/{pmcid}.1.json",
            json.dumps(meta).encode(),
            "application/json",
        )
        record(f"pmc-xml-{lower}", f"{_BUCKET}/{pmcid}.1/{pmcid}.1.xml", data, "application/xml")
        # The audit verifies the answer's reference entry (PMCID -> PMID -> its summary).
        record(
            f"esummary-{pmid}",
            f"{_ESUMMARY}?db=pubmed&id={pmid}&retmode=json",
            json.dumps(_summary(pmid, pmcid, doi, _title(data))).encode(),
            "application/json",
        )


def _title(article: bytes) -> str:
    found = re.search(rb"<article-title>(.*?)</article-title>", article, re.DOTALL)
    return found.group(1).decode() if found else ""


def _summary(pmid: str, pmcid: str, doi: str, title: str) -> dict[str, Any]:
    """An esummary answer in E-utilities' JSON format for an invented paper."""
    ids = [
        {"idtype": "pubmed", "idtypen": 1, "value": pmid},
        {"idtype": "doi", "idtypen": 3, "value": doi},
        {"idtype": "pmc", "idtypen": 8, "value": pmcid},
    ]
    return {
        "header": {"type": "esummary", "version": "0.3"},
        "result": {
            "uids": [pmid],
            pmid: {
                "uid": pmid,
                "pubdate": "2024",
                "source": "J Invented Ex",
                "fulljournalname": "Journal of Invented Examples",
                "authors": [],
                "title": title,
                "articleids": ids,
                "pubtype": ["Journal Article"],
            },
        },
    }


@contextmanager
def _home(folder: Path) -> Iterator[None]:
    """Point citeproof at the demo's own home and recordings for the duration of the run."""
    names = ("CITEPROOF_HOME", "CITEPROOF_REPLAY", "CITEPROOF_LOG", "CITEPROOF_RECORD")
    saved = {name: os.environ.get(name) for name in names}
    try:
        for name in names:
            os.environ.pop(name, None)
        os.environ["CITEPROOF_HOME"] = str(folder / "home")
        os.environ["CITEPROOF_REPLAY"] = str(folder / "recordings")
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _answer(handle: str, forged: str) -> str:
    """An AI-style answer with one of each kind of citation the audit must judge."""
    return f"""# Does a morning walk help older adults sleep?

**Short answer.** In one small invented trial, yes.

Older adults who walked each morning "fell asleep 12 minutes faster than those in the control
group" [{handle}]. The same trial found that the programme "increased total sleep time"
[{forged}]. According to its authors, walkers "fell asleep 20 minutes faster than those in
the control group" ({WALKING}). The trial enrolled adults aged 65 to 80
(doi:10.5555/citeproof.demo.1). Evening coffee, another study reported, "was not associated
with worse sleep quality" [1]. Exercise is widely recommended for better sleep.

## References

1. Evening coffee and sleep quality. PMCID: {COFFEE}
"""


def _forge(handle: str) -> str:
    """The same handle with one character of its check code changed."""
    head, _, code = handle.rpartition("~")
    swapped = "0" if code[0] != "0" else "1"
    return f"{head}~{swapped}{code[1:]}"


def run_demo(out: Path | None = None, *, say: Callable[[str], None] = print) -> DemoResult:
    """Run every step, print a line per step, and return where the page is."""
    started = time.perf_counter()
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="citeproof-demo-"))
    folder.mkdir(parents=True, exist_ok=True)
    write_recordings(folder / "recordings")
    result = DemoResult(folder=folder, page=folder / "audit.html")
    with _home(folder):
        _steps(folder, result, say)
    result.seconds = time.perf_counter() - started
    say(f"done in {result.seconds:.1f} s; everything is in {folder}")
    return result


def _step(result: DemoResult, say: Callable[[str], None], name: str, outcome: str) -> None:
    result.steps.append((name, outcome))
    say(f"  {name:<44} {outcome}")


def _steps(folder: Path, result: DemoResult, say: Callable[[str], None]) -> None:
    csv = folder / "retraction-watch-demo.csv"
    csv.write_bytes(_data("retraction-watch-demo.csv"))
    import_csv(csv, as_of=date(2026, 1, 1))
    say("citeproof demo: invented example papers, recorded answers, no network")

    checks: list[tuple[str, str]] = [
        ("an exact quote", "fell asleep 12 minutes faster than those in the control group"),
        (
            "a quote with a changed number",
            "fell asleep 20 minutes faster than those in the control group",
        ),
        ("an ellipsis quote", "We randomly assigned 84 adults ... for eight weeks."),
    ]
    for name, quote in checks:
        r = check(quote, WALKING, log=True)
        flags = r.near.flags if r.near is not None else []
        shown = r.verdict + (f" ({', '.join(flags)})" if flags else "")
        _step(result, say, f"check {name} in {WALKING}", shown)

    report = retraction_report(COFFEE)
    by = ", ".join(s.source for s in report.sources if s.retracted)
    _step(result, say, f"retraction status of {COFFEE}", f"{report.status} (by {by})")

    listed = passages_for(WALKING, query="fell asleep faster")
    top = listed.passages[0]
    assert top.handle is not None  # an identifier source always gets handles
    found = f"{len(listed.passages)} passages; top {top.handle}"
    _step(result, say, "passages with handles", found)

    answer = _answer(top.handle, _forge(top.handle))
    (folder / "answer.md").write_text(answer, encoding="utf-8")
    audit = audit_answer(answer, log=True)
    result.audit_verdict = audit.verdict
    verdicts = [
        c.verdict + (f" ({', '.join(c.flags)})" if c.flags else "")
        for s in audit.sentences
        for c in s.citations
    ]
    _step(
        result, say, "audit of an AI answer (answer.md)", f"{audit.verdict}: " + ", ".join(verdicts)
    )
    write_audit_html(audit.model_dump(mode="json"), answer, result.page)
    _step(result, say, "the audit page", str(result.page))

    log = open_log()
    verified = log.verify()
    _step(
        result,
        say,
        "evidence log verifies",
        f"{'yes' if verified.ok else 'NO'} ({log.size} entries)",
    )
    checkpoint = log.checkpoint()
    (folder / "checkpoint.txt").write_text(checkpoint, encoding="utf-8")
    again = log.verify(checkpoint)
    _step(result, say, "signed checkpoint", f"size {log.size}, verifies: {again.ok}")


def json_summary(result: DemoResult) -> dict[str, Any]:
    return {
        "folder": str(result.folder),
        "page": str(result.page),
        "audit": result.audit_verdict,
        "steps": [{"step": n, "outcome": o} for n, o in result.steps],
        "seconds": round(result.seconds, 2),
    }
