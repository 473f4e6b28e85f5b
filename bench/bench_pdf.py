"""How PDFs read against the text others extracted from them: EXACT rate and regions.

Why this exists: a quote check against a PDF is only as good as the text citeproof reads out
of it.  The shared corpus has real article PDFs whose text other tools extracted (GROBID TEI
and the S2ORC JSON made from it for ``N18-3011.pdf``, CERMINE's full text for the Hindawi
article).  Every body sentence of that ground truth is a quote a reader could copy from the
paper, so each one is checked with ``citeproof.check(sentence, document)`` and should come
back EXACT, located in the ``body`` region (abstract sentences in ``abstract``).

The ground truth is other software's output, with its own artefacts, which are not citeproof
misses.  A sentence that is not EXACT as written is tried again with the ground truth's
known artefacts undone (``REPAIRS``: each has a category and a one-line justification, and
the fewest that make the sentence EXACT are reported); a sentence found that way is counted
under ``truth≠pdf``, never silently: the categories are counted in the report and every
such sentence is listed with ``--verbose``.  A repair only rewrites the ground truth towards
what the PDF shows (a footnote number GROBID wrote as a word, GROBID's token spacing, a
caption GROBID pulled into a sentence ...) and the sentence still has to be found EXACT, so
a repair cannot make citeproof's text right where it is wrong.  Whatever stays not EXACT is a
miss, listed with its verdict and flags.  Likewise a sentence found in another region than
the ground truth says is wrong unless the PDF itself shows the ground truth misplaced it
(GROBID puts some footnotes in the body: the bench measures with pdfium that the words are
set in small print), which is reported apart.

Measured for every PDF with ground truth (``--quick``: every third sentence):

* ``exact%``: ground-truth body sentences found EXACT, as written or with a ground-truth
  artefact undone, over all body sentences (target ``EXACT_TARGET``);
* ``region%``: sentences found (body and abstract) whose first match is in the expected
  region, over those found, ground-truth misplacements left out (target 100%).

Then the cases of issues 24 and 22 (``cases``): each layout that broke a real paper's text
(a superscript glued to the next word, a soft hyphen left in a word, a page-one side column
of affiliations, a running head amid page one's columns, a table or figure inside a
sentence, a long reference list whose entries differ only in digits ...), on the corpus
PDFs where it occurs and on an invented PDF that ``tests/pdfgen.py`` builds at run time.
Each case lists quotes that must be EXACT in a given region, text the Document must (or
must not) hold, blocks' regions, and for reference lists the entries read and the
problems said; a case passes when every check holds (target: all).

The corpus (``../shared/corpus`` next to the repository, or ``--shared DIR``) is read in
place, never copied.  Exit status: 0 when every target is met, 1 when one is missed, 2 when
the corpus is missing (0 with ``--quick`` unless ``--require-shared``, as bench_match does).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SHARED = REPO_ROOT.parent / "shared"
EXACT_TARGET = 0.99
REGION_TARGET = 1.0
MIN_CHARS = 25
"""Sentences shorter than this are not quotes a check would judge (the matcher answers
TOO_SHORT under 20 normalised characters); they are counted, not checked."""
QUICK_STRIDE = 3
SMALL_PRINT = 0.88
"""Glyphs set at most this fraction of the document's most common size are small print."""

# --- ground truth ---------------------------------------------------------------------

_TEI = "{http://www.tei-c.org/ns/1.0}"
_ABBREVIATIONS = frozenset(
    "al e.g i.e cf vs fig figs eq eqs no nos vol pp dr mr mrs ms st approx resp ca".split()
)
_BOUNDARY = re.compile(r"(?<=[.!?])[\"”’')\]]*(?:\s+\d{1,2}(?=\s))?\s+(?=[\"“‘(]?[A-Z])")
"""A sentence end: ``. `` before a capital, taking in a closing quote and a footnote
number written as a word (``context. 1 We``), which stays with the sentence it ends."""
_GAP = "\x00"
"""Stands for a place where GROBID dropped an element's text (two blanks in a row)."""


@dataclass(frozen=True, slots=True)
class Sentence:
    """One ground-truth sentence, as written, with the region it belongs to.

    ``mended`` is the sentence with GROBID's citation markup mended (see ``_mend_tei``),
    ``gapped`` with an ellipsis where GROBID dropped text; None when they do not differ.
    """

    text: str
    region: str
    truth: str
    mended: str | None = None
    gapped: str | None = None
    footnotes: frozenset[str] = frozenset()
    """Numbers written as words in the sentence that are footnote numbers (see
    ``_footnote_sequence``)."""


@dataclass(slots=True)
class Truth:
    """One PDF and one ground truth of its text."""

    pdf: Path
    name: str
    sentences: list[Sentence]
    short: int = 0
    formulas: int = 0
    """Paragraphs not checked because GROBID marks them as display formulas."""
    tei: TeiFacts | None = None


@dataclass(frozen=True, slots=True)
class TeiFacts:
    """What the TEI knows and S2ORC JSON (made from that TEI) lost: which paragraphs are
    formulas or footnotes, and each sentence's mended forms (by skeleton)."""

    formulas: frozenset[str]
    notes: frozenset[str]
    mended: dict[str, tuple[str | None, str | None]]


def squash(text: str) -> str:
    return " ".join(text.split())


def split_sentences(paragraph: str) -> Iterator[str]:
    """Sentence ends followed by a capital, except after an abbreviation or an initial."""
    paragraph = squash(paragraph)
    start = 0
    for m in _BOUNDARY.finditer(paragraph):
        before = paragraph[start : m.start()].rsplit(" ", 1)[-1].rstrip(".!?\"”’')]").lower()
        if before in _ABBREVIATIONS or re.fullmatch(r"[a-z]", before):
            continue
        end = m.start() + len(m.group().rstrip())
        yield paragraph[start:end].strip()
        start = m.end()
    tail = paragraph[start:].strip()
    if tail:
        yield tail


