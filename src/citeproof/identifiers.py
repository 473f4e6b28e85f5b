"""Parse and canonicalise the identifiers a user may name a source by.  Pure: no I/O.

Why this module exists: every entry point (CLI, library, MCP, batch) accepts the same forms, and
the cache keys sources by :attr:`Identifier.key`, so two spellings of one source
(``doi:10.1371/X``, ``https://doi.org/10.1371/x``) must become one canonical value, and text
around an identifier (a sentence's full stop, a closing bracket, a URL's ``?utm_source=``) must
never become part of it.

Accepted forms (see :data:`ACCEPTED_FORMS`, which error messages quote):

* DOI -- bare ``10.1371/journal.pone.0340378``, ``doi:10.1371/...`` / ``DOI: 10.1371/...``, or a
  ``doi.org`` / ``dx.doi.org`` URL (http or https, percent-decoded; ``doi.org/...`` without a
  scheme works too).  The value is ASCII-lower-cased, because DOIs are case-insensitive for ASCII
  letters only (DOI Handbook 2.4); other letters are left alone.
* PMCID -- ``PMC12829825``, ``pmcid:PMC12829825``; ``PMC10496602.1`` pins version 1.
* PMID -- ``PMID 27355798``, ``PMID: 27355798``, ``pmid:27355798`` or a PubMed URL.  A bare
  number is refused: it could be a PMID, a PMCID without its prefix or a page number, and
  guessing would silently check the wrong paper.
* NCT number -- ``NCT04363697`` (any case) or a ClinicalTrials.gov study URL.
* openFDA set id -- a UUID, optionally ``setid:``-prefixed, or a DailyMed ``drugInfo.cfm?setid=``
  URL (DailyMed and openFDA share the SPL set id).
* Europe PMC preprint -- ``PPR1021553``, or any europepmc.org article/abstract URL (``MED``,
  ``PMC`` and ``PPR`` sources map to PMID, PMCID and PPR).
* Any other http(s) URL -- kind ``url``, value as given (validated, not rewritten) except that
  trailing sentence punctuation and unbalanced closing brackets are dropped, as for DOIs.
  ``url:https://...`` forces kind ``url`` even for a doi.org address (fetch that page, not the DOI);
  it is also what :attr:`Identifier.key` produces for URLs, so keys round-trip.

Decisions worth knowing:

* A DOI is cut at the first ``?`` or ``#`` (a query or fragment that followed it), then trailing
  sentence punctuation, quotes and *unbalanced* closing brackets are trimmed; balanced brackets
  inside (``10.1016/s0140-6736(97)11096-0``) stay.  DOIs that genuinely end in ``.``/``:``/``;`` or
  contain ``?``/``#`` are vanishingly rare; pass such a DOI as a doi.org URL with the character
  percent-encoded (decoding happens after the cut, so ``%3F`` survives).
* In running text (:func:`find_identifiers`) a DOI also ends at a comma (reference lists separate
  DOIs with them) and at ``;`` directly followed by another ``10.NNNN/`` DOI.
* A DOI that a line end broke is joined again first (:func:`mend_line_breaks`), because a
  printed reference list breaks long DOIs wherever the line runs out and the first part alone
  is another, usually non-existent, DOI.  Where the break leaves a doubt (a hyphen, or a full
  stop, at the end of the line) the other reading is kept as an alternative.
* :func:`find_malformed_identifiers` names what is written as an identifier but is none
  (``doi:10.``, ``PMID: 0``): an entry that names only such a thing names nothing to look up,
  and must say why rather than be searched for or taken as fabricated.
* Europe PMC/PMC/PubMed URLs map to an identifier only when the path names just the article; a
  deeper path (``.../PMC123/pdf/x.pdf``) is a plain URL, because the caller asked for that file.
* URLs with ``user:password@`` are refused here, early; the network layer refuses them again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

from citeproof.errors import ACCEPTED_FORMS, UnknownIdentifierError

__all__ = [
    "ACCEPTED_FORMS",
    "Identifier",
    "IdentifierKind",
    "UnknownIdentifierError",
    "find_identifiers",
    "find_malformed_identifiers",
    "is_labelled",
    "looks_like_identifier",
    "mend_line_breaks",
    "parse_identifier",
]

IdentifierKind = Literal["doi", "pmid", "pmcid", "nct", "setid", "ppr", "url"]


@dataclass(frozen=True, slots=True)
class Identifier:
    """One canonical identifier.

    Equality and hashing ignore :attr:`raw`, so two spellings of the same source compare equal
    and deduplicate in sets; :attr:`key` is the stable string the cache and logs use.
    """

    kind: IdentifierKind
    #: Canonical value: DOI lower-cased without prefix; "PMC123"; PMID digits; "NCT01234567";
    #: lower-case UUID; "PPR123"; URL as given minus trailing context punctuation.
    #: Build identifiers with :func:`parse_identifier`; the constructor does not canonicalise.
    value: str
    #: What the user or the text actually said (stripped), kept for messages.
    raw: str = field(default="", compare=False)
    #: PMC article version pinned by ``PMC123.2``; only ever set for kind "pmcid".
    version: int | None = None

    @property
    def key(self) -> str:
        """``kind:value`` (plus ``.version`` for a pinned PMCID); parses back to an equal value."""
        suffix = f".{self.version}" if self.version is not None else ""
        return f"{self.kind}:{self.value}{suffix}"

    def __str__(self) -> str:
        return self.key


# --------------------------------------------------------------------------------------------
# Shared pieces

# Registrant code: 4-9 digits (Crossref's own pattern) or an ISBN-A prefix (10.978.x / 10.979.x),
# optionally with sub-prefixes (10.1000.10/...).
_DOI_PREFIX = r"10\.(?:\d{4,9}|97[89]\.\d+)(?:\.\d+)*/"
_DOI_PREFIX_RE = re.compile(_DOI_PREFIX, re.ASCII)

# Quotes and sentence punctuation never end a DOI or URL; opening brackets at the end are junk.
_TRAILING_JUNK = frozenset(".,;:!?'\"`“”‘’«»…")
_OPENERS = frozenset("([{<")
_CLOSER_TO_OPENER = {")": "(", "]": "[", "}": "{", ">": "<"}
_OPENER_TO_CLOSER = {opener: closer for closer, opener in _CLOSER_TO_OPENER.items()}

_QUERY_RE = re.compile(r"[?#]")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_CONTROL_RE = re.compile(r"[\x00-\x20\x7f]")

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _trim_trailing(text: str) -> str:
    """Drop trailing punctuation, quotes and closing brackets that have no opener inside.

    Why count rather than always strip: ``10.1016/s0140-6736(97)11096-0`` ends in a digit but
    ``10.1002/abc(1)`` ends in a bracket that belongs to it; only an unmatched one is context.
    """
    # Counts are taken once and updated as characters go, so a hostile run of ")))..." costs
    # linear time, not quadratic.
    balance = {
        closer: text.count(closer) - text.count(opener)
        for closer, opener in _CLOSER_TO_OPENER.items()
    }
    end = len(text)
    while end:
        last = text[end - 1]
        if last in _TRAILING_JUNK or last in _OPENERS:
            if last in _OPENER_TO_CLOSER:
                balance[_OPENER_TO_CLOSER[last]] += 1
            end -= 1
            continue
        if last in balance and balance[last] > 0:
            balance[last] -= 1
            end -= 1
            continue
        break
    return text[:end]


def _cut_query(text: str) -> str:
    """Cut at the first ``?`` or ``#``: a URL query or fragment is never part of a DOI."""
    return _QUERY_RE.split(text, maxsplit=1)[0]


