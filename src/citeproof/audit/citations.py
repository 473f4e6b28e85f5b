"""Find the citations and quotations written in one block of an answer.

Why a scanner of its own: an AI answer mixes passage handles, plain identifiers, numbered
references and Markdown links, often in one sentence, and the audit must report *each* with its
exact span, including the ones that are broken (a malformed handle is a finding, not noise).
Identifier syntax is never re-implemented here: :func:`citeproof.identifiers.parse_identifier`
and :func:`~citeproof.identifiers.find_identifiers` decide what a DOI, PMID or URL is, including
where it ends.

Rules, applied in this order on the block's text (each step masks what it consumed, so nothing
is read twice):

1. Inline code (backtick spans) is skipped entirely.
2. ``[handle "exact words"]`` (straight or curly quotes): a bracket whose first token looks like
   a handle followed by one quoted string; the words are that citation's own quote.
3. Markdown links ``[text](url)``: the link text is never a citation (not even ``[1](url)``);
   the URL is one when it parses as an identifier (form ``link``).  Images are skipped.
4. Other innermost brackets ``[...]``:

   * a number list (``1``, ``1, 3-5``, ``2–4``, ``1;2``, footnote ``^1``) is a numbered
     citation, one per number, unless every number looks like a year (1800-2100) and the
     reference list has no entry with that number (``[2020]`` is a year);
   * a first token that looks like a handle (``scheme:...~code``, or a known non-DOI scheme
     with a ``/path``, or any ``scheme:`` token followed by a quote) is a handle citation, even
     when malformed: the problem is recorded so the audit can say ``malformed``;
   * a bracket holding exactly one identifier is one citation spanning the bracket.

5. Parentheses holding exactly one identifier, e.g. ``(doi:10.1000/xyz)``, likewise.
6. Any other identifier in the text (in a larger bracket or parenthesis, or bare in prose) is a
   citation spanning the identifier (with its ``doi:`` label), form ``bracket``, ``paren`` or
   ``bare``.  PMIDs count only when labelled (``PMID 123``), as in find_identifiers.
7. Quotations: ``“...”``, ``"..."`` (paired in order), ``«...»``, and ``‘...’`` only when the
   opening mark starts a word and the closing one ends a word (so apostrophes such as ``it’s``
   never close it).  Straight single quotes are never quotations: they are apostrophes far more
   often.  Quotes do not nest: inner marks are part of the outer quote's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from citeproof.audit.answer import ItemError
from citeproof.identifiers import (
    Identifier,
    UnknownIdentifierError,
    find_identifiers,
    parse_identifier,
)
from citeproof.models.audit import CitationForm, CitationKind

__all__ = [
    "HANDLE_SCHEMES",
    "MAX_NUMBERS_PER_BRACKET",
    "BlockScan",
    "RawCitation",
    "classify_reference",
    "find_quotes",
    "handle_problem",
    "looks_like_handle",
    "scan_block",
]

HANDLE_SCHEMES = frozenset({"pmid", "pmcid", "doi", "ppr", "nct", "setid"})
#: A bracket like ``[1-100000]`` is not expanded into a hundred thousand citations.
MAX_NUMBERS_PER_BRACKET = 100


@dataclass(frozen=True, slots=True)
class RawCitation:
    """A citation before the answer-wide numbering (see
    :class:`citeproof.audit.answer.Citation`)."""

    start: int
    end: int
    kind: CitationKind
    form: CitationForm
    target: str
    identifier: Identifier | None = None
    number: int | None = None
    #: Span of the citation's own quoted words (``[handle "words"]``).
    quote: tuple[int, int] | None = None
    error: ItemError | None = None


@dataclass(slots=True)
class BlockScan:
    citations: list[RawCitation] = field(default_factory=list)
    #: Inline quotation spans (the words inside the marks).
    quotes: list[tuple[int, int]] = field(default_factory=list)
    #: Spans a sentence boundary may not cut (code, links, citations).
    protected: list[tuple[int, int]] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# Handles


def looks_like_handle(token: str, *, quoted: bool = False) -> bool:
    """Whether a bracket's first token is meant as a handle (so a malformed one is reported)."""
    head = token.split("~", 1)[0]
    if "~" in token and ":" in head:
        return True
    scheme, sep, rest = token.partition(":")
    if not sep or not scheme:
        return False
    if quoted:
        return scheme.lower() in HANDLE_SCHEMES or scheme.isalpha()
    return scheme.lower() in HANDLE_SCHEMES - {"doi"} and "/" in rest


