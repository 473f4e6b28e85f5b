"""What the server tells an agent about each tool, the resource and the prompt.

An agent chooses and uses a tool from its description alone, so each one is front-loaded
(what it does, in the first sentence), says when to use it rather than its siblings, what
each verdict means, what it does *not* check, and its side effects (network use, bytes
pinned in the cache, lines written to the evidence log).  Kept apart from the code so the
wording can be read and reviewed as prose.
"""

from __future__ import annotations

from typing import Final

#: Every tool, in the order the server lists them (``citeproof mcp --help`` names them too).
TOOL_NAMES: Final = (
    "check_quote",
    "check_quotes",
    "read_source",
    "resolve_identifier",
    "retraction_status",
    "search_literature",
    "citing_papers",
    "verify_log",
    "record_support",
    "find_passages",
    "audit_answer",
    "verify_references",
    "resolve_handles",
    "log_checkpoint",
)
#: The resource template, in RFC 6570 syntax: ``{+identifier}`` is a reserved expansion, so
#: an identifier may hold ``/`` (a DOI) and still be one variable.
RESOURCE_TEMPLATE: Final = "citeproof://source/{+identifier}"

INSTRUCTIONS: Final = (
    "citeproof checks that a quoted passage really appears in the cited source (a DOI, PMID, "
    "PMCID, NCT number, openFDA set id, Europe PMC preprint id, URL or local file) and says "
    "where, in which version, and whether the work is retracted. Call check_quote before "
    "presenting any text as a direct quotation; use read_source to copy the source's exact "
    "words. citeproof never judges whether a passage supports a claim."
)

VERDICTS: Final = (
    "Verdicts: EXACT = verbatim (quotes, dashes, spaces normalised): quote it. NEAR = not "
    "verbatim; near.text is the source's wording, near.diff what differs: quote near.text "
    "instead, and NEVER present a NEAR with a risk flag (numbers_differ, negation_differs) "
    "as a quote. NOT_FOUND = nothing close in the text checked (source.coverage: full text "
    "or abstract). TOO_SHORT = under 20 characters. NOT_CHECKABLE = no text exists (reason "
    "says why). UNAVAILABLE = the source could not be read: nothing concluded; say so, never "
    "as NOT_FOUND. Heed flags (partial_word, ellipsis_hides_negation, match_in_references) "
    "and retraction.status (RETRACTED, CONCERN)."
)

#: Said once per tool that takes ``detail``.
_DETAIL: Final = ' detail="full": the whole published object (every retraction source, hashes).'

CHECK_QUOTE: Final = (
    "Check that QUOTE occurs word for word in SOURCE and say where (section, region, page), "
    "or give the closest passage and what differs. Call it before presenting any text as a "
    "direct quotation (many: check_quotes). "
    + VERDICTS
    + " Whether the passage supports your claim is never judged. Side effects: fetches and "
    "pins an identifier's best legal full text (or abstract) the first time; asks the "
    "retraction status; writes one evidence log line (with CLAIM), log_seq. find_source "
    "also looks for where the words really are (cache, Europe PMC, LitSense); slower."
    + _DETAIL
    + " Bad input is a tool error saying what to change."
)

CHECK_QUOTES: Final = (
    "Check up to 100 quotes in one call, each against its own source: check_quote's check, "
    "one result per item in order. A bad item (empty quote, malformed identifier, missing "
    "file) gets its own error; the others still run. Use it for every quotation of a "
    "finished answer. Side effects as check_quote, per item." + _DETAIL
)

READ_SOURCE: Final = (
    "Return LIMIT characters of SOURCE's extracted text from START, with the blocks "
    "(section, region, page) they overlap: the text check_quote searches, same offsets. "
    "Copy words to quote from here, then check them; page on with next_start. No text: "
    "status UNAVAILABLE (not read; nothing concluded) or NOT_CHECKABLE (none exists), not an "
    "error. Side effects: fetches and pins an identifier the first time."
)

RESOLVE_IDENTIFIER: Final = (
    "Resolve an identifier to its best legally readable text: canonical key, DOI/PMID/PMCID, "
    "who served it, coverage (full text or abstract), version, sha256, title. Use it to learn "
    "whether a citation is real and checkable. status RESOLVED, UNAVAILABLE (not read; "
    "nothing concluded) or NOT_CHECKABLE (no source serves text). Side effects: network and "
    "pinning on first use."
)

