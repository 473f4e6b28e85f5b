"""One quote against a prepared text: the verdict and everything that explains it.

Order of attempts, first success wins:

1. a quote with an ellipsis (``...``, ``…``, ``[...]``, ``. . .``) is placed fragment by
   fragment: every fragment in order, each gap at most ``max_gap`` characters of the
   marker-free layer (a literal "A ... B" in the source places them too);
2. the quote as written, in the marker-free layer (citation markers removed from both
   sides); if the quote itself carries markers, they must be the source's (the same
   works cited, ``markers.cited_works``), at the same places;
3. the quote as written, in the plain t1 text (a quote that copies markers the marker
   rules do not know, or cuts one in half);
4. a quote with a bracket the source does not have is read as an editorial insertion
   (``[the drug]``) and placed as fragments, when every fragment is exact;
5. the ``t1+dehyphen`` layer, for PDF text (or when the profile asks for it): a bracket
   the source has too (``[CLS]``) must not keep a quote from it;
6. a fragment placed by its closest passage, or the closest passage of the quote (NEAR at
   or above the threshold, else NOT_FOUND), within one work budget for the check
   (``near.Budget``): a search that would overrun it reports no passage at all.

How a quote is read (its forms, its fragments) is in ``forms.py``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citeproof.match.diff import has_negation, risk_flags, word_diff
from citeproof.match.exact import Haystack, mid_word
from citeproof.match.forms import ELLIPSIS, QuoteForm, prepare_quote, split_quote
from citeproof.match.markers import cited_works
from citeproof.match.near import Budget, BudgetSpentError, Passage, closest_passage, similarity
from citeproof.match.prepare import Layer, Prepared, dehyphenate
from citeproof.match.types import (
    MIN_QUOTE_CHARS,
    FragmentMatch,
    MatchOptions,
    NearMatch,
    QuoteMatch,
    Span,
)

_MAY_CROSS_MARKER = re.compile(r"[\d\[\]()]")
MAX_CANDIDATES = 2000
MAX_BRANCH = 64
MAX_STEPS = 20000
BUDGET_REASON = (
    "the search for the closest passage stopped at its work budget before it finished, "
    "so no passage is reported: one found before the end might not be the closest"
)
BUDGET_FLAG = "near_search_stopped"
"""The flag of a NOT_FOUND whose closest-passage search ran out of budget: the quote is not
in the text as written, but whether a close passage is there was not settled."""


def find_quote(prep: Prepared, quote: str, options: MatchOptions | None = None) -> QuoteMatch:
    """Check ``quote`` against the prepared text."""
    opts = options or MatchOptions()
    q = prepare_quote(quote)
    if len(q.norm) < MIN_QUOTE_CHARS:
        return QuoteMatch(
            "TOO_SHORT",
            f"the quote has {len(q.norm)} characters after normalisation; at least "
            f"{MIN_QUOTE_CHARS} are needed for a meaningful check",
            "t1",
        )
    pieces = split_quote(quote)
    dehyphen = prep.dehyphen or opts.profile == "t1+dehyphen"
    if pieces is not None and ELLIPSIS.search(quote):
        budget = Budget.for_search(len(prep.norm.text), len(q.norm))
        # fragments first: a literal occurrence of "A ... B" would place them too
        frag = _fragments(prep, pieces, opts, budget)
        if frag is not None and frag.verdict == "EXACT":
            return frag
        hit = _exact(prep, q, opts) or (_exact_dehyphen(prep, q, opts) if dehyphen else None)
        return hit or frag or _near(prep, q, opts, False, budget)
    hit = _exact(prep, q, opts)
    if hit is not None:
        return hit
    # the budget of what follows (a quote found verbatim never prices a closest-passage search)
    budget = Budget.for_search(len(prep.norm.text), len(q.norm))
    # a bracket the source does not have: an editorial insertion
    frag = _fragments(prep, pieces, opts, budget) if pieces is not None else None
    if frag is not None and frag.verdict == "EXACT":
        return frag
    if dehyphen:
        # before a NEAR placement of fragments: "[CLS] ... Trans- former", with a bracket
        # the source has too, is the source's own words once the line-end hyphen goes
        hit = _exact_dehyphen(prep, q, opts)
        if hit is not None:
            return hit
    return frag or _near(prep, q, opts, dehyphen, budget)


# ----------------------------------------------------------------------------- exact


def _layer_span(prep: Prepared, a: int, b: int, via: Layer | None = None) -> Span:
    if via is not None:
        a, b = via.to_parent(a), via.to_parent_end(b)
    na, nb = prep.layer_to_norm(a, b)
    oa, ob = prep.norm_to_original(na, nb)
    return Span(oa, ob, na, nb)


def _norm_span(prep: Prepared, na: int, nb: int) -> Span:
    oa, ob = prep.norm_to_original(na, nb)
    return Span(oa, ob, na, nb)


def _with_markers(prep: Prepared, q: QuoteForm, a: int, b: int, span: Span) -> Span:
    """Widen a match over the source's markers where the quote begins or ends with one,
    so that the reported span covers what the quote covers."""
    text = prep.norm.text
    na, nb = span.norm_start, span.norm_end
    if q.leading_marker:
        if (
            a not in prep.deletion_points
            and (a - 1) in prep.deletion_points
            and (prep.layer.text[a - 1 : a] == " ")
        ):
            a -= 1  # the source lost " [4]" where the quote lost "[4] "
        gap_end = span.norm_start
        na = prep.layer.deleted_before(a)
        gap = text[na:gap_end].rstrip()
        if gap.endswith(q.leading_text):
            na = na + len(gap) - len(q.leading_text)  # only as much as the quote has
        while na < nb and text[na] == " ":
            na += 1
    if q.trailing_marker:
        gap_start = span.norm_end
        nb = prep.layer.deleted_after(b, len(text))
        gap = text[gap_start:nb]
        stripped = gap.lstrip()
        if stripped.startswith(q.trailing_text):
            nb = gap_start + len(gap) - len(stripped) + len(q.trailing_text)
        while nb > na and text[nb - 1] == " ":
            nb -= 1
    return _norm_span(prep, na, nb)


def _markers_agree(
    prep: Prepared, q: QuoteForm, span: Span, words: Span, points: Sequence[int]
) -> bool:
    """A quote that carries citation markers must carry the source's markers, at the same
    places: at each of ``points`` (the layer positions of the quote's inner markers) the
    source has a marker citing the same works, and the quote's leading and trailing markers
    cite the same works as the part of the source's markers that ``span`` covers beyond
    ``words`` (the match without them).  Works are compared by ``markers.cited_works``, so
    ``[62, 64]`` is not ``[62–64]``."""
    if not q.marker_numbers:
        return True
    gaps = prep.deletion_points
    layer, text = prep.layer, prep.norm.text
    for p, works in zip(points, q.marker_works, strict=True):
        if p not in gaps:
            return False
        if cited_works(text, layer.deleted_before(p), layer.to_parent(p)) != works:
            return False
    if q.leading_marker and (
        cited_works(text, span.norm_start, words.norm_start) != q.leading_works
    ):
        return False
    return not q.trailing_marker or (
        cited_works(text, words.norm_end, span.norm_end) == q.trailing_works
    )


def _placed(prep: Prepared, q: QuoteForm, a: int, b: int, points: Sequence[int]) -> Span | None:
    """The span of the quote's words at layer ``[a, b)``, widened over the source's markers
    where the quote begins or ends with one; None when the quote's markers are not the
    source's there."""
    words = _layer_span(prep, a, b)
    span = words
    if q.leading_marker or q.trailing_marker:
        span = _with_markers(prep, q, a, b, words)
    return span if _markers_agree(prep, q, span, words, points) else None


def _exact(prep: Prepared, q: QuoteForm, opts: MatchOptions) -> QuoteMatch | None:
    spans: list[Span] = []
    if q.layer:
        for p in prep.hay.find_all(q.layer):
            span = _placed(prep, q, p, p + len(q.layer), [p + x for x in q.marker_points])
            if span is not None:
                spans.append(span)
    if not spans and (prep.known_markers or _MAY_CROSS_MARKER.search(q.norm)):
        # only a quote with digits or brackets, or a text whose parser marked citations
        # (narrative ones: "as Jones and Brown showed"), can hold or cut a marker
        hits = prep.norm_hay.find_all(q.norm)
        spans = [_norm_span(prep, p, p + len(q.norm)) for p in hits]
    if not spans:
        return None
    return _found(prep, spans, opts, "t1")


def _found(
    prep: Prepared,
    spans: list[Span],
    opts: MatchOptions,
    profile: str,
    fragments: tuple[FragmentMatch, ...] | None = None,
    flags: tuple[str, ...] = (),
) -> QuoteMatch:
    first = spans[0]
    starts, ends = mid_word(prep.norm.text, first.norm_start, first.norm_end)
    all_flags = list(flags)
    if starts or ends:
        all_flags.append("partial_word")
    return QuoteMatch(
        "EXACT",
        None,
        profile,
        spans=tuple(spans[: opts.max_listed]),
        count=len(spans),
        casefold_match=True,
        starts_mid_word=starts,
        ends_mid_word=ends,
        fragments=fragments,
        flags=tuple(all_flags),
    )


def _exact_dehyphen(prep: Prepared, q: QuoteForm, opts: MatchOptions) -> QuoteMatch | None:
    dl, dhay = prep.dehyphenated
    quote_layer = dehyphenate(q.layer)
    needle = quote_layer.text
    spans: list[Span] = []
    for h in dhay.find_all(needle):
        points = [dl.to_parent(h + quote_layer.from_parent(x)) for x in q.marker_points]
        span = _placed(prep, q, dl.to_parent(h), dl.to_parent_end(h + len(needle)), points)
        if span is not None:
            spans.append(span)
    if not spans:
        return None
    return _found(prep, spans, opts, "t1+dehyphen")


# ------------------------------------------------------------------------------ near


def _near(
    prep: Prepared, q: QuoteForm, opts: MatchOptions, dehyphen: bool, budget: Budget
) -> QuoteMatch:
    casefold = bool(q.layer) and prep.lower.contains(q.layer.lower())
    try:
        near, profile = _closest(prep, q, dehyphen, opts.near_threshold, budget, casefold)
    except BudgetSpentError:
        profile = "t1+dehyphen" if dehyphen and not q.marker_numbers else "t1"
        return QuoteMatch(
            "NOT_FOUND", BUDGET_REASON, profile, casefold_match=casefold, flags=(BUDGET_FLAG,)
        )
    casefold = casefold or (near is not None and "case_only" in near.flags)
    if near is not None and near.similarity >= opts.near_threshold:
        return QuoteMatch(
            "NEAR",
            None,
            profile,
            casefold_match=casefold,
            near=near,
            flags=(),
        )
    reason = f"no passage has similarity of at least {opts.near_threshold:.2f}"
    if near is not None:
        reason += f"; the closest has {near.similarity:.2f}"
    return QuoteMatch("NOT_FOUND", reason, profile, casefold_match=casefold)


def _closest(
    prep: Prepared,
    q: QuoteForm,
    dehyphen: bool,
    good_enough: float,
    budget: Budget,
    casefold: bool | None = None,
) -> tuple[NearMatch | None, str]:
    """The closest passage, searched in the layer the quote's own form calls for: the
    plain t1 text when the quote carries citation numbers (so that they are compared),
    the dehyphenated layer for PDF text, else the marker-free layer.  A passage that
    differs from the quote only in case comes first: it is the quote's own words.
    ``casefold``, when known, says whether there is one."""
    via: Layer | None = None
    folded: Haystack | None = None
    if (
        casefold is not False
        and not q.marker_numbers
        and q.layer
        and len(q.layer) == len(q.layer.lower())
    ):
        budget.spend(len(prep.layer.text))
        hits = prep.lower.find_all(q.layer.lower(), limit=1)
        if hits:
            p = hits[0]
            passage = prep.hay.text[p : p + len(q.layer)]
            same = Passage(p, p + len(q.layer), similarity(q.layer, passage))
            span = _layer_span(prep, same.start, same.end)
            return _near_match(prep.hay.text, q.layer, same, span), "t1"
    if q.marker_numbers:
        hay, needle, profile = prep.norm_hay, q.norm, "t1"
    elif dehyphen:
        via, hay = prep.dehyphenated
        needle, profile = dehyphenate(q.layer).text, "t1+dehyphen"
    else:
        hay, needle, profile = prep.hay, q.layer, "t1"
        if len(needle) == len(needle.lower()):
            folded = prep.lower  # seeds found whatever the case
    found = closest_passage(hay, needle, good_enough, folded, budget)
    weak = found is None or found.similarity < good_enough
    if hay is prep.hay and (weak or prep.known_markers) and _MAY_CROSS_MARKER.search(q.norm):
        # the quote may keep a citation the layer lost ("(Smith et al., 2019)"): the
        # passage with the citation in place may be the closer one
        with_markers = closest_passage(prep.norm_hay, q.norm, good_enough, budget=budget)
        if with_markers is not None and (
            found is None or with_markers.similarity > found.similarity
        ):
            span = _norm_span(prep, with_markers.start, with_markers.end)
            return _near_match(prep.norm.text, q.norm, with_markers, span), profile
    if found is None:
        return None, profile
    if q.marker_numbers:
        span = _norm_span(prep, found.start, found.end)
    else:
        span = _layer_span(prep, found.start, found.end, via=via)
    return _near_match(hay.text, needle, found, span), profile


def _near_match(hay: str, needle: str, p: Passage, span: Span) -> NearMatch:
    passage = hay[p.start : p.end]
    similarity = round(p.similarity, 4)
    if similarity >= 1.0 and passage != needle:
        similarity = 0.9999  # rounding must not make a difference look like none
    return NearMatch(similarity, span, word_diff(needle, passage), risk_flags(needle, passage))


# ------------------------------------------------------------------------- fragments


@dataclass(slots=True)
class _Frag:
    """One fragment of a quote, and where it may be placed in the marker-free layer."""

    prep: Prepared
    text: str
    forms: tuple[QuoteForm, ...]
    near: NearMatch | None = None
    near_layer_span: tuple[int, int] | None = None

    def occurrences(
        self, lo: int, hi: int, backwards: bool, limit: int = MAX_BRANCH
    ) -> list[tuple[int, int]]:
        """Layer spans in ``[lo, hi)``, nearest to ``lo`` first (to ``hi`` backwards)."""
        if self.near_layer_span is not None:
            a, b = self.near_layer_span
            return [(a, b)] if lo <= a and b <= hi else []
        hay = self.prep.hay
        out: list[tuple[int, int]] = []
        for f in self.forms:
            n = f.layer
            if not n:
                continue
            if backwards:
                found = [(p, p + len(n)) for p in hay.rfind_all(n, lo, hi, limit)]
            else:
                found = [(p, p + len(n)) for p in hay.find_all(n, lo, hi, limit)]
            if f.marker_numbers:
                found = [(a, b) for a, b in found if self._markers_ok(f, a, b)]
            out.extend(found)
        out.sort(key=(lambda s: -s[0]) if backwards else (lambda s: s[0]))
        return out

    def _markers_ok(self, form: QuoteForm, a: int, b: int) -> bool:
        points = [a + x for x in form.marker_points]
        return _placed(self.prep, form, a, b, points) is not None


def _fragments(
    prep: Prepared, pieces: list[tuple[str, ...]], opts: MatchOptions, budget: Budget
) -> QuoteMatch | None:
    """A quote with ellipses: every fragment in order, at most ``max_gap`` apart; EXACT
    when each is there word for word, else NEAR when the missing ones are near (or
    NOT_FOUND, saying which fragment is not there)."""
    frags = [_Frag(prep, v[0], tuple(prepare_quote(x) for x in v)) for v in pieces]
    frags = [f for f in frags if any(x.layer for x in f.forms)]
    if not frags:
        return None
    placed = _place(prep.layer.text, frags, opts.max_gap)
    if placed is None:
        return _fragments_near(prep, frags, opts, budget)
    results, flags = _fragment_results(prep, frags, placed)
    first, last = results[0].span, results[-1].span
    assert first is not None and last is not None
    whole = Span(first.start, last.end, first.norm_start, last.norm_end)
    return _found(prep, [whole], opts, "t1", results, flags)


def _fragments_near(
    prep: Prepared, frags: list[_Frag], opts: MatchOptions, budget: Budget
) -> QuoteMatch:
    """The fragments placed once those not there word for word are placed by their closest
    passage; NOT_FOUND when one has none close enough or they still do not fit in order."""
    hay = prep.layer.text
    missing = [f for f in frags if not f.occurrences(0, len(hay), False)]
    try:
        _place_by_closest(prep, missing, opts, budget)
    except BudgetSpentError:
        return _fragments_missing(prep, frags, opts, BUDGET_REASON)
    if any(f.near is None for f in missing):
        return _fragments_missing(prep, frags, opts)
    placed = _place(hay, frags, opts.max_gap)
    if placed is None:
        return _fragments_missing(prep, frags, opts)
    results, flags = _fragment_results(prep, frags, placed)
    worst = min((f.near for f in frags if f.near), key=lambda n: n.similarity)
    casefold = prep.lower.contains(frags[0].forms[0].layer.lower())
    return QuoteMatch(
        "NEAR",
        None,
        "t1",
        spans=(),
        count=0,
        casefold_match=casefold,
        near=worst,
        fragments=results,
        flags=flags,
    )


def _place_by_closest(
    prep: Prepared, missing: list[_Frag], opts: MatchOptions, budget: Budget
) -> None:
    """Give each missing fragment (long enough to search for) its closest passage, where one
    is close enough; :class:`BudgetSpentError` when the search runs out."""
    for f in missing:
        q = f.forms[0]
        if len(q.layer) < MIN_QUOTE_CHARS:
            continue
        near, _ = _closest(prep, q, False, opts.near_threshold, budget)
        if near is not None and near.similarity >= opts.near_threshold:
            f.near = near
            f.near_layer_span = (
                prep.layer.from_parent(near.span.norm_start),
                prep.layer.from_parent(near.span.norm_end),
            )


def _fragment_results(
    prep: Prepared, frags: list[_Frag], placed: list[tuple[int, int]]
) -> tuple[tuple[FragmentMatch, ...], tuple[str, ...]]:
    """Each placed fragment's match, and the flags of the whole (an ellipsis that skips a
    negation), in order."""
    results: list[FragmentMatch] = []
    flags: list[str] = []
    prev_end: Span | None = None
    for f, (a, b) in zip(frags, placed, strict=True):
        span = _layer_span(prep, a, b)
        form = f.forms[0]
        if f.near is None and (form.leading_marker or form.trailing_marker):
            span = _with_markers(prep, form, a, b, span)
        fflags: list[str] = []
        gap = None
        if prev_end is not None:
            gap = span.start - prev_end.end
            skipped = prep.norm.text[prev_end.norm_end : span.norm_start]
            if has_negation(skipped):
                fflags.append("ellipsis_hides_negation")
        near = f.near
        results.append(
            FragmentMatch(
                f.text,
                "NEAR" if near else "EXACT",
                span,
                near.similarity if near else 1.0,
                gap,
                tuple(fflags + list(near.flags if near else ())),
            )
        )
        flags.extend(x for x in fflags if x not in flags)
        prev_end = span
    return tuple(results), tuple(flags)


def _fragments_missing(
    prep: Prepared, frags: list[_Frag], opts: MatchOptions, reason: str | None = None
) -> QuoteMatch:
    hay = prep.layer.text
    results = []
    found_all = True
    for f in frags:
        # A fragment placed by its NEAR match reports that match: ``occurrences`` would
        # return the NEAR span as if the fragment's own words were there.
        occ = f.occurrences(0, len(hay), False) if f.near is None else []
        if f.near is not None:
            results.append(
                FragmentMatch(f.text, "NEAR", f.near.span, f.near.similarity, flags=f.near.flags)
            )
        elif occ:
            span = _layer_span(prep, *occ[0])
            results.append(FragmentMatch(f.text, "EXACT", span, 1.0))
        else:
            found_all = False
            results.append(FragmentMatch(f.text, "NOT_FOUND", None, None))
    if reason is None and found_all:
        reason = (
            f"every fragment occurs, but not in order with at most {opts.max_gap} "
            "characters between them"
        )
    elif reason is None:
        reason = "a fragment of the quote does not occur in the text"
    casefold = prep.lower.contains(frags[0].forms[0].layer.lower())
    flags = (BUDGET_FLAG,) if reason == BUDGET_REASON else ()
    return QuoteMatch(
        "NOT_FOUND", reason, "t1", casefold_match=casefold, fragments=tuple(results), flags=flags
    )


def _place(hay: str, frags: list[_Frag], max_gap: int) -> list[tuple[int, int]] | None:
    """First placement (in text order) of every fragment, in order, gaps bounded.

    The longest fragment anchors the search (it has the fewest occurrences); the others
    are looked for only inside the windows the gap allows, forwards after the anchor and
    backwards before it, with backtracking.
    """
    anchor = max(range(len(frags)), key=lambda i: max(len(x.layer) for x in frags[i].forms))
    steps = 0
    chosen: list[tuple[int, int] | None] = [None] * len(frags)

    def forward(i: int) -> bool:
        nonlocal steps
        if i == len(frags):
            return backward(anchor - 1)
        prev = chosen[i - 1]
        assert prev is not None
        lo = prev[1]
        hi = lo + max_gap + max(len(x.layer) for x in frags[i].forms) + 1
        for occ in frags[i].occurrences(lo, min(hi, len(hay)), False):
            if occ[0] - lo > max_gap:
                break
            steps += 1
            if steps > MAX_STEPS:
                return False
            chosen[i] = occ
            if forward(i + 1):
                return True
        return False

    def backward(i: int) -> bool:
        nonlocal steps
        if i < 0:
            return True
        nxt = chosen[i + 1]
        assert nxt is not None
        hi = nxt[0]
        lo = max(0, hi - max_gap - max(len(x.layer) for x in frags[i].forms) - 1)
        for occ in frags[i].occurrences(lo, hi, True):
            if hi - occ[1] > max_gap:
                continue
            steps += 1
            if steps > MAX_STEPS:
                return False
            chosen[i] = occ
            if backward(i - 1):
                return True
        return False

    for occ in frags[anchor].occurrences(0, len(hay), False, MAX_CANDIDATES):
        chosen[anchor] = occ
        if forward(anchor + 1):
            return [c for c in chosen if c is not None]
        if steps > MAX_STEPS:
            break
    return None
