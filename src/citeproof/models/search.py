"""The ``citeproof.search/1`` record: one query to one engine, and exactly what it read."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from citeproof.models.base import Model, Published

__all__ = ["SEARCH_SCHEMA", "ResponseDigest", "SearchItem", "SearchRecord"]

SEARCH_SCHEMA = "citeproof.search/1"


class ResponseDigest(Model):
    """One HTTP response the search read: the URL without contact parameters, and its hash."""

    method: str = "GET"
    url: str
    status: int
    sha256: str


class SearchItem(Model):
    """One hit.  ``id`` is a citeproof identifier key (``pmid:…``, ``pmcid:…``, ``doi:…``,
    ``nct:…``, ``setid:…``, ``ppr:…``) or ``openalex:W…``."""

    id: str
    title: str | None = None
    year: int | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    source: str | None = None
    version: str | None = None
    section: str | None = None
    text: str | None = None
    score: float | None = None


class SearchRecord(Published):
    """A search and what it read (schema ``citeproof.search/1``)."""

    schema_: Literal["citeproof.search/1"] = Field(default="citeproof.search/1", alias="schema")
    engine: str
    endpoint: str
    query: str
    params: dict[str, str] = Field(default_factory=dict)
    status: Literal["ok", "empty", "failed"]
    reason: str | None = None
    responses: list[ResponseDigest] = Field(default_factory=list)
    hit_count: int | None = None
    items: list[SearchItem] = Field(default_factory=list)
    next_cursor: str | None = None
    retrieved_at: str
    log_seq: int | None = Field(
        default=None, description="The evidence-log line that recorded this search, or null."
    )

    def log_payload(self) -> dict[str, Any]:
        """What the evidence log records for this search, and nothing more.

        Engine, endpoint, query, parameters as sent, status (and why, when it failed or was
        empty), the sha256 of each response read, the hit count and one id per item.
        """
        return {
            "schema": SEARCH_SCHEMA,
            "engine": self.engine,
            "endpoint": self.endpoint,
            "query": self.query,
            "params": dict(self.params),
            "status": self.status,
            "reason": self.reason,
            "responses": [r.sha256 for r in self.responses],
            "hit_count": self.hit_count,
            "ids": [item.id for item in self.items],
        }
