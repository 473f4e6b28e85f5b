"""Layout reasoning for PDF text: paragraphs, page furniture, headings, regions, sections.

pdfium hands over lines and where their first and last characters sit, nothing more: no
blank lines between paragraphs, no notion of a heading or a running head.  Everything a
Document says about structure is therefore a guess from geometry and wording, and the
guesses are kept here, apart from the pdfium calls, so they can be read, tested and tuned
on plain ``Line`` values without opening a PDF.  They err towards saying less: a block cut
too finely or a heading not recognised costs a little context in a report, while a wrong
region or section would misplace a match.
"""

from __future__ import annotations

import itertools
import re
import statistics
from dataclasses import dataclass

from citeproof.documents.model import Block, Region

__all__ = ["Line", "blocks_from_lines", "mark_paragraph_starts"]

_ABSTRACT_CAP = 6000
"""Characters after which an abstract that no heading ended is taken to be over."""

_NUM = r"(?:(?:\d{1,2}|[IVX]{1,4}|[A-H])\.?\s+)?"
_END = r"\s*[:.]?"
_ABSTRACT = re.compile(_NUM + r"abstract" + _END, re.I)
_ABSTRACT_INLINE = re.compile(r"(?:Abstract|ABSTRACT)\s*(?:[:.\u2014\u2013]|\s-)\s*\S")
_REFERENCES = re.compile(
    _NUM + r"(?:references?|bibliography|literature\s+cited|works\s+cited|cited\s+literature"
    r"|references\s+and\s+notes|reference\s+list)" + _END,
    re.I,
)
_APPENDIX = re.compile(
    r"(?:appendix(?:\s+[A-Z0-9]{1,3})?(?:\s*[:.]\s*[A-Z][^,;()]{0,60})?|appendices"
    r"|supplementary\s+(?:materials?|information|data)|supporting\s+information)" + _END,
    re.I,
)
_BACK = re.compile(
    _NUM + r"(?:acknowledge?ments?|funding|competing\s+interests?|conflicts?\s+of\s+interests?"
    r"|declaration\s+of\s+(?:competing\s+)?interests?|authors?['\u2019]?\s+contributions?"
    r"|author\s+details|availability\s+of\s+data\s+and\s+materials?"
    r"|data\s+availability(?:\s+statement)?|abbreviations|declarations"
    r"|ethics\s+approval\s+and\s+consent\s+to\s+participate|consent\s+for\s+publication)" + _END,
    re.I,
)
_BODY = re.compile(
    _NUM + r"(?:introduction|background|methods?|materials\s+and\s+methods|methodology"
    r"|results|discussion|results\s+and\s+discussion|conclusions?|conclusions?\s+and\s+future"
    r"\s+work|related\s+work|experiments?|evaluation|limitations)" + _END,
    re.I,
)
_KEYWORDS = re.compile(
    r"(?:Key ?words|KEY ?WORDS|Index [Tt]erms|INDEX TERMS)(?:\s*[:.\u2014\u2013-].*)?"
)
_NUMBERED = re.compile(r"(\d{1,2}(?:\.\d{1,2}){0,2})(\.?)\s+(\S.{0,79})")
_STOP_LAST = re.compile(
    r"a|an|the|of|in|on|and|or|to|for|with|by|from|at|as|is|are|was|were|be|that|this", re.I
)
"""Words a title does not end with; a line ending in one is a wrapped sentence."""


@dataclass(slots=True)
class Line:
    """One pdfium line (several physical lines when pdfium joined a hyphenated break).

    ``pdf`` fills in the text and geometry (``raw`` to ``start``); ``mark_paragraph_starts``
    sets ``para_start`` and ``gap_before``, which ``blocks_from_lines`` then reads.
    """

    raw: str
    page: int
    left: float | None = None
    first_bottom: float | None = None
    last_bottom: float | None = None
    text: str = ""
    start: int = 0
    para_start: bool = False
    gap_before: float = 0.0
    """Space above the line in units of the page's line pitch (0 when unknown)."""


# --- layout: paragraph starts from geometry ------------------------------------------


