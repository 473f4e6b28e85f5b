"""Read an AI answer into sentences, citations, quotes and reference entries.  Pure: no I/O.

Why separate from the checks: reading the answer is the part most exposed to hostile input
(unbalanced brackets, stray quotes, megabyte lines), so it is kept free of network, disk and
clock, never raises on any text under the size cap, and records per-item problems on the item
(an over-long quote or sentence, a malformed handle) instead of rejecting the answer.

Input forms (:func:`parse_answer`):

* Markdown or plain text: the rules are in :mod:`citeproof.audit.sentences` (blocks,
  sentences, what is not a claim), :mod:`citeproof.audit.citations` (citations and quotes) and
  :mod:`citeproof.audit.reference_list` (the reference list).
* JSON claims, for pipelines that already know their claims::

      {"claims": [
        {"text": "Drug X cut mortality by 30%.",
         "citations": ["pmid:123/abstract.2~ABCD2345",
                       {"ref": "PMID 27355798", "quote": "reduced mortality"}],
         "quote": "words every citation without its own quote should contain"}
      ]}

  ``claims`` is required and is the only top-level key; each claim needs a non-empty ``text``;
  ``citations`` (default empty) holds strings or ``{"ref", "quote"}`` objects; ``quote`` is
  optional.  Unknown keys and wrong types are refused with the path of the offending value.
  Each claim becomes one sentence (no splitting: the caller chose the claim).  Spans point
  into a rendering of the claims: each claim on its own paragraph as its text, then
  `` “claim quote”`` when given, then each citation as `` [ref]`` or `` [ref "quote"]``.
  A citation that is neither a handle nor an identifier is kept with kind ``unknown``.

Quote-to-citation links:

* ``[handle "words"]`` (and a JSON citation's own quote): that citation only; such a citation
  takes no other quote.
* An inline quotation: the citations between it and the next quotation in its sentence; if
  none, those after the sentence's last quotation; then those before it; then all of the
  sentence's citations.
* A blockquote: the citations inside it (typically on its last line; they are cut from the
  quote's words when trailing); if none, those of the sentence right after it.

Limits: a quote over :data:`MAX_QUOTE_CHARS` or a claim over :data:`MAX_SENTENCE_CHARS`
carries an error; an answer over :data:`MAX_ANSWER_BYTES` of UTF-8 is a
:class:`~citeproof.errors.BadInputError`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from citeproof.audit.answer import ItemError, ParsedAnswer
from citeproof.audit.assemble import (
    MAX_ANSWER_BYTES,
    MAX_QUOTE_CHARS,
    MAX_SENTENCE_CHARS,
    Draft,
    assemble,
)
from citeproof.audit.citations import (
    RawCitation,
    classify_reference,
    find_quotes,
    handle_problem,
    looks_like_handle,
    scan_block,
)
from citeproof.audit.reference_list import find_reference_section
from citeproof.audit.sentences import Block, lead_in_end, scan_blocks, split_sentences
from citeproof.errors import BadInputError
from citeproof.models.audit import SentenceKind

__all__ = [
    "MAX_ANSWER_BYTES",
    "MAX_QUOTE_CHARS",
    "MAX_SENTENCE_CHARS",
    "parse_answer",
    "parse_claims_json",
    "parse_markdown",
]


def _check_size(text: str) -> None:
    if len(text) * 4 <= MAX_ANSWER_BYTES:
        return
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_ANSWER_BYTES:
        raise BadInputError(
            f"The answer is {size:,} bytes; the audit reads at most {MAX_ANSWER_BYTES:,}. "
            "Audit it in parts."
        )


def parse_answer(
    text: str, *, input_format: Literal["auto", "markdown", "json"] = "auto"
) -> ParsedAnswer:
    """Parse an answer.  ``auto`` reads JSON claims when the text is a JSON object with a
    ``claims`` key, and Markdown otherwise (a JSON-looking answer that fails to parse is prose).

    Raises:
        BadInputError: the answer is over the size cap, or ``json`` was asked for (or the
            object has ``claims``) and the JSON does not have the documented shape.
    """
    _check_size(text)
    if input_format == "json":
        return parse_claims_json(text)
    if input_format == "auto" and text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict) and "claims" in data:
            return parse_claims_json(text)
    return parse_markdown(text)


# --------------------------------------------------------------------------------------------
# Markdown

_PROSE: frozenset[str] = frozenset({"paragraph", "list_item", "table_row"})


def parse_markdown(text: str) -> ParsedAnswer:
    """Parse Markdown or plain text (rules in the submodules' docstrings)."""
    _check_size(text)
    blocks = scan_blocks(text)
    section = find_reference_section(text, blocks)
    numbers = section.numbers if section is not None else None
    draft = Draft()
    for block in blocks:
        if section is not None and section.start <= block.start < section.end:
            continue
        _read_block(text, block, numbers, draft)
    if section is not None:
        if section.heading is not None:
            draft.sentences.append((section.heading[0], section.heading[1], "heading"))
        for entry in section.entries:
            draft.sentences.append((entry.start, entry.end, "reference_entry"))
    return assemble(text, "markdown", draft, section)


def _read_block(text: str, block: Block, numbers: frozenset[int] | None, draft: Draft) -> None:
    if block.kind == "code":
        draft.sentences.append((block.start, block.end, "code"))
        return
    if block.kind in ("separator", "table_rule"):
        draft.sentences.append((block.start, block.end, "separator"))
        return
    scan = scan_block(text, block.start, block.end, block.lines, numbers)
    base = len(draft.citations)
    draft.citations.extend(scan.citations)
    for offset, c in enumerate(scan.citations):
        if c.quote is not None:
            qs, qe = c.quote
            draft.quotes.append((qs, qe, text[qs:qe], "handle", base + offset))
    if block.kind == "heading":
        draft.sentences.append((block.start, block.end, "heading"))
        return
    if block.kind == "table_header":
        draft.sentences.append((block.start, block.end, "table_header"))
        return
    if block.kind == "blockquote":
        draft.sentences.append((block.start, block.end, "blockquote"))
        _add_blockquote(text, block, scan.citations, draft)
        return
    cit_spans = [(c.start, c.end) for c in scan.citations]
    quotes = [q for q in scan.quotes if q[1] - q[0] <= MAX_QUOTE_CHARS]
    protected = [*scan.protected, *((s - 1, e + 1) for s, e in quotes)]
    body_start = block.start
    if block.kind == "table_row":
        pieces = [(block.start, block.end)]
    else:
        lead = lead_in_end(text, block.start, block.end)
        if lead is not None and not any(s < lead < e for s, e in protected):
            draft.sentences.append((block.start, lead, "lead_in"))
            body_start = lead
        pieces = split_sentences(text, body_start, block.end, protected, cit_spans)
    for s, e in pieces:
        draft.sentences.append((s, e, _prose_kind(text, s, e, cit_spans)))
    for qs, qe in scan.quotes:
        if qs >= body_start:
            draft.quotes.append((qs, qe, text[qs:qe], "inline", None))


def _prose_kind(
    text: str, start: int, end: int, citations: Sequence[tuple[int, int]]
) -> SentenceKind:
    """claim, or citation_only / separator / lead_in for text that asserts nothing."""
    inside = [(s, e) for s, e in citations if start <= s and e <= end]
    chars = list(text[start:end])
    for s, e in inside:
        chars[s - start : e - start] = " " * (e - s)
    rest = "".join(chars)
    if not any(ch.isalnum() for ch in rest):
        return "citation_only" if inside else "separator"
    label = rest.strip().rstrip("*_").rstrip()
    if not inside and label.endswith(":") and len(label.split()) <= 6:
        return "lead_in"
    return "claim"


def _add_blockquote(
    text: str, block: Block, citations: Sequence[RawCitation], draft: Draft
) -> None:
    """The blockquote's quote: its lines' content, minus citations at its very end."""
    end = block.end
    for c in sorted(citations, key=lambda c: c.end, reverse=True):
        trailing = c.end == end or not text[c.end : end].strip(" \t.,;:")
        if trailing and c.end <= end and c.start >= block.start:
            end = min(end, c.start)
    parts = [text[s : min(e, end)].rstrip() for s, e in block.lines if s < end]
    while parts and not parts[-1]:
        parts.pop()
    if not parts:
        return
    last = [s for s, _ in block.lines if s < end][len(parts) - 1]
    end = last + len(parts[-1])
    draft.quotes.append((block.start, end, "\n".join(parts), "blockquote", None))


# --------------------------------------------------------------------------------------------
# JSON claims

_CLAIM_KEYS = frozenset({"text", "citations", "quote"})
_CITATION_KEYS = frozenset({"ref", "quote"})


def _shape_error(path: str, problem: str) -> BadInputError:
    return BadInputError(
        f"JSON claims: {path} {problem}. Expected "
        '{"claims": [{"text": "...", "citations": ["<handle or identifier>", '
        '{"ref": "...", "quote": "..."}], "quote": "..."}]}.'
    )


def _string(value: object, path: str, *, required: bool = True) -> str:
    if not isinstance(value, str):
        raise _shape_error(path, f"must be a string, not {type(value).__name__}")
    if required and not value.strip():
        raise _shape_error(path, "must not be empty")
    return value


def _claims(text: str) -> list[tuple[str, list[tuple[str, str | None]], str | None]]:
    """Validate the JSON claims shape; each claim as (text, [(ref, quote)], claim quote)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise BadInputError(
            f"The answer is not valid JSON ({exc}); fix it or send Markdown."
        ) from None
    if not isinstance(data, dict):
        raise _shape_error("the top level", "must be an object")
    extra = sorted(set(data) - {"claims"})
    if extra:
        raise _shape_error("the top level", f"has unknown keys {extra}")
    raw_claims = data.get("claims")
    if not isinstance(raw_claims, list):
        raise _shape_error("claims", "must be a list")
    out: list[tuple[str, list[tuple[str, str | None]], str | None]] = []
    for i, claim in enumerate(raw_claims):
        path = f"claims[{i}]"
        if not isinstance(claim, dict):
            raise _shape_error(path, "must be an object")
        extra = sorted(set(claim) - _CLAIM_KEYS)
        if extra:
            raise _shape_error(path, f"has unknown keys {extra}")
        if "text" not in claim:
            raise _shape_error(path, 'has no "text"')
        claim_text = _string(claim["text"], f"{path}.text")
        quote = _string(claim["quote"], f"{path}.quote") if "quote" in claim else None
        refs = claim.get("citations", [])
        if not isinstance(refs, list):
            raise _shape_error(f"{path}.citations", "must be a list")
        cites: list[tuple[str, str | None]] = []
        for j, ref in enumerate(refs):
            cpath = f"{path}.citations[{j}]"
            if isinstance(ref, dict):
                extra = sorted(set(ref) - _CITATION_KEYS)
                if extra:
                    raise _shape_error(cpath, f"has unknown keys {extra}")
                if "ref" not in ref:
                    raise _shape_error(cpath, 'has no "ref"')
                own = _string(ref["quote"], f"{cpath}.quote") if "quote" in ref else None
                cites.append((_string(ref["ref"], f"{cpath}.ref").strip(), own))
            else:
                cites.append((_string(ref, cpath).strip(), None))
        out.append((claim_text, cites, quote))
    return out


def parse_claims_json(text: str) -> ParsedAnswer:
    """Parse JSON claims (shape and rendering in the module docstring).

    Raises:
        BadInputError: over the size cap, not JSON, or not the documented shape.
    """
    _check_size(text)
    claims = _claims(text)
    parts: list[str] = []
    draft = Draft()
    pos = 0

    def put(piece: str) -> tuple[int, int]:
        nonlocal pos
        parts.append(piece)
        pos += len(piece)
        return pos - len(piece), pos

    for i, (claim_text, cites, claim_quote) in enumerate(claims):
        if i:
            put("\n\n")
        start, _ = put(claim_text)
        for qs, qe in find_quotes(claim_text):
            draft.quotes.append((start + qs, start + qe, claim_text[qs:qe], "inline", None))
        if claim_quote is not None:
            put(" “")
            qs, qe = put(claim_quote)
            draft.quotes.append((qs, qe, claim_quote, "claim", None))
            put("”")
        for ref, own in cites:
            put(" ")
            cs, _ = put("[")
            put(ref)
            quote_span = None
            if own is not None:
                put(' "')
                quote_span = put(own)
                put('"')
            _, ce = put("]")
            draft.citations.append(_json_citation(ref, cs, ce, quote_span))
            if quote_span is not None:
                draft.quotes.append((*quote_span, own or "", "handle", len(draft.citations) - 1))
        draft.sentences.append((start, pos, "claim"))
    return assemble("".join(parts), "json", draft, None)


def _json_citation(ref: str, start: int, end: int, quote: tuple[int, int] | None) -> RawCitation:
    # The same rule as a bare bracket in Markdown: a check code, or a handle scheme with a
    # path, means a handle; "doi:10.1/x", "pmid:123" and URLs are plain identifiers.
    if "~" in ref or looks_like_handle(ref):
        problem = handle_problem(ref)
        error = ItemError("malformed_handle", problem) if problem else None
        return RawCitation(start, end, "handle", "json", ref, quote=quote, error=error)
    ident = classify_reference(ref)
    if ident is not None:
        return RawCitation(start, end, ident.kind, "json", ident.key, identifier=ident, quote=quote)
    return RawCitation(
        start,
        end,
        "unknown",
        "json",
        ref,
        quote=quote,
        error=ItemError(
            "unrecognised_citation",
            f"{ref!r} is neither a citeproof handle nor a DOI, PMID, PMCID, NCT number or URL.",
        ),
    )