def _canonical_doi(body: str, *, from_url: bool) -> str | None:
    """Canonical DOI from the text after any ``doi:``/URL prefix, or None if it is not one.

    Order matters: cut the query, trim context, *then* percent-decode (URLs only), so an
    encoded ``%29`` or ``%3F`` that really is part of the DOI survives.  Bare DOIs are not
    decoded: a literal ``%`` in a DOI is legal, and decoding would break idempotence.
    """
    body = _trim_trailing(_cut_query(body))
    if from_url:
        body = unquote(body)
    prefix = _DOI_PREFIX_RE.match(body)
    if prefix is None or _CONTROL_RE.search(body) or '"' in body:
        return None
    if prefix.end() >= len(body):
        return None  # "10.1234/" with no suffix
    return body.translate(_ASCII_LOWER)


def _positive_int(digits: str) -> str | None:
    """Digits without leading zeros, or None for zero (no PMID/PMCID is 0)."""
    stripped = digits.lstrip("0")
    return stripped or None


# --------------------------------------------------------------------------------------------
# Whole-string parsing

_PMID_RE = re.compile(r"pmid\s*:?\s*(\d{1,10})", re.IGNORECASE | re.ASCII)
_PMCID_RE = re.compile(
    r"(?:pmcid\s*:?\s*)?pmc(\d{1,10})(?:\.(\d{1,4}))?|pmcid\s*:?\s*(\d{1,10})(?:\.(\d{1,4}))?",
    re.IGNORECASE | re.ASCII,
)
_NCT_RE = re.compile(r"(?:nct\s*:\s*)?(nct\d{8})", re.IGNORECASE | re.ASCII)
_PPR_RE = re.compile(r"(?:ppr\s*:\s*)?ppr(\d{1,10})", re.IGNORECASE | re.ASCII)
_SETID_RE = re.compile(r"(?:set[_ ]?id\s*:?\s*)?(" + _UUID + ")", re.IGNORECASE | re.ASCII)
_DOI_LABEL_RE = re.compile(r"doi\s*:?\s*(?=10\.)", re.IGNORECASE | re.ASCII)
_DOI_WORD_RE = re.compile(r"doi\s*:", re.IGNORECASE | re.ASCII)
_SCHEMELESS_DOI_ORG_RE = re.compile(r"(?:(?:dx|www)\.)?doi\.org/", re.IGNORECASE | re.ASCII)
_URL_LABEL_RE = re.compile(r"url:(?=https?://)", re.IGNORECASE | re.ASCII)
_HTTP_RE = re.compile(r"https?://", re.IGNORECASE | re.ASCII)
_BARE_NUMBER_RE = re.compile(r"\d+", re.ASCII)
# A string that starts like an identifier, even if malformed: worth a specific refusal.
_PREFIX_HINT_RE = re.compile(
    r"(?:doi|pmid|pmcid|setid|set_id|nct|ppr|url)\s*:|pmid\s|https?://|(?:dx\.)?doi\.org/"
    r"|10\.\d+/|pmc\d|nct\d|ppr\d",
    re.IGNORECASE | re.ASCII,
)

