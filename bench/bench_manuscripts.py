"""Benchmark the manuscript reader (issue 24, the reading half) on real articles.

Real open-access articles whose publisher XML (JATS) gives the truth: every ``<ref>`` of the
``<ref-list>``, every ``<xref ref-type="bibr">`` and the refs its ``rid`` names.  By default
the JATS articles of the shared corpus (``<shared>/corpus/pmc-jats``); ``--jats DIR`` adds
the ``.xml``/``.nxml`` files of a folder (none is copied into this repository).

Each article is read as it is (``jats``) and turned into the manuscripts an author hands in,
each read back with :func:`citeproof.manuscript.read_manuscript`:

* ``docx``: Word, numeric citations typed as text (``[1, 3–5]``), a typed reference list
  ``[n] …`` under a References heading;
* ``docx-ay``: Word, author-year citations typed as text (``(Smith et al., 2019a; Lee and
  Kim, 2020)``) and an alphabetical-order-free APA-like list (``Smith, J., Lee, K. (2019a).
  Title. Venue.``), letters added where two works would print alike, as APA does;
* ``docx-zotero``: Word with Zotero's fields (``ADDIN ZOTERO_ITEM CSL_CITATION``) carrying
  each ref's CSL-JSON, and a ``ZOTERO_BIBL`` bibliography;
* ``latex``: ``main.tex`` (``\\section``, ``\\cite{keys}``) and ``refs.bib`` built from the
  refs (``\\nocite`` for a ref the body does not cite, as its figures would);
* ``pdf``: a one-column PDF written with pdfium (``tests/pdfgen.py``) from the same text;
* ``jats-text``: the article's text as ``citeproof text`` prints it (what a paper piped into
  ``citeproof audit -`` is), read as plain text: no structure, only printed markers.  The
  text groups citations its own way (``[2], [3]`` or ``[2, 3]``), so its citations figure
  counts each cited work in text order (right when linked to its ref).

The generated body is the article's ``<body>`` paragraphs and section titles (figures, tables
and formulas left out); each group of ``<xref>`` s printed together (``[<xref>1</xref>,
<xref>2</xref>]``, ``(<xref>A, 2019</xref>; <xref>B, 2020</xref>)``) is one citation, whose
truth is the refs its ``rid`` s name, plus the refs between two ``<xref>`` s joined by a dash
(``3–5`` names 4).  Quotations are planted: sentences of another article of the set (its
real text), about half altered (two words swapped), each in curly quotes followed by a
citation of that article, which is added to the reference list.

Figures (each a share of what the truth holds, summed over articles):

* **entries**: reference entries found, against the ``<ref-list>`` count (plus the planted
  source): an expected entry is found when an entry with its number (numeric lists), its key
  (LaTeX, JATS) or its text (author-year) is in the model;
* **citations**: citations of the body linked to exactly the right entries;
* **quotations**: planted quotations found, with their words, carrying the citation of
  their source;
* **verdicts**: whether each planted quotation's check gives the right verdict: the exact
  ones ``ok``, the altered ones (two words swapped) not (``near_quote`` or ``misquote``).
  The check is the checking half's own run (:func:`citeproof.service.manuscripts.check_read`,
  as ``citeproof manuscript --sources DIR`` runs it, offline, the references not verified):
  the manuscript as read, with a ``--sources`` folder holding the quoted article's real JATS
  file, which the run must match to the planted entry (by the DOI the file names, else its
  title and first author) and check each quotation against.  A planted quotation the reader
  did not find counts as wrong.

The load average is printed with the table; ``--readme`` appends the table to
``bench/README.md`` (its section "Issue 24: manuscripts").  Exit status: 0; 1 when a
figure is under 99%; 2 when no article could be read.

    python bench/bench_manuscripts.py
    python bench/bench_manuscripts.py --jats /path/to/jats-folder --formats docx,latex
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import platform
import re
import shutil
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from lxml import etree  # noqa: E402

from citeproof.documents.safe_xml import local_name, parse_xml_safely  # noqa: E402
from citeproof.manuscript import Manuscript, read_manuscript  # noqa: E402
from citeproof.refs.jats_list import read_jats_references  # noqa: E402
from citeproof.refs.stated import StatedReference, fold, years_in  # noqa: E402

FORMATS = ("jats", "jats-text", "docx", "docx-ay", "docx-zotero", "latex", "pdf")
TARGET = 0.99
README = ROOT / "bench" / "README.md"
README_HEADING = "## Issue 24: manuscripts (reading)"
_DASH = re.compile(r"\s*[-–—‐‑−]\s*")
_SEPARATOR = re.compile(r"[\s,;\-–—‐‑−]*")
_SKIP_BLOCKS = frozenset(
    "fig table-wrap disp-formula fn supplementary-material boxed-text list disp-quote "
    "table caption media chem-struct-wrap def-list ref-list".split()
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


# --- the truth, from the XML ---------------------------------------------------------------


@dataclass(frozen=True)
class Cite:
    """One printed citation: the refs it names (indices into the ref list)."""

    refs: frozenset[int]


@dataclass
class Para:
    kind: str  # "heading1", "heading2", "p"
    pieces: list[str | Cite]


@dataclass
class Source:
    """The article a planted quotation comes from, as a reference entry."""

    stated: StatedReference
    sentences: list[str]


@dataclass
class Planted:
    text: str
    altered: bool
    ref: int


@dataclass
class Article:
    name: str
    data: bytes
    ids: list[str]
    refs: list[StatedReference]
    paras: list[Para]
    xrefs: list[frozenset[int]]
    """Per ``<xref ref-type="bibr">``, the refs it names (the JATS-direct truth)."""
    source: Source
    title: str
    planted: list[Planted] = field(default_factory=list)
    quoted: StatedReference | None = None
    """The work the planted quotations come from (the next article), an added entry."""
    quoted_data: bytes = b""
    """That article's JATS: the editor's copy the quotations are checked against."""


def _text(el: etree._Element) -> str:
    return " ".join("".join(el.itertext()).split())


def _ref_elements(root: etree._Element) -> list[etree._Element]:
    return [
        el
        for el in root.iter()
        if local_name(el) == "ref" and any(local_name(a) == "ref-list" for a in el.iterancestors())
    ]


def _dash_after(xref: etree._Element) -> etree._Element | None:
    nxt = xref.getnext()
    if (
        nxt is not None
        and local_name(nxt) == "xref"
        and nxt.get("ref-type") == "bibr"
        and _DASH.fullmatch(xref.tail or "")
    ):
        return nxt
    return None


def _xref_refs(xref: etree._Element, position: dict[str, int]) -> set[int]:
    out = {position[r] for r in (xref.get("rid") or "").split() if r in position}
    nxt = _dash_after(xref)
    if nxt is not None and out:
        high = min(
            (position[r] for r in (nxt.get("rid") or "").split() if r in position), default=-1
        )
        out |= set(range(max(out) + 1, high))
    return out


def _inline(el: etree._Element, position: dict[str, int], out: list[str | Cite]) -> None:
    """An element's inline content: text and citations, nested blocks left out."""
    if el.text:
        out.append(el.text)
    for child in el:
        name = local_name(child)
        if name == "xref" and child.get("ref-type") == "bibr":
            refs = _xref_refs(child, position)
            out.append(Cite(frozenset(refs)) if refs else _text(child))
        elif name in _SKIP_BLOCKS or name == "p":
            pass
        elif name:
            _inline(child, position, out)
        if child.tail:
            out.append(child.tail)


