"""LitSense 2.0 sentence search: sentences from PubMed abstracts and PMC full texts that
read like a query, with the paper each comes from.

Why: the misattribution finder asks "where else do these words occur?"; LitSense answers with
sentences, not papers, so every hit can be fetched and verified by the matcher.  Its scores
are the service's similarity, never a verdict.

``GET .../litsense2-api/api/sentences/?query=...&rerank=true`` answers a JSON list of at most
100 ``{pmid, pmcid, text, section, score}``; it has no paging and no date filter.  The service
asks for one request a second, which the per-host rate limit enforces.  Failures are raised
as :class:`~citeproof.errors.NetworkError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx2

from citeproof.sources.base import field_text, json_answer, upstream_failure

__all__ = ["MAX_RESULTS", "SENTENCES_URL", "Sentence", "sentences", "sentences_params"]

SENTENCES_URL = "https://www.ncbi.nlm.nih.gov/research/litsense2-api/api/sentences/"
MAX_RESULTS = 100
_SERVICE = "LitSense"
_HOST = "www.ncbi.nlm.nih.gov"


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence LitSense found; ``text`` is as served (LitSense keeps a leading space)."""

    pmid: str | None
    pmcid: str | None
    text: str
    section: str | None
    score: float | None


_fail = upstream_failure(_SERVICE, _HOST)


def _sentence(raw: dict[str, Any]) -> Sentence | None:
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        return None
    pmcid = field_text(raw.get("pmcid"))
    score = raw.get("score")
    section = raw.get("section")
    return Sentence(
        pmid=field_text(raw.get("pmid")),
        pmcid=pmcid.upper() if pmcid else None,
        text=text,
        section=section if isinstance(section, str) and section else None,
        score=float(score)
        if isinstance(score, int | float) and not isinstance(score, bool)
        else None,
    )


def sentences_params(query: str) -> dict[str, str]:
    if not query.strip():
        raise ValueError("an empty LitSense query cannot be searched")
    return {"query": query, "rerank": "true"}


async def sentences(
    client: httpx2.AsyncClient, query: str, *, limit: int = MAX_RESULTS
) -> list[Sentence]:
    """The first ``limit`` sentences LitSense ranks for ``query``."""
    if not 1 <= limit <= MAX_RESULTS:
        raise ValueError(f"limit must be between 1 and {MAX_RESULTS}, not {limit}")
    response = await client.get(SENTENCES_URL, params=sentences_params(query))
    payload = json_answer(response, "a sentence search", _fail)
    if not isinstance(payload, list):
        raise _fail("answered a sentence search with JSON that is not a list")
    found = [s for raw in payload if isinstance(raw, dict) and (s := _sentence(raw)) is not None]
    return found[:limit]
