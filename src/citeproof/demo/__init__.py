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
from urllib.parse import quote as percent_encode
from xml.sax.saxutils import escape

from citeproof.audit.run import audit_answer
from citeproof.errors import BadInputError
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
_EFETCH: Final = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi"
_CROSSREF: Final = "https://api.crossref.org/v1/works"
_EPMC: Final = "https://www.ebi.ac.uk/europepmc/webservices/rest/search"
#: The invented retraction notice of the coffee paper (the Retraction Watch row names it too).
_NOTICE_DOI: Final = "10.5555/invented.notice.demo"
_INVENTED: Final = "INVENTED for citeproof demo, in the real format of {}; not a real answer"
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
    """Every answer the demo's steps ask for, about the two invented papers: the ID converter,
    the PMC Cloud Service, PubMed summaries and records, Crossref's record and notices, and
    Europe PMC's search."""

    def record(name: str, url: str, body: bytes, kind: str, service: str) -> None:
        write_recording(
            folder,
            name,
            url=url,
            status=200,
            headers={"content-type": kind},
            body=body,
            date=_WHEN,
            provenance=_INVENTED.format(service),
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
            "the PMC ID converter API",
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
                "the PMC ID converter API",
            )
        record(
            f"pmc-list-{lower}",
            f"{_BUCKET}/?list-type=2&prefix={pmcid}.",
            _listing(f"{pmcid}.", f"{pmcid}.1/{pmcid}.1.xml"),
            "application/xml",
            "the PMC Cloud Service (S3 listing)",
        )
        record(
            f"pmc-meta-{lower}",
            f"{_BUCKET}/{pmcid}.1/{pmcid}.1.json",
            json.dumps(meta).encode(),
            "application/json",
            "the PMC Cloud Service (article metadata)",
        )
        record(
            f"pmc-xml-{lower}",
            f"{_BUCKET}/{pmcid}.1/{pmcid}.1.xml",
            data,
            "application/xml",
            "the PMC Cloud Service (JATS XML)",
        )
        # The audit verifies the answer's reference entry (PMCID -> PMID -> its summary).
        record(
            f"esummary-{pmid}",
            f"{_ESUMMARY}?db=pubmed&id={pmid}&retmode=json",
            json.dumps(_summary(pmid, pmcid, doi, _title(data))).encode(),
            "application/json",
            "NCBI E-utilities esummary (db=pubmed, retmode=json)",
        )
        # The retraction status of each cited work: Crossref, PubMed and Europe PMC.
        title = _title(data)
        json_kind = "application/json"
        record(
            f"crossref-work-{lower}",
            f"{_CROSSREF}/{doi}",
            json.dumps(_crossref_work(doi, title, retracted)).encode(),
            json_kind,
            "the Crossref REST API (works/{doi})",
        )
        record(
            f"crossref-updates-{lower}",
            f"{_CROSSREF}?filter=updates%3A{percent_encode(doi, safe='')}&rows=20",
            json.dumps(_crossref_notices(doi, retracted)).encode(),
            json_kind,
            "the Crossref REST API (works?filter=updates:)",
        )
        record(
            f"efetch-{pmid}",
            f"{_EFETCH}?db=pubmed&id={pmid}&retmode=xml",
            _pubmed_article(pmid, pmcid, doi, title, retracted),
            "text/xml; charset=UTF-8",
            "NCBI E-utilities efetch (db=pubmed, retmode=xml)",
        )
        by_doi = percent_encode(f'DOI:"{doi}"', safe=":/")
        record(
            f"epmc-doi-{lower}",
            f"{_EPMC}?query={by_doi}&resultType=lite&format=json&pageSize=1",
            json.dumps(_epmc_hit(pmid, pmcid, doi, title, retracted)).encode(),
            "application/json;charset=UTF-8",
            "the Europe PMC REST API (search, resultType=lite)",
        )


def _title(article: bytes) -> str:
    found = re.search(rb"<article-title>(.*?)</article-title>", article, re.DOTALL)
    return found.group(1).decode() if found else ""