def _grouped(pieces: list[str | Cite]) -> list[str | Cite]:
    """Citations printed together become one; the brackets around them go."""
    out: list[str | Cite] = []
    for piece in pieces:
        if isinstance(piece, Cite) and len(out) >= 2 and isinstance(out[-2], Cite):
            between = out[-1]
            if isinstance(between, str) and _SEPARATOR.fullmatch(between):
                first = out[-2]
                assert isinstance(first, Cite)
                out[-2:] = [Cite(first.refs | piece.refs)]
                continue
        if isinstance(piece, Cite) and out and isinstance(out[-1], Cite):
            out[-1] = Cite(out[-1].refs | piece.refs)
            continue
        out.append(piece)
    merged: list[str | Cite] = []
    for piece in out:
        if isinstance(piece, str) and merged and isinstance(merged[-1], str):
            merged[-1] += piece
        else:
            merged.append(piece)
    for n, piece in enumerate(merged):
        if not isinstance(piece, Cite):
            continue
        before = merged[n - 1] if n else ""
        after = merged[n + 1] if n + 1 < len(merged) else ""
        if isinstance(before, str) and isinstance(after, str):
            b, a = before.rstrip(), after.lstrip()
            if b[-1:] + a[:1] in ("[]", "()"):
                merged[n - 1] = b[:-1].rstrip() + " "
                merged[n + 1] = a[1:]
    return [p for p in merged if not (isinstance(p, str) and not p)]