# A label and its colon ("pmid:", "doi: not a doi"): meant as an identifier, however malformed.
_LABEL_HINT_RE = re.compile(
    r"(?:doi|pmid|pmcid|setid|set_id|nct|ppr|url)\s*:", re.IGNORECASE | re.ASCII
)
# One word that starts like a PMCID and has no file-name dot or slash: "PMC", "PMCabc".  The
# label words alone ("PMID", "PMCID") may well be file names, and are left to the file reader.
_SHORT_HINT_RE = re.compile(r"(?!pmcid$)pmc[a-z0-9_-]*", re.IGNORECASE | re.ASCII)

# Forms that say what they are (a scheme, a label, a URL): never a file name by accident.
_LABELLED_RE = re.compile(
    r"(?:doi|pmid|pmcid|setid|set_id|nct|ppr|url)\s*:|pmid\s|https?://|(?:(?:dx|www)\.)?doi\.org/",
    re.IGNORECASE | re.ASCII,
)

_LEADING_JUNK = frozenset("([{<\"'`“‘«")


def _unwrap(text: str) -> str:
    """Strip whitespace and leading brackets/quotes (``<https://...>``, ``(doi:...)``).

    No identifier starts with one, so they are always context; the matching closers, if any,
    go with the trailing trim, which keeps brackets balanced *inside* the identifier.
    """
    text = text.strip()
    while text and text[0] in _LEADING_JUNK:
        text = text[1:].lstrip()
    return text


def parse_identifier(text: str) -> Identifier:
    """Parse one identifier given on its own (a CLI argument, an API field).

    The whole string must be one identifier; trailing sentence punctuation and unbalanced
    closing brackets are forgiven.  Deciding whether the string is a file path is the caller's
    job (it needs I/O); see :func:`looks_like_identifier`.

    Raises:
        UnknownIdentifierError: a bare number (ambiguous), a malformed or unrecognised form.
    """
    raw = text.strip()
    candidate = _unwrap(raw)
    if not candidate:
        raise UnknownIdentifierError(text, "No identifier was given.")

    if _URL_LABEL_RE.match(candidate):
        url = _trim_trailing(candidate[len("url:") :])
        _validate_url(url, raw)
        return Identifier("url", url, raw)

    if _HTTP_RE.match(candidate):
        return _parse_url(candidate, raw)

    if _SCHEMELESS_DOI_ORG_RE.match(candidate):
        return _parse_url("https://" + candidate, raw)

    label = _DOI_LABEL_RE.match(candidate)
    if label is not None or _DOI_PREFIX_RE.match(candidate):
        body = candidate[label.end() :] if label is not None else candidate
        doi = _canonical_doi(body, from_url=False)
        if doi is None or any(ch.isspace() for ch in doi):
            raise UnknownIdentifierError(text, f"{raw!r} is not a valid DOI.")
        return Identifier("doi", doi, raw)

    if _DOI_WORD_RE.match(candidate):
        raise UnknownIdentifierError(
            text, f"{raw!r} is not a valid DOI (a DOI starts 10.NNNN/, e.g. 10.1371/x)."
        )
    short = _trim_trailing(candidate)
    found = _parse_short(short, raw)
    if found is not None:
        return found

    if _BARE_NUMBER_RE.fullmatch(short):
        number = short
        raise UnknownIdentifierError(
            text,
            f"{number!r} is a bare number, which is ambiguous (a PMID? a PMCID without its "
            f"prefix?). Write PMID {number} or pmid:{number} for a PubMed record, or "
            f"PMC{number} for a PubMed Central article.",
        )
    raise UnknownIdentifierError(text, _malformed_reason(candidate, raw))