def mark_paragraph_starts(lines: list[Line]) -> None:
    """Mark paragraph starts on one page from first-line indents, hanging indents and gaps.

    pdfium gives no blank lines, so the only evidence is where lines begin: a line set in
    from the lines around it starts a paragraph; a line set out from the two lines after
    it starts a hanging-indent item (reference entries, lists); extra space above a line
    (over 1.6 line pitches) starts a new block.  Centred or ragged text (titles, tables)
    may be cut more finely than it should; that only makes blocks smaller.
    """
    deltas = [
        a.last_bottom - b.first_bottom
        for a, b in itertools.pairwise(lines)
        if a.last_bottom is not None
        and b.first_bottom is not None
        and 2.0 < a.last_bottom - b.first_bottom < 50.0
    ]
    pitch = statistics.median(deltas) if deltas else 12.0
    tol, wide = 0.35 * pitch, 3.0 * pitch

    def follows(a: Line | None, b: Line | None) -> bool:
        """``b`` comes right under ``a`` in the same column."""
        if a is None or b is None or a.last_bottom is None or b.first_bottom is None:
            return False
        if a.left is None or b.left is None:
            return False
        drop = a.last_bottom - b.first_bottom
        return 0.0 < drop < 2.5 * pitch and abs(a.left - b.left) < wide

    def left(line: Line | None) -> float:
        return line.left if line is not None and line.left is not None else float("nan")

    for i, line in enumerate(lines):
        prev = lines[i - 1] if i else None
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        nxt2 = lines[i + 2] if i + 2 < len(lines) else None
        if prev is not None and prev.last_bottom is not None and line.first_bottom is not None:
            line.gap_before = (prev.last_bottom - line.first_bottom) / pitch
            if line.gap_before > 1.6:
                line.para_start = True
                continue
        if not follows(line, nxt):
            continue
        shift = left(line) - left(nxt)
        if tol <= shift <= wide:
            # first-line indent, unless this is the last line of a hanging-indent item
            line.para_start = not follows(prev, line) or abs(left(prev) - left(nxt)) < tol
        elif tol <= -shift <= wide:
            line.para_start = follows(nxt, nxt2) and abs(left(nxt2) - left(nxt)) < tol


# --- structure: headings, regions, sections -------------------------------------------


def _heading_role(text: str) -> str | None:
    """Which known heading a whole line is: abstract, references, appendix, back, body."""
    if len(text) > 80:
        return None
    for role, pattern in (
        ("abstract", _ABSTRACT),
        ("references", _REFERENCES),
        ("appendix", _APPENDIX),
        ("back", _BACK),
        ("body", _BODY),
    ):
        if pattern.fullmatch(text):
            return role
    return None


def _plain_title(text: str) -> str:
    stripped = re.sub(r"^(?:\d{1,2}|[IVX]{1,4}|[A-H])\.?\s+(?=\w)", "", text)
    return stripped.rstrip(":. ") or text


class _Numbering:
    """Section numbers seen so far, to accept only headings that continue them.

    A numbered line is a heading only when its number is the next one at its level
    (numbered list items and table rows, which restart at 1 or skip, are refused), it is
    written in the style of the first numbered heading (``1.`` or ``1``), the rest reads
    like a title, and the line has space above it or opens a column.  A paper whose
    known headings (Introduction, Methods ...) carry no numbers gets no numbered ones.
    """

    def __init__(self) -> None:
        self.path: list[int] = []
        self.titles: list[str] = []
        self.dotted: bool | None = None
        self.unnumbered = False

    def known(self, text: str, title: str) -> None:
        m = re.match(r"(\d{1,2})(\.?)\s", text)
        if m is None:
            self.unnumbered = self.unnumbered or not self.path
            return
        self.path, self.titles = [int(m.group(1))], [title]
        self.dotted = bool(m.group(2)) if self.dotted is None else self.dotted

    def accept(self, line: Line) -> tuple[str, ...] | None:
        m = _NUMBERED.fullmatch(line.text)
        if m is None or self.unnumbered:
            return None
        title = m.group(3).strip()
        words = title.split()
        if (
            not title[0].isupper()
            or len(words) > 12
            or title[-1] in ".,;:"
            or _STOP_LAST.fullmatch(words[-1])
            or "et al" in title
            or sum(ch.isalpha() for ch in title) < 0.5 * len(title)
            or 0.0 < line.gap_before < 1.25
            or (self.dotted is not None and self.dotted != bool(m.group(2)))
        ):
            return None
        number = [int(p) for p in m.group(1).split(".")]
        depth, path = len(number), self.path
        if depth > len(path) + 1 or number[: depth - 1] != path[: depth - 1]:
            return None
        if number[-1] != (path[depth - 1] if len(path) >= depth else 0) + 1:
            return None
        self.path, self.titles = number, [*self.titles[: depth - 1], title]
        self.dotted = bool(m.group(2))
        return tuple(self.titles)


