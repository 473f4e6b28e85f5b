"""Ask the databases about one reference: its identifiers' records, and a search for it.

The cheapest question that can decide comes first, and the asking stops as soon as a record
validates (docs/references.md, "What is sent where"):

* a **DOI**: the record at the agency that most likely registered it (Crossref, or DataCite
  for the prefixes DataCite serves: Zenodo, arXiv, figshare, Dryad ...): one request for
  almost every DOI.  Only when that registry has no record is doi.org's registration-agency
  look-up (``/ra/{doi}``) asked, then the other registry; a DOI is ``unresolvable`` only when
  doi.org says it does not exist and neither registry has it.
* a **PMID**: PubMed ``esummary`` (a PMID esummary says it has no summary for does not
  exist; one its answer leaves out was not answered).  A **PMCID**: the PMC ID converter,
  then ``esummary`` of its PMID, or the record of its DOI when PMC lists no PMID (real PMC
  articles without a PMID exist).
* a **search** (an entry without identifiers, or one whose identifier names another work):
  Crossref ``works?query.bibliographic=`` with the whole reference string first (what
  Crossref's own matching is built for); then, only if nothing validated, PubMed ``esearch``
  (the title and first author, or the citation's coordinates: first author, year, volume
  and first page), DataCite ``dois?query=`` when the entry looks like a DataCite work, and
  OpenAlex ``works?search=`` last (its searches are metered against a key's daily budget).
  At most :data:`ROWS` candidates from each.

Only the stated metadata is sent: title, author surnames, year, the reference string.
Different references run at once, so the rate limits of different services overlap; the
process-wide limiter keeps each service's own pace.  Every failure is caught here and
reported as that service's failed answer: it never becomes "not found".  An answer that
lacks what identity needs (esearch ids esummary does not summarise) is ``incomplete``: no
more "not found" than a failure.  A failure to connect at all (no route, no name
resolution, refused) is counted apart (:attr:`Looked.unreachable`), so a run can tell "this
service is down" from "there is no network" and stop asking
(:class:`citeproof.refs.verification.Reachability`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx2

from citeproof.errors import NetworkError, NotPinnedError, RecordingError, UpstreamUnavailableError
from citeproof.models.references import ServiceAnswer, WorkRecord
from citeproof.models.search import ResponseDigest
from citeproof.net.digests import collecting, note
from citeproof.refs.decide import IdentifierEvidence, SearchEvidence
from citeproof.refs.numbers import cited_year, coordinates, first_surname, numbers_identify
from citeproof.refs.stated import StatedReference, fold
from citeproof.sources import crossref, datacite, doi, eutils_search, idconv, openalex

__all__ = ["ROWS", "LocalCatalogue", "Looked", "Sources", "check_identifiers", "search_for"]

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


class LocalCatalogue(Protocol):
    """A local copy of the record (``citeproof.index.query.LocalIndex``): asked before the
    web services, with the same validation and verdict rules."""

    def by_identifier(self, kind: str, value: str) -> list[WorkRecord]: ...

    def search(
        self,
        text: str | None = None,
        *,
        title: str | None = None,
        authors: Sequence[str] = (),
        year: int | None = None,
        venue: str | None = None,
        volume: str | None = None,
        first_page: str | None = None,
        limit: int = 5,
    ) -> list[tuple[WorkRecord, float]]: ...

    @property
    def manifest(self) -> Any: ...

    def coverage_phrase(self) -> str: ...

    def notices(self, key: str) -> Sequence[Any]: ...


@dataclass(frozen=True, slots=True)
class Sources:
    """Where a reference is looked up: a local index first when there is one, then the web
    services, unless ``network`` is off (``--offline`` with an index: the index alone
    answers, and what it does not hold is not asked anywhere)."""

    index: LocalCatalogue | None = None
    network: bool = True


#: The identifier kinds a local index is asked about (its others, arXiv or DBLP keys, are
#: not identifiers an entry's look-up starts from here).
_INDEX_KINDS = frozenset({"doi", "pmid", "pmcid"})


def _index_answer(index: LocalCatalogue, question: str, records: Sequence[WorkRecord]) -> None:
    """Name the index's answer in the evidence as a response is named: the manifest's hash
    (what was asked of which build) and the sha256 of the records it gave."""
    body = json.dumps([r.model_dump(mode="json") for r in records], sort_keys=True)
    note(
        ResponseDigest(
            method="INDEX",
            url=f"citeproof-index:{index.manifest.hash}?{question}",
            status=200,
            sha256=hashlib.sha256(body.encode()).hexdigest(),
        )
    )


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
            unreachable = isinstance(err, UpstreamUnavailableError) and err.unreachable
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


#: DOI prefixes DataCite registers (Zenodo, arXiv, figshare, Dryad, OSF, Harvard Dataverse,
#: USGS, GBIF, ICPSR, Code Ocean, Dagstuhl): their record is asked at DataCite first.
DATACITE_PREFIXES = (
    "10.5281/",
    "10.48550/",
    "10.6084/",
    "10.5061/",
    "10.17605/",
    "10.7910/",
    "10.5066/",
    "10.15468/",
    "10.3886/",
    "10.24433/",
    "10.4230/",
    "10.25384/",
    "10.34740/",
)
_AGENCY = {"crossref": "Crossref", "datacite": "DataCite"}


async def _doi_evidence(client: httpx2.AsyncClient, value: str, looked: Looked) -> None:
    """Fill ``looked`` (a fresh one per identifier: the caller merges them in order)."""
    key = f"doi:{value}"

    async def from_crossref() -> tuple[str, tuple[WorkRecord, ...]]:
        record = await crossref.work_record(client, value)
        return ("ok", (record,)) if record is not None else ("missing", ())

    async def from_datacite() -> tuple[str, tuple[WorkRecord, ...]]:
        record = await datacite.record(client, value)
        return ("ok", (record,)) if record is not None else ("missing", ())

    registry = {"crossref": from_crossref, "datacite": from_datacite}
    first = "datacite" if value.startswith(DATACITE_PREFIXES) else "crossref"
    second = "crossref" if first == "datacite" else "datacite"
    asked_first = await _ask(first, "identifier", value, registry[first])
    looked.add(asked_first)
    if asked_first[1]:
        looked.ids.append(IdentifierEvidence(key, True, asked_first[1], _AGENCY[first]))
        return

    async def agency() -> tuple[str, tuple[WorkRecord, ...]]:
        ra = await doi.registration_agency(client, value)
        agencies.append(ra)
        return ("ok" if ra else "missing"), ()

    agencies: list[str | None] = []
    ra_asked = await _ask("doi.org", "identifier", value, agency)
    looked.add(ra_asked)
    ra_answer = ra_asked[0]
    ra = agencies[0] if agencies else None
    answers = [asked_first[0]]
    # The other registry: when doi.org names it, when doi.org could not be read, and when
    # doi.org says the DOI does not exist (its look-up has lagged new registrations).
    if ra_answer.status != "ok" or ra == _AGENCY[second]:
        asked_second = await _ask(second, "identifier", value, registry[second])
        looked.add(asked_second)
        answers.append(asked_second[0])
        if asked_second[1]:
            looked.ids.append(IdentifierEvidence(key, True, asked_second[1], _AGENCY[second]))
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


async def _summaries(
    client: httpx2.AsyncClient, pmids: list[str]
) -> tuple[str, tuple[WorkRecord, ...]]:
    """esummary of ``pmids`` as a question's answer: ``ok`` with the records, ``missing``
    when esummary said it has none of them, ``incomplete`` when it left some out."""
    found, refused = await eutils_search.esummary_answers(client, pmids)
    records = tuple(found[p].to_record() for p in pmids if p in found)
    if len(found) + len(refused) < len(set(pmids)):
        return "incomplete", records
    if not records:
        return "missing", ()
    return "ok", records


async def _pmid_evidence(client: httpx2.AsyncClient, kind: str, value: str, looked: Looked) -> None:
    key = f"{kind}:{value}"
    pmids: list[str] = []
    dois: list[str] = []

    async def convert() -> tuple[str, tuple[WorkRecord, ...]]:
        found = (await idconv.convert(client, [value], "pmcid")).get(value)
        if found is None or found.absent:
            return "incomplete", ()
        if found.pmid:
            pmids.append(found.pmid)
            return "ok", ()
        if found.doi:  # a PMC article without a PMID: its DOI's record is the work's
            dois.append(found.doi.lower())
            return "ok", ()
        return ("missing", ()) if found.error else ("incomplete", ())

    if kind == "pmcid":
        converted = await _ask("pubmed", "identifier", value, convert)
        looked.add(converted)
        answer = converted[0]
        if answer.status == "missing":
            looked.ids.append(IdentifierEvidence(key, False, reason="NCBI has no such PMCID"))
            return
        if answer.status != "ok":
            why = answer.reason or "the PMC ID converter answered without a record for it"
            looked.ids.append(IdentifierEvidence(key, None, reason=why))
            return
        if dois:
            part = Looked()
            await _doi_evidence(client, dois[0], part)
            looked.asked.extend(part.asked)
            looked.unreachable += part.unreachable
            for found in part.ids:
                looked.ids.append(
                    IdentifierEvidence(
                        key, found.exists, found.records, found.registered_with, found.reason
                    )
                )
            return
    else:
        pmids.append(value)

    async def summary() -> tuple[str, tuple[WorkRecord, ...]]:
        return await _summaries(client, pmids)

    summarised = await _ask("pubmed", "identifier", pmids[0], summary)
    looked.add(summarised)
    answer, records, _ = summarised
    if records:
        looked.ids.append(IdentifierEvidence(key, True, records))
    elif answer.status == "missing":
        looked.ids.append(IdentifierEvidence(key, False, reason="PubMed has no such record"))
    else:
        why = answer.reason or "esummary's answer left this PMID out"
        looked.ids.append(IdentifierEvidence(key, None, reason=why))


async def check_identifiers(
    client: httpx2.AsyncClient,
    stated: StatedReference,
    looked: Looked,
    where: Sources = Sources(),
) -> None:
    """The record behind each identifier ``stated`` names, asked concurrently and reported
    in the entry's order (so a log line does not depend on which answer came first); a
    local index first, the web only for what it does not hold."""
    parts = [Looked() for _ in stated.identifiers]
    jobs = []
    for (kind, value), part in zip(stated.identifiers, parts, strict=True):
        others = stated.doi_alternatives if kind == "doi" else ()
        jobs.append(_identifier_evidence(client, kind, value, part, where, others))
    await asyncio.gather(*jobs)
    for part in parts:
        looked.merge(part)


async def _identifier_evidence(
    client: httpx2.AsyncClient,
    kind: str,
    value: str,
    looked: Looked,
    where: Sources,
    alternatives: Sequence[str] = (),
) -> None:
    """The evidence for one identifier; for a DOI a line end broke with a doubt (a hyphen
    or a full stop there), each other reading in turn when this one does not exist."""
    await _one_identifier(client, kind, value, looked, where)
    for other in alternatives:
        if not looked.ids or looked.ids[-1].exists is not False:
            return
        tried = Looked()
        await _one_identifier(client, kind, other, tried, where)
        looked.asked.extend(tried.asked)
        looked.unreachable += tried.unreachable
        if tried.ids and tried.ids[-1].exists is not False:
            found = tried.ids[-1]
            reason = (
                f"read as {other}: the DOI was broken by a line end, and {value} does not exist"
            )
            looked.ids[-1] = IdentifierEvidence(
                found.key,
                found.exists,
                found.records,
                found.registered_with,
                found.reason or reason,
            )


async def _one_identifier(
    client: httpx2.AsyncClient, kind: str, value: str, looked: Looked, where: Sources
) -> None:
    key = f"{kind}:{value.lower() if kind == 'doi' else value}"
    index = where.index
    if index is not None and kind in _INDEX_KINDS:

        async def from_index() -> tuple[str, tuple[WorkRecord, ...]]:
            records = tuple(index.by_identifier(kind, value))
            _index_answer(index, key, records)
            return ("ok", records) if records else ("missing", ())

        asked = await _ask("index", "identifier", key, from_index)
        looked.add(asked)
        if asked[1]:
            looked.ids.append(IdentifierEvidence(key, True, asked[1], "the local index"))
            return
        if not where.network:
            # Not holding an identifier says nothing of whether it exists: the index's
            # dumps may predate it, or not cover its agency.
            why = asked[0].reason or (
                f"the local index ({index.coverage_phrase()}) does not hold it, and nothing "
                "else was asked (--offline)"
            )
            looked.ids.append(IdentifierEvidence(key, None, reason=why))
            return
    if kind == "doi":
        await _doi_evidence(client, value.lower(), looked)
    else:
        await _pmid_evidence(client, kind, value, looked)


# --------------------------------------------------------------------------------------------
# Searches


#: The longest query string sent; of it, what a string's start keeps when it is longer.
MAX_QUERY = 500
QUERY_HEAD = 150


def bibliographic_string(stated: StatedReference) -> str:
    """The reference as one string, without its identifiers: what Crossref is asked.

    A string longer than :data:`MAX_QUERY` keeps its start (the first authors) and its end:
    forty authors written out fill 500 characters, and cutting the end would ask for the
    names alone, without the title, the venue and the numbers that follow them."""
    if stated.text.strip():
        text = stated.text
        for _, value in stated.identifiers:
            text = re.sub(re.escape(value), " ", text, flags=re.IGNORECASE)
        text = re.sub(
            r"\b(?:https?://(?:dx\.)?doi\.org/|doi:|pmid:?|pmcid:?)\s*", " ", text, flags=re.I
        )
        return _head_and_tail(" ".join(_unglued(word) for word in text.split()))
    parts = [", ".join(stated.authors[:3]), stated.title or "", stated.venue or ""]
    if stated.year:
        parts.append(str(stated.year))
    return " ".join(p for p in parts if p)[:MAX_QUERY]


_GLUED = re.compile(r"(?<=[^\W\d_]{4})(?=\d)|(?<=\d)(?=[^\W\d_]{4})|(?<=[a-z]{2})(?=[A-Z][a-z])")
"""Where a layout or OCR lost a space: a word glued to a number ("History43", "2013Berichte")
or to the next word ("ThinkingAboutBribery"). A page with a letter or two ("S79", "e11") is
not split."""


def _unglued(word: str) -> str:
    """``word`` and, when the space between two words was lost, the words it joins.

    A search engine reads "History43" as one word that no record holds, so the venue and
    the volume both go unmatched. The glued word is kept too: a name such as "MacDonald"
    is one word in the records."""
    parts = _GLUED.sub(" ", word)
    return word if parts == word else f"{word} {parts}"


#: The most authors after the first that the list is read through (collaborations
#: list thousands; the pattern's work stays bounded).
MAX_LISTED = 200
#: One author as the numbered styles print them: "Chen, P.-Y." (ACS), "M. P. Yadav" (AIP,
#: Elsevier).
_INITIALS = r"(?:[A-Z]\.(?:\s?-\s?|\s)?)+"
_ONE_AUTHOR = rf"(?:[A-Z][\w'’-]+,\s?{_INITIALS}|{_INITIALS}[A-Z][\w'’-]+)"
_AUTHOR = re.compile(_ONE_AUTHOR)
#: The most characters between two names of a list ("; ", ", and "), OCR's stray letters
#: and spaces included (", w.-Y. Wang", ", D .-M. Zhang"); the first name is looked for as
#: far into the string (a letter before it: "v P.-Y. Chen").
_NAME_GAP = 8
#: What stands between two names of a list: a comma, a semicolon, "and" or "&".  Without
#: one, what follows the last initial is the venue ("Smith, J. J. Am. Chem. Soc.").
_NAME_SEPARATOR = re.compile(r"[,;&]|\band\b")


def _author_list_end(query: str, start: int) -> int | None:
    """Where a list of three authors or more that opens ``query`` at ``start`` ends, or
    None: each name the numbered styles' (:data:`_ONE_AUTHOR`), each after the last with a
    separator within :data:`_NAME_GAP` characters.

    Why a chain of names, not one pattern for the list: noise between two names (a letter
    put for an initial's, a space before its stop) ended the pattern's list at the second
    name, and the query was never keyed."""
    count, end = 0, start
    for found in _AUTHOR.finditer(query, start):
        gap = query[end : found.start()]
        if len(gap) > _NAME_GAP or (count and not _NAME_SEPARATOR.search(gap)):
            break
        count, end = count + 1, found.end()
        if count > MAX_LISTED:
            break
    return end if count >= 3 else None


def keyed_query(stated: StatedReference) -> str | None:
    """A second query for an entry that prints the numbers naming its work after three
    authors or more: the first author, then all that follows the authors (the venue, the
    volume, the page, the year), or None.

    Why: a search engine weighs every word asked, and ten authors with common surnames
    ("Chen, P.-Y.; Fang, A.-P.; Wang, X.-Y.; …") rank other works of theirs above the one
    the venue and numbers name, past the first rows. Asked only when the whole string's
    search decided nothing."""
    if not numbers_identify(stated.text):
        return None
    query = bibliographic_string(stated)
    start = _LIST_NUMBER.match(query)
    listed = _author_list_end(query, start.end() if start else 0)
    surname = first_surname(query)
    if listed is None or surname is None:
        return None
    rest = query[listed:].lstrip(",;. ").strip()
    return f"{surname.rstrip(',;.')} {rest}" if len(rest.split()) >= 2 else None


_LIST_NUMBER = re.compile(r"\s*(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}\.?)\s+")


def _head_and_tail(text: str) -> str:
    """``text`` cut to :data:`MAX_QUERY` characters at word ends, its middle left out."""
    if len(text) <= MAX_QUERY:
        return text
    head = text[:QUERY_HEAD].rsplit(" ", 1)[0]
    tail = text[len(text) - (MAX_QUERY - len(head) - 1) :]
    if not text[-len(tail) - 1].isspace():
        tail = tail.split(" ", 1)[-1]  # a word cut at its start is left out
    return f"{head} {tail}"[:MAX_QUERY]


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


Enough = Callable[[list[SearchEvidence]], bool]
"""Whether the searches so far decide the reference (a record validated): the next, more
expensive or metered, database is then not asked."""


def _never(_: list[SearchEvidence]) -> bool:
    return False


async def search_for(
    client: httpx2.AsyncClient,
    stated: StatedReference,
    looked: Looked,
    enough: Enough = _never,
    where: Sources = Sources(),
) -> None:
    """Search the databases for the stated metadata, cheapest first (a local index before
    any web service), one at a time, until ``enough`` says the answers so far decide; one
    answer per database asked."""
    query = bibliographic_string(stated)
    guess = _title_guess(stated)
    title = guess[:MAX_TITLE] if guess else None
    steps: list[tuple[str, str, Question]] = []
    index = (
        _IndexQuestions(where.index, stated, query)
        if where.index is not None and len(query.split()) >= 2
        else None
    )
    if index is not None:
        steps.append(("index", query, index.search))
        steps.append(("index", query, index.other_records))
    if not where.network:
        # The index alone answers: no web service is asked.  (The web's query has its own
        # name: ``query`` emptied here once left the index asking an empty string.)
        web_query, title = "", None
    else:
        web_query = query
    if len(web_query.split()) >= 2:

        async def crossref_search() -> tuple[str, tuple[WorkRecord, ...]]:
            found = await crossref.bibliographic(client, web_query, rows=ROWS)
            return _found([record for record, _ in found])

        steps.append(("crossref", web_query, crossref_search))
        keyed = keyed_query(stated)
        if keyed and keyed != web_query:

            async def crossref_keyed() -> tuple[str, tuple[WorkRecord, ...]]:
                assert keyed is not None  # narrowed above; the closure does not see it
                found = await crossref.bibliographic(client, keyed, rows=ROWS)
                return _found([record for record, _ in found])

            steps.append(("crossref", keyed, crossref_keyed))
    term = _pubmed_term(stated, title) if title else _coordinates_term(stated)
    if term and where.network:

        async def pubmed_search() -> tuple[str, tuple[WorkRecord, ...]]:
            page = await eutils_search.esearch(
                client, eutils_search.esearch_params(term, retmax=ROWS)
            )
            if not page.ids:
                return "empty", ()
            return await _summaries(client, page.ids)

        steps.append(("pubmed", term, pubmed_search))
    if where.network and _looks_datacite(stated) and (title or web_query):
        wanted = title or web_query

        async def datacite_search() -> tuple[str, tuple[WorkRecord, ...]]:
            return _found(await datacite.search(client, wanted, rows=ROWS))

        steps.append(("datacite", wanted, datacite_search))
    if title:
        named = title

        async def openalex_search() -> tuple[str, tuple[WorkRecord, ...]]:
            return _found(await openalex.search_records(client, named, per_page=ROWS))

        steps.append(("openalex", named, openalex_search))
    for service, asked_for, question in steps:
        if index is not None and index.passes_over(question):
            continue
        asked = await _ask(service, "search", asked_for, question)
        looked.add(asked)
        _add_search(looked, asked)
        if enough(looked.searches):
            return


class _IndexQuestions:
    """The local index's questions about one reference: its search for the whole
    reference, then the other databases' records of the works it found (asked only when it
    found some, and they did not decide)."""

    def __init__(self, index: LocalCatalogue, stated: StatedReference, query: str) -> None:
        self.index = index
        self.stated = stated
        self.query = query
        self.found: list[WorkRecord] = []

    async def search(self) -> tuple[str, tuple[WorkRecord, ...]]:
        stated = self.stated
        found = self.index.search(
            self.query,
            title=stated.title,
            authors=stated.surnames[:3],
            year=stated.year,
            venue=stated.venue,
            limit=ROWS,
        )
        records = tuple(record for record, _ in found)
        self.found.extend(records)
        _index_answer(self.index, f"search={self.query}", records)
        return _found(records)

    async def other_records(self) -> tuple[str, tuple[WorkRecord, ...]]:
        records = _other_databases_records(self.index, self.found)
        _index_answer(self.index, f"records-of={self.query}", records)
        return _found(records)

    def passes_over(self, question: Question) -> bool:
        """Whether ``question`` is not asked: the other records when nothing was found."""
        return question == self.other_records and not self.found


def _add_search(looked: Looked, asked: Asked) -> None:
    """One database's answer as search evidence; the index's second answer (the other
    records of the works it found) joins its first, as one database's."""
    answer, records, _ = asked
    evidence = SearchEvidence(
        answer.service,
        ok=answer.status in ("ok", "empty", "missing"),
        records=records,
        reason=answer.reason
        or ("the answer left out what identity needs" if answer.status == "incomplete" else None),
    )
    if answer.service == "index" and looked.searches and looked.searches[-1].service == "index":
        evidence = _joined(looked.searches.pop(), evidence)
    looked.searches.append(evidence)