# What a malformed identifier that starts like one kind should look like, by its start.
_MALFORMED_KINDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(start, re.IGNORECASE | re.ASCII), form)
    for start, form in (
        (r"pmcid\b|pmc", "a PMCID is PMC followed by digits, e.g. PMC12829825"),
        (r"pmid\b", "a PMID is its PubMed number after the label, e.g. pmid:27355798"),
        (r"nct", "an NCT number is NCT followed by 8 digits, e.g. NCT04363697"),
        (r"ppr", "a Europe PMC preprint id is PPR followed by digits, e.g. PPR1021553"),
        (r"set_?id\b", "an openFDA set id is a UUID, e.g. 7c4deb97-9966-4c8e-9ba6-bb260b71e130"),
        (r"url\b", "url: is followed by an http:// or https:// URL"),
    )
)


def _malformed_reason(candidate: str, raw: str) -> str:
    """Why ``candidate`` is refused, with what the kind it starts like should look like."""
    for start, form in _MALFORMED_KINDS:
        if start.match(candidate):
            return f"{raw!r} is malformed: not an identifier citeproof recognises ({form})."
    return f"{raw!r} is not an identifier citeproof recognises."


def _parse_short(short: str, raw: str) -> Identifier | None:
    """PMID, PMCID, NCT, PPR or set id written out in full (no URL); None if none of them."""
    if m := _PMID_RE.fullmatch(short):
        pmid = _positive_int(m.group(1))
        if pmid is None:
            raise UnknownIdentifierError(raw, f"{raw!r} is not a valid PMID (PMIDs start at 1).")
        return Identifier("pmid", pmid, raw)
    if m := _PMCID_RE.fullmatch(short):
        digits = m.group(1) if m.group(1) is not None else m.group(3)
        version = m.group(2) if m.group(1) is not None else m.group(4)
        return _pmcid(digits, version, raw)
    if m := _NCT_RE.fullmatch(short):
        return Identifier("nct", m.group(1).upper(), raw)
    if m := _PPR_RE.fullmatch(short):
        return Identifier("ppr", "PPR" + m.group(1), raw)
    if m := _SETID_RE.fullmatch(short):
        return Identifier("setid", m.group(1).lower(), raw)
    return None


def _pmcid(digits: str, version: str | None, raw: str) -> Identifier:
    number = _positive_int(digits)
    if number is None:
        raise UnknownIdentifierError(raw, f"{raw!r} is not a valid PMCID (PMCIDs start at 1).")
    pinned: int | None = None
    if version is not None:
        pinned = int(version)
        if pinned < 1:
            raise UnknownIdentifierError(
                raw, f"{raw!r} pins version {version}, but PMC versions start at 1."
            )
    return Identifier("pmcid", "PMC" + number, raw, pinned)


def _validate_url(url: str, raw: str) -> None:
    """Refuse what can never be fetched: no host, whitespace/control chars, credentials."""
    if _CONTROL_RE.search(url) or any(ch.isspace() for ch in url):
        raise UnknownIdentifierError(raw, f"{raw!r} is not a valid URL (it contains spaces).")
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError for a malformed port
    except ValueError as exc:
        raise UnknownIdentifierError(raw, f"{raw!r} is not a valid URL ({exc}).") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UnknownIdentifierError(raw, f"{raw!r} is not a valid http(s) URL (no host).")
    if parts.username is not None or parts.password is not None:
        raise UnknownIdentifierError(
            raw, f"{raw!r} contains a user name or password; remove them from the URL."
        )


_PUBMED_PATH = re.compile(r"/(\d{1,10})/?", re.ASCII)
_NCBI_PUBMED_PATH = re.compile(r"/pubmed/(\d{1,10})/?", re.IGNORECASE | re.ASCII)
_NCBI_PMC_PATH = re.compile(r"/pmc/articles/pmc(\d{1,10})(?:\.(\d{1,4}))?/?", re.I | re.ASCII)
_PMC_PATH = re.compile(r"/articles/pmc(\d{1,10})(?:\.(\d{1,4}))?/?", re.IGNORECASE | re.ASCII)
_CTGOV_PATH = re.compile(r"/(?:study|ct2/show)/(nct\d{8})/?", re.IGNORECASE | re.ASCII)
_EPMC_PATH = re.compile(
    r"/(?:article|abstract)/(med|pmc|ppr)/([a-z]*\d{1,10})/?|/articles/(pmc\d{1,10})/?",
    re.IGNORECASE | re.ASCII,
)
_DAILYMED_PATH = re.compile(r"/dailymed/druginfo\.cfm", re.IGNORECASE | re.ASCII)
_UUID_RE = re.compile(_UUID, re.IGNORECASE | re.ASCII)