def handle_problem(token: str) -> str | None:
    """A coarse reason the handle can never be valid, or None.

    Deliberately looser than the grammar in :mod:`citeproof.handles.grammar`, which stays the
    authority (the audit parses every handle with it): this only catches what no handle can look
    like.
    """
    scheme, sep, rest = token.partition(":")
    if not sep or scheme.lower() not in HANDLE_SCHEMES:
        return (
            f"{token!r} does not start with a handle scheme "
            "(pmid:, pmcid:, doi:, ppr:, nct: or setid:); copy the handle exactly as issued."
        )
    body, tilde, code = rest.rpartition("~")
    if not tilde:
        return f"{token!r} has no check code (a handle ends in ~ and 8 characters); copy it whole."
    if not code:
        return f"{token!r} has an empty check code; copy the handle exactly as issued."
    if "/" not in body or body.endswith("/"):
        return f"{token!r} names no passage path (scheme:id/path~code); copy it whole."
    return None


# --------------------------------------------------------------------------------------------
# Patterns

_CODE_RE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_HANDLE_QUOTE_RE = re.compile(
    r"\[[ \t]*(?P<token>[^\s\[\]\"“”]+)[ \t]+(?:\"(?P<q1>[^\"]*)\"|“(?P<q2>[^”]*)”)[ \t]*\]"
)
_LINK_RE = re.compile(
    r"(?P<img>!?)\[(?P<label>(?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
    r"\([ \t]*<?(?P<url>[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)>?"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'))?[ \t]*\)"
)
_BRACKET_RE = re.compile(r"\[([^\[\]\n]*)\]")
_PAREN_RE = re.compile(r"\(([^()\n]*)\)")
_NUMBERS_RE = re.compile(
    r"[ \t]*\^?(\d{1,6}(?:[ \t]*[-–—][ \t]*\d{1,6})?(?:[ \t]*[,;][ \t]*\d{1,6}"
    r"(?:[ \t]*[-–—][ \t]*\d{1,6})?)*)[ \t]*"
)
_RANGE_SPLIT_RE = re.compile(r"[ \t]*[-–—][ \t]*")
_TOKEN_RE = re.compile(r"\b(?:pmid|pmcid|doi)[ \t]*:?[ \t]*\S+|\S+", re.IGNORECASE)
_TOKEN_HINT_RE = re.compile(r"\d|https?://|doi\.org", re.IGNORECASE)
_DOI_LABEL_BEFORE_RE = re.compile(r"doi[ \t]*:?[ \t]*$", re.IGNORECASE)
_QUOTE_OPEN_RE = re.compile(r"[“\"«‘]")
#: Single curly quotes are searched this far only: ’ is mostly an apostrophe, and an unbounded
#: search per ‘ would make hostile text quadratic.
_SINGLE_QUOTE_WINDOW = 2100
_CLOSERS = {"“": "”", '"': '"', "«": "»"}


def _mask(chars: list[str], start: int, end: int) -> None:
    chars[start:end] = " " * (end - start)


def _numbers(spec: str) -> list[int] | None:
    """The numbers a bracket like ``1, 3-5`` names, or None when over the cap."""
    out: list[int] = []
    for part in re.split(r"[ \t]*[,;][ \t]*", spec.strip()):
        bounds = _RANGE_SPLIT_RE.split(part)
        low, high = int(bounds[0]), int(bounds[-1])
        if low > high:
            low, high = high, low
        if high - low + 1 + len(out) > MAX_NUMBERS_PER_BRACKET:
            return None
        out.extend(n for n in range(low, high + 1) if n not in out)
    return out


def _is_year(n: int) -> bool:
    return 1800 <= n <= 2100


def classify_reference(text: str) -> Identifier | None:
    """The identifier a whole bracket/parenthesis content (or a JSON citation) names, or None."""
    if not text.strip():
        return None
    try:
        return parse_identifier(text)
    except UnknownIdentifierError:
        return None