@dataclass(frozen=True, slots=True)
class Paragraph:
    region: str
    text: str
    mended: str | None = None


def _sentences(truth: Truth, paragraphs: Iterable[Paragraph]) -> None:
    known = truth.tei.mended if truth.tei is not None else {}
    for p in paragraphs:
        written = list(split_sentences(p.text))
        mended = list(split_sentences(p.mended)) if p.mended is not None else []
        if len(mended) != len(written):
            mended = written
        for sentence, repaired in zip(written, mended, strict=True):
            plain = squash(sentence.replace(_GAP, " "))
            if len(plain) < MIN_CHARS:
                truth.short += 1
                continue
            fixed = squash(repaired.replace(_GAP, " "))
            gap = squash(repaired.replace(_GAP, " ... ")) if _GAP in repaired else None
            fix = fixed if fixed != plain else None
            if fix is None and gap is None:
                fix, gap = known.get(_skeleton(plain)[0], (None, None))
            truth.sentences.append(Sentence(plain, p.region, truth.name, fix, gap))
    truth.sentences = _footnote_sequence(truth.sentences)


_NUMBER_WORD = re.compile(
    r"(?<!Table)(?<!Figure)(?<!Fig\.)(?<!Section)(?<!Task)(?<!task)(?<!§)"
    r"(?:(?<=\S)\s+|(?<=[^\d\s]\.)|^)(\d{1,2})(?=\s|$)"
)


def _footnote_sequence(sentences: list[Sentence]) -> list[Sentence]:
    """Mark the numbers written as words that are footnote numbers.

    Footnotes are numbered in reading order, so among the numbers that stand alone after a
    word or mark (``context. 1 We``, ``(NELL) 7 and``, ``papers, 10 meaningful``) those that
    continue the count (the last one again, the next, or one further when GROBID lost one)
    are footnote numbers, and so is a number already counted that opens a sentence or
    stands in a footnote (a footnote's own number, ``5 The TagMe APIs``); ``over 20
    million``, ``Table 3`` and a maths index (``p 1``) are not.
    """
    expected, seen = 1, set()
    out = []
    for sentence in sentences:
        found = set()
        for m in _NUMBER_WORD.finditer(sentence.text):
            word = sentence.text[: m.start()].rsplit(" ", 1)[-1]
            if m.start(1) > 0 and len(word) <= 2 and word.isalpha():
                continue  # an index in GROBID's maths: p 1 ! p 2
            n = int(m.group(1))
            own = n in seen and (m.start(1) == 0 or sentence.region == "footnote")
            if (expected - 1 <= n <= expected + 1 and n >= 1) or own:
                found.add(m.group(1))
                seen.add(n)
                expected = max(expected, n + 1)
        out.append(replace(sentence, footnotes=frozenset(found)) if found else sentence)
    return out


def _mark_gaps(text: str) -> str:
    return re.sub(r"(?<=\w)\s{2,}(?=\w)", f" {_GAP} ", text)


def _mend_tei(p: Any) -> str:
    """A TEI paragraph's text with GROBID's citation markup mended.

    GROBID writes adjacent ``<ref>`` elements with nothing between them
    (``CoNLL-2003</ref><ref>and ACE-2005``) and may leave a citation's closing bracket
    outside its ``<ref>`` and then drop it (``(e.g., Lample et al., 2016</ref>, and``);
    the PDF has ``CoNLL-2003 and ACE-2005 (e.g., Lample et al., 2016), and``.  It also
    reads the year of a narrative citation as an equation number and drops its brackets
    (``Collobert et al. <ref type="formula">2011</ref>`` for ``Collobert et al. (2011)``).
    """
    parts = [p.text or ""]
    for child in p:
        inner = "".join(child.itertext())
        if child.tag == f"{_TEI}ref":
            if parts[-1][-1:].isalnum() or (parts[-1][-1:] in ")]" and inner[:1].isalnum()):
                parts.append(" ")
            if inner.count("(") > inner.count(")"):
                inner += ")"
            if child.get("type") == "formula" and inner.isdigit():
                inner = f"({inner})"
        parts.append(inner)
        parts.append(child.tail or "")
    return "".join(parts)


