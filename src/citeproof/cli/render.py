"""The readable terminal report of a check (rich); JSON is the contract, this is for people.

A misquote says what the source says instead: a NEAR shows the closest passage's own words
(``source says``), and a NOT_FOUND shows the closest passage below the NEAR threshold when
the command found one (``closest``, from ``service.reading.closest_wording``), or says that
nothing in the source comes close.  The cited work's retraction status is shown beside the
source, with a warning when it is retracted or under concern.

User and document text is never passed through rich markup (a quote may well contain
``[bold]`` or ``[1]``): everything is assembled from ``Text`` objects with explicit styles.

A result is rendered from the pydantic model or from the pipeline's plain result
(``models.plain``, the same fields): a check of a local file shows its report without
importing pydantic, which would cost more than the check itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, TypeAlias

from rich.console import Console
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from citeproof.models import (
        CheckResult,
        DiffOp,
        Fragment,
        Location,
        Match,
        Near,
        RetractionReport,
        SourceInfo,
        plain,
    )

    #: What :func:`render_check` reads: either form of a check result.
    Result: TypeAlias = CheckResult | plain.CheckResult

VERDICT_STYLES: Final = {
    "EXACT": "bold green",
    "NEAR": "bold yellow",
    "NOT_FOUND": "bold red",
    "TOO_SHORT": "bold magenta",
    "NOT_CHECKABLE": "bold red",
    "UNAVAILABLE": "bold blue",
}
VERDICT_MEANINGS: Final = {
    "EXACT": "the quote occurs in the source",
    "NEAR": "no exact occurrence; the closest passage differs (see below)",
    "NOT_FOUND": "nothing close enough in the text that was checked",
    "TOO_SHORT": "too short to check reliably",
    "NOT_CHECKABLE": "there was no text to check",
    "UNAVAILABLE": "the source could not be read; nothing was concluded",
}
RISK_FLAGS: Final = ("numbers_differ", "negation_differs", "case_only", "punctuation_only")
FLAG_MEANINGS: Final = {
    "numbers_differ": "a number differs between the quote and the source",
    "negation_differs": "a negation (not, no, never, without ...) is in one and not the other",
    "case_only": "only letter case differs",
    "punctuation_only": "only punctuation differs",
    "ellipsis_hides_negation": "a span skipped by the ellipsis contains a negation",
    "partial_word": "the match starts or ends inside a word",
    "match_in_references": "the passage is in the reference list, not the paper's own text",
    "match_in_front_matter": "the passage is in the front matter, not the paper's own text",
    "near_search_stopped": "the search for a close passage ran out of its work budget",
}
RETRACTION_STYLES: Final = {
    "RETRACTED": "bold red",
    "CONCERN": "bold red",
    "NOT_RETRACTED_AS_OF": "green",
    "UNVERIFIABLE": "blue",
}
CONTEXT_CHARS: Final = 60
LONG_MATCH_CHARS: Final = 200
MAX_SHOWN: Final = 10


def _flat(text: str) -> str:
    """Whitespace runs to one space, for display only (offsets refer to the real text)."""
    return " ".join(text.split())


def _label(name: str) -> Text:
    label = Text()
    label.append(f"{name:<12}", style="dim")
    return label


def _line(name: str, *parts: Text | str) -> Text:
    line = _label(name)
    for part in parts:
        line.append(part)
    return line


def _where(location: Location | plain.Location | None, start: int, end: int) -> Text:
    parts: list[str] = []
    if location is not None:
        if location.section:
            parts.append(" › ".join(location.section))
        if location.region:
            parts.append(location.region)
        if location.page is not None:
            parts.append(f"page {location.page}")
        if location.block is not None:
            parts.append(f"block {location.block}")
    parts.append(f"characters {start}–{end}")
    return Text(" · ".join(parts))


def _shorten(text: str) -> str:
    flat = _flat(text)
    if len(flat) <= 2 * LONG_MATCH_CHARS:
        return flat
    return f"{flat[:LONG_MATCH_CHARS]} … {flat[-LONG_MATCH_CHARS:]}"


def _in_context(text: str, start: int, end: int, parts: list[tuple[int, int]]) -> Text:
    """The match with some text either side; ``parts`` (ellipsis fragments) are highlighted
    alone, so the words the ellipsis skipped are visibly not part of the quote."""
    before = text[max(0, start - CONTEXT_CHARS) : start]
    after = text[end : end + CONTEXT_CHARS]
    shown = Text()
    shown.append("…" if start > CONTEXT_CHARS else "", style="dim")
    shown.append(_flat(before) + (" " if before[-1:].isspace() else ""), style="dim")
    inner = [(a, b) for a, b in parts if start <= a < b <= end] or [(start, end)]
    cursor = start
    for a, b in inner:
        if a > cursor:
            shown.append(f" {_shorten(text[cursor:a])} ", style="dim strike")
        shown.append(_shorten(text[a:b]), style="bold underline")
        cursor = b
    if cursor < end:
        shown.append(_shorten(text[cursor:end]), style="dim")
    shown.append((" " if after[:1].isspace() else "") + _flat(after), style="dim")
    if end + CONTEXT_CHARS < len(text):
        shown.append("…", style="dim")
    return shown


def _matches(console: Console, result: Result, text: str) -> None:
    listed: Sequence[Match | plain.Match] = result.matches
    parts = [
        (f.start, f.end)
        for f in result.fragments or []
        if f.start is not None and f.end is not None
    ]
    for i, match in enumerate(listed[:MAX_SHOWN], start=1):
        if result.count > 1:
            console.print(Text(f"occurrence {i} of {result.count}", style="bold"))
        console.print(_line("where", _where(match.location, match.start, match.end)))
        console.print(_line("text", _in_context(text, match.start, match.end, parts)))
    hidden = result.count - min(len(listed), MAX_SHOWN)
    if hidden > 0:
        console.print(Text(f"… and {hidden} more (all listed with --json)", style="dim"))
    if result.ambiguous:
        console.print(
            Text(
                f"note: the quote occurs {result.count} times; say which one you mean.",
                style="yellow",
            )
        )
    boundaries = result.word_boundaries
    if boundaries and (boundaries.starts_mid_word or boundaries.ends_mid_word):
        ends = [
            name
            for name, hit in (
                ("starts", boundaries.starts_mid_word),
                ("ends", boundaries.ends_mid_word),
            )
            if hit
        ]
        console.print(
            Text(
                f"warning: the match {' and '.join(ends)} inside a word, so the "
                "quote cuts the source's words.",
                style="bold red",
            )
        )


def _diff(steps: Sequence[DiffOp | plain.DiffOp], uncoloured: bool) -> Text:
    """Source words the quote lacks in red strikethrough, words only in the quote in green.

    Without colour (``NO_COLOR``, a dumb terminal) the marks are spelled out the way
    ``git diff --word-diff`` does it: ``[-source words-]{+quote words+}``.
    """
    out = Text()
    for step in steps:
        if out:
            out.append(" ")
        if step.op == "equal":
            out.append(step.source or step.quote)
            continue
        if step.source:
            out.append(f"[-{step.source}-]" if uncoloured else step.source, style="red strike")
        if step.source and step.quote and not uncoloured:
            out.append(" ")
        if step.quote:
            out.append(f"{{+{step.quote}+}}" if uncoloured else step.quote, style="green")
    return out


def _passage(console: Console, near: Near | plain.Near, heading: str) -> None:
    """The closest passage: where, the source's own words, the similarity and the diff."""
    uncoloured = console.no_color or console.color_system is None
    console.print(Text(heading, style="bold"))
    console.print(_line("where", _where(near.location, near.start, near.end)))
    console.print(_line("source says", Text(f"“{_shorten(near.text)}”")))
    console.print(_line("similarity", f"{near.similarity:.3f}"))
    console.print(_line("diff", _diff(near.diff, uncoloured)))
    legend = (
        "[-only in the source-] {+only in the quote+}"
        if uncoloured
        else "red struck: only in the source; green: only in the quote"
    )
    console.print(_line("", Text(legend, style="dim")))


