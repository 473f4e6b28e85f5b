"""The misattribution finder: where do a misquote's words really come from?

A model that cites paper A for words from paper B is the commonest failure citeproof sees,
and "NOT_FOUND in A" alone leaves the reader guessing.  When asked (``--find-source``) and the
quote is NOT_FOUND or NEAR, citeproof looks elsewhere, in order of cost:

1. every document already in the local cache (no network, and usually where a colleague's
   earlier checks left the real source);
2. Europe PMC full-text phrase search, then LitSense sentence search, whose hits are fetched
   (and pinned) like any cited source.

A candidate is reported only after the same matcher has verified it against that
document's text: EXACT, or NEAR closer than the cited source came.  Search engines rank by
relevance, not by wording, so an unverified hit would be a guess, and citeproof does not
guess.  Every place looked is reported with what it answered, so "found nowhere" is
distinguishable from "could not look".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Final, Literal

from citeproof.documents.model import Document
from citeproof.errors import CiteproofError, UnknownIdentifierError
from citeproof.identifiers import parse_identifier
from citeproof.loading.pins import document_for_pin, load_identifier
from citeproof.match.types import MatchOptions
from citeproof.models import CheckResult, FoundElsewhere, SearchedPlace
from citeproof.net.session import Mode, Session, open_session
from citeproof.search.candidates import (
    MAX_REMOTE_CANDIDATES,
    Candidates,
    Provider,
    europepmc_candidates,
    litsense_candidates,
)
from citeproof.store.cache import Cache

__all__ = [
    "MAX_CACHE_DOCUMENTS",
    "MAX_REMOTE_CANDIDATES",
    "Candidates",
    "Checker",
    "default_providers",
    "find_elsewhere",
]

#: The cache scan stops after this many documents (most recently retrieved first) and says so.
MAX_CACHE_DOCUMENTS: Final = 500

Where = Literal["europepmc", "litsense"]


#: ``check(quote, document, options)``: the match step that verifies every candidate (the
#: pipeline passes its own, so a candidate is judged exactly as the cited source was).
Checker = Callable[[str, Document, MatchOptions], CheckResult]


def _better_than(cited: CheckResult) -> float:
    """The similarity a NEAR elsewhere must beat to be worth reporting."""
    return cited.near.similarity if cited.near is not None else 0.0


def _found(
    result: CheckResult, document: Document, identifier: str, via: str, title: str | None
) -> FoundElsewhere | None:
    origin = document.origin
    common = {
        "identifier": identifier,
        "title": document.meta.title or title,
        "via": via,
        "sha256": origin.sha256 if origin is not None else None,
        "coverage": origin.coverage if origin is not None else None,
    }
    if result.verdict == "EXACT" and result.matches:
        match = result.matches[0]
        return FoundElsewhere.model_validate(
            {
                **common,
                "verdict": "EXACT",
                "start": match.start,
                "end": match.end,
                "text": match.text,
                "location": match.location,
            }
        )
    if result.verdict == "NEAR" and result.near is not None:
        near = result.near
        return FoundElsewhere.model_validate(
            {
                **common,
                "verdict": "NEAR",
                "similarity": near.similarity,
                "start": near.start,
                "end": near.end,
                "text": near.text,
                "location": near.location,
            }
        )
    return None


def _verify(
    check: Checker,
    quote: str,
    document: Document,
    options: MatchOptions,
    identifier: str,
    via: str,
    floor: float,
    title: str | None = None,
) -> FoundElsewhere | None:
    result = check(quote, document, options)
    found = _found(result, document, identifier, via, title)
    if found is None or (found.verdict == "NEAR" and (found.similarity or 0.0) <= floor):
        return None
    return found


def scan_cache(
    quote: str,
    options: MatchOptions,
    cache: Cache | None,
    *,
    exclude: Iterable[str],
    floor: float,
    check: Checker,
) -> tuple[list[FoundElsewhere], SearchedPlace]:
    """Check the quote against every cached document except the ``exclude`` keys/sha256s.

    ``cache`` is None offline when no cache exists yet: nothing is cached, so nothing is
    checked (and none is created just to look).
    """
    if cache is None:
        return [], SearchedPlace(where="cache", state="answered", reason="nothing is cached yet")
    skip = set(exclude)
    pins = [p for p in cache.list_pins() if p.key not in skip and p.sha256 not in skip]
    pins.sort(key=lambda p: p.retrieved_at, reverse=True)
    found: list[FoundElsewhere] = []
    seen: set[str] = set()
    for pin in pins[:MAX_CACHE_DOCUMENTS]:
        if pin.sha256 in seen:
            continue
        seen.add(pin.sha256)
        try:
            document = document_for_pin(pin, cache.get_blob(pin.sha256))
        except Exception:
            continue
        title = pin.meta.get("title")
        hit = _verify(
            check,
            quote,
            document,
            options,
            pin.key,
            "cache",
            floor,
            title if isinstance(title, str) else None,
        )
        if hit is not None:
            found.append(hit)
    reason = None
    if len(pins) > MAX_CACHE_DOCUMENTS:
        reason = (
            f"only the {MAX_CACHE_DOCUMENTS} most recently retrieved of {len(pins)} cached "
            "documents were checked"
        )
    place = SearchedPlace(
        where="cache",
        state="answered",
        reason=reason,
        candidates=min(len(pins), MAX_CACHE_DOCUMENTS),
        verified=len(found),
    )
    return found, place


async def _remote(
    where: Where,
    provider: Provider,
    quote: str,
    options: MatchOptions,
    session: Session,
    *,
    exclude: set[str],
    floor: float,
    load: Callable[[str], Awaitable[Document | str]],
    check: Checker,
) -> tuple[list[FoundElsewhere], SearchedPlace]:
    answer = await provider(quote, session)
    if answer.state == "failed":
        return [], SearchedPlace(where=where, state="failed", reason=answer.reason)
    wanted = [i for i in dict.fromkeys(_keys(answer.identifiers)) if i not in exclude]
    wanted = wanted[:MAX_REMOTE_CANDIDATES]
    found: list[FoundElsewhere] = []
    problems: list[str] = []
    for identifier in wanted:
        loaded = await load(identifier)
        if isinstance(loaded, str):
            problems.append(f"{identifier}: {loaded}")
            continue
        hit = _verify(check, quote, loaded, options, identifier, where, floor)
        if hit is not None:
            found.append(hit)
    reason = None
    if problems:
        reason = "could not read " + "; ".join(problems)
    elif not wanted:
        reason = "no candidate beyond the cited source"
    place = SearchedPlace(
        where=where, state="answered", reason=reason, candidates=len(wanted), verified=len(found)
    )
    return found, place


def _keys(identifiers: Iterable[str]) -> list[str]:
    """Canonical keys (``pmcid:PMC123``) of the identifiers a search engine gave."""
    keys = []
    for raw in identifiers:
        try:
            keys.append(parse_identifier(raw).key)
        except UnknownIdentifierError:
            continue  # an engine's id citeproof cannot fetch is no candidate
    return keys


def _cited_keys(cited: CheckResult) -> set[str]:
    """Every key the cited work goes by, so it is never reported as found elsewhere."""
    source = cited.source
    keys = {k for k in (source.identifier, source.sha256) if k}
    ids = source.resolved
    forms = [
        f"{kind}:{value}"
        for kind, value in (("pmcid", ids.pmcid), ("pmid", ids.pmid), ("doi", ids.doi))
        if value
    ]
    keys.update(_keys(forms))
    return keys


def _rank(found: Sequence[FoundElsewhere]) -> list[FoundElsewhere]:
    """EXACT first, then NEAR by similarity; one entry per document."""
    best: dict[str, FoundElsewhere] = {}
    for hit in found:
        key = hit.sha256 or hit.identifier
        held = best.get(key)
        if held is None or _score(hit) > _score(held):
            best[key] = hit
    return sorted(best.values(), key=_score, reverse=True)


def _score(hit: FoundElsewhere) -> float:
    return 2.0 if hit.verdict == "EXACT" else (hit.similarity or 0.0)


def find_elsewhere(
    quote: str,
    cited: CheckResult,
    options: MatchOptions,
    *,
    mode: Mode,
    offline: bool,
    cache: Cache | None,
    check: Checker,
    providers: Sequence[tuple[Where, Provider]] | None = None,
) -> CheckResult:
    """``cited`` with ``found_elsewhere`` and ``searched_elsewhere`` filled in.

    ``cache`` may be None only ``offline`` (no cache exists yet); a search pins what it
    fetches, so it needs one.  ``check`` verifies each candidate.
    """
    exclude = _cited_keys(cited)
    floor = _better_than(cited)
    found, cache_place = scan_cache(
        quote, options, cache, exclude=exclude, floor=floor, check=check
    )
    places = [cache_place]
    engines = list(providers) if providers is not None else default_providers()
    if offline:
        places += [
            SearchedPlace(where=w, state="not_asked", reason="--offline: no search was made")
            for w, _ in engines
        ]
    elif engines:
        if cache is None:
            raise ValueError("find_elsewhere needs a cache unless offline")
        more, remote_places = asyncio.run(
            _search_all(engines, quote, options, mode, cache, exclude, floor, check)
        )
        found += more
        places += remote_places
    return cited.model_copy(update={"found_elsewhere": _rank(found), "searched_elsewhere": places})


async def _search_all(
    engines: Sequence[tuple[Where, Provider]],
    quote: str,
    options: MatchOptions,
    mode: Mode,
    cache: Cache,
    exclude: set[str],
    floor: float,
    check: Checker,
) -> tuple[list[FoundElsewhere], list[SearchedPlace]]:
    async def load(identifier: str) -> Document | str:
        # The fetch is blocking (it runs its own event loop), so it goes to a thread.
        try:
            loaded = await asyncio.to_thread(
                load_identifier, parse_identifier(identifier), replay_dir=mode.replay, cache=cache
            )
        except CiteproofError as err:  # e.g. a replay without this candidate: say so, go on
            return str(err)
        return loaded if isinstance(loaded, Document) else loaded.reason

    found: list[FoundElsewhere] = []
    places: list[SearchedPlace] = []
    async with open_session(mode) as session:
        for where, provider in engines:
            hits, place = await _remote(
                where,
                provider,
                quote,
                options,
                session,
                exclude=exclude,
                floor=floor,
                load=load,
                check=check,
            )
            found += hits
            places.append(place)
    return found, places


def default_providers() -> list[tuple[Where, Provider]]:
    """Europe PMC phrase search, then LitSense sentence search."""
    return [("europepmc", europepmc_candidates), ("litsense", litsense_candidates)]