def _paragraphs(body: etree._Element, position: dict[str, int]) -> list[Para]:
    out: list[Para] = []

    def walk(el: etree._Element, depth: int) -> None:
        for child in el:
            name = local_name(child)
            if name == "sec":
                title = next((c for c in child if local_name(c) == "title"), None)
                if title is not None and _text(title):
                    out.append(Para("heading1" if depth == 0 else "heading2", [_text(title)]))
                walk(child, depth + 1)
            elif name == "p":
                pieces: list[str | Cite] = []
                _inline(child, position, pieces)
                pieces = _grouped(pieces)
                joined = " ".join("".join(p if isinstance(p, str) else "X" for p in pieces).split())
                if joined:
                    out.append(Para("p", pieces))
                walk(child, depth)
            elif name in ("list", "list-item", "boxed-text", "disp-quote"):
                walk(child, depth)

    walk(body, 0)
    return out


def _meta(root: etree._Element) -> tuple[StatedReference, list[str]]:
    """The article itself as a reference entry, and the sentences of its body."""
    from citeproof.refs.listed import from_fields

    meta = next((e for e in root.iter() if local_name(e) == "article-meta"), None)
    authors: list[str] = []
    title = doi = venue = None
    year = None
    if meta is not None:
        for contrib in meta.iter():
            if (
                local_name(contrib) == "contrib"
                and contrib.get("contrib-type", "author") == "author"
            ):
                name = next((c for c in contrib if local_name(c) == "name"), None)
                if name is not None:
                    parts = {local_name(c): _text(c) for c in name}
                    authors.append(f"{parts.get('surname', '')}, {parts.get('given-names', '')}")
        for el in meta.iter():
            kind = local_name(el)
            if kind == "article-title" and title is None:
                title = _text(el)
            elif kind == "article-id" and el.get("pub-id-type") == "doi":
                doi = _text(el)
            elif kind == "year" and year is None:
                year = int(_text(el)) if _text(el).isdigit() else None
    journal = next((e for e in root.iter() if local_name(e) == "journal-title"), None)
    venue = _text(journal) if journal is not None else None
    stated = from_fields(title=title, authors=authors[:6], year=year, venue=venue, doi=doi)
    body = next((e for e in root.iter() if local_name(e) == "body"), None)
    sentences: list[str] = []
    for p in body.iter() if body is not None else ():
        if local_name(p) != "p" or any(local_name(c) in ("xref",) for c in p.iter()):
            continue
        for sentence in _SENTENCE.split(_text(p)):
            words = sentence.split()
            if 10 <= len(words) <= 35 and not re.search(r"[\"“”‘’\[\]()]", sentence):
                sentences.append(sentence)
    return stated, sentences


def load_article(path: Path) -> Article | None:
    data = path.read_bytes()
    root = parse_xml_safely(data)
    if root is None:
        return None
    elements = _ref_elements(root)
    ids = [el.get("id") or f"ref{n}" for n, el in enumerate(elements, start=1)]
    position = {rid: n for n, rid in enumerate(ids)}
    refs = read_jats_references(data)
    body = next((e for e in root.iter() if local_name(e) == "body"), None)
    if not refs or body is None:
        return None
    xrefs = [
        frozenset(_xref_refs(x, position))
        for x in root.iter()
        if local_name(x) == "xref"
        and x.get("ref-type") == "bibr"
        and not any(local_name(a) == "ref" for a in x.iterancestors())
    ]
    stated, sentences = _meta(root)
    return Article(
        path.name,
        data,
        ids,
        refs,
        _paragraphs(body, position),
        xrefs,
        Source(stated, sentences),
        stated.title or path.stem,
    )


