"""The parsed answer: sentences, citations, quotes and reference entries with their spans.

Why frozen dataclasses with explicit character offsets: the audit, the report and the HTML view
all point back into the answer exactly as the user gave it (Windows newlines, Markdown markers
and all), so every item records ``start``/``end`` into :attr:`ParsedAnswer.text` and the raw
text at that span (``text[start:end] == raw`` always holds).  Nothing here is computed lazily
or mutated after parsing, so one parse can be shared by every later step.

Per-item problems (an over-long quote, a malformed handle, a number with no reference entry)
are recorded as an :class:`ItemError` on that item, never raised: one bad citation must not
reject the whole answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from citeproof.identifiers import Identifier
from citeproof.models.audit import CitationForm, CitationKind, QuoteKind, SentenceKind

__all__ = [
    "CLAIM_KINDS",
    "Citation",
    "CitationForm",
    "CitationKind",
    "InputFormat",
    "ItemError",
    "ItemErrorCode",
    "ParsedAnswer",
    "Quote",
    "QuoteKind",
    "ReferenceEntry",
    "Sentence",
    "SentenceKind",
]

InputFormat = Literal["markdown", "json"]

CLAIM_KINDS: frozenset[SentenceKind] = frozenset({"claim", "blockquote"})


ItemErrorCode = Literal[
    "malformed_handle",
    "quote_too_long",
    "sentence_too_long",
    "no_reference_list",
    "no_reference_entry",
    "reference_without_identifier",
    "range_too_large",
    "duplicate_reference_number",
    "unrecognised_citation",
]


@dataclass(frozen=True, slots=True)
class ItemError:
    """A problem with one item; ``message`` says what is wrong and what would fix it."""

    code: ItemErrorCode
    message: str


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence (or non-claim segment) of the answer, in reading order."""

    index: int
    start: int
    end: int
    raw: str
    kind: SentenceKind
    #: Indexes into :attr:`ParsedAnswer.citations` whose span lies inside this sentence.
    citations: tuple[int, ...] = ()
    #: Indexes into :attr:`ParsedAnswer.quotes` whose span starts inside this sentence.
    quotes: tuple[int, ...] = ()
    error: ItemError | None = None

    @property
    def is_claim(self) -> bool:
        """Whether the audit should expect a citation for this sentence."""
        return self.kind in CLAIM_KINDS


@dataclass(frozen=True, slots=True)
class Citation:
    """One citation as written.  A bracket ``[1, 3-5]`` yields one citation per number, all
    with the bracket's span, so each can get its own verdict."""

    index: int
    start: int
    end: int
    raw: str
    kind: CitationKind
    form: CitationForm
    #: What it points to: the handle text for handles, :attr:`Identifier.key` for identifiers,
    #: the number (as text) for numbered citations, the stripped text for ``unknown``.
    target: str
    #: The canonical identifier of a plain citation; None for handles, numbered and unknown.
    identifier: Identifier | None = None
    #: For numbered citations: the number, and the index of its entry in
    #: :attr:`ParsedAnswer.references` (None when there is no such entry).
    number: int | None = None
    reference: int | None = None
    #: Indexes into :attr:`ParsedAnswer.quotes` this citation is meant to support.
    quotes: tuple[int, ...] = ()
    #: Index of the sentence that contains the citation.
    sentence: int = -1
    error: ItemError | None = None


@dataclass(frozen=True, slots=True)
class Quote:
    """Quoted words attributed to one or more citations.

    For ``inline`` and ``handle`` quotes the span is the words between the quotation marks and
    :attr:`text` equals :attr:`raw`.  For a ``blockquote`` the span runs from the first to the
    last quoted character (so :attr:`raw` still contains the ``>`` markers of later lines) and
    :attr:`text` is the lines' content joined by ``\\n``, without markers or trailing citations.
    """

    index: int
    start: int
    end: int
    raw: str
    text: str
    kind: QuoteKind
    sentence: int = -1
    citations: tuple[int, ...] = ()
    error: ItemError | None = None


@dataclass(frozen=True, slots=True)
class ReferenceEntry:
    """One entry of the reference list at the end of the answer."""

    index: int
    start: int
    end: int
    raw: str
    #: The entry's number (``[3]``, ``3.``, ``3)``, ``[^3]:``); None for an unnumbered bullet.
    number: int | None
    #: Every identifier in the entry, in order of appearance (see
    #: :func:`citeproof.identifiers.find_identifiers`).
    identifiers: tuple[Identifier, ...]
    #: Index of the entry's sentence (kind ``reference_entry``).
    sentence: int = -1
    error: ItemError | None = None


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    """Everything the audit needs to know about the answer's text, nothing about sources."""

    #: The text every span points into: the answer as given, or for JSON claims the rendering
    #: described in :mod:`citeproof.audit.parse`.
    text: str
    input_format: InputFormat
    sentences: tuple[Sentence, ...]
    citations: tuple[Citation, ...]
    quotes: tuple[Quote, ...]
    references: tuple[ReferenceEntry, ...]
    #: Start and end of the reference list (heading included), or None when there is none.
    reference_section: tuple[int, int] | None = None
