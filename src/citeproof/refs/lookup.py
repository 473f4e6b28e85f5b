"""Ask the databases about one reference: its identifiers' records, and a search for it.

What is sent where (docs/references.md repeats it for users):

* a **DOI**: doi.org's registration-agency look-up (``/ra/{doi}``), then the record at that
  agency: Crossref ``works/{doi}`` or DataCite ``dois/{doi}``.  When doi.org says the DOI
  does not exist, Crossref and DataCite are asked too before calling it ``unresolvable``
  (the look-up has lagged new registrations).  When doi.org cannot be read, both are asked.
* a **PMID**: PubMed ``esummary``; a **PMCID**: the PMC ID converter for its PMID, then
  ``esummary``.
* a **search** (an entry without identifiers, or one whose identifier names another work):
  Crossref ``works?query.bibliographic=`` with the whole reference string (what Crossref's
  own matching is built for), PubMed ``esearch`` for the title (and first author), OpenAlex
  ``works?search=`` for the title, and DataCite ``dois?query=`` when the entry looks like a
  DataCite work (a dataset, software, Zenodo, arXiv, figshare, Dryad).  At most
  :data:`ROWS` candidates from each.

Only the stated metadata is sent: title, author surnames, year, the reference string.  Each
question runs in its own task, so the rate limits of different services overlap; the
process-wide limiter keeps each service's own pace.  Every failure is caught here and
reported as that service's failed answer: it never becomes "not found".  A failure to
connect at all (no route, no name resolution, refused) is counted apart
(:attr:`Looked.unreachable`), so a run can tell "this service is down" from "there is no
network" and stop asking (:class:`citeproof.refs.verification.Reachability`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx2

from citeproof.errors import NetworkError, NotPinnedError, RecordingError, UpstreamUnavailable
from citeproof.models.references import ServiceAnswer, WorkRecord
from citeproof.net.digests import collecting
from citeproof.refs.decide import IdentifierEvidence, SearchEvidence
from citeproof.refs.stated import StatedReference, fold
from citeproof.sources import crossref, datacite, doi, eutils_search, idconv, openalex

__all__ = ["ROWS", "Looked", "check_identifiers", "search_for"]

ROWS = 5
#: The longest title a search sends (a real one is shorter; a pasted abstract is not a title).
MAX_TITLE = 300
_DATACITE_HINTS = re.compile(
    r"zenodo|arxiv|figshare|dryad|dataset|data set|software|10\.5281/|10\.48550/|10\.6084/"
    r"|10\.5061/",
    re.IGNORECASE,
)
_DATACITE_KINDS = frozenset({"dataset", "software", "misc", "data", "online", "unpublished"})
_STOP = frozenset("a an and the of in on for to with by from at as is are".split())


@dataclass(slots=True)
class Looked:
    """What the questions about one reference found, and every question asked."""

    ids: list[IdentifierEvidence] = field(default_factory=list)
    searches: list[SearchEvidence] = field(default_factory=list)
    asked: list[ServiceAnswer] = field(default_factory=list)
    unreachable: int = 0
    """How many of ``asked`` failed because no connection could be made at all."""

    def add(self, asked: Asked) -> None:
        self.asked.append(asked[0])
        self.unreachable += asked[2]

    def merge(self, other: Looked) -> None:
        self.ids.extend(other.ids)
        self.asked.extend(other.asked)
        self.unreachable += other.unreachable


Question = Callable[[], Awaitable[tuple[str, tuple[WorkRecord, ...]]]]
"""Returns (status, records): status ``ok``, ``empty`` or ``missing``."""


Asked = tuple[ServiceAnswer, tuple[WorkRecord, ...], bool]
"""The answer, the records it holds, and whether no connection could be made at all."""

_NO_CONNECTION = (httpx2.ConnectError, httpx2.ConnectTimeout)


async def _ask(service: str, purpose: str, query: str, question: Question) -> Asked:
    reason: str | None = None
    unreachable = False
    with collecting() as responses:
        try:
            status, records = await question()
        except NetworkError as err:
            status, records, reason = "failed", (), err.reason
            if isinstance(err, NotPinnedError):
                status = "offline"
            unreachable = isinstance(err, UpstreamUnavailable) and err.unreachable
        except RecordingError as err:  # --replay, and nobody recorded this request
            status, records, reason = "failed", (), str(err)
        except httpx2.TransportError as err:  # a client not built by make_client
            status, records = "failed", ()
            reason = f"{service} could not be reached ({type(err).__name__})."
            unreachable = isinstance(err, _NO_CONNECTION)
        except ValueError as err:  # the entry gives nothing this service can be asked
            status, records, reason = "failed", (), f"{service} could not be asked: {err}"
    answer = ServiceAnswer(
        service=service,  # type: ignore[arg-type]
        purpose=purpose,  # type: ignore[arg-type]
        query=query,
        status=status,  # type: ignore[arg-type]
        reason=reason,
        responses=list(responses),
    )
    return answer, records, unreachable


def _found(
    records: list[WorkRecord] | tuple[WorkRecord, ...],
) -> tuple[str, tuple[WorkRecord, ...]]:
    return ("ok" if records else "empty"), tuple(records)


# --------------------------------------------------------------------------------------------
# Identifiers


async def _doi_evidence(client: httpx2.AsyncClient, value: str, looked: Looked) -> None:
    """Fill ``looked`` (a fresh one per identifier: the caller merges them in order)."""
    key = f"doi:{value}"

    async def agency() -> tuple[str, tuple[WorkRecord, ...]]:
        ra = await doi.registration_agency(client, value)
        agencies.append(ra)
        return ("ok" if ra else "missing"), ()

    agencies: list[str | None] = []
    ra_asked = await _ask("doi.org", "identifier", value, agency)
    looked.add(ra_asked)
    ra_answer = ra_asked[0]
    ra = agencies[0] if agencies else None
    ask_crossref = ra_answer.status != "ok" or ra == "Crossref"
    ask_datacite = ra_answer.status != "ok" or ra == "DataCite"

    async def from_crossref() -> tuple[str, tuple[WorkRecord, ...]]:
        record = await crossref.work_record(client, value)
        return ("ok", (record,)) if record is not None else ("missing", ())

    async def from_datacite() -> tuple[str, tuple[WorkRecord, ...]]:
        record = await datacite.record(client, value)
        return ("ok", (record,)) if record is not None else ("missing", ())

    questions = []
    if ask_crossref:
        questions.append(_ask("crossref", "identifier", value, from_crossref))
    if ask_datacite:
        questions.append(_ask("datacite", "identifier", value, from_datacite))
    asked = list(await asyncio.gather(*questions))
    answers = [a for a, _, _ in asked]
    for one in asked:
        looked.add(one)
    records = tuple(r for _, found, _ in asked for r in found)
    if records:
        looked.ids.append(IdentifierEvidence(key, True, records, registered_with=ra))
        return
    said_missing = ra_answer.status == "missing" and all(a.status == "missing" for a in answers)
    if said_missing:
        looked.ids.append(
            IdentifierEvidence(
                key,
                False,
                reason="doi.org's agency look-up, Crossref and DataCite do not know it",
            )
        )
        return
    failed = [a for a in (ra_answer, *answers) if a.status in ("failed", "offline")]
    if failed:
        reason = failed[0].reason or f"{failed[0].service} could not be read"
    elif ra and ra not in ("Crossref", "DataCite"):
        reason = f"it is registered with {ra}, whose records citeproof does not read"
    else:
        reason = f"{ra or 'its agency'} has no record of it"
    looked.ids.append(IdentifierEvidence(key, None, registered_with=ra, reason=reason))


async def _pubmed_records(client: httpx2.AsyncClient, pmids: list[str]) -> tuple[WorkRecord, ...]:
    summaries = await eutils_search.esummary(client, pmids)
    return tuple(summaries[p].to_record() for p in pmids if p in summaries)


async def _pmid_evidence(client: httpx2.AsyncClient, kind: str, value: str, looked: Looked) -> None:
    key = f"{kind}:{value}"
    pmids: list[str] = []

    async def convert() -> tuple[str, tuple[WorkRecord, ...]]:
        found = (await idconv.convert(client, [value], "pmcid")).get(value)
        if found is not None and found.pmid:
            pmids.append(found.pmid)
            return "ok", ()
        return "missing", ()

    if kind == "pmcid":
        converted = await _ask("pubmed", "identifier", value, convert)
        looked.add(converted)
        answer = converted[0]
        if answer.status == "missing":
            looked.ids.append(IdentifierEvidence(key, False, reason="NCBI has no such PMCID"))
            return
        if answer.status != "ok":
            looked.ids.append(IdentifierEvidence(key, None, reason=answer.reason))
            return
    else:
        pmids.append(value)

    async def summary() -> tuple[str, tuple[WorkRecord, ...]]:
        records = await _pubmed_records(client, pmids)
        return ("ok", records) if records else ("missing", ())

    summarised = await _ask("pubmed", "identifier", pmids[0], summary)
    looked.add(summarised)
    answer, records, _ = summarised
    if records:
        looked.ids.append(IdentifierEvidence(key, True, records))
    elif answer.status == "missing":
        looked.ids.append(IdentifierEvidence(key, False, reason="PubMed has no such record"))
    else:
        looked.ids.append(IdentifierEvidence(key, None, reason=answer.reason))


async def check_identifiers(
    client: httpx2.AsyncClient, stated: StatedReference, looked: Looked
) -> None:
    """The record behind each identifier ``stated`` names, asked concurrently and reported
    in the entry's order (so a log line does not depend on which answer came first)."""
    parts = [Looked() for _ in stated.identifiers]
    jobs = []
    for (kind, value), part in zip(stated.identifiers, parts, strict=True):
        if kind == "doi":
            jobs.append(_doi_evidence(client, value.lower(), part))
        else:
            jobs.append(_pmid_evidence(client, kind, value, part))
    await asyncio.gather(*jobs)
    for part in parts:
        looked.merge(part)


