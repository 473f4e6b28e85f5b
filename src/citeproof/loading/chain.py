"""The best-available-text chain: from an identifier to the best text that may legally be read.

Why one module: every entry point (check, text, resolve, batch, MCP) must answer the same
question the same way -- *which* text was checked, *how much* of the work it was (full text,
a landing page, an abstract), and *why* every better source was passed over. So the chain lives
here once, and every source that was asked leaves a :class:`Step` behind.

The chain (docs/principles.md, "The best text that can legally be read"):

* DOI / PMID / PMCID: the PMC ID converter (Europe PMC's search as the fallback for a DOI the
  converter has no PMCID for) learns the other identifiers; then, stopping at the first source
  that serves text: the PMC Cloud Service open-access copy (needs a PMCID) -> Europe PMC
  full-text XML (needs a PMCID) -> the publisher landing page (needs a DOI) -> the PubMed
  abstract (needs a PMID).  Identifiers are also taken from the PMC metadata and Europe PMC
  record as they turn up, so a failed converter does not hide a later source needlessly.
* NCT -> ClinicalTrials.gov; openFDA set id -> openFDA; PPR -> Europe PMC full-text XML;
  URL -> the web page through the SSRF guard.

Each kind's loader is one entry of :data:`LOADERS`, keyed by the kinds
:data:`citeproof.identifiers.KINDS` declares: a kind without a loader fails the tests, not a
user's check.

Decisions:

* A link of the chain that could not be tried because an identifier it needs is unknown is
  recorded as a step of kind ``"not_asked"`` with the reason (``"no PMID is known"``): that
  reason is exactly what a user needs to understand why only a landing page was checked.
  Sources after the one that served text are neither asked nor recorded.
* Lookup steps (``idconv``, ``europepmc-search``) have kinds ``"found"``, ``"missing"`` (the
  service answered it has no record) and ``"unavailable"`` (a :class:`NetworkError`); a failed
  lookup never stops the chain, which goes on with what is known.
* The verdict hint when nothing was fetched: **``"unavailable"`` if any step at all was
  ``"unavailable"`` or ``"md5_mismatch"``** -- a text source that could not be read, or a
  lookup whose failure may have hidden an identifier (and so a whole source), means nothing
  may be concluded; a failed fetch must never turn into NOT_FOUND or NOT_CHECKABLE.  An md5
  mismatch counts as a failed read: the published bytes were not obtained.  Only when every
  step answered (missing, not open access, not asked for lack of an identifier that the
  lookups *answered* they do not have) is the hint ``"not_checkable"``.
* ``Resolution.reason``: for ``"ok"`` the serving source's own remark (PubMed's "no abstract
  for PMID ...") or ``None``; otherwise every step's reason, in order, joined with ``"; "``.
* **A fallback says so.**  When text was served but an earlier step *failed* (``unavailable``
  or ``md5_mismatch``: a better source, or a lookup that may have found one, could not be read),
  ``Resolution.degraded`` lists those steps.  The text is then not the best the chain could
  have read: a check against it may find a quote, but may not conclude its absence
  (:mod:`citeproof.service.results`), and its pin is retried on the next check
  (:mod:`citeproof.loading.pins`).  A step that answered "absent" (not open access, no record)
  is not a failure: then the fallback *is* the best readable text.
* An unsafe user-given URL raises :class:`~citeproof.net.ssrf.UnsafeURLError` (bad input, exit
  2) from :func:`~citeproof.sources.web.fetch_page`, unchanged: the user must fix the input.
* A pinned PMC version (``PMC123.2``) is asked of the PMC Cloud Service only; Europe PMC serves
  whatever version it holds, which is not what the user pinned, so it is ``"not_asked"``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal

import httpx2

from citeproof.errors import BadInputError, NetworkError
from citeproof.identifiers import Identifier, IdentifierKind
from citeproof.sources import ctgov, doi, europepmc, idconv, openfda, pmc, pubmed, web
from citeproof.sources.base import Fetched, SourceOutcome

__all__ = ["LOADERS", "Loader", "Resolution", "Step", "VerdictHint", "resolve"]

VerdictHint = Literal["ok", "not_checkable", "unavailable"]

#: Step kinds after which nothing may be concluded (see the module docstring).
_FAILED_KINDS: frozenset[str] = frozenset({"unavailable", "md5_mismatch"})


@dataclass(frozen=True)
class Step:
    """One source asked (or a chain link passed over), with what it answered and why."""

    source: str
    """"idconv", "europepmc-search", "pmc", "europepmc", "doi", "pubmed", "ctgov", "openfda",
    "web"."""
    outcome_kind: str
    """A :data:`~citeproof.sources.base.OutcomeKind`, ``"found"`` for a successful lookup, or
    ``"not_asked"``."""
    reason: str | None = None


@dataclass(frozen=True)
class Resolution:
    """What the chain found for one identifier; see the module docstring for the verdict hint."""

    identifier: Identifier
    ids: dict[str, str] = field(default_factory=dict)
    """``doi`` / ``pmid`` / ``pmcid`` known at the end (given or learnt on the way)."""
    fetched: Fetched | None = None
    steps: tuple[Step, ...] = ()
    verdict_hint: VerdictHint = "not_checkable"
    reason: str | None = None

    @property
    def served_by(self) -> str | None:
        return self.fetched.served_by if self.fetched is not None else None

    @property
    def failed(self) -> tuple[Step, ...]:
        """The steps that failed (not "absent": could not be read)."""
        return tuple(s for s in self.steps if s.outcome_kind in _FAILED_KINDS)

    @property
    def degraded(self) -> tuple[Step, ...]:
        """With text served: the earlier steps that failed, so the text is a fallback."""
        return self.failed if self.fetched is not None else ()


class _Chain:
    """Collects steps and stops at the first fetched outcome."""

    def __init__(self, identifier: Identifier) -> None:
        self.identifier = identifier
        self.ids: dict[str, str] = {}
        self.steps: list[Step] = []
        self.fetched: Fetched | None = None
        self.fetched_reason: str | None = None

    def learn(self, kind: str, value: str | None) -> None:
        """Keep the first value known for ``kind``: the user's own identifier always wins."""
        if not value or kind in self.ids:
            return
        value = value.strip()
        if kind == "doi":
            value = value.lower()
        elif kind == "pmcid":
            value = value.upper()
        self.ids[kind] = value

    def note(self, source: str, kind: str, reason: str | None = None) -> None:
        self.steps.append(Step(source, kind, reason))

    async def ask(self, source: str, call: Awaitable[SourceOutcome]) -> bool:
        """Record ``call``'s outcome; True when it served text (the chain stops)."""
        outcome = await call
        return self.take(source, outcome)

    def take(self, source: str, outcome: SourceOutcome) -> bool:
        self.note(source, outcome.kind, outcome.reason)
        if outcome.ok:
            self.fetched = outcome.fetched
            self.fetched_reason = outcome.reason
            return True
        return False

    def result(self) -> Resolution:
        steps = tuple(self.steps)
        if self.fetched is not None:
            return Resolution(
                self.identifier, dict(self.ids), self.fetched, steps, "ok", self.fetched_reason
            )
        failed = any(s.outcome_kind in _FAILED_KINDS for s in steps)
        hint: VerdictHint = "unavailable" if failed else "not_checkable"
        reasons = [f"{s.source}: {s.reason}" for s in steps if s.reason]
        reason = "; ".join(reasons) or "no source could serve text for this identifier"
        return Resolution(self.identifier, dict(self.ids), None, steps, hint, reason)


