"""What differs between a quote and the source's own wording, and which differences are
risky: a NEAR whose numbers or negations differ says something the source does not.

Flags:

* ``numbers_differ``: the sequence of numeric tokens differs — any digit, decimal point,
  sign, comparison (``< > <= >= = ±``), percent or unit attached to a number, or a number
  written as a word (``three``, ``twice``);
* ``negation_differs``: the sequence of negating words differs (``not``, ``no``,
  ``never``, ``without``, ``n't`` contractions, ``non-`` ...);
* ``case_only``: equal when case is ignored;
* ``punctuation_only``: equal when punctuation and spacing are ignored, and no number
  differs (``1.5`` against ``15`` differs only in punctuation, but it is a number).
"""

from __future__ import annotations

import re

from citeproof.match.types import DiffOpName, DiffStep

_UNITS = (
    "%|‰|°[CF]?|K|mg|g|kg|µg|μg|ug|ng|pg|mL|ml|L|l|dL|dl|µL|μL|uL|mmol|µmol|μmol|nmol|mol|"
    "M|mM|µM|μM|nM|pM|h|hr|hrs|min|s|sec|ms|d|days?|wk|weeks?|mo|months?|y|yr|yrs|years?|"
    "cm|mm|m|km|µm|μm|nm|Hz|kHz|MHz|kDa|Da|bp|kb|Mb|IU|U|mmHg|kcal|cal|J|kJ|W|V|mV|A|mA|"
    "x|fold|times|percent|ppm|ppb"
)
_NUMERIC = re.compile(
    r"(?P<cmp>[<>≤≥=±])|"
    r"(?P<num>[-+]?\d+(?:[.,·]\d+)*)(?:\s?(?P<unit>" + _UNITS + r")(?![\w]))?"
)
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty "
    "sixty seventy eighty ninety hundred thousand million billion half quarter third "
    "once twice thrice double triple single dozen".split()
)
_NEGATIONS = frozenset(
    "not no never neither nor none nobody nothing nowhere without cannot lack lacks "
    "lacked lacking absent absence fail fails failed unable non".split()
)
#: Words that start with "non" without negating what follows.
_NOT_NON_PREFIXED = frozenset(
    "nonetheless nonce nonagenarian nonagenarians nonane nonanoic nonary nonillion".split()
)
_WORDS = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_NOT_WORD = re.compile(r"[\W_]+")


def words(s: str) -> list[str]:
    return s.split()


def word_diff(quote: str, source: str) -> tuple[DiffStep, ...]:
    """Word-level edit script from the source's wording to the quote."""
    from rapidfuzz.distance import Levenshtein  # only NEAR results have a diff: start-up

    qw, sw = words(quote), words(source)
    steps: list[DiffStep] = []
    for op in Levenshtein.opcodes(sw, qw):
        tag: DiffOpName = op.tag  # type: ignore[assignment]
        steps.append(
            DiffStep(
                tag,
                " ".join(qw[op.dest_start : op.dest_end]),
                " ".join(sw[op.src_start : op.src_end]),
            )
        )
    return tuple(steps)


def numeric_tokens(s: str) -> list[str]:
    out: list[str] = []
    for m in _NUMERIC.finditer(s):
        if m.group("cmp"):
            out.append(m.group("cmp"))
        else:
            num = m.group("num")
            unit = m.group("unit")
            out.append(num + (" " + unit if unit else ""))
    out.extend(w for w in _WORDS.findall(s.lower()) if w in _NUMBER_WORDS)
    return out


def negation_tokens(s: str) -> list[str]:
    """The negating words of ``s``, one token per word.

    A ``non`` prefix gives the token ``non`` however it is written (``non-smokers`` is split
    at the hyphen into ``non`` and ``smokers``; ``nonsmokers`` is one word), so a quote that
    only hyphenates differently is not a changed negation; ``nonetheless`` and the like are
    not negations at all.
    """
    out = []
    for w in _WORDS.findall(s.lower()):
        if w in _NEGATIONS or w.endswith("n't"):
            out.append(w)
        elif w.startswith("non") and len(w) > 4 and w not in _NOT_NON_PREFIXED:
            out.append("non")
    return out


def risk_flags(quote: str, source: str) -> tuple[str, ...]:
    """The flags that apply to a quote given as ``quote`` where the source says ``source``."""
    flags: list[str] = []
    if numeric_tokens(quote) != numeric_tokens(source):
        flags.append("numbers_differ")
    if negation_tokens(quote) != negation_tokens(source):
        flags.append("negation_differs")
    if quote != source and quote.casefold() == source.casefold():
        flags.append("case_only")
    if (
        quote != source
        and "numbers_differ" not in flags
        and _NOT_WORD.sub("", quote) == _NOT_WORD.sub("", source)
    ):
        flags.append("punctuation_only")  # never for 1.5 against 15: that is a number
    return tuple(flags)


def has_negation(s: str) -> bool:
    return bool(negation_tokens(s))
