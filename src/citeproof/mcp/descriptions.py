"""What the server tells an agent about each tool, the resource and the prompt.

An agent chooses and uses a tool from its description alone, so each one is front-loaded
(what it does, in the first sentence), says when to use it rather than its siblings, what
each verdict means, what it does *not* check, and its side effects (network use, bytes
pinned in the cache, lines written to the evidence log).  Kept apart from the code so the
wording can be read and reviewed as prose.
"""

from __future__ import annotations

from typing import Final

INSTRUCTIONS: Final = (
    "citeproof checks that a quoted passage really appears in the cited source (a DOI, PMID, "
    "PMCID, NCT number, openFDA set id, Europe PMC preprint id, URL or local file) and says "
    "where, in which version, and whether the work is retracted. Call check_quote before "
    "presenting any text as a direct quotation; use read_source to copy the source's exact "
    "words. citeproof never judges whether a passage supports a claim."
)

VERDICTS: Final = (
    "Verdicts: EXACT = the quote occurs verbatim (after normalising quotes, dashes, "
    "whitespace; case kept) — safe to present as a quotation, at the returned location. "
    "NEAR = not verbatim; near.text is the source's own wording (similarity >= 0.90) and "
    "near.diff shows what differs — quote near.text instead, and NEVER present a NEAR that "
    "carries a risk flag (numbers_differ, negation_differs) as a quote. NOT_FOUND = nothing "
    "close in the text that was checked (source.coverage says whether that was the full "
    "text or only an abstract). TOO_SHORT = under 20 characters, too short to be "
    "meaningful. NOT_CHECKABLE = there is no text to check (not open access, no abstract, "
    "unknown identifier); reason says which. UNAVAILABLE = the source could not be read "
    "(network, rate limit, timeout); nothing was concluded — report that honestly, never "
    "as NOT_FOUND. Also check flags (partial_word, ellipsis_hides_negation, "
    "match_in_references) and retraction.status (RETRACTED, CONCERN)."
)

CHECK_QUOTE: Final = (
    "Check that QUOTE occurs word for word in SOURCE and say where (offsets, section, "
    "region, PDF page), or give the closest passage and what differs. Call this before "
    "presenting any text as a direct quotation; for many quotes at once use check_quotes. "
    + VERDICTS
    + " What it does not check: whether the passage supports your claim — that is never "
    "judged (use record_support to record a person's or judge's verdict). Side effects: "
    "fetches an identifier's best legal full text (or abstract) over the network the first "
    "time and pins the bytes in the local cache, so later checks read the same bytes; asks "
    "the work's retraction status (DOI, PMID, PMCID sources); writes one line to the "
    "evidence log (with CLAIM when given) — its number is log_seq. find_source=true also "
    "searches the cache, Europe PMC and LitSense for where the words really are when the "
    "verdict is NOT_FOUND or NEAR (slower). Bad input (empty quote, malformed identifier, "
    "missing file) is a tool error saying what to change."
)

CHECK_QUOTES: Final = (
    "Check up to 100 quotes in one call, each against its own source: the same check as "
    "check_quote, one result per item in request order. An item that is bad input (empty "
    "quote, malformed identifier, missing file) gets its own error entry and does not stop "
    "the others. Use this to verify every quotation of a finished answer at once. Side "
    "effects as check_quote: network on first use of an identifier, bytes pinned in the "
    "cache, retraction status asked, one evidence-log line per checked item. Support is "
    "never judged. More than 100 items is a tool error: split the batch."
)

READ_SOURCE: Final = (
    "Return the extracted text of SOURCE (identifier or local file), LIMIT characters from "
    "START, with the blocks (section, region, PDF page) that overlap that page. This is "
    "exactly the text check_quote searches, and offsets are the same; copy the words you "
    "will quote from here, then confirm them with check_quote. Page through long documents "
    "with next_start. When no text can be had, status is UNAVAILABLE (could not be read, "
    "nothing concluded) or NOT_CHECKABLE (no text exists to read) with the reason; that is "
    "not an error. Side effects: fetches an identifier over the network the first time and "
    "pins its bytes in the cache. Writes nothing to the evidence log."
)

