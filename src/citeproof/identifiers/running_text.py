"""Identifiers in running text (a reference list, a manuscript, an answer), and DOIs that a
line end broke.  Pure: no I/O.

Why apart from the whole-string parser: in running text nothing may be refused or raised, a
bare number is a year, a page or a dose rather than an identifier, and where a DOI ends is
decided by the words around it.

* A DOI also ends at a comma (reference lists separate DOIs with them) and at ``;`` directly
  followed by another ``10.NNNN/`` DOI.
* A DOI that a line end broke is joined again first (:func:`mend_line_breaks`), because a
  printed reference list breaks long DOIs wherever the line runs out and the first part alone
  is another, usually non-existent, DOI.  Where the break leaves a doubt (a hyphen, or a full
  stop, at the end of the line) the other reading is kept as an alternative.
* :func:`find_malformed_identifiers` names what is written as an identifier but is none
  (``doi:10.``, ``PMID: 0``): an entry that names only such a thing names nothing to look up,
  and must say why rather than be searched for or taken as fabricated.
* The other kinds are found as they declare themselves
  (:attr:`~citeproof.identifiers.specs.KindSpec.in_text`).
"""

from __future__ import annotations

import re

from citeproof.errors import UnknownIdentifierError
from citeproof.identifiers._context import DOI_PREFIX, canonical_doi, trim_trailing
from citeproof.identifiers.identifier import Identifier
from citeproof.identifiers.parsing import (
    HTTP_RE,
    looks_like_identifier,
    parse_identifier,
    parse_url,
)
from citeproof.identifiers.specs import FLAGS, KINDS

__all__ = ["find_identifiers", "find_malformed_identifiers", "mend_line_breaks", "spaced_readings"]

# http(s) URLs, and doi.org addresses written without a scheme ("doi.org/10.1/x").  Angle
# brackets end a URL ("<https://doi.org/10.1/x>") unless they pair up inside it, as in the
# SICI form of older Wiley DOIs ("...94:2<170::aid-ajmg10>3.0.co;2-2").
_URL_CHARS = r"[^\s\"<>“”‘’«»]"
_TEXT_URL_RE = re.compile(
    r"(?:https?://|(?<![\w.\-/])(?:(?:dx|www)\.)?doi\.org/)"
    + _URL_CHARS
    + r"+(?:<"
    + _URL_CHARS
    + r"{1,80}>"
    + _URL_CHARS
    + r"*)*",
    re.IGNORECASE,
)
_TEXT_DOI_RE = re.compile(r"(?<![\w.\-%/])" + DOI_PREFIX + r"[^\s\"“”‘’«»]+", re.IGNORECASE)
_NEXT_DOI_RE = re.compile(r"[,;](?=\s*" + DOI_PREFIX + ")|,", re.ASCII)
# Every other kind as it declares itself in running text; a kind's groups are renamed after
# it (``value`` -> ``nct``, ``version`` -> ``pmcid_version``), so one pass finds them all.
_TEXT_KINDS = tuple(spec for spec in KINDS.values() if spec.in_text is not None)
_TEXT_OTHER_RE = re.compile(
    r"\b(?:"
    + "|".join(
        (spec.in_text or "")
        .replace("(?P<value>", f"(?P<{spec.kind}>")
        .replace("(?P<version>", f"(?P<{spec.kind}_version>")
        for spec in _TEXT_KINDS
    )
    + r")\b",
    FLAGS,
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
    return canonical_doi(candidate, from_url=False)


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


#: What a PDF's extraction leaves of a DOI broken at a line end: a space where the line
#: ended, before or after the full stop or hyphen ("10.1523/jneurosci. 0300-04.2004",
#: "10.2217/fca .14.82", "10.1007/s00467-008-0811 -4").
_SPACED_REST = re.compile(r"([.\-]?)[ \t]{1,3}([.\-]?[0-9A-Za-z][\w.\-()/;:]{0,80})")


def spaced_readings(text: str, doi: str) -> tuple[str, ...]:
    """The DOI read on across a space that a line end left, when the DOI stops at a full
    stop or hyphen or what follows starts with one, and what follows holds a digit.

    Why: :func:`mend_line_breaks` for text whose line ends a PDF's extraction turned into
    spaces; a space may as well end the DOI, so this is only another reading, tried when
    the DOI as printed does not exist (``StatedReference.doi_alternatives``)."""
    at = text.casefold().find(doi.casefold())
    if at < 0:
        return ()
    rest = _SPACED_REST.match(text, at + len(doi))
    if rest is None:
        return ()
    stop, piece = rest.group(1), rest.group(2).rstrip(".,;:)")
    if not (stop or piece[:1] in ".-") or not any(c.isdigit() for c in piece):
        return ()
    return ((doi + stop + piece).lower(),)


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
        url = trim_trailing(m.group(0))
        absolute = url if HTTP_RE.match(url) else "https://" + url
        try:
            ident = parse_url(absolute, url)
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
        doi = canonical_doi(candidate, from_url=False)
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
    groups = m.groupdict()
    for spec in _TEXT_KINDS:
        value = groups.get(spec.kind)
        if value is not None:
            try:
                return spec.identifier(value, groups.get(f"{spec.kind}_version"), m.group(0))
            except UnknownIdentifierError:
                return None  # PMID 0, PMC0: not an identifier, and running text never raises
    return None
