"""The identifier kinds: one declaration each, the only place a kind's forms are written.

Why one table: a kind's forms used to be written again wherever they were needed (the parser,
the running-text finder, the handle grammar, each service's own check of what it is handed),
and the copies drifted.  Now a kind is one :class:`KindSpec` in :data:`KINDS`: what it is
called, the labels it is written with, how it is written on its own and in running text,
which record URLs name it, its canonical value and the page a person reads it on.  The
parser, the finder, the handle grammar and the services read them from here; what fetches
a kind's text is the loader of the same kind in :data:`citeproof.loading.chain.LOADERS`
(this package is pure and may not fetch).  After manubot's ``cite/handlers.py``: one
handler per kind, one registry.

DOI and URL are declared here too, but their whole-string and running-text forms are rules
of their own (:mod:`citeproof.identifiers.parsing`, :mod:`citeproof.identifiers.running_text`):
where a DOI or a URL ends is decided by the text around it, not by a pattern of its own.

Patterns are regex sources matched with ``re.IGNORECASE | re.ASCII``: a label's case never
matters, and a digit is an ASCII digit (``\\d`` alone would take ``١٢٣``).  In ``written``,
``in_text`` and a record URL's path, group ``value`` holds the value as written (what
:attr:`KindSpec.canonical` takes) and group ``version`` a pinned version.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Final
from urllib.parse import parse_qs, quote

from citeproof.identifiers._context import (
    UUID,
    canonical_doi,
    positive_int,
    trim_trailing,
    url_problem,
)
from citeproof.identifiers.identifier import Identifier, IdentifierKind
from citeproof.identifiers.refusal import refuse

__all__ = ["FLAGS", "KINDS", "KindSpec", "RecordUrl", "compiled", "kind_names", "record_url"]

#: The flags every pattern of a declaration is matched with.
FLAGS: Final = re.IGNORECASE | re.ASCII


@cache
def compiled(pattern: str) -> re.Pattern[str]:
    """A declaration's pattern, compiled when it is first used: a check of a local file
    never needs most of them, and start-up pays for every pattern compiled on import."""
    return re.compile(pattern, FLAGS)


@dataclass(frozen=True, slots=True)
class RecordUrl:
    """An address of a service's page for one record, which names the record's identifier.

    A URL names the identifier only when its path is exactly the record's (``/PMC123/``); a
    deeper path (``/PMC123/pdf/x.pdf``) is a plain URL, because the caller asked for that file.
    """

    #: Host names, lower-case, without a leading ``www.``.
    hosts: frozenset[str]
    #: Matched against the whole path; group ``value`` (unless :attr:`query` names it),
    #: group ``version`` when the kind pins versions.
    path: str
    #: The query parameter that holds the value, when the path does not (DailyMed's
    #: ``drugInfo.cfm?setid=``); exactly one, and a valid one, or the URL names nothing.
    query: str | None = None

    def value_in(
        self, path: str, query: str, canonical: Callable[[str], str | None]
    ) -> tuple[str, str | None] | None:
        """``(value as written, version as written)`` that this URL names, or None."""
        m = compiled(self.path).fullmatch(path)
        if m is None:
            return None
        if self.query is None:
            return m.group("value"), m.groupdict().get("version")
        values = parse_qs(query).get(self.query, [])
        if len(values) == 1 and canonical(values[0]) is not None:
            return values[0], None
        return None


def _with_canonical(
    pattern: str, make: Callable[[re.Match[str]], str | None]
) -> Callable[[str], str | None]:
    """The canonical value of a value written as ``pattern`` (whole), made by ``make``."""

    def canonical(text: str) -> str | None:
        m = compiled(pattern).fullmatch(text)
        return make(m) if m is not None else None

    return canonical


def _doi_value(text: str) -> str | None:
    doi = canonical_doi(text, from_url=False)
    return None if doi is None or any(ch.isspace() for ch in doi) else doi


def _url_value(text: str) -> str | None:
    url = trim_trailing(text)
    return url if url_problem(url, text) is None else None


@dataclass(frozen=True, slots=True)
class KindSpec:
    """Everything citeproof knows about one kind of identifier; see the module docstring."""

    kind: IdentifierKind
    #: What messages call it: "NCT number".
    name: str
    #: The value as written without a label (any case, surrounding context already cut) ->
    #: the canonical value, or None when it is not one.  Lenient on purpose: the handle
    #: grammar and the services hand it what a person or another service wrote.
    canonical: Callable[[str], str | None]
    #: Where a person reads the record: a template of ``{value}`` (URL-quoted) and ``{suffix}``
    #: (``.N`` for a pinned version); it parses back to the same identifier.
    link: str
    #: Words that name the kind before a colon (``nct:NCT04363697``, ``set_id: ...``).
    labels: tuple[str, ...] = ()
    #: The whole string, the kind written on its own (after the context is trimmed).
    written: tuple[str, ...] = ()
    #: The kind in running text, between word boundaries (a regex source).
    in_text: str | None = None
    #: The services' record pages that name it.
    record_urls: tuple[RecordUrl, ...] = ()
    #: Starts (regex sources) that say "this is an identifier" even without a label and its
    #: colon, so a file of that name never shadows it: ``PMID 123``, ``https://``.
    says_so: tuple[str, ...] = ()
    #: Starts (regex sources) that look like this kind: a string starting so is meant as an
    #: identifier, and a malformed one is refused as such rather than read as a file name.
    hints: tuple[str, ...] = ()
    #: One word (regex source, whole) that starts like this kind and has no file-name dot or
    #: slash: meant as an identifier however malformed (``PMC``, ``PMCabc``).
    word: str | None = None
    #: How a malformed one starts (regex source), and what a valid one looks like: the
    #: refusal of ``NCT123`` says "an NCT number is NCT followed by 8 digits, e.g. ...".
    starts: str | None = None
    form: str = ""
    #: Why a value written in the right shape may still be refused ("PMIDs start at 1").
    invalid: str = ""
    #: Whose versions a ``.N`` pins ("PMC"), or None when the kind has no versions.
    versions: str | None = None
    #: Whether its passages get citation handles: it names something anyone can fetch again.
    handles: bool = False
    #: Whether :attr:`link` takes the value URL-quoted (a DOI may hold any character); a
    #: URL is its own link, already quoted as it must be.
    quoted: bool = True
    #: ``(as written, key)``: forms it is accepted in, each with the key it parses to.
    examples: tuple[tuple[str, str], ...] = ()

    def is_canonical(self, value: str) -> bool:
        """Whether ``value`` is this kind's canonical value exactly (``PMC123``, not
        ``pmc0123``): what a service may put into a request as it is."""
        return self.canonical(value) == value

    def identifier(self, value: str, version: str | None, raw: str) -> Identifier:
        """The identifier a form of this kind names, ``value`` and ``version`` as written.

        Raises:
            UnknownIdentifierError: a value of the right shape that names nothing (PMID 0),
                or a version below 1.
        """
        canonical = self.canonical(value)
        if canonical is None:
            why = f" ({self.invalid})" if self.invalid else ""
            raise refuse(raw, f"{raw!r} is not a valid {self.name}{why}.")
        pinned: int | None = None
        if version is not None:
            pinned = int(version)
            if pinned < 1:
                raise refuse(
                    raw, f"{raw!r} pins version {version}, but {self.versions} versions start at 1."
                )
        return Identifier(self.kind, canonical, raw, pinned)

    def url(self, value: str, version: int | None = None) -> str:
        """The page a person reads the record ``value`` (canonical) on."""
        suffix = f".{version}" if version is not None else ""
        shown = quote(value, safe="/") if self.quoted else value
        return self.link.format(value=shown, suffix=suffix)


_VERSION = r"(?:\.(?P<version>\d{1,4}))?"
# A PMID in a path: not zero, which names no record (the address is then a plain URL).
_PATH_PMID = r"(?=0*[1-9])(?P<value>\d{1,10})"

# A DOI: bare ``10.1371/journal.pone.0340378``, ``doi:10.1371/...`` / ``DOI: 10.1371/...``,
# or a ``doi.org`` / ``dx.doi.org`` URL (http or https, percent-decoded; ``doi.org/...`` without
# a scheme works too).  The value is ASCII-lower-cased, because DOIs are case-insensitive for
# ASCII letters only (DOI Handbook 2.4); other letters are left alone.
DOI = KindSpec(
    kind="doi",
    name="DOI",
    canonical=_doi_value,
    link="https://doi.org/{value}",
    labels=("doi",),
    says_so=(r"(?:(?:dx|www)\.)?doi\.org/",),
    hints=(r"(?:dx\.)?doi\.org/", r"10\.\d+/"),
    handles=True,
    examples=(
        ("10.1371/journal.pone.0340378", "doi:10.1371/journal.pone.0340378"),
        ("doi:10.1016/S0140-6736(97)11096-0", "doi:10.1016/s0140-6736(97)11096-0"),
        ("https://doi.org/10.1126/science.169.3946.635", "doi:10.1126/science.169.3946.635"),
    ),
)

# A PMID: ``PMID 27355798``, ``PMID: 27355798``, ``pmid:27355798`` or a PubMed URL.  A bare
# number is refused: it could be a PMID, a PMCID without its prefix or a page number, and
# guessing would silently check the wrong paper.
PMID = KindSpec(
    kind="pmid",
    name="PMID",
    canonical=_with_canonical(r"\d{1,10}", lambda m: positive_int(m.group())),
    link="https://pubmed.ncbi.nlm.nih.gov/{value}/",
    labels=("pmid",),
    written=(r"pmid\s*:?\s*(?P<value>\d{1,10})",),
    in_text=r"pmid\s*:?\s*(?P<value>\d{1,10})",
    record_urls=(
        RecordUrl(frozenset({"pubmed.ncbi.nlm.nih.gov"}), rf"/{_PATH_PMID}/?"),
        RecordUrl(frozenset({"ncbi.nlm.nih.gov"}), rf"/pubmed/{_PATH_PMID}/?"),
        RecordUrl(frozenset({"europepmc.org"}), rf"/(?:article|abstract)/med/{_PATH_PMID}/?"),
    ),
    says_so=(r"pmid\s",),
    hints=(r"pmid\s",),
    starts=r"pmid\b",
    form="a PMID is its PubMed number after the label, e.g. pmid:27355798",
    invalid="PMIDs start at 1",
    handles=True,
    examples=(
        ("PMID: 27355798", "pmid:27355798"),
        ("pmid:027355798", "pmid:27355798"),
        ("https://pubmed.ncbi.nlm.nih.gov/27355798/", "pmid:27355798"),
        ("https://europepmc.org/article/MED/27355798", "pmid:27355798"),
    ),
)


def _pmcid_value(m: re.Match[str]) -> str | None:
    number = positive_int(m.group(1))
    return "PMC" + number if number is not None else None


# A PMCID: ``PMC12829825``, ``pmcid:PMC12829825``; ``PMC10496602.1`` pins version 1.
PMCID = KindSpec(
    kind="pmcid",
    name="PMCID",
    canonical=_with_canonical(r"(?:pmc)?(\d{1,10})", _pmcid_value),
    link="https://pmc.ncbi.nlm.nih.gov/articles/{value}{suffix}/",
    labels=("pmcid",),
    written=(
        r"(?:pmcid\s*:?\s*)?pmc(?P<value>\d{1,10})" + _VERSION,
        r"pmcid\s*:?\s*(?P<value>\d{1,10})" + _VERSION,
    ),
    in_text=r"(?:pmcid\s*:?\s*)?pmc(?P<value>\d{1,10})" + _VERSION,
    record_urls=(
        RecordUrl(
            frozenset({"ncbi.nlm.nih.gov"}),
            r"/pmc/articles/pmc(?P<value>\d{1,10})" + _VERSION + "/?",
        ),
        RecordUrl(
            frozenset({"pmc.ncbi.nlm.nih.gov"}),
            r"/articles/pmc(?P<value>\d{1,10})" + _VERSION + "/?",
        ),
        RecordUrl(
            frozenset({"europepmc.org"}),
            r"/(?:article|abstract)/pmc/(?:pmc)?(?P<value>\d{1,10})/?",
        ),
        RecordUrl(frozenset({"europepmc.org"}), r"/articles/pmc(?P<value>\d{1,10})/?"),
    ),
    hints=(r"pmc\d",),
    # The label words alone ("PMID", "PMCID") may well be file names: left to the file reader.
    word=r"(?!pmcid$)pmc[a-z0-9_-]*",
    starts=r"pmcid\b|pmc",
    form="a PMCID is PMC followed by digits, e.g. PMC12829825",
    invalid="PMCIDs start at 1",
    versions="PMC",
    handles=True,
    examples=(
        ("PMC12829825", "pmcid:PMC12829825"),
        ("pmcid:PMC12829825", "pmcid:PMC12829825"),
        ("PMC10496602.1", "pmcid:PMC10496602.1"),
        ("https://pmc.ncbi.nlm.nih.gov/articles/PMC12829825/", "pmcid:PMC12829825"),
    ),
)

# A ClinicalTrials.gov number, in any case, or the registry's study URL.
NCT = KindSpec(
    kind="nct",
    name="NCT number",
    canonical=_with_canonical(r"nct\d{8}", lambda m: m.group().upper()),
    link="https://clinicaltrials.gov/study/{value}",
    labels=("nct",),
    written=(r"(?:nct\s*:\s*)?(?P<value>nct\d{8})",),
    in_text=r"(?P<value>nct\d{8})",
    record_urls=(
        RecordUrl(
            frozenset({"clinicaltrials.gov"}),
            r"/(?:study|ct2/show)/(?P<value>nct\d{8})/?",
        ),
    ),
    hints=(r"nct\d",),
    starts=r"nct",
    form="an NCT number is NCT followed by 8 digits, e.g. NCT04363697",
    handles=True,
    examples=(
        ("NCT04363697", "nct:NCT04363697"),
        ("nct04363697", "nct:NCT04363697"),
        ("https://clinicaltrials.gov/study/NCT04363697", "nct:NCT04363697"),
        ("https://clinicaltrials.gov/ct2/show/NCT04363697", "nct:NCT04363697"),
    ),
)

# An SPL set id: a UUID, optionally ``setid:``-prefixed, or a DailyMed ``drugInfo.cfm?setid=``
# URL (DailyMed and openFDA share the SPL set id).
SETID = KindSpec(
    kind="setid",
    name="openFDA set id",
    canonical=_with_canonical(UUID, lambda m: m.group().lower()),
    # DailyMed and openFDA share the SPL set id, and DailyMed shows a label to a person.
    link="https://dailymed.nlm.nih.gov/dailymed/drugInfo.cfm?setid={value}",
    labels=("setid", "set_id"),
    written=(r"(?:set[_ ]?id\s*:?\s*)?(?P<value>" + UUID + ")",),
    in_text=r"(?P<value>" + UUID + ")",
    record_urls=(
        RecordUrl(
            frozenset({"dailymed.nlm.nih.gov"}),
            r"/dailymed/druginfo\.cfm",
            query="setid",
        ),
    ),
    starts=r"set_?id\b",
    form="an openFDA set id is a UUID, e.g. 7c4deb97-9966-4c8e-9ba6-bb260b71e130",
    handles=True,
    examples=(
        ("7c4deb97-9966-4c8e-9ba6-bb260b71e130", "setid:7c4deb97-9966-4c8e-9ba6-bb260b71e130"),
        (
            "setid:7C4DEB97-9966-4C8E-9BA6-BB260B71E130",
            "setid:7c4deb97-9966-4c8e-9ba6-bb260b71e130",
        ),
        (
            "https://dailymed.nlm.nih.gov/dailymed/drugInfo.cfm?setid="
            "7c4deb97-9966-4c8e-9ba6-bb260b71e130",
            "setid:7c4deb97-9966-4c8e-9ba6-bb260b71e130",
        ),
    ),
)

# A Europe PMC preprint: ``PPR1021553``, or its europepmc.org article/abstract URL (the
# ``MED`` and ``PMC`` sources of the same URLs map to PMID and PMCID above).
PPR = KindSpec(
    kind="ppr",
    name="PPR id",
    canonical=_with_canonical(r"ppr(\d{1,10})", lambda m: "PPR" + m.group(1)),
    link="https://europepmc.org/article/PPR/{value}",
    labels=("ppr",),
    written=(r"(?:ppr\s*:\s*)?(?P<value>ppr\d{1,10})",),
    in_text=r"(?P<value>ppr\d{1,10})",
    record_urls=(
        RecordUrl(
            frozenset({"europepmc.org"}),
            r"/(?:article|abstract)/ppr/(?P<value>ppr\d{1,10})/?",
        ),
    ),
    hints=(r"ppr\d",),
    starts=r"ppr",
    form="a Europe PMC preprint id is PPR followed by digits, e.g. PPR1021553",
    handles=True,
    examples=(
        ("PPR1021553", "ppr:PPR1021553"),
        ("https://europepmc.org/article/PPR/PPR1021553", "ppr:PPR1021553"),
    ),
)

# Any other http(s) URL: value as given (validated, not rewritten) except that trailing
# sentence punctuation and unbalanced closing brackets are dropped, as for DOIs.
# ``url:https://...`` forces kind ``url`` even for a doi.org address (fetch that page, not the
# DOI); it is also what ``Identifier.key`` produces for URLs, so keys round-trip.
URL = KindSpec(
    kind="url",
    name="URL",
    canonical=_url_value,
    link="{value}",
    quoted=False,
    labels=("url",),
    says_so=(r"https?://",),
    hints=(r"https?://",),
    starts=r"url\b",
    form="url: is followed by an http:// or https:// URL",
    examples=(
        ("https://example.org/paper.html", "url:https://example.org/paper.html"),
        ("url:https://doi.org/10.1038/srep16696", "url:https://doi.org/10.1038/srep16696"),
    ),
)

#: Every kind, in the order messages list them.
KINDS: Final[Mapping[IdentifierKind, KindSpec]] = MappingProxyType(
    {spec.kind: spec for spec in (DOI, PMID, PMCID, NCT, SETID, PPR, URL)}
)


def kind_names() -> str:
    """The kinds by name, for a message that lists them: "a DOI, PMID, ... or URL"."""
    names = [spec.name for spec in KINDS.values()]
    return "a " + ", ".join(names[:-1]) + " or " + names[-1]


def record_url(kind: str, value: str, version: int | None = None) -> str | None:
    """The page a person reads the record ``kind:value`` on (``https://doi.org/10.1/x``,
    ``https://pubmed.ncbi.nlm.nih.gov/123/``), or None when citeproof knows no such kind or
    ``value`` is not one of it.  ``value`` may be written as a person would (``PMC0123``,
    upper-case DOI letters): it is made canonical first."""
    for spec in KINDS.values():
        if spec.kind == kind:
            canonical = spec.canonical(value.strip())
            return spec.url(canonical, version) if canonical is not None else None
    return None