async def _look_up(chain: _Chain, client: httpx2.AsyncClient) -> None:
    """Learn doi/pmid/pmcid from the ID converter, then Europe PMC for a DOI without a PMCID."""
    ident = chain.identifier
    kind = ident.kind
    assert kind in ("doi", "pmid", "pmcid")
    try:
        records = await idconv.convert(client, [ident.value], kind)
    except NetworkError as err:
        chain.note("idconv", "unavailable", str(err))
    else:
        record = records.get(ident.value)
        if record is None:
            chain.note("idconv", "missing", f"the PMC ID converter gave no record for {ident.key}")
        elif record.error:
            chain.note("idconv", "missing", f"PMC ID converter: {record.error}")
        else:
            chain.note("idconv", "found")
        if record is not None:
            chain.learn("pmcid", record.pmcid)
            chain.learn("pmid", record.pmid)
            chain.learn("doi", record.doi)
    if kind == "doi" and "pmcid" not in chain.ids:
        try:
            found = await europepmc.find_by_doi(client, ident.value)
        except NetworkError as err:
            chain.note("europepmc-search", "unavailable", str(err))
        else:
            if found is None:
                chain.note(
                    "europepmc-search", "missing", f"Europe PMC has no record of DOI {ident.value}"
                )
            else:
                chain.note("europepmc-search", "found")
                chain.learn("pmcid", found.pmcid)
                chain.learn("pmid", found.pmid)