def _closest(console: Console, result: Result, closest: Near | None, asked: bool) -> None:
    """For a NOT_FOUND: what the source says instead, or (when it was looked for) that
    nothing comes close."""
    if closest is not None:
        _passage(console, closest, "closest passage (below the NEAR threshold)")
        console.print(
            Text(
                "note: the quote is not in the source; what the source says is above. Quote "
                "its own words, or cite the source that has yours (--find-source looks).",
                style="yellow",
            )
        )
    elif asked and "near_search_stopped" not in result.flags:
        console.print(
            Text(
                "note: no passage of the source comes close to these words; check that this "
                "is the source you meant (--find-source looks elsewhere).",
                style="yellow",
            )
        )


def _near(console: Console, near: Near | plain.Near) -> None:
    _passage(console, near, "closest passage")
    risky = [f for f in near.flags if f in RISK_FLAGS]
    for flag in near.flags:
        console.print(
            _line(
                "flag",
                Text(flag, style="bold red"),
                Text(f"  {FLAG_MEANINGS.get(flag, '')}", style="dim"),
            )
        )
    if risky:
        console.print(
            Text(
                "warning: this NEAR has risk flags; it must not be presented as a "
                "quote. Use the source's own wording.",
                style="bold red",
            )
        )
    else:
        console.print(
            Text(
                "note: not an exact quote; if you quote it, use the source's own wording above.",
                style="yellow",
            )
        )


def _fragments(console: Console, fragments: Sequence[Fragment | plain.Fragment]) -> None:
    table = Table(title="fragments (ellipsis quote)", title_justify="left", show_edge=False)
    for column in ("#", "fragment", "verdict", "characters", "gap", "flags"):
        table.add_column(column)
    for i, f in enumerate(fragments, start=1):
        where = f"{f.start}–{f.end}" if f.start is not None else "-"
        gap = f"{f.gap_before:,}" if f.gap_before is not None else "-"
        table.add_row(
            str(i),
            Text(_flat(f.quote)),
            Text(f.verdict, style=VERDICT_STYLES.get(f.verdict, "")),
            where,
            gap,
            Text(", ".join(f.flags), style="red"),
        )
    console.print(table)