RESOLVE_IDENTIFIER: Final = (
    "Resolve an identifier (DOI, PMID, PMCID, NCT number, openFDA set id, PPR id, URL) to "
    "its best legally readable text and say what was found: the canonical key, the related "
    "DOI/PMID/PMCID, which service served the text, whether it is full text or only an "
    "abstract (coverage), version, sha256 of the pinned bytes, title and retrieval time. Use "
    "it to learn whether a citation is real and checkable before quoting; use read_source "
    "for the text itself. status RESOLVED: text found and pinned; UNAVAILABLE: a source "
    "could not be read, nothing concluded; NOT_CHECKABLE: every source answered and none "
    "serves text (not open access, no abstract, not found). Side effects: network on first "
    "use; pins the bytes in the cache. A malformed identifier is a tool error."
)

RETRACTION_STATUS: Final = (
    "Report whether a work (DOI, PMID or PMCID) is retracted or carries an expression of "
    "concern, asking PMC, Crossref, PubMed, Europe PMC and the local Retraction Watch "
    "snapshot; each source is listed as answered, failed or not asked. status: RETRACTED, "
    "CONCERN, NOT_RETRACTED_AS_OF (no source reports a retraction as of that date — not a "
    "guarantee) or UNVERIFIABLE (not enough sources could be read; say so). check_quote "
    "already includes this for identifier sources; use this tool for works you cite "
    "without quoting. Side effects: network requests; nothing is logged. Other identifier "
    "kinds are a tool error."
)

SEARCH_LITERATURE: Final = (
    "Search a literature database and record what it answered: europepmc, pubmed, openalex "
    "(works), litsense (PubMed sentences), clinicaltrials (trial registrations) or openfda "
    "(drug labels). Returns the hits (ids usable as check_quote sources), the hit count, "
    "the parameters sent and the sha256 of every response, and next_cursor to continue. "
    "status ok/empty is an answer; failed means the engine could not be read (reason "
    "says why) — not that nothing exists. Use it to find sources; a hit's title or sentence "
    "is not a verified quote until check_quote says EXACT. Side effects: network requests; "
    "one evidence-log line recording the search (log_seq)."
)

CITING_PAPERS: Final = (
    "List the works that cite a work (DOI, PMID, PMCID or OpenAlex W id), according to "
    "OpenAlex, with next_cursor to continue. Use it to trace how a paper was followed up or "
    "whether a retracted work is still cited. OpenAlex's list may be incomplete; failed "
    "means it could not be read. Side effects: network requests; one evidence-log line "
    "recording the search (log_seq)."
)

VERIFY_LOG: Final = (
    "Verify the evidence log: every line's hash chain, the signed head, and, given a "
    "CHECKPOINT saved earlier (signed, committing to the log's size and Merkle root), that "
    "the log still contains exactly what it held then (no rewrite, no truncation). ok is "
    "true only when nothing is wrong; problems name the first bad line. Read only: it "
    "changes nothing and uses no network."
)

RECORD_SUPPORT: Final = (
    "Record in the evidence log a person's or a named judge's verdict on whether the "
    "passage of check line SEQ supports its claim: supports, contradicts or absent. "
    "citeproof never judges support itself; this only records who said what, signed into "
    "the tamper-evident log. BY must name the person or the judge (e.g. a model name and "
    "version). Do not call this to claim support was verified unless that judge really "
    "gave the verdict. Side effect: appends one annotation line. An unknown SEQ is a tool "
    "error."
)

FIND_PASSAGES: Final = (
    "List the passages of SOURCE (paragraphs, captions, table rows, abstract sections) with a "
    "citation handle for each, ranked by BM25 against QUERY when one is given. Use it to find "
    'the exact words to quote and cite them as [handle] or [handle "exact words"]: a handle '
    "(scheme:id/path~code) carries a check code only this server's key can make, so "
    "audit_answer can prove the passage was issued here and still says what it said. Handles "
    "are issued for DOI, PMID, PMCID, PPR, NCT and openFDA set id sources; a file gets its "
    "passages without handles. Side effects: fetches and pins the source like check_quote; "
    "records every issued passage (its text and sha256) in the local handle store."
)