def _parse_url(url: str, raw: str) -> Identifier:
    """Map a URL that names a known record to its identifier; anything else is kind "url".

    Trailing punctuation and unbalanced closing brackets are trimmed first (a URL quoted in
    prose may end in ``).``), exactly as in running text; the rest, query included, is kept.
    """
    trimmed = _trim_trailing(url)
    _validate_url(trimmed, raw)
    parts = urlsplit(trimmed)
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[len("www.") :]
    path = parts.path
    found = _identifier_from_known_url(host, path, parts.query, raw)
    if found is not None:
        return found
    return Identifier("url", trimmed, raw)


def _identifier_from_known_url(host: str, path: str, query: str, raw: str) -> Identifier | None:
    if host in ("doi.org", "dx.doi.org"):
        doi = _canonical_doi(path.lstrip("/"), from_url=True)
        if doi is None:
            # A doi.org address is a DOI or nothing: fetching "https://doi.org/" would read
            # the resolver's home page and check the quote against it.
            raise UnknownIdentifierError(
                raw,
                f"{raw!r} names no DOI: write the DOI after doi.org/ "
                "(https://doi.org/10.1371/journal.pone.0340378), or url:https://doi.org/... "
                "to read that page itself.",
            )
        return Identifier("doi", doi, raw)
    if host == "pubmed.ncbi.nlm.nih.gov" and (m := _PUBMED_PATH.fullmatch(path)):
        return _pmid(m.group(1), raw)
    if host == "ncbi.nlm.nih.gov":
        if m := _NCBI_PUBMED_PATH.fullmatch(path):
            return _pmid(m.group(1), raw)
        if m := _NCBI_PMC_PATH.fullmatch(path):
            return _pmcid(m.group(1), m.group(2), raw)
    if host == "pmc.ncbi.nlm.nih.gov" and (m := _PMC_PATH.fullmatch(path)):
        return _pmcid(m.group(1), m.group(2), raw)
    if host == "clinicaltrials.gov" and (m := _CTGOV_PATH.fullmatch(path)):
        return Identifier("nct", m.group(1).upper(), raw)
    if host == "europepmc.org" and (m := _EPMC_PATH.fullmatch(path)):
        return _from_europepmc(m, raw)
    if host == "dailymed.nlm.nih.gov" and _DAILYMED_PATH.fullmatch(path):
        setids = parse_qs(query).get("setid", [])
        if len(setids) == 1 and _UUID_RE.fullmatch(setids[0]):
            return Identifier("setid", setids[0].lower(), raw)
    return None


def _pmid(digits: str, raw: str) -> Identifier | None:
    number = _positive_int(digits)
    return Identifier("pmid", number, raw) if number is not None else None


def _from_europepmc(m: re.Match[str], raw: str) -> Identifier | None:
    """Europe PMC's ``/article/{SRC}/{id}``: MED is a PMID, PMC a PMCID, PPR a preprint."""
    if m.group(3) is not None:
        return _pmcid(m.group(3)[3:], None, raw)
    source, ident = m.group(1).upper(), m.group(2).upper()
    if source == "MED" and ident.isdigit():
        return _pmid(ident, raw)
    if source == "PMC":
        digits = ident[3:] if ident.startswith("PMC") else ident
        return _pmcid(digits, None, raw) if digits.isdigit() else None
    if source == "PPR" and ident.startswith("PPR") and ident[3:].isdigit():
        return Identifier("ppr", ident, raw)
    return None


def looks_like_identifier(text: str) -> bool:
    """Whether *text* is meant as an identifier rather than a quote-bearing text or a path.

    True when it parses, and also when it is a bare number or starts like an identifier
    but is malformed (a label and its colon: ``pmid:``, ``doi:not a doi``; one word that
    starts like a PMCID: ``PMC``, ``PMCabc``; ``NCT123``, ``https://``...):
    routing those to :func:`parse_identifier` gives a specific refusal, naming the accepted
    forms, instead of "file not found".  Multi-line text and prose are never identifiers.
    A string that looks like one but does not parse may still be the name of an existing
    file (``PMC123.pdf``): the caller tells them apart (:mod:`citeproof.loading.load`).
    """
    stripped = text.strip()
    if not stripped or "\n" in stripped or "\r" in stripped:
        return False
    try:
        parse_identifier(stripped)
    except UnknownIdentifierError:
        pass
    else:
        return True
    unwrapped = _unwrap(stripped)
    candidate = _trim_trailing(unwrapped)
    if _BARE_NUMBER_RE.fullmatch(candidate):
        return True
    if _LABEL_HINT_RE.match(unwrapped) or _SHORT_HINT_RE.fullmatch(candidate):
        return True  # "pmid:", "doi:not a doi", "PMC", "PMCabc"
    return " " not in candidate and _PREFIX_HINT_RE.match(candidate) is not None


