"""One identifier given on its own (a CLI argument, an API field): parse it, or say exactly
why it is none.  Pure: no I/O.

Why the rules are strict: a wrong guess checks the wrong paper silently.  So a bare number is
refused (which kind would it be?); a URL names an identifier only when it is a record page a
kind declares (:attr:`~citeproof.identifiers.specs.KindSpec.record_urls`), and is otherwise
read as the page it is; and a string that starts like an identifier but is malformed
(``pmid:``, ``PMC``) is still meant as one (:func:`looks_like_identifier`): refusing it names
the form its kind takes, which helps more than "file not found".  The forms themselves are the
kinds' (:mod:`citeproof.identifiers.specs`); DOIs and URLs, whose end only the text around
them decides, are parsed here.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from citeproof.errors import UnknownIdentifierError
from citeproof.identifiers._context import (
    DOI_PREFIX_RE,
    canonical_doi,
    trim_trailing,
    unwrap,
    validate_url,
)
from citeproof.identifiers.identifier import Identifier
from citeproof.identifiers.refusal import refuse
from citeproof.identifiers.specs import DOI, FLAGS, KINDS, compiled

__all__ = ["is_labelled", "looks_like_identifier", "parse_identifier", "parse_url"]

_DOI_LABEL_RE = re.compile(r"doi\s*:?\s*(?=10\.)", FLAGS)
_DOI_WORD_RE = re.compile(r"doi\s*:", FLAGS)
_DOI_HOSTS = frozenset({"doi.org", "dx.doi.org"})
_SCHEMELESS_DOI_ORG_RE = re.compile(r"(?:(?:dx|www)\.)?doi\.org/", FLAGS)
_URL_LABEL_RE = re.compile(r"url:(?=https?://)", FLAGS)
HTTP_RE = re.compile(r"https?://", FLAGS)
_BARE_NUMBER_RE = re.compile(r"\d+", re.ASCII)

_LABELS = "(?:" + "|".join(label for spec in KINDS.values() for label in spec.labels) + r")\s*:"
# A label and its colon ("pmid:", "doi: not a doi"): meant as an identifier, however malformed.
_LABEL_HINT_RE = re.compile(_LABELS, FLAGS)
# A string that starts like an identifier, even if malformed: worth a specific refusal.
_PREFIX_HINT_RE = re.compile(
    "|".join([_LABELS, *(hint for spec in KINDS.values() for hint in spec.hints)]), FLAGS
)
# Forms that say what they are (a scheme, a label, a URL): never a file name by accident.
_LABELLED_RE = re.compile(
    "|".join([_LABELS, *(form for spec in KINDS.values() for form in spec.says_so)]), FLAGS
)
# One word that starts like an identifier and has no file-name dot or slash: "PMC", "PMCabc".
_SHORT_HINT_RE = re.compile(
    "|".join(f"(?:{spec.word})" for spec in KINDS.values() if spec.word is not None), FLAGS
)
# What a malformed identifier that starts like one kind should look like, by its start.
_MALFORMED_KINDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(spec.starts, FLAGS), spec.form)
    for spec in KINDS.values()
    if spec.starts is not None
)


def parse_identifier(text: str) -> Identifier:
    """Parse one identifier given on its own (a CLI argument, an API field).

    The whole string must be one identifier; trailing sentence punctuation and unbalanced
    closing brackets are forgiven.  Deciding whether the string is a file path is the caller's
    job (it needs I/O); see :func:`looks_like_identifier`.

    Raises:
        UnknownIdentifierError: a bare number (ambiguous), a malformed or unrecognised form.
    """
    found = _recognised(text)
    if isinstance(found, str):
        raise refuse(text, found)
    return found


def _recognised(text: str) -> Identifier | str:
    """The identifier ``text`` is, or why it is none (the reason a refusal gives).

    The answer rather than the refusal, so that :func:`looks_like_identifier`, asked of
    every file path a check is given, does not build an error for each; a form that names
    its kind but is broken (a URL's credentials, PMID 0) still raises where it is read.
    """
    raw = text.strip()
    candidate = unwrap(raw)
    if not candidate:
        return "No identifier was given."

    if _URL_LABEL_RE.match(candidate):
        url = trim_trailing(candidate[len("url:") :])
        validate_url(url, raw)
        return Identifier("url", url, raw)

    if HTTP_RE.match(candidate):
        return parse_url(candidate, raw)

    if _SCHEMELESS_DOI_ORG_RE.match(candidate):
        return parse_url("https://" + candidate, raw)

    label = _DOI_LABEL_RE.match(candidate)
    if label is not None or DOI_PREFIX_RE.match(candidate):
        body = candidate[label.end() :] if label is not None else candidate
        doi = DOI.canonical(body)
        if doi is None:
            return f"{raw!r} is not a valid DOI."
        return Identifier("doi", doi, raw)

    if _DOI_WORD_RE.match(candidate):
        return f"{raw!r} is not a valid DOI (a DOI starts 10.NNNN/, e.g. 10.1371/x)."
    short = trim_trailing(candidate)
    found = _parse_short(short, raw)
    if found is not None:
        return found

    if _BARE_NUMBER_RE.fullmatch(short):
        number = short
        return (
            f"{number!r} is a bare number, which is ambiguous (a PMID? a PMCID without its "
            f"prefix?). Write PMID {number} or pmid:{number} for a PubMed record, or "
            f"PMC{number} for a PubMed Central article."
        )
    return _malformed_reason(candidate, raw)


def _malformed_reason(candidate: str, raw: str) -> str:
    """Why ``candidate`` is refused, with what the kind it starts like should look like."""
    for start, form in _MALFORMED_KINDS:
        if start.match(candidate):
            return f"{raw!r} is malformed: not an identifier citeproof recognises ({form})."
    return f"{raw!r} is not an identifier citeproof recognises."


def _parse_short(short: str, raw: str) -> Identifier | None:
    """A kind written out in full (no URL, no DOI) as it declares; None if no kind is."""
    for spec in KINDS.values():
        for written in spec.written:
            if m := compiled(written).fullmatch(short):
                return spec.identifier(m.group("value"), m.groupdict().get("version"), raw)
    return None


def parse_url(url: str, raw: str) -> Identifier:
    """Map a URL that names a known record to its identifier; anything else is kind "url".

    Trailing punctuation and unbalanced closing brackets are trimmed first (a URL quoted in
    prose may end in ``).``), exactly as in running text; the rest, query included, is kept.
    """
    trimmed = trim_trailing(url)
    validate_url(trimmed, raw)
    parts = urlsplit(trimmed)
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[len("www.") :]
    found = _identifier_from_known_url(host, parts.path, parts.query, raw)
    if found is not None:
        return found
    return Identifier("url", trimmed, raw)


def _identifier_from_known_url(host: str, path: str, query: str, raw: str) -> Identifier | None:
    if host in _DOI_HOSTS:
        doi = canonical_doi(path.lstrip("/"), from_url=True)
        if doi is None:
            # A doi.org address is a DOI or nothing: fetching "https://doi.org/" would read
            # the resolver's home page and check the quote against it.
            raise refuse(
                raw,
                f"{raw!r} names no DOI: write the DOI after doi.org/ "
                "(https://doi.org/10.1371/journal.pone.0340378), or url:https://doi.org/... "
                "to read that page itself.",
            )
        return Identifier("doi", doi, raw)
    for spec in KINDS.values():
        for page in spec.record_urls:
            if host in page.hosts and (found := page.value_in(path, query, spec.canonical)):
                value, version = found
                return spec.identifier(value, version, raw)
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
        if not isinstance(_recognised(stripped), str):
            return True
    except UnknownIdentifierError:
        pass  # it names its kind but is broken: the hints below decide, as for the rest
    unwrapped = unwrap(stripped)
    candidate = trim_trailing(unwrapped)
    if _BARE_NUMBER_RE.fullmatch(candidate):
        return True
    if _LABEL_HINT_RE.match(unwrapped) or _SHORT_HINT_RE.fullmatch(candidate):
        return True  # "pmid:", "doi:not a doi", "PMC", "PMCabc"
    return " " not in candidate and _PREFIX_HINT_RE.match(candidate) is not None


def is_labelled(text: str) -> bool:
    """Whether *text* names its kind (``doi:…``, ``pmcid:PMC1``, ``PMID 123``, a URL), so that
    it is an identifier even when a file of that name exists; a bare form (``PMC1``,
    ``10.1371/…``, ``NCT…``) could be either."""
    return _LABELLED_RE.match(unwrap(text.strip())) is not None