# --------------------------------------------------------------------------------------------
# The scanner


def scan_block(
    text: str,
    start: int,
    end: int,
    lines: Sequence[tuple[int, int]],
    reference_numbers: frozenset[int] | None,
) -> BlockScan:
    """Citations, inline quotes and protected spans of the block ``text[start:end]``.

    ``lines`` are the block's content spans; anything between them (blockquote markers, line
    breaks) is ignored.  ``reference_numbers`` are the numbers the reference list defines, or
    None when the answer has no reference list.  All spans returned are absolute.
    """
    scan = BlockScan()
    chars = list(text[start:end])
    pos = start
    for ls, le in lines:
        _mask(chars, pos - start, max(pos, ls) - start)
        pos = max(pos, le)
    _mask(chars, pos - start, end - start)

    def work() -> str:
        return "".join(chars)

    def add(citation: RawCitation) -> None:
        scan.citations.append(citation)

    for m in _CODE_RE.finditer(work()):
        scan.protected.append((start + m.start(), start + m.end()))
        _mask(chars, m.start(), m.end())

    for m in _HANDLE_QUOTE_RE.finditer(work()):
        token = m.group("token")
        if not looks_like_handle(token, quoted=True):
            continue
        group = "q1" if m.group("q1") is not None else "q2"
        problem = handle_problem(token)
        if not m.group(group).strip():
            problem = problem or "The quote after the handle is empty; quote the exact words."
        add(
            RawCitation(
                start + m.start(),
                start + m.end(),
                "handle",
                "bracket",
                token,
                quote=(start + m.start(group), start + m.end(group)),
                error=ItemError("malformed_handle", problem) if problem else None,
            )
        )
        _mask(chars, m.start(), m.end())

    for m in _LINK_RE.finditer(work()):
        url = m.group("url")
        ident = classify_reference(url) if (url and not m.group("img")) else None
        if ident is not None:
            add(
                RawCitation(
                    start + m.start("url"),
                    start + m.end("url"),
                    ident.kind,
                    "link",
                    ident.key,
                    identifier=ident,
                )
            )
        scan.protected.append((start + m.start(), start + m.end()))
        _mask(chars, m.start(), m.end())

    groups: list[tuple[int, int, CitationForm]] = []
    # A bracketed number inside quotation marks is the source's own citation marker, copied
    # with the words (the matcher ignores it), not a citation of the answer's.
    quoted = find_quotes(work())
    for m in _BRACKET_RE.finditer(work()):
        content = m.group(1)
        s, e = start + m.start(), start + m.end()
        in_quote = any(a <= m.start() and m.end() <= b for a, b in quoted)
        consumed = _bracket(content, s, e, reference_numbers, add, in_quote=in_quote)
        if consumed:
            _mask(chars, m.start(), m.end())
        else:
            groups.append((s, e, "bracket"))

    for m in _PAREN_RE.finditer(work()):
        ident = classify_reference(m.group(1))
        s, e = start + m.start(), start + m.end()
        if ident is not None:
            add(RawCitation(s, e, ident.kind, "paren", ident.key, identifier=ident))
            _mask(chars, m.start(), m.end())
        else:
            groups.append((s, e, "paren"))

    if "*" in chars:
        for ch_index, ch in enumerate(chars):
            if ch == "*":
                chars[ch_index] = " "  # emphasis markers never belong to an identifier
    for s, e, ident in _bare_identifiers(work()):
        form: CitationForm = "bare"
        inner = [g for g in groups if g[0] < start + s and start + e < g[1]]
        if inner:
            form = min(inner, key=lambda g: g[1] - g[0])[2]
        add(RawCitation(start + s, start + e, ident.kind, form, ident.key, identifier=ident))

    scan.citations.sort(key=lambda c: (c.start, c.end))
    scan.protected.extend((c.start, c.end) for c in scan.citations)
    scan.quotes.extend((start + s, start + e) for s, e in find_quotes(work()))
    return scan