def is_labelled(text: str) -> bool:
    """Whether *text* names its kind (``doi:…``, ``pmcid:PMC1``, ``PMID 123``, a URL), so that
    it is an identifier even when a file of that name exists; a bare form (``PMC1``,
    ``10.1371/…``, ``NCT…``) could be either."""
    return _LABELLED_RE.match(_unwrap(text.strip())) is not None


# --------------------------------------------------------------------------------------------
# Running text

# http(s) URLs, and doi.org addresses written without a scheme ("doi.org/10.1/x").
_TEXT_URL_RE = re.compile(
    r"(?:https?://|(?<![\w.\-/])(?:(?:dx|www)\.)?doi\.org/)[^\s\"<>“”‘’«»]+", re.IGNORECASE
)
_TEXT_DOI_RE = re.compile(r"(?<![\w.\-%/])" + _DOI_PREFIX + r"[^\s\"“”‘’«»]+", re.IGNORECASE)
_NEXT_DOI_RE = re.compile(r"[,;](?=\s*" + _DOI_PREFIX + ")|,", re.ASCII)
_TEXT_OTHER_RE = re.compile(
    r"\b(?:"
    r"pmid\s*:?\s*(?P<pmid>\d{1,10})"
    r"|(?:pmcid\s*:?\s*)?pmc(?P<pmc>\d{1,10})(?:\.(?P<pmcv>\d{1,4}))?"
    r"|(?P<nct>nct\d{8})"
    r"|ppr(?P<ppr>\d{1,10})"
    r"|(?P<uuid>" + _UUID + r")"
    r")\b",
    re.IGNORECASE | re.ASCII,
)


# A token that ends at a line end and may hold a DOI or the start of one.  Possessive, and
# anchored at a token's start, so a long token is read once.
_BEFORE_BREAK_RE = re.compile(
    r"(?<!\S)(?=\S*?(?<![\w.\-%])10\.)\S++(?=[ \t]*+(?:\r\n?|\n)[ \t]*+\S)"
)
_LINE_GAP_RE = re.compile(r"[ \t]*+(?:\r\n?|\n)[ \t]*+")
_LINE_END_RE = re.compile(r"[ \t]*+(?:\r|\n|$)")
_WORD_RE = re.compile(r"\S++")
# Where a DOI starts inside a token (after ``doi:``, a doi.org address or a bracket), and how
# much of its prefix the token holds: ``10.``, ``10.1016``, ``10.1016/``.
_DOI_START_RE = re.compile(
    r"(?<![\w.\-%])10\.(?:(?:\d{4,9}|97[89]\.\d+)(?:\.\d+)*+(?P<slash>/)?)?", re.ASCII
)
# What ends a DOI in running text before the line does (find_identifiers' own cuts).
_ENDS_DOI_RE = re.compile(r"[,\"“”‘’«»?#]")
_OPENS_NO_DOI = frozenset('"“”‘’«»,;')
_LIST_MARKER_RE = re.compile(r"\(?\d{1,6}[.)]|\[\d{1,6}\]")
_DOI_LIKE_RE = re.compile(r"[\d./_;:()]")
_MAX_READINGS = 3
"""Readings kept of one broken DOI (each break that leaves a doubt adds one)."""
_MAX_JOINED = 400
"""Characters a DOI joined across line ends may reach: real DOIs are far shorter, and a
text of ``10.1/a-`` lines must not join into one quadratic string."""