AUDIT_ANSWER: Final = (
    "Audit a whole answer before you present it: every citation (passage handles, [PMID 123], "
    "[PMC123], (doi:10...), URLs, numbered citations with a reference list) gets a verdict — "
    "malformed, forged (a handle whose code does not verify), unresolvable (names nothing "
    "that exists), unavailable (could not be read now; nothing is concluded), withdrawn (the "
    "handle's passage is gone), misquote (NOT_FOUND, NEAR with a risk flag, a match that "
    "starts or ends mid-word, an ellipsis hiding a negation), near_quote (NEAR without risk "
    "flags: quote the source's own wording instead), ok — with flags such as retracted, "
    "concern, version_changed, match_in_references. Each sentence is cited_ok, "
    "cited_problem, uncited or not_a_claim; the verdict is fail, incomplete, warn or pass. "
    "Fix every misquote and forged or malformed citation before presenting the answer. What "
    "it does not check: whether a source supports the sentence citing it. Side effects: "
    "fetches and pins cited works, asks retraction status, signs the report with the log "
    "key, writes one audit line to the evidence log."
)

VERIFY_REFERENCES: Final = (
    "Verify a bibliography before you present it: each reference (a citation string, or a "
    "CSL-JSON object; up to 100) is looked up by its DOI/PMID/PMCID and searched in "
    "Crossref, PubMed, OpenAlex and DataCite, and gets one verdict — unresolvable (its "
    "identifier does not exist), mismatch (the identifier is another work: see differs and "
    "suggested), unavailable (a database could not be read; nothing is concluded), "
    "not_found (no database holds such a work: likely invented), partial (the title exists "
    "but the authors, year or venue differ), ambiguous (several works match), verified — "
    "with the record compared, each field's score, and the retraction status of the work. "
    "Use it for references and reference lists; use check_quote for the words quoted from "
    "a source, and audit_answer for a whole answer. Drop or fix every reference that is not "
    "verified. What it does not check: whether the work supports the claim. Side effects: "
    "pins every record read, writes one evidence-log line per reference."
)

SOURCE_RESOURCE: Final = (
    "The extracted text of a source that was already checked or read (pinned in the local "
    "cache), by identifier, e.g. citeproof://source/pmcid:PMC123 or citeproof://source/"
    "10.1000/xyz. Reads only the cache: an identifier never fetched gives an error; call "
    "read_source or check_quote first."
)

PROMPT_DESCRIPTION: Final = (
    "How to cite with verified quotations using citeproof's tools: check before quoting, "
    "quote the source's own wording, report what could not be checked."
)

PROMPT_TEXT: Final = """\
When you write with citations, use citeproof's tools this way.

1. Before you present any text as a direct quotation (inside quotation marks, attributed \
to a source), call check_quote (or check_quotes for several) with the exact words and the \
source identifier. Pass the sentence the quote supports as claim.
2. Present a quotation only when the verdict is EXACT. Give the location it reports when \
useful.
3. When the verdict is NEAR, quote near.text — the source's own wording — not your \
version, and check it again. Never present a NEAR that carries a risk flag \
(numbers_differ, negation_differs) as a quote: the source says something different.
4. When the verdict is NOT_FOUND, do not quote. Read the source with read_source and copy \
the exact words, or paraphrase without quotation marks. If coverage is "abstract", say that \
only the abstract was checked.
5. When the verdict is UNAVAILABLE or NOT_CHECKABLE, say plainly that the quotation could \
not be verified and why (the reason field). Never report it as checked.
6. If retraction.status is RETRACTED or CONCERN, say so next to the citation.
7. citeproof checks that words occur in a source; it never checks that the source supports \
your claim. Never say that support was verified. If a person or a named judge assessed \
support, record it with record_support, naming who judged.
8. Record searches with search_literature so the search itself is on the evidence log.
"""