async def _literature(
    chain: _Chain, client: httpx2.AsyncClient, web_options: dict[str, Any]
) -> None:
    """The DOI/PMID/PMCID chain; returns as soon as a source served text."""
    ident = chain.identifier
    chain.learn(ident.kind, ident.value)
    await _look_up(chain, client)

    pmcid = chain.ids.get("pmcid")
    if pmcid is None:
        chain.note("pmc", "not_asked", "no PMCID is known, so there is no PMC copy to read")
        chain.note("europepmc", "not_asked", "no PMCID is known for Europe PMC full text")
    else:
        version = ident.version if ident.kind == "pmcid" else None
        got = await pmc.fetch_pmc(client, pmcid, version)
        if got.metadata is not None:
            chain.learn("pmid", got.metadata.pmid)
            chain.learn("doi", got.metadata.doi)
        if chain.take("pmc", got.outcome):
            return
        if version is not None:
            chain.note(
                "europepmc",
                "not_asked",
                f"version {version} of {pmcid} is pinned and Europe PMC cannot serve a pinned "
                "version",
            )
        elif await chain.ask("europepmc", europepmc.full_text_xml(client, pmcid)):
            return

    doi_value = chain.ids.get("doi")
    if doi_value is None:
        chain.note("doi", "not_asked", "no DOI is known, so there is no landing page to read")
    else:
        try:
            landing = await doi.fetch_doi_landing(doi_value, **web_options)
        except BadInputError as err:
            chain.note("doi", "not_asked", f"{doi_value!r} cannot be resolved at doi.org: {err}")
        else:
            if chain.take("doi", landing):
                return

    pmid = chain.ids.get("pmid")
    if pmid is None:
        chain.note("pubmed", "not_asked", "no PMID is known, so there is no PubMed abstract")
        return
    try:
        abstract = await pubmed.fetch_pubmed(client, pmid)
    except BadInputError as err:
        chain.note("pubmed", "not_asked", f"{pmid!r} cannot be asked of PubMed: {err}")
        return
    chain.take("pubmed", abstract)


async def _trial(chain: _Chain, client: httpx2.AsyncClient, _options: dict[str, Any]) -> None:
    await chain.ask("ctgov", ctgov.fetch_study(client, chain.identifier.value))


async def _label(chain: _Chain, client: httpx2.AsyncClient, _options: dict[str, Any]) -> None:
    await chain.ask("openfda", openfda.fetch_label(client, chain.identifier.value))


async def _preprint(chain: _Chain, client: httpx2.AsyncClient, _options: dict[str, Any]) -> None:
    await chain.ask("europepmc", europepmc.full_text_xml(client, chain.identifier.value))


async def _page(chain: _Chain, _client: httpx2.AsyncClient, options: dict[str, Any]) -> None:
    await chain.ask("web", web.fetch_page(chain.identifier.value, **options))


#: What reads one kind's text: the chain so far, the API client, the SSRF-guarded fetchers'
#: options.  A loader records every source it asked (:meth:`_Chain.ask`, :meth:`_Chain.note`).
Loader = Callable[[_Chain, httpx2.AsyncClient, dict[str, Any]], Awaitable[None]]

#: The loader of each kind :data:`~citeproof.identifiers.KINDS` declares (the "fetch" half of a
#: kind, which the pure identifiers package may not hold).
LOADERS: Final[Mapping[IdentifierKind, Loader]] = MappingProxyType(
    {
        "doi": _literature,
        "pmid": _literature,
        "pmcid": _literature,
        "nct": _trial,
        "setid": _label,
        "ppr": _preprint,
        "url": _page,
    }
)


async def resolve(
    identifier: Identifier,
    client: httpx2.AsyncClient,
    *,
    web_options: dict[str, Any] | None = None,
) -> Resolution:
    """Run the best-available-text chain for ``identifier``; see the module docstring.

    ``client`` is a :func:`~citeproof.net.client.make_client` client for the API sources;
    ``web_options`` are passed to the SSRF-guarded fetchers (DOI landing page, URL):
    ``resolver``, ``transport``, ``allow_loopback_ports``, ``timeout``, ``max_bytes``.
    Never raises for a source that failed (that is a step); raises
    :class:`~citeproof.net.ssrf.UnsafeURLError` for an unsafe URL the user gave.
    """
    loader = LOADERS.get(identifier.kind)
    if loader is None:  # pragma: no cover - tests/unit/test_identifier_kinds.py
        raise ValueError(f"no source serves identifiers of kind {identifier.kind!r}")
    chain = _Chain(identifier)
    await loader(chain, client, dict(web_options or {}))
    return chain.result()
