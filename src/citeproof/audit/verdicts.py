"""Per-citation verdicts, sentence statuses, metrics and the overall verdict.  Pure: no I/O.

Why apart from the run: the rules that decide whether an answer passes are what a pipeline is
gated on, so they take plain data (the parser's items, a handle status, a fetch failure, a
check result) and return plain data, and are tested exhaustively on their own.  The run
(:mod:`citeproof.audit.run`) only gathers those inputs.

Per citation, the FIRST that applies (docs/audit.md, the audit contract):

``malformed``
    the citation as written is broken: a handle that does not parse, a JSON citation that is
    neither handle nor identifier, a number range over the cap, an over-long quote or an
    over-long sentence (the item's own error; never a rejection of the whole answer), an
    empty quote, or an identifier no service may be asked about (an unsafe URL).
``forged``
    a handle whose check code does not verify.
``unresolvable``
    it names nothing that exists: a number with no reference entry (or no reference list),
    an entry without an identifier, or an identifier for which every service that was asked
    answered and none knew the work (no other identifier of it was learnt on the way).  An
    entry that names nothing that can be looked up at all (``Halloway2021``, "Smith
    2019", ``doi:10.``: no identifier, and no title or words to search for) is not one:
    nothing could be checked, so the citation is ``unavailable``
    (:func:`from_entry_without_identifier`), never counted as fabricated.
``mismatch``
    the identifier exists but names another work than the citation states: the reference
    entry's title (and authors, year) are another work's (see ``citeproof.refs``), or the
    citing sentence names an author or year ("Smith et al. (2019)") the record does not
    have.  An entry without an identifier is searched for instead of being unresolvable:
    the work found is checked as if the entry had named it (flag ``reference_partial`` when
    only the title matched), and nothing found makes the citation unresolvable.
``unavailable``
    the source could not be read now (network, rate limit, ``--offline`` without a pin), or
    the work exists but no text may be read here and there is a quote to check, or the quote
    was not in an abstract/landing page while the full text could not be read (flag
    ``not_full_text``): nothing is concluded about the quote.
``withdrawn``
    the handle was issued here but its passage is gone from the current document.
``misquote``
    NOT_FOUND; NEAR with a risk flag (``numbers_differ``, ``negation_differs``,
    ``case_only``, ``punctuation_only``); an exact match that starts or ends mid-word
    (``partial_word``); an ellipsis whose gap hides a negation (``ellipsis_hides_negation``).
``near_quote``
    NEAR without risk flags; also a quote under 20 characters (too short for the matcher,
    flag ``short_quote``) whose words are not in the source.
``ok``
    the quote is there (EXACT), or there is no quote and the cited work resolves.  A citation
    without a quote being ``ok`` says the work exists, NOT that it supports the sentence:
    citeproof never judges support.

The overall verdict: ``fail`` when any citation's verdict or flag is in ``fail_on`` (default:
forged, malformed, unresolvable, mismatch, misquote, retracted; ``retracted`` counts only when
unacknowledged, i.e. neither the sentence nor the cited reference entry mentions a
retraction); else ``incomplete`` when any citation is ``unavailable``; else ``warn`` for an
uncited claim or any other verdict than ``ok`` (``near_quote``, ``withdrawn``) or a
``concern``; else ``pass``.  ``fail_on`` may also name ``uncited``, ``near_quote``,
``withdrawn``, ``unavailable`` or any flag.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from citeproof.errors import BadInputError
from citeproof.models.audit import VERDICTS, CitationVerdict, OverallVerdict, SentenceStatus
from citeproof.refs.listed import parse_reference_string

if TYPE_CHECKING:
    from citeproof.audit.answer import ItemError
    from citeproof.models import CheckResult
    from citeproof.models.handle import HandleStatus

__all__ = [
    "DEFAULT_FAIL_ON",
    "FAIL_ON_CHOICES",
    "FLAGS",
    "NOTHING_TO_LOOK_UP",
    "RISK_FLAGS",
    "VERDICTS",
    "CitationVerdict",
    "Outcome",
    "OverallVerdict",
    "SentenceStatus",
    "acknowledges_retraction",
    "because",
    "from_check",
    "from_entry_without_identifier",
    "from_failure",
    "from_handle",
    "from_item_error",
    "handle_flags",
    "names_nothing",
    "overall_verdict",
    "parse_fail_on",
    "rate",
    "sentence_status",
    "sentences",
    "short_quote",
    "worst",
]


RISK_FLAGS: Final = frozenset(
    {"numbers_differ", "negation_differs", "case_only", "punctuation_only"}
)
#: Every flag a citation can carry (the contract's, then citeproof's own additions).
FLAGS: Final[tuple[str, ...]] = (
    "numbers_differ",
    "negation_differs",
    "case_only",
    "punctuation_only",
    "partial_word",
    "ellipsis_hides_negation",
    "retracted",
    "concern",
    "version_changed",
    "preprint",
    "match_in_references",
    "found_elsewhere",
    # additions: see docs/audit.md
    "match_in_front_matter",
    "not_full_text",
    "short_quote",
    "retraction_acknowledged",
    "text_changed",
    "reference_partial",
)
DEFAULT_FAIL_ON: Final[tuple[str, ...]] = (
    "forged",
    "malformed",
    "unresolvable",
    "mismatch",
    "misquote",
    "retracted",
)
FAIL_ON_CHOICES: Final = frozenset({*VERDICTS, *FLAGS, "uncited"}) - {"ok"}

#: Parser item errors that mean the citation names nothing (the rest mean it is broken).
_UNRESOLVABLE_ERRORS: Final = frozenset(
    {"no_reference_list", "no_reference_entry", "reference_without_identifier"}
)
_PARTIAL_COVERAGE: Final = frozenset({"abstract", "page"})
_RETRACT_RE = re.compile(r"retract", re.IGNORECASE)


#: Words that open a sentence and are never names: lower-cased where another step's reason
#: follows the audit's own words after a colon ("...: the entry names ...").
_COMMON_OPENERS: Final = frozenset(
    {"The", "No", "A", "An", "This", "That", "It", "Its", "Every", "Each", "None", "Nothing"}
)
#: A reason's first word when it is a plain lower-case word (not ``doi:10...``, ``pmc.1``).
_PLAIN_WORD: Final = re.compile(r"[a-z]+(?![\w:/-]|\.\w)")


def _full_stop(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def sentences(*parts: str | None) -> str:
    """A reason that joins the audit's words with another step's (a reference check's, a
    fetch's), each part its own sentence: the first begins as the audit's reasons do (lower
    case, as in "the quote is not in the cited source."), every later one with a capital,
    and each ends in one full stop.  Never "... and The entry names ...": a sentence of
    another step glued into one of the audit's."""
    said: list[str] = []
    for part in (p.strip() for p in parts if p and p.strip()):
        if said and _PLAIN_WORD.match(part):
            part = part[0].upper() + part[1:]
        said.append(_full_stop(part))
    return " ".join(said)


def because(lead: str, reason: str | None) -> str:
    """``lead``, then after a colon another step's ``reason`` for it, as one sentence ending
    in one full stop: "no service knows this work: NCBI has no such PMCID."  A reason that
    opens with a capitalised common word ("The entry ...") is lower-cased to follow the
    colon; a name ("Europe PMC ...") keeps its capital."""
    reason = (reason or "").strip()
    if not reason:
        return _full_stop(lead)
    first = reason.split(" ", 1)[0]
    if first in _COMMON_OPENERS:
        reason = reason[0].lower() + reason[1:]
    return _full_stop(f"{lead}: {reason}")


@dataclass(frozen=True, slots=True)
class Outcome:
    """A verdict with its flags and the sentence that says why."""

    verdict: CitationVerdict
    flags: tuple[str, ...] = ()
    reason: str | None = None


def worst(outcomes: Iterable[Outcome]) -> Outcome:
    """The outcome whose verdict comes first in :data:`VERDICTS` (the first on a tie)."""
    ranked = sorted(enumerate(outcomes), key=lambda io: (VERDICTS.index(io[1].verdict), io[0]))
    if not ranked:
        raise ValueError("worst() of no outcomes")
    return ranked[0][1]


def from_item_error(error: ItemError) -> Outcome:
    """The verdict for a citation the parser already found a problem with."""
    verdict: CitationVerdict = "unresolvable" if error.code in _UNRESOLVABLE_ERRORS else "malformed"
    return Outcome(verdict, (), error.message)


#: Why a citation whose reference entry names nothing that can be looked up is unavailable.
NOTHING_TO_LOOK_UP: Final = (
    "the reference names nothing that can be looked up: no DOI, PMID, PMCID or URL, and no "
    "title or other words to search for; add its DOI, or its authors, title and year"
)


def names_nothing(entry: str) -> bool:
    """Whether a reference entry, as written (its list marker included), names nothing that
    can be looked up: no identifier, no title, no words a search could find a work by
    (``citeproof.refs.stated.StatedReference.is_empty``)."""
    return parse_reference_string(entry).is_empty


def from_entry_without_identifier(entry: str) -> Outcome | None:
    """The verdict for a citation of an entry without an identifier that names nothing that
    can be looked up (``Halloway2021``): ``unavailable``, since nothing could be checked and
    saying it names nothing that exists would accuse the answer of a fabrication it may not
    have made; None for an entry that states something (it is searched, or unresolvable)."""
    if not names_nothing(entry):
        return None
    return Outcome("unavailable", (), _full_stop(NOTHING_TO_LOOK_UP))


def from_handle(status: HandleStatus) -> Outcome | None:
    """The verdict a handle's resolution decides, or None when it resolved (``ok``): the
    quote, if any, decides next.  ``withdrawn`` and ``ok`` carry ``version_changed`` when
    the document's bytes changed since the passage was issued, and ``text_changed`` when the
    passage's own words did."""
    flags = _handle_flags(status)
    if status.status == "ok":
        return None
    if status.status == "malformed":
        return Outcome("malformed", (), because("the handle is malformed", status.reason))
    return Outcome(status.status, flags, status.reason)


def _handle_flags(status: HandleStatus) -> tuple[str, ...]:
    flags: list[str] = []
    if status.version_changed or status.text_changed:
        flags.append("version_changed")
    if status.text_changed:
        flags.append("text_changed")
    return tuple(flags)


def handle_flags(status: HandleStatus) -> tuple[str, ...]:
    """The flags an ``ok`` handle adds to its quote's outcome."""
    return _handle_flags(status)


def from_failure(kind: str, reason: str, ids: Mapping[str, str], *, has_quote: bool) -> Outcome:
    """The verdict for a source that gave no text (a :class:`~citeproof.loading.pins.FetchFailure`).

    ``unavailable`` failures stay unavailable.  ``not_checkable`` means every service asked
    answered: when none of them knew another identifier of the work, it does not exist
    (``unresolvable``); when they did, the work exists but its text cannot be read here, so
    a citation without a quote is ``ok`` and one with a quote is ``unavailable``.
    """
    if kind == "unavailable":
        return Outcome("unavailable", (), reason)
    if len([v for v in ids.values() if v]) <= 1:
        return Outcome("unresolvable", (), because("no service knows this work", reason))
    if has_quote:
        return Outcome(
            "unavailable",
            (),
            because(
                "the work exists but no text of it can be read here, so the quote was not checked",
                reason,
            ),
        )
    return Outcome("ok", (), "the work exists (no text could be read; there was no quote).")


def from_check(result: CheckResult) -> Outcome:
    """The quote verdict from a check object (EXACT, NEAR, NOT_FOUND, NOT_CHECKABLE,
    UNAVAILABLE; TOO_SHORT is decided by :func:`short_quote` before the matcher).

    One small rule per matcher verdict, as sigstore's Merkle verifiers are one check each:
    a new matcher verdict is a new rule, never another branch inside an old one."""
    flags = _check_flags(result)
    if result.verdict == "EXACT":
        return _from_exact(result, flags)
    if result.verdict == "NEAR":
        return _from_near(result, flags)
    if result.verdict == "NOT_FOUND":
        return _from_not_found(result, flags)
    return Outcome("unavailable", _tuple(flags), result.reason or "the quote could not be checked.")


def _check_flags(result: CheckResult) -> list[str]:
    """The audit flags a check carries: its own, ``found_elsewhere``, its fragments'."""
    flags = [f for f in result.flags if f in FLAGS]
    if result.found_elsewhere:
        flags.append("found_elsewhere")
    for fragment in result.fragments or ():
        flags.extend(f for f in fragment.flags if f in FLAGS and f not in flags)
    return flags


def _from_exact(result: CheckResult, flags: list[str]) -> Outcome:
    """EXACT holds unless the match cuts a word or its ellipsis hides a negation."""
    bounds = result.word_boundaries
    mid_word = bounds is not None and (bounds.starts_mid_word or bounds.ends_mid_word)
    if mid_word and "partial_word" not in flags:
        flags = [*flags, "partial_word"]
    if "partial_word" in flags:
        return Outcome(
            "misquote",
            _tuple(flags),
            "the quote matches only part of a word in the source (it starts or ends "
            "mid-word), so it changes what the source says.",
        )
    if "ellipsis_hides_negation" in flags:
        return Outcome(
            "misquote",
            _tuple(flags),
            "the ellipsis skips a negation ('not', 'no', 'never' ...), so the quote can "
            "reverse what the source says.",
        )
    return Outcome("ok", _tuple(flags), None)


def _from_near(result: CheckResult, flags: list[str]) -> Outcome:
    """NEAR is a misquote when the difference can change the meaning (a risk flag, a
    hidden negation, a cut word), else a near quote; the near passage's flags come first."""
    near_flags = list(result.near.flags) if result.near is not None else []
    flags = [*near_flags, *(f for f in flags if f not in near_flags)]
    risky = sorted(RISK_FLAGS.intersection(near_flags))
    similarity = result.near.similarity if result.near is not None else None
    shown = f" (similarity {similarity:.2f})" if similarity is not None else ""
    if risky or "ellipsis_hides_negation" in flags or "partial_word" in flags:
        why = ", ".join(risky) or ", ".join(
            f for f in ("ellipsis_hides_negation", "partial_word") if f in flags
        )
        return Outcome(
            "misquote",
            _tuple(flags),
            f"the source's closest wording{shown} differs in a way that changes meaning "
            f"({why}); it must not be presented as a quote.",
        )
    return Outcome(
        "near_quote",
        _tuple(flags),
        f"the source's wording differs slightly{shown}; quote it exactly.",
    )


def _from_not_found(result: CheckResult, flags: list[str]) -> Outcome:
    """NOT_FOUND is a misquote only against the full text: a quote missing from an abstract
    or a landing page may be in the text that could not be read (principles: a fallback
    text can confirm a quote, never deny it)."""
    coverage = result.source.coverage
    if coverage in _PARTIAL_COVERAGE:
        return Outcome(
            "unavailable",
            _tuple([*flags, "not_full_text"]),
            f"the quote is not in the {coverage} that could be read, and the "
            "full text could not be: nothing is concluded about it.",
        )
    return Outcome(
        "misquote", _tuple(flags), result.reason or "the quote is not in the cited source."
    )


def short_quote(found: bool) -> Outcome:
    """A quote under the matcher's 20 characters: found verbatim (after normalisation) is
    ``ok``; otherwise ``near_quote``, a warning, since such words are as often scare quotes
    or a term as a quotation, and too short to be evidence either way."""
    if found:
        return Outcome("ok", ("short_quote",), None)
    return Outcome(
        "near_quote",
        ("short_quote",),
        "the quoted words (under 20 characters) are not in the source verbatim; too short "
        "to check as a quotation.",
    )


def _tuple(flags: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(flags))


def acknowledges_retraction(*texts: str | None) -> bool:
    """Whether the writer says the work is retracted (the sentence or its reference entry
    mentions 'retract...'): citing a retracted work to discuss its retraction is fine."""
    return any(t is not None and _RETRACT_RE.search(t) is not None for t in texts)


def sentence_status(is_claim: bool, outcomes: Sequence[Outcome]) -> SentenceStatus:
    """cited_ok when every citation is ``ok`` with no concern and no unacknowledged
    retraction; cited_problem otherwise; without citations, uncited (a claim) or
    not_a_claim."""
    if outcomes:
        if all(o.verdict == "ok" and not _warns(o.flags) for o in outcomes):
            return "cited_ok"
        return "cited_problem"
    return "uncited" if is_claim else "not_a_claim"


def parse_fail_on(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """The fail_on set from a comma list or names; None gives :data:`DEFAULT_FAIL_ON`.

    Raises:
        BadInputError: a name that is neither a citation verdict, a flag nor ``uncited``.
    """
    if value is None:
        return DEFAULT_FAIL_ON
    names = value.split(",") if isinstance(value, str) else list(value)
    cleaned = [n.strip().lower() for n in names if n.strip()]
    unknown = [n for n in cleaned if n not in FAIL_ON_CHOICES]
    if unknown:
        raise BadInputError(
            f"--fail-on: {', '.join(repr(n) for n in unknown)} is not a citation verdict or "
            f"flag; choose from {', '.join(sorted(FAIL_ON_CHOICES))}."
        )
    return tuple(dict.fromkeys(cleaned))


def overall_verdict(
    outcomes: Sequence[Outcome],
    uncited_claims: int,
    fail_on: Iterable[str],
) -> OverallVerdict:
    """fail > incomplete > warn > pass (rules in the module docstring).

    A ``retracted`` flag next to ``retraction_acknowledged`` is ignored: citing a retracted
    work while saying it is retracted is not a problem.
    """
    fail = set(fail_on)
    for o in outcomes:
        if o.verdict in fail:
            return "fail"
        flags = set(o.flags)
        if "retraction_acknowledged" in flags:
            flags.discard("retracted")
        if fail.intersection(flags):
            return "fail"
    if uncited_claims and "uncited" in fail:
        return "fail"
    if any(o.verdict == "unavailable" for o in outcomes):
        return "incomplete"
    if uncited_claims or any(o.verdict != "ok" or _warns(o.flags) for o in outcomes):
        return "warn"
    return "pass"


def _warns(flags: Sequence[str]) -> bool:
    if "concern" in flags:
        return True
    return "retracted" in flags and "retraction_acknowledged" not in flags


def rate(part: int, whole: int) -> float | None:
    """part / whole rounded to 4 places, or None when there is nothing to divide."""
    return round(part / whole, 4) if whole else None