def _crossref_work(doi: str, title: str, retracted: bool) -> dict[str, Any]:
    """A ``works/{doi}`` answer; a retracted paper carries the notice in its ``updated-by``."""
    message: dict[str, Any] = {
        "DOI": doi,
        "type": "journal-article",
        "title": [title],
        "container-title": ["Journal of Invented Examples"],
        "publisher": "Invented Example Press",
        "issued": {"date-parts": [[2024, 2, 1]]},
        "author": [{"given": "Cy", "family": "Placeholder", "sequence": "first"}],
        "URL": f"https://doi.org/{doi}",
    }
    if retracted:
        message["updated-by"] = [
            {
                "DOI": _NOTICE_DOI,
                "type": "retraction",
                "label": "Retraction",
                "source": "retraction-watch",
                "record-id": "990001",
                "updated": {"date-parts": [[2025, 6, 1]]},
            }
        ]
    return {
        "status": "ok",
        "message-type": "work",
        "message-version": "1.0.0",
        "message": message,
    }


def _crossref_notices(doi: str, retracted: bool) -> dict[str, Any]:
    """A ``works?filter=updates:{doi}`` answer: the publisher's notice, when there is one."""
    items: list[dict[str, Any]] = []
    if retracted:
        items.append(
            {
                "DOI": _NOTICE_DOI,
                "type": "journal-article",
                "title": ["Retraction notice: " + doi],
                "update-to": [
                    {
                        "DOI": doi,
                        "type": "retraction",
                        "label": "Retraction",
                        "source": "publisher",
                        "updated": {"date-parts": [[2025, 6, 1]]},
                    }
                ],
            }
        )
    return {
        "status": "ok",
        "message-type": "work-list",
        "message-version": "1.0.0",
        "message": {
            "facets": {},
            "total-results": len(items),
            "items": items,
            "items-per-page": 20,
            "query": {"start-index": 0, "search-terms": None},
        },
    }


def _pubmed_article(pmid: str, pmcid: str, doi: str, title: str, retracted: bool) -> bytes:
    """An efetch ``PubmedArticleSet`` holding the paper's record (escaped: titles are text)."""
    types = '<PublicationType UI="D016428">Journal Article</PublicationType>'
    links = ""
    if retracted:
        types += '<PublicationType UI="D016441">Retracted Publication</PublicationType>'
        links = (
            '<CommentsCorrectionsList><CommentsCorrections RefType="RetractionIn">'
            f"<RefSource>J Invent Ex. 2025 Jun. doi: {_NOTICE_DOI}</RefSource>"
            "</CommentsCorrections></CommentsCorrectionsList>"
        )
    return (
        '<?xml version="1.0" ?>\n'
        '<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2025//EN" '
        '"https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n'
        "<PubmedArticleSet><PubmedArticle>"
        f'<MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">{pmid}</PMID>'
        '<Article PubModel="Print"><Journal><Title>Journal of Invented Examples</Title>'
        "<ISOAbbreviation>J Invent Ex</ISOAbbreviation></Journal>"
        f"<ArticleTitle>{escape(title)}</ArticleTitle>"
        f'<ELocationID EIdType="doi" ValidYN="Y">{doi}</ELocationID>'
        f"<Language>eng</Language><PublicationTypeList>{types}</PublicationTypeList>"
        f"</Article>{links}</MedlineCitation>"
        "<PubmedData><PublicationStatus>ppublish</PublicationStatus><ArticleIdList>"
        f'<ArticleId IdType="pubmed">{pmid}</ArticleId>'
        f'<ArticleId IdType="pmc">{pmcid}</ArticleId>'
        f'<ArticleId IdType="doi">{doi}</ArticleId>'
        "</ArticleIdList></PubmedData></PubmedArticle></PubmedArticleSet>\n"
    ).encode()