def plant(articles: list[Article], per_article: int = 8) -> None:
    """Each article quotes sentences of the next one (its real text), about half altered,
    each followed by a citation of it, added to its reference list."""
    for n, article in enumerate(articles):
        following = articles[(n + 1) % len(articles)]
        source = following.source
        if source is article.source or not source.sentences:
            continue
        picks = source.sentences[:: max(1, len(source.sentences) // per_article)][:per_article]
        ref = len(article.refs)
        article.quoted = source.stated
        article.quoted_data = following.data
        prose = [k for k, p in enumerate(article.paras) if p.kind == "p"]
        for k, sentence in enumerate(picks):
            words = sentence.split()
            altered = k % 2 == 1
            if altered:
                i = len(words) // 2
                words[i], words[i + 1] = words[i + 1], words[i]
            text = " ".join(words)
            article.planted.append(Planted(text, altered, ref))
            target = article.paras[prose[(k * len(prose)) // len(picks)]] if prose else None
            if target is not None:
                target.pieces += [
                    " As reported elsewhere, “",
                    text,
                    "” ",
                    Cite(frozenset({ref})),
                    ".",
                ]


def refs_of(article: Article) -> list[StatedReference]:
    """The article's refs, then the planted quotations' source (when any was planted)."""
    return [*article.refs, article.quoted] if article.quoted is not None else list(article.refs)


# --- writing the manuscripts ----------------------------------------------------------------


def numeric(cite: Cite) -> str:
    numbers = sorted(r + 1 for r in cite.refs)
    parts: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        if prev - start >= 2:
            parts.append(f"{start}–{prev}")
        else:
            parts.extend(str(k) for k in range(start, prev + 1))
        if n is not None:
            start = prev = n
    return "[" + ", ".join(parts) + "]"


def author_year_labels(refs: Sequence[StatedReference]) -> list[tuple[str, str]]:
    """Per ref: (names as cited, year with its letter when two would print alike)."""
    cited: list[tuple[str, str]] = []
    for ref in refs:
        names = [re.sub(r"\s*\([^)]*\)", "", surname_of(a)) for a in ref.authors] or [_org(ref)]
        year = ref.year or next(iter(years_in(ref.text)), None)
        if len(names) == 1:
            who = names[0]
        elif len(names) == 2:
            who = f"{names[0]} and {names[1]}"
        else:
            who = f"{names[0]} et al."
        cited.append((who, str(year) if year else "n.d."))
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for key in cited:
        counts[key] += 1
    seen: dict[tuple[str, str], int] = defaultdict(int)
    out: list[tuple[str, str]] = []
    for key in cited:
        if counts[key] > 1 and key[1] != "n.d.":
            out.append((key[0], key[1] + "abcdefghijklmnopqrstuvwxyz"[seen[key] % 26]))
            seen[key] += 1
        else:
            out.append(key)
    return out


def surname_of(author: str) -> str:
    """The family name as a style prints it: ``Smith`` of ``Smith, J`` or ``Smith J``; an
    organisation whole."""
    if "," in author:
        return author.split(",", 1)[0].strip()
    words = author.split()
    if len(words) >= 2 and re.fullmatch(r"[A-Z]{1,3}", words[-1]):
        return " ".join(words[:-1])
    return author.strip()


def _org(ref: StatedReference) -> str:
    """Who a reference without parsed authors is cited by: its text up to the first comma,
    full stop or parenthesis (a patent's first inventor, an organisation)."""
    head = re.split(r"[,.(]", ref.text, maxsplit=1)[0].strip()
    return surname_of(head) or "Anonymous"


def apa_name(author: str) -> str:
    """``Baldwin, IT`` as APA prints it: ``Baldwin, I. T.``"""
    family, comma, given = author.partition(",")
    if not comma:
        return author.strip()
    initials = " ".join(f"{c}." for c in re.findall(r"[A-Z]", given)) or given.strip()
    return f"{family.strip()}, {initials}"


def ay_entry(ref: StatedReference, year: str) -> str:
    names = [apa_name(a) for a in ref.authors] or [_org(ref)]
    authors = ", ".join(names[:-1]) + (", & " + names[-1] if len(names) > 1 else names[0])
    rest = " ".join(
        x for x in (ref.title and ref.title.rstrip(".") + ".", ref.venue and ref.venue + ".") if x
    )
    return f"{authors} ({year}). {rest or ref.text}"


def body_text(article: Article, cite: Callable[[Cite], str]) -> list[tuple[str, str]]:
    out = []
    for para in article.paras:
        text = "".join(p if isinstance(p, str) else cite(p) for p in para.pieces)
        out.append((para.kind, " ".join(text.split())))
    return out


def make_docx(article: Article, style: str) -> bytes:
    from manuscript.build import Block, DocxBuilder, Field, h1

    refs = refs_of(article)
    builder = DocxBuilder()
    builder.add(Block("title", [article.title]))
    labels = author_year_labels(refs)
    for para in article.paras:
        if para.kind.startswith("heading"):
            builder.add(Block("h1" if para.kind == "heading1" else "h2", [para.pieces[0]]))  # type: ignore[list-item]
            continue
        pieces: list[Any] = []
        for p in para.pieces:
            if isinstance(p, str):
                pieces.append(" ".join(p.split("\n")))
            elif style == "numeric":
                pieces.append(numeric(p))
            elif style == "zotero":
                items = [
                    csl_item(refs[r], article.ids[r] if r < len(article.ids) else "source")
                    for r in sorted(p.refs)
                ]
                pieces.append(Field(items, numeric(p)))
            else:
                pieces.append(
                    "(" + "; ".join(f"{labels[r][0]}, {labels[r][1]}" for r in sorted(p.refs)) + ")"
                )
        builder.add(Block("p", pieces))
    builder.add(h1("References"))
    if style == "author-year":
        entries = [ay_entry(ref, labels[n][1]) for n, ref in enumerate(refs)]
    else:
        entries = [f"[{n}] {ref.text}" for n, ref in enumerate(refs, start=1)]
    builder.bibliography(entries, "zotero" if style == "zotero" else None)
    return builder.save()


def csl_item(ref: StatedReference, key: str) -> dict[str, Any]:
    item: dict[str, Any] = {"id": key, "type": "article-journal"}
    if ref.title:
        item["title"] = ref.title
    people = []
    for author in ref.authors:
        family, _, given = author.partition(",")
        people.append(
            {"family": family.strip(), "given": given.strip()}
            if given
            else {"literal": family.strip()}
        )
    if people:
        item["author"] = people
    if ref.year:
        item["issued"] = {"date-parts": [[ref.year]]}
    if ref.venue:
        item["container-title"] = ref.venue
    if ref.doi:
        item["DOI"] = ref.doi
    if ref.pmid:
        item["PMID"] = ref.pmid
    return item


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\^{}",
    "_": r"\_",
    "%": r"\%",
    "~": r"\~{}",
}


def tex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def bib_key(rid: str) -> str:
    return re.sub(r"[^A-Za-z0-9:._-]", "_", rid)


def make_latex(article: Article) -> dict[str, bytes]:
    refs = refs_of(article)
    keys = [bib_key(r) for r in article.ids] + (["plantedsource"] if article.quoted else [])
    lines = [
        "\\documentclass{article}",
        "\\usepackage{natbib}",
        f"\\title{{{tex_escape(article.title)}}}",
        "\\begin{document}",
        "\\maketitle",
    ]
    cited: set[int] = set()
    for para in article.paras:
        if para.kind.startswith("heading"):
            command = "section" if para.kind == "heading1" else "subsection"
            lines.append(f"\\{command}{{{tex_escape(str(para.pieces[0]))}}}")
            continue
        parts = []
        for p in para.pieces:
            if isinstance(p, str):
                parts.append(tex_escape(p))
            else:
                cited |= p.refs
                parts.append("\\cite{" + ",".join(keys[r] for r in sorted(p.refs)) + "}")
        lines += ["", " ".join("".join(parts).split()), ""]
    uncited = [keys[n] for n in range(len(refs)) if n not in cited]
    if uncited:
        lines.append("\\nocite{" + ",".join(uncited) + "}")
    lines += ["\\bibliographystyle{unsrtnat}", "\\bibliography{refs}", "\\end{document}"]
    bib = [bib_entry(keys[n], ref) for n, ref in enumerate(refs)]
    return {"main.tex": "\n".join(lines).encode(), "refs.bib": "\n\n".join(bib).encode()}


def bib_entry(key: str, ref: StatedReference) -> str:
    def value(text: str) -> str:
        return "{" + tex_escape(text) + "}"

    fields = []
    if ref.authors:
        fields.append("author = {" + " and ".join(tex_escape(a) for a in ref.authors) + "}")
    if ref.title:
        fields.append("title = " + value(ref.title))
    else:
        fields.append("note = " + value(ref.text))
    if ref.venue:
        fields.append("journal = " + value(ref.venue))
    if ref.year:
        fields.append(f"year = {{{ref.year}}}")
    if ref.doi:
        fields.append("doi = {" + ref.doi + "}")
    return f"@article{{{key},\n  " + ",\n  ".join(fields) + "\n}"


def make_pdf(article: Article) -> bytes:
    from manuscript.build import build_pdf_manuscript

    blocks: list[tuple[Any, str]] = [("title", article.title)]
    for kind, text in body_text(article, numeric):
        blocks.append(("heading" if kind.startswith("heading") else "p", text))
    blocks.append(("heading", "References"))
    blocks += [("ref", f"[{n}] {ref.text}") for n, ref in enumerate(refs_of(article), start=1)]
    return build_pdf_manuscript(blocks)


# --- scoring ------------------------------------------------------------------------------------


@dataclass
class Score:
    entries: int = 0
    entries_expected: int = 0
    citations: int = 0
    citations_expected: int = 0
    quotations: int = 0
    quotations_expected: int = 0
    verdicts: int = 0
    verdicts_checked: int = 0
    seconds: float = 0.0
    checking: float = 0.0
    """Seconds the checking half took (the planted quotations' checks)."""
    articles: int = 0
    failures: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name in (
            "entries",
            "entries_expected",
            "citations",
            "citations_expected",
            "quotations",
            "quotations_expected",
            "verdicts",
            "verdicts_checked",
            "seconds",
            "checking",
            "articles",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures += other.failures


def _squash(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def entry_index(m: Manuscript, article: Article, fmt: str) -> dict[str, int]:
    """Entry id -> ref index, by what the format prints (number, key or text)."""
    refs = refs_of(article)
    out: dict[str, int] = {}
    if fmt == "jats":
        position = {rid: n for n, rid in enumerate(article.ids)}
        return {e.id: position[e.id] for e in m.references if e.id in position}
    if fmt == "latex":
        keys = [bib_key(r) for r in article.ids] + ["plantedsource"]
        position = {k: n for n, k in enumerate(keys)}
        return {e.id: position[e.key or e.id] for e in m.references if (e.key or e.id) in position}
    if fmt == "docx-ay":
        labels = author_year_labels(refs)
        heads = [fold(ay_entry(ref, labels[n][1]))[:60] for n, ref in enumerate(refs)]
        for e in m.references:
            text = fold(e.reference.text)[:60]
            if text in heads:
                out[e.id] = heads.index(text)
        return out
    if fmt == "jats-text" and not any((e.label or "").isdigit() for e in m.references):
        heads = [fold(ref.text)[:50] for ref in article.refs]
        for e in m.references:
            text = fold(e.reference.text)[:50]
            if text in heads:
                out[e.id] = heads.index(text)
        return out
    for e in m.references:
        if e.label and e.label.isdigit() and 1 <= int(e.label) <= len(refs):
            out[e.id] = int(e.label) - 1
    return out


def score(
    article: Article, fmt: str, m: Manuscript, checked: dict[str, str] | None = None
) -> Score:
    """The figures of one article in one format; ``checked`` maps each quotation's words
    (squashed) to its check's finding (:func:`check_quotations`), None to leave verdicts out."""
    s = Score(articles=1)
    index = entry_index(m, article, fmt)
    original = fmt in ("jats", "jats-text")
    expected_refs = len(article.refs) if original else len(refs_of(article))
    s.entries_expected = expected_refs
    s.entries = len(set(index.values()) & set(range(expected_refs)))
    if fmt == "jats":
        truth = list(article.xrefs)
    else:
        truth = [
            p.refs
            for para in article.paras
            for p in para.pieces
            if isinstance(p, Cite) and (fmt != "jats-text" or max(p.refs) < len(article.refs))
        ]
    got = [
        frozenset(index.get(i, -1) for i in c.entry_ids) if c.linked else frozenset({-1})
        for c in m.citations
        if c.region in ("body", "front")
    ]
    if fmt == "jats-text":
        # printed text splits and groups citations its own way ("[2], [3]" or "[2, 3]"):
        # each cited work, in order, is what is compared
        truth = [frozenset({r}) for t in truth for r in sorted(t)]
        got = [frozenset({r}) for g in got for r in sorted(g)]
    s.citations_expected = len(truth)
    matcher = SequenceMatcher(None, truth, got, autojunk=False)
    s.citations = sum(block.size for block in matcher.get_matching_blocks())
    if s.citations < len(truth):
        first = next((k for k, (a, b) in enumerate(zip(truth, got, strict=False)) if a != b), None)
        s.failures.append(
            f"{article.name} {fmt}: citations {s.citations}/{len(truth)} "
            f"(read {len(got)}; first difference at {first})"
        )
    if not original:
        s.quotations_expected = len(article.planted)
        by_text = defaultdict(list)
        for q in m.quotations:
            by_text[_squash(q.text)].append(q)
        for planted in article.planted:
            want = _squash(planted.text if fmt != "pdf" else _pdf(planted.text))
            found = by_text.get(want, [])
            ok = any(
                planted.ref
                in {index.get(e, -1) for i in q.citations for e in m.citations[i].entry_ids}
                for q in found
            )
            s.quotations += ok
            if not ok:
                why = "found, citation not linked to its source" if found else "not found"
                s.failures.append(f"{article.name} {fmt}: quotation {why}: {want[:70]!r}")
            verdict = quotation_verdict(m, planted, article, checked)
            if verdict is not None:
                s.verdicts_checked += 1
                # the PDF writer draws what it cannot print as '?': such a quotation is not
                # the source's words any more, however it was planted
                changed = planted.altered or want != _squash(planted.text)
                right = verdict == ("misquote" if changed else "ok")
                s.verdicts += right
                if not right:
                    kind = "an altered" if planted.altered else "an exact"
                    s.failures.append(
                        f"{article.name} {fmt}: {verdict} for {kind} quotation: {want[:60]!r}"
                    )
    return s


def _pdf(text: str) -> str:
    from manuscript.build import pdf_safe

    return pdf_safe(text)


def check_quotations(
    m: Manuscript, article: Article, folder: Path, reports: dict[str, Any] | None = None
) -> dict[str, str]:
    """Each quotation's words (squashed) -> its finding, from the checking half's run on
    ``m`` with ``folder`` (holding the quoted article's JATS) as ``--sources``: offline, the
    references not verified (they would need the network), nothing signed or logged.  The
    whole report is kept in ``reports`` when one is given (``--json``)."""
    from citeproof.models.manuscript import ManuscriptInfo
    from citeproof.service.manuscripts import check_read

    if article.quoted is None:
        return {}
    copy = folder / f"{article.name}-source.nxml"
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(article.quoted_data)
    info = ManuscriptInfo(name=article.name, format=m.format, sha256="-", characters=len(m.text))
    report = check_read(
        m, info, sources=copy.parent, offline=True, references=False, retraction=False
    )
    if reports is not None:
        reports[f"{article.name} {m.name} {m.format}"] = report.model_dump(mode="json")
    return {_squash(q.text): q.finding for q in report.quotations}


def quotation_verdict(
    m: Manuscript, planted: Planted, article: Article, checked: dict[str, str] | None
) -> str | None:
    """The checking half's verdict for a planted quotation: ``ok`` when its check found the
    words (EXACT), ``misquote`` when it found them altered or not at all (a near quote or a
    misquote), else the finding (unchecked: the copy was not matched or not read), or
    ``not read`` when the reader did not find the quotation; None without checks."""
    if checked is None:
        return None
    want = _squash(planted.text if m.format != "pdf" else _pdf(planted.text))
    finding = checked.get(want)
    if finding is None:
        return "not read"
    return {"ok": "ok", "near_quote": "misquote", "misquote": "misquote"}.get(finding, finding)


# --- running -------------------------------------------------------------------------------------


def read(article: Article, fmt: str) -> tuple[Manuscript, float]:
    if fmt == "jats":
        built: Any = article.data
    elif fmt == "jats-text":
        from citeproof.documents.jats import parse_jats

        built = parse_jats(article.data).text.encode()
    elif fmt == "docx":
        built = make_docx(article, "numeric")
    elif fmt == "docx-ay":
        built = make_docx(article, "author-year")
    elif fmt == "docx-zotero":
        built = make_docx(article, "zotero")
    elif fmt == "latex":
        built = make_latex(article)
    else:
        built = make_pdf(article)
    start = time.perf_counter()
    if isinstance(built, dict):
        m = read_manuscript(b"", members=built)
    else:
        m = read_manuscript(built, name=f"{article.name}.{fmt}")
    return m, time.perf_counter() - start


def _plain(m: Manuscript) -> Any:
    """The manuscript as read, as JSON-ready data (``--json``)."""
    return dataclasses.asdict(m)


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.2f}% ({n}/{d})" if d else "n/a"


def table(totals: dict[str, Score]) -> list[str]:
    columns = (
        "format",
        "articles",
        "entries found",
        "citations linked right",
        "quotations found with citation",
        "quotation verdicts right",
        "read s/article",
        "check s/article",
    )
    rows = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for fmt, t in totals.items():
        verdicts = _pct(t.verdicts, t.verdicts_checked) if t.verdicts_checked else "n/a"
        quotations = _pct(t.quotations, t.quotations_expected) if t.quotations_expected else "n/a"
        checking = f"{t.checking / max(t.articles, 1):.2f}" if t.verdicts_checked else "n/a"
        rows.append(
            f"| {fmt} | {t.articles} | {_pct(t.entries, t.entries_expected)} | "
            f"{_pct(t.citations, t.citations_expected)} | {quotations} | {verdicts} | "
            f"{t.seconds / max(t.articles, 1):.2f} | {checking} |"
        )
    return rows


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument(
        "--jats",
        type=Path,
        action="append",
        default=[],
        help="a folder of JATS .xml/.nxml files to add",
    )
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--limit", type=int, default=0, help="at most this many articles")
    parser.add_argument("--readme", action="store_true", help="append the table to bench/README.md")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument(
        "--no-check", action="store_true", help="the reading half only: no quotation verdicts"
    )
    parser.add_argument(
        "--json",
        type=Path,
        help="write every manuscript as read and every check's report to this file, to "
        "compare two versions of the code run for run",
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    # The checks run offline in a home of their own: no cache, log or key of the user's.
    scratch = Path(tempfile.mkdtemp(prefix="bench-manuscripts-"))
    os.environ["CITEPROOF_HOME"] = str(scratch / "home")
    formats = [f for f in args.formats.split(",") if f]
    paths = sorted((args.shared / "corpus" / "pmc-jats").glob("*.nxml"))
    for folder in args.jats:
        paths += sorted(p for p in folder.iterdir() if p.suffix in (".xml", ".nxml"))
    if args.limit:
        paths = paths[: args.limit]
    articles = [a for a in (load_article(p) for p in paths) if a is not None]
    if not articles:
        print(
            f"no JATS article with references found (looked in {args.shared}/corpus/pmc-jats "
            "and the --jats folders)",
            file=sys.stderr,
        )
        return 2
    plant(articles)
    load_before = os.getloadavg()
    totals = {fmt: Score() for fmt in formats}
    dump: dict[str, Any] = {"read": {}, "checked": {}}
    for article in articles:
        for fmt in formats:
            try:
                m, seconds = read(article, fmt)
            except Exception as exc:  # a failure to read is a result, not a crash
                totals[fmt].failures.append(f"{article.name} {fmt}: {type(exc).__name__}: {exc}")
                totals[fmt].articles += 1
                continue
            checked = None
            started = time.perf_counter()
            if not args.no_check and fmt not in ("jats", "jats-text"):
                checked = check_quotations(
                    m, article, scratch / "sources" / article.name, dump["checked"]
                )
            dump["read"][f"{article.name} {fmt}"] = _plain(m)
            result = score(article, fmt, m, checked)
            result.seconds = seconds
            result.checking = time.perf_counter() - started
            totals[fmt].add(result)
    load_after = os.getloadavg()
    digest = hashlib.sha256(b"".join(sorted(a.data for a in articles))).hexdigest()[:12]
    refs = sum(len(a.refs) for a in articles)
    xrefs = sum(len(a.xrefs) for a in articles)
    planted = sum(len(a.planted) for a in articles)
    header = (
        f"{len(articles)} articles (sha256 of the set {digest}), {refs} refs, {xrefs} xrefs, "
        f"{planted} planted quotations; load average {load_before[0]:.2f} before, "
        f"{load_after[0]:.2f} after; "
        f"{os.cpu_count()} cores; Python {platform.python_version()}"
    )
    rows = table(totals)
    print(header)
    print("\n".join(rows))
    failing = False
    for t in totals.values():
        for n, d in (
            (t.entries, t.entries_expected),
            (t.citations, t.citations_expected),
            (t.quotations, t.quotations_expected),
            (t.verdicts, t.verdicts_checked),
        ):
            failing |= bool(d) and n / d < TARGET
        if args.verbose or t.failures:
            for line in t.failures[: 20 if args.verbose else 5]:
                print("  " + line)
    if args.json is not None:
        args.json.write_text(json.dumps(dump, indent=1, sort_keys=True), encoding="utf-8")
    if args.readme:
        with README.open("a", encoding="utf-8") as out:
            out.write(f"\n{header}\n\n" + "\n".join(rows) + "\n")
    shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
