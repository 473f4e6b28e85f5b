"""The search engines ``--find-source`` asks for candidate documents.

Kept apart from :mod:`citeproof.search.finder` so the finder's rules (verify every candidate,
report every place) can be tested with engines given by the test, and so adding an engine
is one function here.  An engine only *suggests*: each candidate it names is fetched and
verified by the matcher before anything is reported.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, Literal

from citeproof.errors import NetworkError, RecordingError
from citeproof.match.forms import split_quote
from citeproof.net.session import Session
from citeproof.sources import europepmc, litsense

__all__ = [
    "MAX_REMOTE_CANDIDATES",
    "Candidates",
    "Provider",
    "europepmc_candidates",
    "litsense_candidates",
    "search_words",
]

#: How many hits of each search engine are fetched and verified.
MAX_REMOTE_CANDIDATES: Final = 5


@dataclass(frozen=True, slots=True)
class Candidates:
    """What one search engine suggested: identifiers to fetch and verify, or why none."""

    state: Literal["answered", "failed"]
    identifiers: tuple[str, ...] = ()
    reason: str | None = None


#: ``await provider(quote, session)``: a search engine's candidate identifiers for a quote.
Provider = Callable[[str, Session], Awaitable[Candidates]]

#: What makes a search a ``failed`` place rather than an error of the whole check: the
#: service could not be reached or answered nonsense, or ``--replay`` has no recording of
#: this search (the same rule as for a candidate that could not be read: say so, go on; an
#: audit must not fail as a whole for one citation's search).
_SEARCH_FAILURES = (NetworkError, RecordingError, ValueError)

#: Europe PMC phrase queries longer than this many words are cut to their longest stretch.
_MAX_PHRASE_WORDS = 30


def search_words(quote: str) -> str:
    """The longest stretch of the quote without an ellipsis or bracketed insertion.

    An editorial ``...`` or ``[sic]`` is not in any source, so a phrase search for the whole
    quote would find nothing; the longest plain fragment is what the source must contain.
    """
    pieces = split_quote(quote)
    fragments = [variants[0].strip() for variants in pieces or () if variants[0].strip()]
    longest = max(fragments, key=len) if fragments else quote
    words = longest.split()
    return " ".join(words[:_MAX_PHRASE_WORDS])


async def europepmc_candidates(quote: str, session: Session) -> Candidates:
    """Open-access articles whose full text holds the quote's words as a phrase."""
    try:
        records = await europepmc.phrase_search(
            session.client, search_words(quote), limit=MAX_REMOTE_CANDIDATES * 2
        )
    except _SEARCH_FAILURES as err:
        return Candidates("failed", reason=f"Europe PMC phrase search failed: {err}")
    return Candidates("answered", tuple(r.pmcid for r in records if r.pmcid))


async def litsense_candidates(quote: str, session: Session) -> Candidates:
    """Articles with the sentences LitSense ranks closest to the quote."""
    try:
        found = await litsense.sentences(session.client, search_words(quote))
    except _SEARCH_FAILURES as err:
        return Candidates("failed", reason=f"LitSense sentence search failed: {err}")
    ids = []
    for sentence in found:
        if sentence.pmcid:
            ids.append(sentence.pmcid)
        elif sentence.pmid:
            ids.append(f"pmid:{sentence.pmid}")
    return Candidates("answered", tuple(ids))