def _epmc_hit(pmid: str, pmcid: str, doi: str, title: str, retracted: bool) -> dict[str, Any]:
    """A Europe PMC ``search`` answer (``resultType=lite``) with the paper as its one hit."""
    types = ("retracted publication; " if retracted else "") + "journal article"
    return {
        "version": "6.9",
        "hitCount": 1,
        "request": {
            "queryString": f'DOI:"{doi}"',
            "resultType": "lite",
            "cursorMark": "*",
            "pageSize": 1,
            "sort": "",
            "synonym": False,
        },
        "resultList": {
            "result": [
                {
                    "id": pmid,
                    "source": "MED",
                    "pmid": pmid,
                    "pmcid": pmcid,
                    "doi": doi,
                    "title": title,
                    "journalTitle": "J Invent Ex",
                    "pubYear": "2024",
                    "pubType": types,
                    "isOpenAccess": "Y",
                    "inEPMC": "Y",
                    "inPMC": "Y",
                }
            ]
        },
    }


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
    folder = _folder(out)
    write_recordings(folder / "recordings")
    result = DemoResult(folder=folder, page=folder / "audit.html")
    with _home(folder):
        _steps(folder, result, say)
    result.seconds = time.perf_counter() - started
    say(f"done in {result.seconds:.1f} s; everything is in {folder}")
    return result


def _folder(out: Path | None) -> Path:
    """The demo's folder: ``out`` when it is new or empty, else a new temporary folder.

    A folder holding anything is refused, so the demo never writes over a user's files
    (``answer.md``, ``audit.html`` ...) nor mixes its state with theirs.
    """
    if out is None:
        return Path(tempfile.mkdtemp(prefix="citeproof-demo-"))
    folder = Path(out)
    try:
        if folder.exists() and not folder.is_dir():
            raise BadInputError(
                f"{folder} is a file; citeproof demo writes into an empty or new folder."
            )
        if folder.is_dir() and any(folder.iterdir()):
            raise BadInputError(
                f"{folder} is not empty; citeproof demo writes only into an empty or new "
                "folder: give --out a new one."
            )
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise BadInputError(f"citeproof demo cannot use {folder}: {err.strerror or err}.") from err
    return folder


#: The width of the step column: the longest step name, plus one space.
_NAME_WIDTH: Final = 34


def step_row(name: str, outcome: str, columns: int) -> str:
    """One step as the terminal shows it: the name in its column, the outcome beside it,
    wrapped under itself (not under the name) when the terminal is narrow."""
    import textwrap

    indent = " " * (2 + _NAME_WIDTH)
    lines = textwrap.wrap(
        outcome, width=max(columns - len(indent), 20), break_on_hyphens=False
    ) or [""]
    first = f"  {name:<{_NAME_WIDTH}}{lines[0]}"
    return "\n".join([first, *(indent + line for line in lines[1:])])


def _step(result: DemoResult, say: Callable[[str], None], name: str, outcome: str) -> None:
    import shutil

    result.steps.append((name, outcome))
    say(step_row(name, outcome, shutil.get_terminal_size((100, 24)).columns))


def _steps(folder: Path, result: DemoResult, say: Callable[[str], None]) -> None:
    csv = folder / "retraction-watch-demo.csv"
    csv.write_bytes(_data("retraction-watch-demo.csv"))
    import_csv(csv, as_of=date(2026, 1, 1))
    say("citeproof demo: invented example papers, recorded answers, no network")

    checks: list[tuple[str, str]] = [
        ("exact quote", "fell asleep 12 minutes faster than those in the control group"),
        ("changed number", "fell asleep 20 minutes faster than those in the control group"),
        ("ellipsis quote", "We randomly assigned 84 adults ... for eight weeks."),
    ]
    for name, quote in checks:
        r = check(quote, WALKING, log=True)
        flags = r.near.flags if r.near is not None else []
        shown = r.verdict + (f" ({', '.join(flags)})" if flags else "")
        _step(result, say, f"{name} in {WALKING}", shown)

    report = retraction_report(COFFEE)
    by = ", ".join(s.source for s in report.sources if s.retracted)
    _step(result, say, f"retraction status of {COFFEE}", f"{report.status} (by {by})")

    listed = passages_for(WALKING, query="fell asleep faster")
    top = listed.passages[0]
    assert top.handle is not None  # an identifier source always gets handles
    found = f"{len(listed.passages)} passages; top {top.handle}"
    _step(result, say, "passages with handles", found)

    answer = _answer(top.handle, _forge(top.handle))
    with (folder / "answer.md").open("x", encoding="utf-8") as file:  # never over a user's
        file.write(answer)
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
    write_audit_html(audit.model_dump(mode="json"), answer, result.page, source_name="answer.md")
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