# --------------------------------------------------------------------------------------------
# Searches


def bibliographic_string(stated: StatedReference) -> str:
    """The reference as one string, without its identifiers: what Crossref is asked."""
    if stated.text.strip():
        text = stated.text
        for _, value in stated.identifiers:
            text = re.sub(re.escape(value), " ", text, flags=re.IGNORECASE)
        text = re.sub(
            r"\b(?:https?://(?:dx\.)?doi\.org/|doi:|pmid:?|pmcid:?)\s*", " ", text, flags=re.I
        )
        return " ".join(text.split())[:500]
    parts = [", ".join(stated.authors[:3]), stated.title or "", stated.venue or ""]
    if stated.year:
        parts.append(str(stated.year))
    return " ".join(p for p in parts if p)[:500]


def _title_guess(stated: StatedReference) -> str | None:
    """The title, or for a bare string its longest sentence of four words or more."""
    if stated.title:
        return stated.title
    pieces = [p.strip() for p in re.split(r"(?<=[.?!])\s+|\s*[“”\"]\s*", stated.text)]
    pieces = [p for p in pieces if len(p.split()) >= 4 and not re.search(r"doi|https?://", p, re.I)]
    return max(pieces, key=len).rstrip(".") if pieces else None


def _pubmed_term(stated: StatedReference, title: str) -> str:
    words = [w for w in fold(title).split() if w not in _STOP and len(w) > 2][:10]
    term = " AND ".join(f"{w}[tiab]" for w in words)
    if stated.surnames:
        term += f" AND {stated.surnames[0]}[au]"
    return term