def tei_truth(pdf: Path, tei: Path) -> Truth:
    """GROBID TEI: ``<abstract>`` and ``<body>`` paragraphs (``<p>``), not figures or notes."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    root = etree.parse(str(tei), parser).getroot()
    paragraphs: list[Paragraph] = []
    for region, path in (("abstract", ".//{t}abstract//{t}p"), ("body", ".//{t}body//{t}p")):
        for p in root.iterfind(path.format(t=_TEI)):
            if any(a.tag in (f"{_TEI}figure", f"{_TEI}note") for a in p.iterancestors()):
                continue
            text = _mark_gaps("".join(p.itertext()))
            paragraphs.append(Paragraph(region, text, _mark_gaps(_mend_tei(p))))
    truth = Truth(pdf, "GROBID TEI", [])
    _sentences(truth, paragraphs)

    def texts(tag: str) -> frozenset[str]:
        return frozenset(
            _skeleton(squash("".join(e.itertext())))[0]
            for e in root.iterfind(f".//{_TEI}body//{_TEI}{tag}")
        )

    mended = {
        _skeleton(s.text)[0]: (s.mended, s.gapped)
        for s in truth.sentences
        if s.mended is not None or s.gapped is not None
    }
    truth.tei = TeiFacts(texts("formula"), texts("note"), mended)
    return truth


def _mend_s2orc(paragraph: dict[str, Any]) -> str:
    """S2ORC's paragraph with a citation's dropped closing bracket put back (as in TEI)."""
    text: str = paragraph["text"]
    for span in sorted(paragraph.get("cite_spans", []), key=lambda s: -int(s["end"])):
        inner = text[span["start"] : span["end"]]
        if inner.count("(") > inner.count(")"):
            text = text[: span["end"]] + ")" + text[span["end"] :]
    return text


def s2orc_truth(pdf: Path, path: Path, tei: TeiFacts | None) -> Truth:
    """S2ORC JSON: ``abstract`` and ``body_text`` paragraphs.

    S2ORC's body_text also holds the TEI's display formulas and footnotes as paragraphs;
    with the TEI at hand (S2ORC JSON is made from it), formulas are left out (counted) and
    footnotes are expected in the ``footnote`` region.
    """
    parse = json.loads(path.read_text(encoding="utf-8"))["pdf_parse"]
    truth = Truth(pdf, "S2ORC JSON", [], tei=tei)
    paragraphs = []
    for region, key in (("abstract", "abstract"), ("body", "body_text")):
        for p in parse[key]:
            skeleton = _skeleton(squash(p["text"]))[0]
            if tei is not None and skeleton in tei.formulas:
                truth.formulas += 1
                continue
            where = "footnote" if tei is not None and skeleton in tei.notes else region
            paragraphs.append(Paragraph(where, _mark_gaps(p["text"]), _mark_gaps(_mend_s2orc(p))))
    _sentences(truth, paragraphs)
    return truth


_CERMINE_HEADING = re.compile(r"\d{1,2}\. [A-Z][^.]{0,80}")
_CERMINE_ABSTRACT = re.compile(r"(?:Objectives?|Background|Purpose|Aims?|Abstract)\. ")
_CERMINE_END = re.compile(r"(?:Acknowledge?ments?|References)\s*")


def cermine_truth(pdf: Path, path: Path) -> Truth:
    """CERMINE full text: the abstract (from its first labelled part) and the body, from the
    first numbered heading to Acknowledgments or References; headings are not sentences."""
    lines = path.read_text(encoding="utf-8").splitlines()
    begin = next(i for i, line in enumerate(lines) if _CERMINE_ABSTRACT.match(line))
    body = next(i for i, line in enumerate(lines) if i > begin and _CERMINE_HEADING.fullmatch(line))
    end = next(i for i, line in enumerate(lines) if i > body and _CERMINE_END.fullmatch(line))
    paragraphs = [Paragraph("abstract", " ".join(lines[begin:body]))]
    section: list[str] = []
    for line in lines[body:end]:
        if _CERMINE_HEADING.fullmatch(line):
            if section:
                paragraphs.append(Paragraph("body", " ".join(section)))
            section = []
        else:
            section.append(line)
    paragraphs.append(Paragraph("body", " ".join(section)))
    truth = Truth(pdf, "CERMINE text", [])
    _sentences(truth, paragraphs)
    return truth


def truths(corpus: Path) -> list[Truth]:
    """Every PDF of the corpus that has ground truth, with each of its ground truths."""
    out: list[Truth] = []
    for pdf in sorted((corpus / "pdf").glob("*.pdf")):
        tei, s2orc = pdf.with_suffix(".tei.xml"), pdf.with_suffix(".json")
        cermine = pdf.with_suffix(".fulltext.txt")
        facts: TeiFacts | None = None
        if tei.is_file():
            out.append(tei_truth(pdf, tei))
            facts = out[-1].tei
        if s2orc.is_file():
            out.append(s2orc_truth(pdf, s2orc, facts))
        if cermine.is_file():
            out.append(cermine_truth(pdf, cermine))
    return out


# --- the ground truth's own artefacts ---------------------------------------------------


@dataclass(slots=True)
class Context:
    """What a repair may look at: the sentence and the PDF's parsed Document."""

    sentence: Sentence
    document: Any


@dataclass(frozen=True, slots=True)
class Repair:
    """A known artefact of a ground truth, how to undo it, and why it is not a miss."""

    category: str
    why: str
    undo: Callable[[str, Context], str | None]
    truths: tuple[str, ...]


_GROBID = ("GROBID TEI", "S2ORC JSON")
_CAPTION = re.compile(r"\s*\b(?:Table|Figure|Fig\.)\s*\d+\s*:\s[^.]*\.")
_RUNNING_HEAD = re.compile(
    r"(?:^|\s)(?:\d{1,2} )?Rehabilitation Research and Practice(?: \d{1,2})?"
)
_PAGE_NUMBER = re.compile(r"(?<=[.!?)\]”])\s+\d{1,2}(?=\s+[A-Z]|$)|(?<=[a-z,]) \d(?= [a-z])")


_CAPTION_LABEL = re.compile(r"(?:Table|Figure|Fig\.)\s*\d+\s*[:.]")
_KEPT: list[Any] = []
"""The documents the repairs' caches (``_FLOAT_LINES``, ``_SKELETONS``) are keyed by, by
id: kept alive, so that no later document is given the id of one still cached."""
_FLOAT_LINES: dict[int, list[re.Pattern[str]]] = {}