RETRACTION_STATUS: Final = (
    "Whether a work (DOI, PMID, PMCID) is retracted or under an expression of concern, asking "
    "PMC, Crossref, PubMed, Europe PMC and the Retraction Watch snapshot: RETRACTED, CONCERN, "
    "NOT_RETRACTED_AS_OF (none reports one as of that date) or UNVERIFIABLE (too few sources "
    "read; say so). check_quote includes it; use this for works cited without a quote. Side "
    "effects: network; nothing logged."
)

SEARCH_LITERATURE: Final = (
    "Search europepmc, pubmed, openalex, litsense (PubMed sentences), clinicaltrials or "
    "openfda (drug labels) and record it: hits (ids usable as sources), hit count, "
    "next_cursor. status ok or empty is an answer; failed means the engine could not be "
    "read (or the server is offline), not that nothing exists. A hit is not a verified quote. "
    "Side effects: network; one evidence log line (log_seq)."
)

CITING_PAPERS: Final = (
    "List the works citing a work (DOI, PMID, PMCID or OpenAlex W id), according to "
    "OpenAlex (maybe incomplete), with next_cursor: trace follow-ups, or whether a "
    "retracted work is still cited. failed means OpenAlex could not be read. Side effects: "
    "network; one evidence log line."
)

VERIFY_LOG: Final = (
    "Verify the evidence log: the hash chain, the signed head and, given a CHECKPOINT from "
    "log_checkpoint, that the log still holds exactly what it held then (no rewrite, no "
    "truncation). ok is true only when nothing is wrong; problems name the first bad line. "
    "Read only: no network."
)

RECORD_SUPPORT: Final = (
    "Record in the evidence log a person's or named judge's verdict on whether the passage "
    "of check line SEQ supports its claim (supports, contradicts, absent). citeproof never "
    "judges support; this records who said what. BY names the person or the model and "
    "version; never call it unless that judge gave the verdict. Side effect: one log line."
)

FIND_PASSAGES: Final = (
    "List SOURCE's passages (paragraphs, captions, table rows), ranked by BM25 against "
    "QUERY, each with a citation handle (scheme:id/path~code) whose code only this server "
    'makes: cite as [handle] or [handle "exact words"], and audit_answer proves it was '
    "issued here and still says the same. Files get no handles; no text is status "
    "UNAVAILABLE or NOT_CHECKABLE. Side effects: fetches and pins like check_quote; "
    "records the issued passages."
)

AUDIT_ANSWER: Final = (
    "Audit a whole answer before presenting it: each citation (handles, [PMID 123], [PMC123], "
    "(doi:10...), URLs, numbered with a reference list) gets a verdict: malformed, forged, "
    "unresolvable, mismatch (another work), unavailable (not read; nothing concluded), "
    "withdrawn, misquote (NOT_FOUND, a risky NEAR, a mid-word match, an ellipsis hiding a "
    "negation), near_quote (quote the source's wording) or ok, with flags (retracted, "
    "concern ...); each sentence cited_ok, cited_problem, uncited or not_a_claim; overall "
    "fail, incomplete, warn or pass. Fix every misquote (quote the source's own words), "
    "forged or malformed citation; unavailable is no finding: retry it. Support is not "
    "checked. Side effects: fetches and pins cited works, asks retraction status, signs the "
    "report, one evidence log line." + _DETAIL
)

VERIFY_REFERENCES: Final = (
    "Verify a bibliography: each reference (a citation string or CSL-JSON) is looked up in "
    "Crossref, PubMed, OpenAlex and DataCite: verified; ambiguous (several real works fit: "
    "keep it; candidates); partial (authors, year or venue differ); mismatch (its identifier "
    "names another work: differs, suggested); unresolvable (its identifier does not exist); "
    "not_found (no database holds it); unavailable (a database could not be read: nothing "
    "concluded; retry later, never drop it); with the work's retraction status. A flag is a "
    "lead, not a finding: check each flagged reference by hand before changing or dropping "
    "it. Side effects: pins every record read; one evidence log line each." + _DETAIL
)

RESOLVE_HANDLES: Final = (
    "Resolve citation handles (from find_passages): each is ok (the passage as issued and "
    "now; version_changed, text_changed), malformed, forged (its code fails), unavailable "
    "(not read; nothing concluded), unresolvable or withdrawn (the passage is gone). "
    "audit_answer does this for an answer's handles. Side effects: fetches and pins a "
    "handle's source the first time."
)

LOG_CHECKPOINT: Final = (
    "Sign a checkpoint of the evidence log (its size and Merkle root, signed with the log's "
    "key), as `citeproof log checkpoint` does. Keep it or give it to the user: verify_log "
    "with it later proves the log still holds exactly those entries. Side effect: signs the "
    "log's head if it has none; no network."
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