def _source(console: Console, source: SourceInfo | plain.SourceInfo) -> None:
    parts = [source.input, source.kind, f"coverage {source.coverage}"]
    if source.served_by:
        parts.append(f"served by {source.served_by}")
    console.print(_line("source", Text(" · ".join(parts))))
    if source.title:
        console.print(_line("title", Text(source.title)))
    resolved = source.resolved
    ids = [
        f"{k} {v}"
        for k, v in (("doi", resolved.doi), ("pmid", resolved.pmid), ("pmcid", resolved.pmcid))
        if v
    ]
    if ids:
        console.print(_line("ids", Text(" · ".join(ids))))
    if source.licence:
        console.print(_line("licence", Text(source.licence)))
    if source.sha256:
        console.print(_line("sha256", Text(source.sha256, style="dim")))
    if source.refresh is not None:
        if source.refresh.changed:
            note = Text(
                f"bytes changed since the earlier pin ({source.refresh.previous_sha256})",
                style="yellow",
            )
        else:
            note = Text("bytes unchanged since the earlier pin")
        console.print(_line("refresh", note))


def _retraction(console: Console, report: RetractionReport) -> None:
    shown: str = report.status
    if report.status == "NOT_RETRACTED_AS_OF" and report.as_of is not None:
        shown = f"NOT RETRACTED as of {report.as_of.isoformat()}"
    line = Text(shown, style=RETRACTION_STYLES.get(report.status, ""))
    if report.reason:
        line.append(f"  {report.reason}", style="dim")
    console.print(_line("retraction", line))
    if report.status in ("RETRACTED", "CONCERN"):
        what = "retracted" if report.status == "RETRACTED" else "under an expression of concern"
        console.print(
            Text(
                f"warning: the cited work is {what}; `citeproof retraction "
                f"{report.identifier}` lists the notices (--fail-on-retracted exits 1).",
                style="bold red",
            )
        )


def render_check(
    result: Result,
    text: str,
    console: Console | None = None,
    *,
    closest: Near | None = None,
    closest_asked: bool = False,
) -> None:
    """Print a check result for a person reading a terminal.

    ``closest`` is, for a NOT_FOUND, the closest passage below the NEAR threshold
    (``service.reading.closest_wording``): what the source says instead; ``closest_asked``
    says it was looked for, so that its absence means nothing in the source comes close.
    """
    console = console or Console(highlight=False)
    verdict = Text(f" {result.verdict} ", style=f"reverse {VERDICT_STYLES[result.verdict]}")
    verdict.append(f"  {VERDICT_MEANINGS[result.verdict]}", style="bold")
    console.print(verdict)
    console.print(_line("quote", Text(f"“{_shorten(result.quote)}”")))
    if result.reason:
        console.print(_line("reason", Text(result.reason)))
    console.print(_line("profile", result.normalisation))
    if result.matches:
        _matches(console, result, text)
    elif result.casefold_match:
        console.print(Text("note: the quote occurs if letter case is ignored.", style="yellow"))
    if result.near is not None:
        _near(console, result.near)
    elif result.verdict == "NOT_FOUND":
        _closest(console, result, closest, closest_asked)
    if result.fragments:
        _fragments(console, result.fragments)
    for flag in result.flags:
        if result.near is None or flag not in result.near.flags:
            console.print(
                _line(
                    "flag",
                    Text(flag, style="bold red"),
                    Text(f"  {FLAG_MEANINGS.get(flag, '')}", style="dim"),
                )
            )
    _source(console, result.source)
    if result.retraction is not None:
        _retraction(console, result.retraction)
    if result.searched_elsewhere is not None:
        _elsewhere(console, result)


def _elsewhere(console: Console, result: Result) -> None:
    found = result.found_elsewhere or []
    if found:
        table = Table(title="found elsewhere (verified)", title_justify="left", box=None)
        for column in ("verdict", "document", "where", "text"):
            table.add_column(column)
        for hit in found:
            verdict: str = hit.verdict
            if hit.similarity is not None:
                verdict += f" {hit.similarity:.2f}"
            where = hit.location.region if hit.location is not None else ""
            document = hit.identifier + (f"\n{_shorten(hit.title)}" if hit.title else "")
            table.add_row(
                Text(verdict, style=VERDICT_STYLES.get(hit.verdict, "")),
                Text(document),
                Text(f"{where or ''} [{hit.start}:{hit.end}] via {hit.via}"),
                Text(_shorten(hit.text)),
            )
        console.print(table)
    else:
        console.print(_line("elsewhere", Text("no other document verifiably holds these words")))
    for place in result.searched_elsewhere or []:
        detail = f"{place.state}: {place.verified} of {place.candidates} verified"
        if place.reason:
            detail += f" ({place.reason})"
        style = "yellow" if place.state != "answered" else "dim"
        console.print(_line(f"  {place.where}", Text(detail, style=style)))