def _joined(first: SearchEvidence, then: SearchEvidence) -> SearchEvidence:
    """The index's two answers (the works found, then their other databases' records) as
    one database's: a verdict's reason names the index once, and the records of a work
    are compared together, as decide compares every record of a work."""
    return SearchEvidence(
        "index",
        ok=first.ok and then.ok,
        records=first.records + then.records,
        reason=first.reason or then.reason,
    )


def _other_databases_records(
    index: LocalCatalogue, found: Sequence[WorkRecord]
) -> tuple[WorkRecord, ...]:
    """The other databases' records of the works the index's search found (it gives each
    work once, as the record that scored best).  Asked only when those did not decide:
    the web path compares Crossref's record of a work, and OpenAlex's or PubMed's when
    Crossref's does not validate, and another database's spelling of the authors or the
    venue may validate where the best-scoring record's does not."""
    out: list[WorkRecord] = []
    seen = {(r.source, r.key) for r in found}
    for record in found:
        kind, _, value = record.key.partition(":")
        for other in index.by_identifier(kind, value) if kind in _WORK_KINDS else ():
            if (other.source, other.key) not in seen:
                seen.add((other.source, other.key))
                out.append(other)
    return tuple(out)


#: The identifier kinds a record's key may name, each one the index looks up.
_WORK_KINDS = frozenset({"doi", "pmid", "pmcid", "openalex", "arxiv", "dblp"})


def _coordinates_term(stated: StatedReference) -> str | None:
    """A PubMed query by the citation's coordinates, for an entry that prints no title
    (ACS, AIP, Vancouver without titles): first author, year, volume and first page, each
    in its field (ECitMatch's fields, asked through esearch)."""
    found = coordinates(stated.text)
    first = stated.surnames[0] if stated.surnames else first_surname(stated.text)
    year = cited_year(stated.text)
    if found is None or first is None or year is None:
        return None
    volume, page = found
    return f"{first}[1au] AND {year}[dp] AND {volume}[vi] AND {page}[pg]"