def _readings(before: str, after: str, alone: bool) -> tuple[str, str | None, bool] | None:
    """How ``before`` and ``after``, two tokens a line end separates, read as one DOI: the
    likelier reading, the other one (None when there is no doubt), and whether the other
    reading goes on with later lines; None when the line end is not inside a DOI.

    ``alone``: ``after`` is all its line holds.  The rules (:func:`mend_line_breaks`):

    * A DOI cut inside its prefix (``10.1016/`` or ``10.1016`` then ``/j...``), after ``/``
      or ``_`` (which never end one), or before a line that starts with ``.`` ``/`` ``-``
      ``_`` (Chicago breaks before them) is joined.
    * A hyphen at the line end is the DOI's own (URL breaking prefers to break after one
      and never adds one) when a letter or digit precedes it, else one that hyphenation put
      there (``2019.-``): the likelier reading first, both kept.
    * A full stop at the line end ends a sentence when the next line starts with a capital
      or a bracket; followed by a lower-case letter or a digit it is read as part of the
      DOI, the DOI cut there kept as the other reading.
    * After a hyphen or a full stop the next line's first word must look like the rest of a
      DOI (a digit, or ``. / _ ; : ( )`` in it), or be all its line holds: a word followed
      by more words starts the next entry.
    * A next line that starts with a list number (``2.``, ``[2]``, ``(2)``) starts the next
      entry, and a break that no punctuation marks is left alone: neither can be told from
      the DOI's end.
    """
    start = _DOI_START_RE.search(before)
    if start is None or after[0] in _OPENS_NO_DOI or _LIST_MARKER_RE.fullmatch(after):
        return None  # no DOI, or the next line starts with a quote or the next entry's number
    if start.end() == len(before):  # the line end cuts the prefix
        if start.group("slash"):
            return before + after, None, False
        if start.group() == "10.":
            sure = re.match(r"(?:\d{4,9}|97[89]\.\d+)(?:\.\d+)*/\S", after, re.ASCII)
        else:
            sure = re.match(r"/\S", after)
        return (before + after, None, False) if sure else None
    if not start.group("slash"):
        return None
    rest = before[start.end() :]
    if _ENDS_DOI_RE.search(rest):
        return None  # the DOI ended before the line did
    last = rest[-1]
    if last in "/_":
        return before + after, None, False
    if last == "-":
        if not alone and _DOI_LIKE_RE.search(after) is None:
            return None
        kept, dropped = before + after, before[:-1] + after
        if before[-2].isalnum():
            return kept, dropped, True
        return dropped, kept, True
    if last == ".":
        if not (after[0].isdigit() or "a" <= after[0] <= "z"):
            return None
        if not alone and _DOI_LIKE_RE.search(after) is None:
            return None
        return before + after, before, False
    if after[0] in "./-_" and len(after) > 1 and after[1] not in ".,;:":
        return before + after, None, False
    return None


def _doi_in(token: str) -> str | None:
    """The canonical DOI a token holds (a bare DOI, ``doi:…`` or a doi.org address)."""
    start = _DOI_START_RE.search(token)
    if start is None:
        return None
    candidate = token[start.start() :]
    cut = _NEXT_DOI_RE.search(candidate)
    if cut is not None:
        candidate = candidate[: cut.start()]
    return _canonical_doi(candidate, from_url=False)


def mend_line_breaks(text: str) -> tuple[str, dict[str, tuple[str, ...]]]:
    """``text`` with every DOI that a line end broke joined again, and for each joined DOI
    that could also be read another way, its other readings (canonical DOIs, likelier first).

    Why: a printed list breaks a long DOI where the line runs out (``10.1016/j`` on one line,
    ``.cell.2019.01.001`` on the next), and read as it stands the first part is a DOI of its
    own, which does not exist: the reference would be called unresolvable for its layout.
    The rules are :func:`_readings`'; a DOI broken over several lines is joined line by line.
    Text without a line break, or without ``10.``, comes back unchanged.
    """
    if ("\n" not in text and "\r" not in text) or "10." not in text:
        return text, {}
    out: list[str] = []
    alternatives: dict[str, tuple[str, ...]] = {}
    pos = 0
    while (found := _BEFORE_BREAK_RE.search(text, pos)) is not None:
        primary, end = found.group(), found.end()
        going: list[str] = []  # other readings the next line may still continue
        ended: list[str] = []  # other readings in which the DOI ends at a line end
        while (gap := _LINE_GAP_RE.match(text, end)) is not None and (
            word := _WORD_RE.match(text, gap.end())
        ) is not None:
            if len(primary) + word.end() - word.start() > _MAX_JOINED:
                break
            alone = _LINE_END_RE.match(text, word.end()) is not None
            read = _readings(primary, word.group(), alone)
            if read is None:
                break
            joined, other, other_goes_on = read
            going = [g + word.group() for g in going]
            if other is not None and len(going) + len(ended) < _MAX_READINGS:
                (going if other_goes_on else ended).append(other)
            primary, end = joined, word.end()
        out.append(text[pos : found.start()])
        out.append(primary)
        pos = end
        doi = _doi_in(primary)
        others = [d for d in (_doi_in(t) for t in (*going, *ended)) if d and d != doi]
        if doi is not None and others:
            alternatives[doi] = tuple(dict.fromkeys(others))[:_MAX_READINGS]
    if not out:
        return text, {}
    out.append(text[pos:])
    return "".join(out), alternatives