def _float_lines(document: Any) -> list[re.Pattern[str]]:
    """The lines the PDF sets apart as floats (citeproof's caption, table and figure
    blocks) that hold a number or a caption's label, each as a pattern that allows the
    ground truth's own spacing (``Table 3 : Results``)."""
    key = id(document)
    if key not in _FLOAT_LINES:
        _KEPT.append(document)
        patterns = []
        for block in document.blocks:
            if block.region not in ("caption", "table") and block.kind != "figure":
                continue
            for line in document.text[block.start : block.end].split("\n"):
                chars = [ch for ch in line if not ch.isspace()]
                if not chars or not (any(c.isdigit() for c in chars) or block.kind == "caption"):
                    continue
                body = r"\s*".join(re.escape(ch) for ch in chars)
                head = r"(?<!\w)" if chars[0].isalnum() else ""
                tail = r"(?!\w)" if chars[-1].isalnum() else ""
                patterns.append(re.compile(head + body + tail))
        _FLOAT_LINES[key] = patterns
    return _FLOAT_LINES[key]


def _floats(text: str, ctx: Context) -> str:
    for pattern in _float_lines(ctx.document):
        text = pattern.sub(" ", text)
    return squash(text)


def _footnote_numbers(text: str, ctx: Context) -> str:
    numbers = ctx.sentence.footnotes
    return _NUMBER_WORD.sub(lambda m: "" if m.group(1) in numbers else m.group(), text)


def _running_heads(text: str, _: Context) -> str:
    return _PAGE_NUMBER.sub("", _RUNNING_HEAD.sub(" ", text))


def _skeleton(text: str) -> tuple[str, list[int]]:
    """``text`` without blanks and without hyphens between letters, and where each of the
    remaining characters was: what two renderings of the same words share."""
    chars, where = [], []
    for i, ch in enumerate(text):
        if ch.isspace():
            continue
        if ch == "-" and 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha():
            continue
        chars.append(ch)
        where.append(i)
    return "".join(chars), where


_SKELETONS: dict[int, tuple[str, list[int], str]] = {}


def _respace(text: str, ctx: Context) -> str | None:
    """The sentence with the blanks the PDF has (pdfium's, read by citeproof).

    GROBID and CERMINE rebuild text from tokens: ``2014) ,``, ``p 1 ! p 2``, ``written off
    ”``, ``CoNLL-2003and``.  Only blanks change, and only where a reader could not tell:
    next to punctuation, digits or maths tokens of one or two characters.  Two words are
    never joined or split (that would hide a citeproof error), nor is a number written as
    a word glued to the word or mark before it (that is a footnote number, see
    ``footnote-number``).
    """
    from citeproof.match.normalize import normalize_with_map

    key = id(ctx.document)
    if key not in _SKELETONS:
        _KEPT.append(ctx.document)
        layer = ctx.document.prepared.layer.text
        _SKELETONS[key] = (*_skeleton(layer), layer)
    page_skeleton, page_where, layer = _SKELETONS[key]
    quote = normalize_with_map(text).text
    skeleton, where = _skeleton(quote)
    at = page_skeleton.find(skeleton)
    if at < 0 or not skeleton:
        return None
    out = [quote[: where[0] + 1]]
    for k in range(len(skeleton) - 1):
        p, q = where[k], where[k + 1]
        gap = quote[p + 1 : q]
        page_gap = layer[page_where[at + k] + 1 : page_where[at + k + 1]]
        ours, theirs = any(c.isspace() for c in gap), any(c.isspace() for c in page_gap)
        if ours and not theirs:
            left = quote[: p + 1].rsplit(" ", 1)[-1]
            right = quote[q:].split(" ", 1)[0]
            if not _may_join(left, right):
                return None
            gap = "".join(c for c in gap if not c.isspace())
        elif theirs and not ours:
            if quote[p].isalpha() and quote[q].isalpha():
                return None
            gap += " "
        out.append(gap + quote[q])
    out.append(quote[where[-1] + 1 :])
    return "".join(out)


def _may_join(left: str, right: str) -> bool:
    if right.isdigit() and len(right) <= 2 and (len(left) > 2 or not left[-1:].isalnum()):
        return False  # a footnote number written as a word
    return (
        len(left) <= 2
        or len(right) <= 2
        or not left[-1].isalnum()
        or not right[0].isalnum()
        or left[-1].isdigit()
    )


REPAIRS = (
    Repair(
        "citation-markup",
        "GROBID writes adjacent <ref>s with nothing between them and drops a citation's "
        "closing bracket (`CoNLL-2003and ACE-2005(e.g., Lample et al., 2016, and`)",
        lambda _, ctx: ctx.sentence.mended,
        _GROBID,
    ),
    Repair(
        "dropped-text",
        "GROBID removed text it could not place (citations, table cells) and left two blanks "
        "(`See  and  for more details`); the sentence is checked with an ellipsis there",
        lambda _, ctx: ctx.sentence.gapped,
        _GROBID,
    ),
    Repair(
        "footnote-number",
        "GROBID writes a superscript footnote number as a word (`context. 1 We`, `(NELL) 7 "
        "and`); a reader copying the sentence does not type it",
        _footnote_numbers,
        _GROBID,
    ),
    Repair(
        "caption",
        "GROBID pulls the caption of a float into the paragraph it interrupts on the page "
        "(`the index described Table 4: The Bag of Concepts ...`)",
        lambda text, _: _CAPTION.sub("", text),
        _GROBID,
    ),
    Repair(
        "float",
        "GROBID pulls a float's cells and caption into the paragraph it interrupts on the "
        "page (`we use three instances of the entity extraction model Description F1 Without "
        "LM 49.9`); the PDF sets them apart, and the lines taken out are those (with a number "
        "or a caption's label) that citeproof reads as a table, a figure or a caption",
        _floats,
        _GROBID,
    ),
    Repair(
        "maths",
        "GROBID spells the maths bracket glyph Œ as `OE` (`OEc k I w k` for `Œck I wk`); "
        "inline maths is GROBID's rendering of typeset formulas, not words",
        lambda text, _: re.sub(r"\bOE(?=[a-z!])", "Œ", text),
        _GROBID,
    ),
    Repair(
        "running-head",
        "CERMINE leaves the running head or page number inside the text that crosses a page "
        "(`Rehabilitation Research and Practice You got ...`, `to manage 5 their heart`)",
        _running_heads,
        ("CERMINE text",),
    ),
    Repair(
        "spacing",
        "the tools rebuild text from tokens with their own blanks (`2014) ,`, `p 1 ! p 2`, "
        "`written off ”`); only blanks next to punctuation, digits or maths change",
        _respace,
        (*_GROBID, "CERMINE text"),
    ),
)
MAX_TRIES = 64
"""Combinations of repairs tried per sentence at most (fewest repairs first)."""