def _looks_datacite(stated: StatedReference) -> bool:
    if stated.kind and stated.kind.lower() in _DATACITE_KINDS:
        return True
    return bool(
        _DATACITE_HINTS.search(stated.text or "") or _DATACITE_HINTS.search(stated.venue or "")
    )


async def search_for(client: httpx2.AsyncClient, stated: StatedReference, looked: Looked) -> None:
    """Search every database for the stated metadata; one answer per database."""
    query = bibliographic_string(stated)
    guess = _title_guess(stated)
    title = guess[:MAX_TITLE] if guess else None
    jobs: list[Awaitable[Asked]] = []
    if len(query.split()) >= 2:

        async def crossref_search() -> tuple[str, tuple[WorkRecord, ...]]:
            found = await crossref.bibliographic(client, query, rows=ROWS)
            return _found([record for record, _ in found])

        jobs.append(_ask("crossref", "search", query, crossref_search))
    if title:
        term = _pubmed_term(stated, title)

        async def pubmed_search() -> tuple[str, tuple[WorkRecord, ...]]:
            page = await eutils_search.esearch(
                client, eutils_search.esearch_params(term, retmax=ROWS)
            )
            if not page.ids:
                return "empty", ()
            return _found(await _pubmed_records(client, page.ids))

        async def openalex_search() -> tuple[str, tuple[WorkRecord, ...]]:
            return _found(await openalex.search_records(client, title, per_page=ROWS))

        if term:
            jobs.append(_ask("pubmed", "search", term, pubmed_search))
        jobs.append(_ask("openalex", "search", title, openalex_search))
    if _looks_datacite(stated) and (title or query):
        wanted = title or query

        async def datacite_search() -> tuple[str, tuple[WorkRecord, ...]]:
            return _found(await datacite.search(client, wanted, rows=ROWS))

        jobs.append(_ask("datacite", "search", wanted, datacite_search))
    for asked in await asyncio.gather(*jobs):
        looked.add(asked)
        answer, records, _ = asked
        looked.searches.append(
            SearchEvidence(
                answer.service,
                ok=answer.status in ("ok", "empty", "missing"),
                records=records,
                reason=answer.reason,
            )
        )