def _furniture(lines: list[Line]) -> set[int]:
    """Indices of running heads and feet: a top or bottom line repeated on many pages.

    Digits are ignored when comparing (page numbers), so ``84`` ... ``91`` and
    ``Page 2 of 9`` repeat; these lines never count as headings.
    """
    by_page: dict[int, list[int]] = {}
    for i, line in enumerate(lines):
        by_page.setdefault(line.page, []).append(i)
    seen: dict[str, set[int]] = {}
    edge: dict[int, str] = {}
    for page, indices in by_page.items():
        for i in {*indices[:2], *indices[-2:]}:
            key = re.sub(r"\d+", "#", lines[i].text)
            edge[i] = key
            seen.setdefault(key, set()).add(page)
    need = max(2, -(-len(by_page) // 4))
    return {i for i, key in edge.items() if len(seen[key]) >= need}


@dataclass(slots=True)
class _Tag:
    kind: str
    region: Region
    section: tuple[str, ...]


def blocks_from_lines(lines: list[Line]) -> list[Block]:
    """Tag each line with kind, region and section, then group lines into blocks.

    Regions: text on page 1 before an Abstract heading is front-matter; an Abstract
    heading (or a line opening ``Abstract:``) starts the abstract, which ends at the next
    heading or after ``_ABSTRACT_CAP`` characters; a Keywords line is front-matter; the
    last references heading starts references, which run to the end or to an Appendix
    heading (back-matter); Acknowledgements, Funding, Competing interests and the like
    are back-matter until the next body heading; everything else is body.  Sections come
    from known unnumbered headings (Introduction, Methods ...) and from numbered headings
    that continue the numbering; nothing else is guessed.
    """
    furniture = _furniture(lines)
    roles = [None if i in furniture else _heading_role(line.text) for i, line in enumerate(lines)]
    refs_at = max((i for i, r in enumerate(roles) if r == "references"), default=-1)
    abstract_at = next(
        (
            i
            for i, line in enumerate(lines)
            if line.page <= 2 and (roles[i] == "abstract" or _ABSTRACT_INLINE.match(line.text))
        ),
        -1,
    )
    region: Region = "front-matter" if abstract_at > 0 and lines[abstract_at].page == 1 else "body"
    section: tuple[str, ...] = ()
    numbering = _Numbering()
    abstract_start = 0
    tags: list[_Tag] = []
    for i, line in enumerate(lines):
        role, heading = roles[i], False
        line_region: Region | None = None
        if i in furniture:
            line_region = "other"
        elif i == refs_at:
            region, section, heading = "references", (_plain_title(line.text),), True
        elif i == abstract_at:
            region, section, heading = "abstract", ("Abstract",), role == "abstract"
            abstract_start = line.start
        elif region == "front-matter" and abstract_at > i:
            pass  # title, authors and affiliations: no headings here
        elif region == "references":
            if role == "appendix":
                region, section, heading = "back-matter", (_plain_title(line.text),), True
        elif role in ("appendix", "back"):
            region, section, heading = "back-matter", (_plain_title(line.text),), True
        elif role is not None:
            title = _plain_title(line.text)
            region, section, heading = "body", (title,), True
            numbering.known(line.text, title)
        elif _KEYWORDS.fullmatch(line.text):
            line_region = "front-matter"
            if region == "abstract":
                region, section = "body", ()
        elif (numbered := numbering.accept(line)) is not None:
            region, section, heading = "body", numbered, True
        elif region == "abstract" and line.start - abstract_start > _ABSTRACT_CAP:
            region, section = "body", ()
        kind = "furniture" if i in furniture else "heading" if heading else "paragraph"
        tags.append(_Tag(kind, line_region or region, section))
    return _group(lines, tags)


def _group(lines: list[Line], tags: list[_Tag]) -> list[Block]:
    """Consecutive lines with the same tag form a block; each heading stands alone."""
    blocks: list[Block] = []
    for i, (line, tag) in enumerate(zip(lines, tags, strict=True)):
        end = line.start + len(line.text)
        if i and not line.para_start and tag.kind != "heading" and tag == tags[i - 1]:
            last = blocks[-1]
            if last.page == line.page:
                blocks[-1] = Block(last.start, end, last.kind, last.section, last.region, last.page)
                continue
        blocks.append(Block(line.start, end, tag.kind, tag.section, tag.region, line.page))
    return blocks