# --- checking -------------------------------------------------------------------------


@dataclass(slots=True)
class Outcome:
    sentence: Sentence
    verdict: str
    flags: list[str]
    region: str | None
    page: int | None = None
    category: str | None = None
    """The ground-truth artefacts undone to find it, None when found as written."""
    checked: str = ""
    misplaced: bool = False
    """The ground truth gives the wrong region (footnote text it put in the body)."""
    misplaced_as: str = ""
    """What the misplaced sentence is on the page: ``footnote`` or ``caption``."""


@dataclass(slots=True)
class Row:
    truth: Truth
    outcomes: list[Outcome] = field(default_factory=list)
    parse_s: float = 0.0
    check_s: float = 0.0

    def body(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.sentence.region == "body"]

    def exact_share(self) -> float:
        body = self.body()
        return sum(o.verdict == "EXACT" for o in body) / len(body) if body else 1.0

    def located(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.verdict == "EXACT" and not o.misplaced]

    def regions_right(self) -> list[Outcome]:
        return [o for o in self.located() if o.region == o.sentence.region]


def check_one(sentence: Sentence, document: Any) -> Outcome:
    import citeproof

    result = citeproof.check(sentence.text, document)
    first = _outcome(sentence, result, sentence.text)
    if result.verdict == "EXACT":
        return first
    ctx = Context(sentence, document)
    usable = [r for r in REPAIRS if sentence.truth in r.truths]
    tries = 0
    for size in range(1, len(usable) + 1):
        for combo in itertools.combinations(usable, size):
            text: str | None = sentence.text
            for repair in combo:
                undone = repair.undo(text, ctx) if text is not None else None
                text = undone if undone is not None and undone != text else None
            if text is None or squash(text) == sentence.text or len(squash(text)) < MIN_CHARS:
                continue  # a repair that changes nothing is not needed, so not reported
            tries += 1
            if tries > MAX_TRIES:
                return first
            again = citeproof.check(squash(text), document)
            if again.verdict == "EXACT":
                category = "+".join(r.category for r in combo)
                return _outcome(sentence, again, squash(text), category)
    return first


def _outcome(sentence: Sentence, result: Any, checked: str, category: str | None = None) -> Outcome:
    location = result.matches[0].location if result.matches else None
    flags = list(result.flags)
    if result.near is not None:
        flags += result.near.flags
    return Outcome(
        sentence,
        result.verdict,
        sorted(set(flags)),
        location.region if location is not None else None,
        location.page if location is not None else None,
        category,
        checked,
    )


class SmallPrint:
    """Whether words of a page are set in small print, measured with pdfium directly."""

    def __init__(self, pdf: Path) -> None:
        import pypdfium2 as pdfium

        self._pdf = pdfium.PdfDocument(pdf.read_bytes())
        sizes: dict[float, int] = {}
        for page in self._pdf:
            textpage = page.get_textpage()
            for i in range(textpage.count_chars()):
                size = self._size(textpage, i)
                if size > 1.5:
                    sizes[round(size, 1)] = sizes.get(round(size, 1), 0) + 1
        self.body = max(sizes, key=lambda k: sizes[k]) if sizes else 0.0

    @staticmethod
    def _size(textpage: Any, i: int) -> float:
        import ctypes
        import math

        import pypdfium2.raw as pdfium_c

        matrix = pdfium_c.FS_MATRIX()
        size = float(pdfium_c.FPDFText_GetFontSize(textpage.raw, i))
        if pdfium_c.FPDFText_GetMatrix(textpage.raw, i, ctypes.byref(matrix)):
            size *= math.hypot(matrix.c, matrix.d) or 1.0
        return size

    def small(self, page: int, words: str) -> bool:
        textpage = self._pdf[page - 1].get_textpage()
        found = textpage.search(words).get_next()
        if found is None:
            return False
        return self._size(textpage, found[0]) <= SMALL_PRINT * self.body


def _misplaced(outcome: Outcome, small: SmallPrint) -> bool:
    """The ground truth calls this body or abstract, but the PDF sets it as a footnote
    (small print at the foot of the page, measured with pdfium) or it is a caption (it
    opens with a float's label, ``Table 2:``)."""
    if outcome.region == "caption" and _CAPTION_LABEL.match(outcome.checked):
        outcome.misplaced_as = "caption"
        return True
    if outcome.region != "footnote" or outcome.page is None:
        return False
    outcome.misplaced_as = "footnote"
    words = " ".join(re.sub(r"^\d{1,2}\s+", "", outcome.checked).split()[:3])
    return small.small(outcome.page, words)