# Things written as an identifier: a label and its value, a PMCID, a doi.org address.
_WRITTEN_AS_ID_RE = re.compile(
    r"(?<![\w.\-/])(?:"
    r"(?P<label>doi|pmid|pmcid)\s*:\s*(?P<value>[^\s,;]*)"
    r"|pmid\s+\d+|pmc\d+(?:\.\d+)?(?!\w)"
    r"|(?:https?://)?(?:(?:dx|www)\.)?doi\.org/[^\s\"<>“”‘’«»,;]*"
    r")",
    re.IGNORECASE,
)


def find_malformed_identifiers(text: str) -> list[tuple[str, str]]:
    """``(as written, why it is none)`` for each thing in running text written as a DOI, PMID
    or PMCID that is not one: ``doi:10.``, ``doi:`` with nothing after it, ``PMID: 0``,
    ``PMC0``, a doi.org address without a DOI.  A bare number or a ``10.`` without a label
    is not counted: in prose it is a year, a page or a dose."""
    out: list[tuple[str, str]] = []
    for m in _WRITTEN_AS_ID_RE.finditer(text):
        raw = m.group()
        value = m.group("value")
        if value and looks_like_identifier(value) and _parses(value):
            continue  # "DOI: https://doi.org/10.1/x": the value is an identifier itself
        try:
            parse_identifier(raw)
        except UnknownIdentifierError as err:
            if (raw, err.reason) not in out:
                out.append((raw, err.reason))
    return out


def _parses(text: str) -> bool:
    try:
        parse_identifier(text)
    except UnknownIdentifierError:
        return False
    return True


def find_identifiers(text: str) -> list[Identifier]:
    """Every identifier in running text (a reference list, a manuscript), in order of first
    appearance, each canonical form once.

    PMIDs are found only when labelled (``PMID: 123``) or in a PubMed URL: a bare number in
    prose is a year, a page or a dose.  A DOI inside a publisher URL is reported as that URL
    (what the author cited), not as a DOI.  Malformed candidates are skipped, never raised.
    A DOI that a line end broke is found whole (:func:`mend_line_breaks`; its likelier
    reading), and its ``raw`` is then the joined text.
    """
    text, _ = mend_line_breaks(text)
    found: list[tuple[int, Identifier]] = []
    masked = list(text)

    def mask(start: int, end: int) -> None:
        masked[start:end] = " " * (end - start)

    for m in _TEXT_URL_RE.finditer(text):
        url = _trim_trailing(m.group(0))
        absolute = url if _HTTP_RE.match(url) else "https://" + url
        try:
            ident = _parse_url(absolute, url)
        except UnknownIdentifierError:
            continue
        found.append((m.start(), ident))
        mask(m.start(), m.start() + len(url))

    work = "".join(masked)
    pos = 0
    while (dm := _TEXT_DOI_RE.search(work, pos)) is not None:
        candidate = dm.group(0)
        end = dm.end()
        cut = _NEXT_DOI_RE.search(candidate)
        if cut is not None:
            candidate = candidate[: cut.start()]
            end = dm.start() + cut.end()
        doi = _canonical_doi(candidate, from_url=False)
        if doi is not None:
            found.append((dm.start(), Identifier("doi", doi, candidate)))
            mask(dm.start(), end)
        pos = end
    work = "".join(masked)

    for m in _TEXT_OTHER_RE.finditer(work):
        other = _from_text_match(m)
        if other is not None:
            found.append((m.start(), other))

    found.sort(key=lambda item: item[0])  # stable: a URL and what it names never share a start
    seen: set[str] = set()
    result: list[Identifier] = []
    for _, ident in found:
        if ident.key not in seen:
            seen.add(ident.key)
            result.append(ident)
    return result


def _from_text_match(m: re.Match[str]) -> Identifier | None:
    """The identifier one :data:`_TEXT_OTHER_RE` match names; None when it is invalid."""
    raw = m.group(0)
    if m.group("pmid") is not None:
        return _pmid(m.group("pmid"), raw)
    if m.group("pmc") is not None:
        try:
            return _pmcid(m.group("pmc"), m.group("pmcv"), raw)
        except UnknownIdentifierError:
            return None
    if m.group("nct") is not None:
        return Identifier("nct", m.group("nct").upper(), raw)
    if m.group("ppr") is not None:
        return Identifier("ppr", "PPR" + m.group("ppr"), raw)
    return Identifier("setid", m.group("uuid").lower(), raw)