def _bracket(
    content: str,
    s: int,
    e: int,
    reference_numbers: frozenset[int] | None,
    add: Callable[[RawCitation], None],
    *,
    in_quote: bool = False,
) -> bool:
    """Classify one innermost bracket; True when it became a citation."""
    numbers_match = _NUMBERS_RE.fullmatch(content)
    raw_spec = numbers_match.group(1) if numbers_match is not None else None
    if raw_spec is not None and in_quote:
        return False
    if raw_spec is not None:
        numbers = _numbers(raw_spec)
        known = reference_numbers or frozenset()
        if numbers is None:
            add(
                RawCitation(
                    s,
                    e,
                    "numbered",
                    "bracket",
                    raw_spec,
                    error=ItemError(
                        "range_too_large",
                        f"[{raw_spec}] names more than {MAX_NUMBERS_PER_BRACKET} references; "
                        "cite the entries that support the claim.",
                    ),
                )
            )
            return True
        if all(_is_year(n) and n not in known for n in numbers):
            return False
        for n in numbers:
            add(RawCitation(s, e, "numbered", "bracket", str(n), number=n))
        return True
    stripped = content.strip()
    if not stripped:
        return False
    token, _, rest = stripped.partition(" ")
    quoted = rest.lstrip().startswith(('"', "“"))
    if looks_like_handle(token, quoted=quoted):
        problem = handle_problem(token)
        if problem is None and rest.strip():
            problem = (
                f"Text after the handle {token!r} is not one quoted passage; write "
                '[handle "exact words"].'
            )
        error = ItemError("malformed_handle", problem) if problem else None
        add(RawCitation(s, e, "handle", "bracket", token, error=error))
        return True
    ident = classify_reference(content)
    if ident is not None:
        add(RawCitation(s, e, ident.kind, "bracket", ident.key, identifier=ident))
        return True
    return False


def _bare_identifiers(work: str) -> list[tuple[int, int, Identifier]]:
    """Identifiers in running text with their spans (a ``doi:`` label is included)."""
    found: list[tuple[int, int, Identifier]] = []
    for token in _TOKEN_RE.finditer(work):
        chunk = token.group(0)
        if _TOKEN_HINT_RE.search(chunk) is None:
            continue
        pos = 0
        for ident in find_identifiers(chunk):
            raw = ident.raw
            at = chunk.find(raw, pos) if raw else -1
            if at < 0:
                continue
            begin, stop = at, at + len(raw)
            if ident.kind == "doi":
                # find_identifiers keeps the untrimmed candidate as raw; the canonical value
                # of a bare DOI has exactly the trimmed length (only ASCII case changes).
                stop = at + len(ident.value)
                label = _DOI_LABEL_BEFORE_RE.search(chunk, pos, at)
                if label is not None:
                    begin = label.start()
            found.append((token.start() + begin, token.start() + stop, ident))
            pos = stop
    return found


def find_quotes(work: str) -> list[tuple[int, int]]:
    """Spans of the words inside quotation marks (rules in the module docstring)."""
    quotes: list[tuple[int, int]] = []
    # The first closer found after some earlier position stays the first after any later one
    # up to it, so caching it keeps a run of unclosed openers linear instead of quadratic.
    next_close: dict[str, int] = {}
    pos = 0
    while (m := _QUOTE_OPEN_RE.search(work, pos)) is not None:
        mark = m.group(0)
        i = m.start()
        if mark == "‘":
            close = _single_close(work, i)
        else:
            cached = next_close.get(mark)
            if cached is None or (cached != -1 and cached <= i):
                cached = work.find(_CLOSERS[mark], i + 1)
                next_close[mark] = cached
            close = cached
        if close < 0:
            pos = i + 1
            continue
        if work[i + 1 : close].strip():
            quotes.append((i + 1, close))
        pos = close + 1
    return quotes


def _single_close(work: str, i: int) -> int:
    """Index of the ’ closing a ‘ at ``i``, or -1 when this ‘ is not clearly a quotation."""
    if i > 0 and work[i - 1].isalnum():
        return -1
    k = i + 1
    limit = i + _SINGLE_QUOTE_WINDOW
    while (k := work.find("’", k, limit)) >= 0:
        before_ok = k > i + 1 and not work[k - 1].isspace()
        after_ok = k + 1 >= len(work) or not work[k + 1].isalnum()
        if before_ok and after_ok:
            return k
        k += 1
    return -1