def run(truth: Truth, quick: bool) -> Row:
    from citeproof.documents.pdf import parse_pdf

    row = Row(truth)
    started = time.perf_counter()
    document = parse_pdf(truth.pdf.read_bytes())
    row.parse_s = time.perf_counter() - started
    sentences = truth.sentences[::QUICK_STRIDE] if quick else truth.sentences
    started = time.perf_counter()
    row.outcomes = [check_one(s, document) for s in sentences]
    row.check_s = time.perf_counter() - started
    wrong = [o for o in row.outcomes if o.verdict == "EXACT" and o.region != o.sentence.region]
    if wrong:
        small = SmallPrint(truth.pdf)
        for o in wrong:
            o.misplaced = _misplaced(o, small)
    return row


# --- report ---------------------------------------------------------------------------


def report(rows: Sequence[Row], verbose: bool) -> bool:
    """Print the table, the misses and the ground-truth artefacts; True when targets met."""
    ok = True
    header = (
        f"{'pdf':<28} {'ground truth':<12} {'body':>4} {'exact':>5} {'truth≠pdf':>9} "
        f"{'miss':>4} {'exact%':>6}  {'regions':>9} {'truth≠pdf':>9} {'region%':>7}  result"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        body = row.body()
        as_written = sum(o.verdict == "EXACT" and o.category is None for o in body)
        repaired = sum(o.verdict == "EXACT" and o.category is not None for o in body)
        misses = len(body) - as_written - repaired
        located, right = row.located(), row.regions_right()
        misplaced = sum(o.misplaced for o in row.outcomes)
        share = row.exact_share()
        region_share = len(right) / len(located) if located else 1.0
        passed = share >= EXACT_TARGET and region_share >= REGION_TARGET
        ok = ok and passed
        print(
            f"{row.truth.pdf.name:<28} {row.truth.name:<12} {len(body):>4} {as_written:>5} "
            f"{repaired:>9} {misses:>4} {share:>6.1%}  {len(right):>4}/{len(located):<4} "
            f"{misplaced:>9} {region_share:>7.1%}  {'ok' if passed else 'MISSED'}"
        )
    print(
        f"\ntargets: exact% >= {EXACT_TARGET:.0%} of the ground truth's body sentences "
        f"(found as written, or as the PDF has them: truth≠pdf); region% >= "
        f"{REGION_TARGET:.0%} of the body and abstract sentences found (those the ground "
        f"truth misplaces left out: truth≠pdf)"
    )
    for row in rows:
        _details(row, verbose)
    return ok


def _details(row: Row, verbose: bool) -> None:
    label = f"{row.truth.pdf.name} / {row.truth.name}"
    misses = [o for o in row.outcomes if o.verdict != "EXACT"]
    wrong = [o for o in row.located() if o.region != o.sentence.region]
    if misses:
        print(f"\nmisses, {label} ({len(misses)}):")
        for o in misses:
            flags = ",".join(o.flags) or "-"
            print(f"  [{o.sentence.region}] {o.verdict} {flags}: {o.sentence.text!r}")
    if wrong:
        print(f"\nwrong region, {label} ({len(wrong)}):")
        for o in wrong:
            print(f"  expected {o.sentence.region}, got {o.region}: {o.sentence.text!r}")
    counts: dict[str, list[Outcome]] = {}
    for o in row.outcomes:
        for category in (o.category or "").split("+"):
            if category:
                counts.setdefault(category, []).append(o)
    misplaced = [o for o in row.outcomes if o.misplaced]
    if counts or misplaced:
        print(f"\nground truth differs from the PDF, {label}:")
    for repair in REPAIRS:
        found = counts.get(repair.category, [])
        if found:
            print(f"  {repair.category} ({len(found)}): {repair.why}")
            if verbose:
                for o in found:
                    print(f"    truth: {o.sentence.text!r}\n    found: {o.checked!r}")
    why = {
        "footnote": "GROBID puts some footnotes in the body or abstract; the PDF sets these "
        "words in small print at the foot of the page (measured with pdfium)",
        "caption": "GROBID puts some captions in the body; the sentence is a float's caption "
        "(it opens with the float's label)",
    }
    for kind, because in why.items():
        these = [o for o in misplaced if o.misplaced_as == kind]
        if not these:
            continue
        print(
            f"  {kind}-in-{'/'.join(sorted({o.sentence.region for o in these}))} "
            f"({len(these)}): {because}"
        )
        if verbose:
            for o in these:
                print(f"    {o.sentence.text!r}")
    if row.truth.short:
        print(f"  ({row.truth.short} sentences under {MIN_CHARS} characters not checked)")
    if row.truth.formulas:
        print(f"  ({row.truth.formulas} paragraphs the TEI marks as formulas not checked)")


# --- the cases of issues 24 and 22 -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Case:
    """One layout that broke a real paper's text, and what reading it right means.

    ``source`` is a corpus PDF's name, or ``invented:<layout>``: a function of
    ``tests/pdfgen.py`` that builds the layout at run time (with invented words), so no
    file is kept for it.  Every check must hold for the case to pass.
    """

    issue: str
    name: str
    source: str
    quotes: tuple[tuple[str, str], ...] = ()
    """(quote, region of its first match): EXACT, with no flag but the region's own."""
    reads: tuple[str, ...] = ()
    """Text the Document must hold as written (as the paper's own text has it)."""
    absent: tuple[str, ...] = ()
    """Text the Document must not hold."""
    blocks: tuple[tuple[str, str], ...] = ()
    """(text, region of the block that holds its first occurrence)."""
    references: tuple[int, int] | None = None
    """(entries, problems): how many entries the reference list reader must read, and how
    many problems it must report (a publisher's box it left out is one)."""


_REGION_FLAG = {"references": "match_in_references", "front-matter": "match_in_front_matter"}


def cases() -> list[Case]:
    """The cases, on the corpus PDFs where they occur and on invented layouts."""
    n18, hindawi = "N18-3011.pdf", "hindawi-rrp-2010-157939.pdf"
    bmc, jner = "bmc-hsr-2014-14-1.pdf", "jner-2016-13-22.pdf"
    head = "Journal of Tests 12 (2020) 1\u201310\n"
    return [
        Case(
            "24",
            "superscript glued to the next word",
            "invented:glued_superscript",
            quotes=(("They kept to their old eating habits. In the past they had", "body"),),
            reads=("habits.24 In the past",),
        ),
        Case(
            "24",
            "superscript on a line of its own",
            "invented:superscript_own_line",
            quotes=(("on the scale of Jadad et al. All of the studies were read twice", "body"),),
        ),
        Case(
            "24",
            "superscript group, a range's dash read as e",
            "invented:range_drawn_as_e",
            quotes=(("which is clinically meaningful. Iron stores fell", "body"),),
            reads=("meaningful.4 36\u201338 Iron",),
        ),
        Case(
            "24",
            "superscripts that broke pdfium's lines",
            n18,
            reads=("PDFBox library3 to convert it", "Language Learner (NELL)7 and OpenIE"),
        ),
        Case(
            "24",
            "an affiliation's number touching its word",
            bmc,
            reads=("Accra, Ghana. 2 Medical Department,", "Munthali3, Noor Alide4 and"),
        ),
        *(
            Case(
                "24",
                "syllable breaks joined, no soft hyphen",
                name,
                reads=(joined,),
                absent=("\u00ad",),
            )
            for name, joined in (
                (n18, "published scientific literature into a"),
                (hindawi, "of total healthcare expenditures"),
                (bmc, "expectations are high for both"),
                (jner, "have shown the effectiveness of FES"),
            )
        ),
        Case(
            "24",
            "line-end hyphens: syllables joined, compounds kept",
            "invented:line_end_hyphens",
            reads=("The new software read the files", "tools are well-known and"),
            absent=("\u00ad",),
        ),
        Case(
            "24",
            "a line-end hyphen pdfium missed",
            hindawi,
            quotes=(("The measurement and prevalence of depression in patients", "references"),),
        ),
        Case(
            "24",
            "a line-end hyphen pdfium missed",
            "invented:hidden_line_end_hyphen",
            reads=("The measurement of depression in patients",),
        ),
        Case(
            "24",
            "a hyphen inside an address kept",
            jner,
            reads=("alireza.gharabaghi@uni-tuebingen.de",),
        ),
        Case("24", "glyphs cut on one baseline", hindawi, reads=("[8] Office of Quality",)),
        Case("24", "a dash at a line end", n18, reads=("While mention\u2013mention edges",)),
        Case(
            "24",
            "page one's side column of affiliations",
            "invented:side_column_page",
            quotes=(("and it goes on for a few more lines so that the body is most of", "body"),),
            blocks=(("Department of Tests", "front-matter"), ("Accepted", "front-matter")),
        ),
        Case(
            "24",
            "a running head amid page one's columns",
            "invented:running_head_amid_columns",
            quotes=(("We built a reader that follows the columns of a page and the", "body"),),
            blocks=((head, "other"), ("Page 2 goes on", "body")),
        ),
        Case(
            "24",
            "tables and figures inside a sentence",
            n18,
            quotes=(
                ("passed through one fully-connected layer and then fed into a two-layer", "body"),
                ("we use three instances of the entity extraction model with a similar", "body"),
                ("the statistics collected in the index described earlier. We compute", "body"),
                ("search (e.g., Xiong et al., 2017). We describe methods used in a", "body"),
            ),
            blocks=(
                ("Table 1: Results", "caption"),
                ("bibliography titles 89.3", "table"),
                ("Figure 1: Part of", "caption"),
            ),
        ),
        Case(
            "24",
            "a table at the top of a column",
            "invented:table_at_column_top",
            quotes=(("passed through one fully-connected layer and then fed into a", "body"),),
            blocks=(("Table 1: Results", "caption"), ("title 85.5 85.5", "table")),
        ),
        Case(
            "24",
            "figure captions drawn after the page's text",
            jner,
            quotes=(
                ("applied every 300 ms in order to avoid summation effects", "body"),
                ("have been identified, further computational methods could be", "body"),
                ("might moreover allow a fine tuning of stimulation parameters", "body"),
            ),
            blocks=(("Fig. 1 Multi-contact", "caption"), ("Fig. 6 Finger extension", "caption")),
        ),
        Case(
            "24",
            "figure captions drawn after the page's text",
            "invented:caption_drawn_last",
            quotes=(("applied every 300 ms in order to avoid summation effects", "body"),),
            blocks=(("Fig. 1 The set-up", "caption"),),
        ),
        Case(
            "24",
            "a figure's labels and a table's cells",
            bmc,
            blocks=(("Referred cases (36%)", "other"), ("Privacy given 99 1 97", "table")),
        ),
        *(
            Case("22", "150 entries alike but for digits", source, references=(150, 0))
            for how, source in (
                ("manuscript", "invented:reference_list:varied_entry"),
                (
                    "manuscript, only the number differs",
                    "invented:reference_list:number_only_entry",
                ),
                (
                    "journal, heads and page numbers",
                    "invented:reference_list:wrapped_entry:furniture",
                ),
            )
        ),
        Case("22", "a numbered list", hindawi, references=(17, 0)),
        Case("22", "a numbered list", jner, references=(49, 0)),
        Case("22", "a numbered list and a publisher's box", bmc, references=(31, 1)),
        Case("22", "an author-year list", n18, references=(26, 0)),
    ]


def _case_pdf(source: str, corpus: Path) -> bytes | None:
    """The case's PDF: the corpus file, or the invented layout built now (None: the corpus
    file is missing)."""
    if not source.startswith("invented:"):
        path = corpus / "pdf" / source
        return path.read_bytes() if path.is_file() else None
    tests = str(REPO_ROOT / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    import pdfgen

    layout, *rest = source.split(":")[1:]
    if layout == "reference_list":
        return bytes(pdfgen.reference_list(getattr(pdfgen, rest[0]), furniture="furniture" in rest))
    return bytes(getattr(pdfgen, layout)())


@dataclass(slots=True)
class CaseRow:
    case: Case
    checks: list[tuple[str, bool]] = field(default_factory=list)
    """(what was checked, whether it held)."""
    missing: bool = False

    def passed(self) -> bool:
        return not self.missing and all(ok for _, ok in self.checks)


def run_case(case: Case, corpus: Path) -> CaseRow:
    import citeproof
    from citeproof.documents.pdf import parse_pdf
    from citeproof.refs import pdf_list

    row = CaseRow(case)
    data = _case_pdf(case.source, corpus)
    if data is None:
        row.missing = True
        return row
    doc = parse_pdf(data)
    for quote, region in case.quotes:
        result = citeproof.check(quote, doc)
        location = result.matches[0].location if result.matches else None
        flags = [f for f in result.flags if f != _REGION_FLAG.get(region)]
        ok = result.verdict == "EXACT" and not flags and location is not None
        row.checks.append((f"EXACT in {region}: {quote!r}", ok and location.region == region))
    for text in case.reads:
        row.checks.append((f"reads {text!r}", text in doc.text))
    for text in case.absent:
        row.checks.append((f"has no {text!r}", text not in doc.text))
    for text, region in case.blocks:
        at = doc.text.find(text)
        index = doc.block_at(at) if at >= 0 else None
        found = doc.blocks[index].region if index is not None else None
        row.checks.append((f"{text!r} in {region} (read: {found})", found == region))
    if case.references is not None:
        entries, problems = case.references
        reader = getattr(pdf_list, "read_document_reference_list", None)
        if reader is not None:
            listed = reader(doc)
            read, said = listed.count, len(listed.problems)
        else:  # the reader before issue 22 said nothing but the entries
            read, said = len(pdf_list.read_document_references(doc)), 0
        row.checks.append((f"{entries} entries (read: {read})", read == entries))
        row.checks.append((f"{problems} problems said (said: {said})", said == problems))
    return row


def report_cases(rows: Sequence[CaseRow]) -> bool:
    """Print the cases' table and every check that failed; True when all passed."""
    header = f"{'issue':<5} {'case':<52} {'source':<48} {'checks':>7}  result"
    print(f"\n{header}\n{'-' * len(header)}")
    for row in rows:
        held = sum(ok for _, ok in row.checks)
        result = "no file" if row.missing else "ok" if row.passed() else "MISSED"
        print(
            f"{row.case.issue:<5} {row.case.name:<52} {row.case.source:<48} "
            f"{held:>3}/{len(row.checks):<3}  {result}"
        )
    for row in rows:
        for what, ok in row.checks:
            if not ok:
                print(f"  failed, {row.case.name} ({row.case.source}): {what}")
    return all(row.passed() or row.missing for row in rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared dir")
    parser.add_argument("--quick", action="store_true", help=f"every {QUICK_STRIDE}rd sentence")
    parser.add_argument("--require-shared", action="store_true", help="a missing corpus fails")
    parser.add_argument("--verbose", "-v", action="store_true", help="list repaired sentences")
    parser.add_argument("--json-out", type=Path, help="write every outcome as JSON")
    args = parser.parse_args(argv)
    corpus = args.shared / "corpus"
    if not (corpus / "pdf").is_dir():
        print(f"bench_pdf: no PDF corpus at {corpus / 'pdf'}", file=sys.stderr)
        return 0 if args.quick and not args.require_shared else 2
    load_before = os.getloadavg()
    rows = [run(truth, args.quick) for truth in truths(corpus)]
    if not rows:
        print(f"bench_pdf: no PDF with ground truth in {corpus / 'pdf'}", file=sys.stderr)
        return 2
    ok = report(rows, args.verbose)
    started = time.perf_counter()
    case_rows = [run_case(case, corpus) for case in cases()]
    cases_s = time.perf_counter() - started
    ok = report_cases(case_rows) and ok
    load_after = os.getloadavg()
    print()
    for r in rows:
        print(
            f"{r.truth.pdf.name} / {r.truth.name}: parse {r.parse_s:.2f} s, "
            f"{len(r.outcomes)} checks {r.check_s:.2f} s"
        )
    print(f"{len(case_rows)} cases of issues 24 and 22: {cases_s:.2f} s")
    print(
        "load average (1, 5, 15 min): before "
        + " ".join(f"{x:.2f}" for x in load_before)
        + ", after "
        + " ".join(f"{x:.2f}" for x in load_after)
        + f" on {os.cpu_count()} CPUs"
    )
    if args.json_out is not None:
        data = [
            {
                "pdf": r.truth.pdf.name,
                "truth": r.truth.name,
                "outcomes": [
                    {
                        "text": o.sentence.text,
                        "region": o.sentence.region,
                        "verdict": o.verdict,
                        "flags": o.flags,
                        "found_region": o.region,
                        "category": o.category,
                        "checked": o.checked,
                        "misplaced": o.misplaced,
                    }
                    for o in r.outcomes
                ],
            }
            for r in rows
        ]
        args.json_out.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
