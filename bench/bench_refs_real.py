"""Issue 22: ``citeproof refs`` on real bibliographic data, with no false accusations.

Why: the invented worlds (``tests/refs_world.py``, ``bench/refs_fixtures.py``) say whether
each path works; they cannot say how often a real reference, printed in a real style, is
called fabricated.  This harness builds a world of real works and real reference strings
from Crossref's public reference-matching evaluation (the ``CrossRef/reference-matching-
evaluation`` repository; pass its location with ``--data DIR``, a git directory or a
checkout, nothing of it is copied here), answers every request citeproof makes from an
emulation of the services (``tests/scholarly_world.py``), and scores every verdict against
its truth.

**The world.**  Each work the evaluation renders in several citation styles (7,485 works in
11 styles under ``analyses/2_unstructured_artificial_evaluation``: a sample and the similar
documents Crossref's search found for it, and 2,500 more in 8 styles under
``analyses/1_unstructured_analysis``) becomes a record read back from its renderings
(:func:`read_back`): every rendering is a CSL rendering of the same Crossref record (the
degraded styles join its raw fields), so each field is taken from every style that prints
it: the title as the degraded style, IEEE or APA prints it (found from the quoted title of
IEEE, MLA or Chicago, whatever apostrophes, quotes and dashes each prints), the authors
from APA or ACS with full given names from the degraded style or Chicago, the year where
APA prints it, the venue, volume, issue and pages from the degraded style, IEEE, APA, MLA,
ACS, AIP or Elsevier, and an abbreviation where the ACS rendering prints one.  The type
is left unknown (no rendering prints it).  A field that cannot be read reliably stays
empty; the run prints how many records have each field.  ``--world as-read`` builds the
records as the first read-back read them (:func:`read_back_as_read`), to reproduce the
figures measured in that world.  The works the 3,000 real reference strings point to
(``analyses/3_unstructured_real_evaluation``, ``analyses/1_unstructured_analysis/data/
existing``) have no renderings: their records hold what a conservative reading of the
string gives (year, first author, the longest sentence as the title), and are counted
apart.

**The entries**, each with its truth: (a) renderings of works in the world, one or more
styles a work (``--styles-per-work``; ``--styles-from K`` skips the first K of each work's
styles, so ``--styles-from 3 --styles-per-work 8`` verifies the renderings a standard run
never shows: the same works, printed otherwise, a check that what was tuned on the standard
renderings holds beyond them), and for some a rendering with the DOI printed as its
style prints one; (b) the real strings (those whose true DOI is null cite something outside
the world: reported apart, never scored right or wrong); (c) the "excluded" sample, real
works the evaluation pretends are not in the collection (its README: "a reference string
generated from a document in this sample is expected not to be linked to anything"), so
absent from the world; (d) fabrications made from the world with a fixed seed: a real DOI
printed on another work's metadata (``doi-swap``), an invented title with a real work's
authors and venue (``invented-title``), one work's title with another's authors, venue and
year (``chimera``) and a reference made up whole (``invented``).  ``--split`` keeps half of
them by a hash of the DOI (``dev`` to tune on; ``hidden`` for the final check only).

**Scoring.** A work in the world is right when ``verified`` with its DOI, or ``ambiguous``
with its DOI among the candidates (it accuses nothing and names the work; counted in its
own column).  A fabricated or excluded entry is right when flagged (``not_found``,
``mismatch``, ``partial``, ``unresolvable``).  That holds for an entry that prints an
identity (:func:`prints_identity`, decided from its truth record, style and rendering
alone, never by citeproof's code): its DOI, an informative title (three words or more, in a
style that prints titles: all but ACS, AIP with or without noise and
Elsevier-without-titles; every fabrication prints one), or the numeric key (venue, volume,
first page, and a year or an author; without a volume, as a chapter, venue and first page
and a year or an author; the numbers only where the rendering prints them, whatever sticks
to them or dash they are written with, and once for each field a number stands for, since a
style leaves some pages out, OCR noise garbles some and a read-back may take the year for a
page as well).  A real string whose record was read from the string itself counts as
printing one (that record holds too little to judge what the string prints).  An entry that
prints none of them ("(1) Rosenau, J. N. 1964.") cannot be identified by any matcher, so
the only honest verdict is that it could not be checked: it is right when ``unchecked`` (or
when it names its true work), and any flag or other work named is wrong, whether or not
the work is in the world.  Both figures are printed: the right share by this rule (column
``noid``: the entries that print no identity) and the strict share of the first rule, where
``unchecked`` is never right.
An absent entry (excluded or fabricated) answered ``unchecked`` as a kind of work the
databases may not hold (a book, a data set, a legal text) is right too, counted apart: that
is the verdict point 8 of the issue asks for (the strict share counts it wrong, and flag
recall counts it unflagged).  ``unavailable`` is never right: the world always answers.
Link precision and recall are the evaluation's (``evaluation/link_metrics.py``): the
predicted link is the verified work's DOI.  Flag precision: of the flagged entries whose
truth is known, the share naming no work of the world; flag recall: of those naming none,
the share flagged (also given over the entries that print an identity alone).

**What the emulation cannot measure**: the real services' ranking and coverage (the world
ranks by BM25 and holds every work in Crossref and OpenAlex, none in PubMed or DataCite:
the data give no PMIDs); errors in real records (a record here is what the renderings
print, so the stated and recorded metadata agree more than they do in life, most of all
for the real strings, whose records were read from the strings themselves); throttling,
outages and latency; works no service holds (the excluded sample stands in for them); the
excluded works are real, so live they would be found.

    python bench/bench_refs_real.py --data DIR                  # the dev split
    python bench/bench_refs_real.py --data DIR --limit 100      # 100 entries a kind
    python bench/bench_refs_real.py --data DIR --json out.json --show-wrong 20
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from scholarly_world import Person, Work, World  # noqa: E402

if TYPE_CHECKING:
    import httpx2

    from citeproof.models.references import ReferenceResult

#: Published link figures: Crossref SBMV on its 2,000 real strings, biblio-glutton on
#: 17,015 PMC references (its doc/Benchmarking.md).
PEERS = {"Crossref SBMV": (0.981, 0.946), "biblio-glutton": (0.973, 0.955)}
FLAGS = frozenset({"not_found", "mismatch", "partial", "unresolvable"})
VERDICTS = (
    "verified",
    "ambiguous",
    "partial",
    "not_found",
    "mismatch",
    "unresolvable",
    "unavailable",
)

A2 = "analyses/2_unstructured_artificial_evaluation/data/datasets/"
A1 = "analyses/1_unstructured_analysis/data/datasets/"
A2_STYLES = (
    "american-chemical-society",
    "american-institute-of-physics",
    "american-institute-of-physics-noise",
    "apa",
    "apa-noise",
    "chicago-author-date",
    "degraded_all_authors",
    "degraded_one_author",
    "degraded_title_scrambled",
    "elsevier-without-titles",
    "modern-language-association",
)
A1_STYLES = (
    "american-chemical-society",
    "american-institute-of-physics",
    "apa",
    "chicago-author-date",
    "elsevier-without-titles",
    "harvard3",
    "ieee",
    "modern-language-association",
)
REAL = {
    "real-2k": "analyses/3_unstructured_real_evaluation/data/unstructured_sbmv.json",
    "real-1k": "analyses/1_unstructured_analysis/data/existing/unstructured_1K_sbmv.json",
}
#: How each style prints a DOI (the styles whose current editions print one).
DOI_FORMS = {
    "apa": "{s} https://doi.org/{doi}",
    "chicago-author-date": "{s} doi:{doi}.",
    "american-chemical-society": "{s} DOI: {doi}.",
    "modern-language-association": "{s} doi:{doi}.",
    "ieee": "{t}, doi: {doi}.",
    "harvard3": "{s} Available at: https://doi.org/{doi}.",
}


def load_avg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _hash(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)


def split_of(key: str) -> str:
    """``dev`` or ``hidden``: a fixed half of the keys, whatever else the run chooses."""
    return "dev" if _hash("split:" + key.lower()) % 2 == 0 else "hidden"


# =========================================================================== the data


class Data:
    """The evaluation repository: a checkout, or a git directory read with ``git show``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.git = (root / "HEAD").is_file() and (root / "objects").is_dir()
        if not self.git and not (root / "analyses").is_dir():
            raise SystemExit(f"bench_refs_real: {root} is neither a checkout nor a git directory")

    def read(self, path: str) -> bytes:
        if not self.git:
            return (self.root / path).read_bytes()
        done = subprocess.run(
            ["git", "--git-dir", str(self.root), "show", f"HEAD:{path}"],
            capture_output=True,
            check=False,
        )
        if done.returncode:
            raise SystemExit(f"bench_refs_real: {path} is not in {self.root}")
        return done.stdout

    def json(self, path: str) -> Any:
        return json.loads(self.read(path))


# =========================================================================== read-back

_DASH = re.compile(r"\s*[–—-]\s*")
_PROC = re.compile(r"\b(proceedings|proc\.|conference|symposium|workshop|congress)\b", re.I)
_INITIALS = re.compile(r"^(?:[^\W\d_]{1,2}\.[\s-]?){1,8}(?:\s?[^\W\d_]+)?$")


def _norm(text: str) -> str:
    return " ".join(text.split())


def _quoted(text: str | None) -> str | None:
    if not text:
        return None
    m = re.search(r"“(.+)”", text)
    return m.group(1).strip().rstrip(",.").strip() if m else None


def _pages(text: str) -> tuple[str, str]:
    text = text.strip().removeprefix("pp.").removeprefix("p.").strip().rstrip(".")
    if not text or not re.search(r"\d", text):
        return "", ""
    parts = _DASH.split(text, maxsplit=1)
    first = parts[0].strip()
    last = parts[1].strip() if len(parts) > 1 else ""
    return first, last


def _apa_authors(apa: str) -> tuple[list[tuple[str, str]], bool, bool]:
    """(family, initials) pairs from an APA rendering, whether the list was cut (APA 6
    prints seven then "…"), whether they are editors."""
    m = re.match(r"^(.*?)\s*\((\d{4}|n\.d\.)[a-z]?\)\.", apa)
    if not m:
        return [], False, False
    part = m.group(1).strip()
    editors = bool(re.search(r"\(Eds?\.\)\.?$", part))
    part = re.sub(r"\s*\(Eds?\.\)\.?$", "", part).rstrip(".")
    cut = ". . ." in part or "…" in part
    part = part.replace(". . .", ",").replace("…", ",")
    tokens = [t.strip().removeprefix("& ").strip() for t in re.split(r",\s+", part)]
    tokens = [t for t in tokens if t]
    if len(tokens) % 2 or not tokens:
        return [], cut, editors
    pairs = list(zip(tokens[::2], tokens[1::2], strict=True))
    if not all(_INITIALS.match(i if i.endswith(".") else i + ".") for _, i in pairs):
        return [], cut, editors
    return [(f, i if i.endswith(".") else i + ".") for f, i in pairs], cut, editors


def _degraded(text: str, title: str) -> dict[str, Any] | None:
    """The fields of the degraded style: ``Family, Given, … . Title. Venue. Year. Vol.
    Issue. Pages``; None when the title cannot be found in it."""
    at = text.find(title) if title else -1
    if at < 0:
        return None
    head = text[:at].rstrip().removesuffix(".").strip()
    tail = text[at + len(title) :].lstrip(".?! ")
    fields = tail.split(". ")
    if len(fields) < 5:
        return None
    venue = ". ".join(fields[:-4]).strip()
    year, volume, issue, pages = (f.strip().rstrip(".") for f in fields[-4:])
    tokens = [t.strip() for t in head.split(", ")] if head else []
    people = list(zip(tokens[::2], tokens[1::2], strict=False)) if len(tokens) % 2 == 0 else []
    return {
        "venue": venue,
        "year": year,
        "volume": volume,
        "issue": issue,
        "pages": pages,
        "people": people,
    }


def _ieee(text: str) -> dict[str, str]:
    m = re.search(r"”\s*(.*)$", text)
    if not m:
        return {}
    rest = m.group(1).strip().rstrip(".")
    cut = re.search(r",\s*(?:vol\.|no\.|pp?\.|[A-Z][a-z]{2}\.?\s+\d{4}|\d{4}\s*$)", rest)
    venue = rest[: cut.start()] if cut else rest
    venue = re.sub(r"^in\s+", "", venue).strip(" ,")
    out = {"venue": venue}
    for name, pattern in (
        ("volume", r"vol\. ([^,]+)"),
        ("issue", r"no\. ([^,]+)"),
        ("pages", r"pp?\. ([^,]+)"),
    ):
        found = re.search(pattern, rest)
        if found:
            out[name] = found.group(1).strip()
    return out


def _acs_short(acs: str | None, venue: str, year: int | None) -> str:
    """The abbreviation the ACS rendering prints for ``venue`` ("" when it prints the full
    title or cannot be read): CSL's ACS style prints Crossref's short container title."""
    if not acs or not venue or not year:
        return ""
    m = re.match(rf"^\(\d+\)\s*(.*?)\s+{year}[,.]", acs)
    if not m:
        return ""
    left = m.group(1)
    if left.endswith(venue):
        return ""
    # The authors are "Family, I. I." items joined by "; "; the venue follows the last.
    last = left.rsplit("; ", 1)[-1]
    authors = re.match(r"[^,]{1,60}, (?:[^\W\d_][\w'-]{0,3}\.\s?){1,6}", last)
    short = last[authors.end() :].strip() if authors else ""
    if not short or short == venue or len(short) > len(venue):
        return ""
    initials = [w[0].lower() for w in re.findall(r"[^\W\d_]+", short)]
    full = [w[0].lower() for w in re.findall(r"[^\W\d_]+", venue)]
    return short if initials and initials[0] == full[0] else ""


@dataclass(slots=True)
class Rendered:
    doi: str
    source: str
    """``a2`` or ``a1``: which part of the evaluation rendered it."""
    styles: dict[str, str] = field(default_factory=dict)


def _chicago_given(people: list[Person], chicago: str) -> list[Person]:
    """The given names Chicago author-date prints, put on ``people`` (read elsewhere with
    initials): it prints the first author "Family, Given" and the others "Given Family"."""
    head = re.split(r"\.\s+\d{4}[a-z]?\.\s", chicago, maxsplit=1)[0]
    segments = [t.strip() for t in re.split(r",\s*(?:and\s+)?|\s+and\s+", head) if t.strip()]
    if len(segments) < 2 or segments[0] != people[0].family:
        return people
    given = [segments[1]]
    for p, seg in zip(people[1:], segments[2:], strict=False):
        given.append(seg[: -len(p.family)].strip() if seg.endswith(p.family) else "")
    return [
        Person(p.family, g if g and not g.endswith(p.family) else p.given)
        for p, g in zip(people, [*given, *[""] * len(people)], strict=False)
    ]


def _fields_read(work: Work, cut: bool) -> set[str]:
    """The fields a read-back found, for the counts the run prints (``cut``: APA's author
    list ended with "..." and lost the authors between)."""
    given = any(len(p.given.replace(".", "").replace(" ", "")) > 2 for p in work.authors)
    return {
        name
        for name, value in (
            ("title", work.title),
            ("authors", work.authors),
            ("given names", given),
            ("year", work.year),
            ("venue", work.venue),
            ("second container title", work.other_venues),
            ("abbreviation", work.venue_short),
            ("volume", work.volume),
            ("issue", work.issue),
            ("first page", work.first_page),
            ("last page", work.last_page),
            ("authors cut", cut),
        )
        if value
    }


def read_back_as_read(r: Rendered) -> tuple[Work, set[str]]:
    """The record as the first read-back read it (``--world as-read``): kept unchanged so
    the figures measured in that world stay reproducible.  Its faults, which
    :func:`read_back` corrects: the title is found again in the degraded style only when
    its quotes, apostrophes and dashes are the same characters as in MLA's (they often
    are not), and only the degraded style and IEEE give a venue, volume and pages, so a
    work without a found title has none of them; the degraded fields are counted from the
    end, so an issue printed "Part 1, No. 2A" shifts the volume into the year; a record
    without a venue is typed "book"."""
    s = r.styles
    apa = s.get("apa") or ""
    quoted = (
        _quoted(s.get("ieee"))
        or _quoted(s.get("modern-language-association"))
        or _quoted(s.get("chicago-author-date"))
    )
    title = ""
    if quoted:
        for source in (s.get("ieee"), apa, s.get("degraded_all_authors"), s.get("harvard3")):
            if not source:
                continue
            at = source.lower().find(quoted.lower())
            if at >= 0:
                title = source[at : at + len(quoted)]
                break
        title = title or quoted
    pairs, cut, editors = _apa_authors(apa)
    people = [Person(f, i) for f, i in pairs]
    year = None
    m = re.search(r"\((\d{4})[a-z]?\)\.", apa) or re.search(
        r"\b(1[5-9]\d\d|20[0-3]\d)\b", s.get("elsevier-without-titles") or ""
    )
    if m:
        year = int(m.group(1))
    venue = volume = issue = pages = ""
    fields: dict[str, Any] | None = None
    if s.get("degraded_all_authors") and title:
        fields = _degraded(s["degraded_all_authors"], title)
    if fields:
        venue, volume, issue, pages = (
            fields["venue"],
            fields["volume"],
            fields["issue"],
            fields["pages"],
        )
        if fields["year"].isdigit():
            year = int(fields["year"])
        full = fields["people"]
        if (
            full
            and len(full) >= len(people)
            and all(f == p.family for (f, _), p in zip(full, people, strict=False))
        ):
            people = [Person(f, g) for f, g in full]
    elif s.get("ieee") and title:
        ie = _ieee(s["ieee"])
        venue = ie.get("venue", "")
        volume, issue, pages = ie.get("volume", ""), ie.get("issue", ""), ie.get("pages", "")
    if s.get("chicago-author-date") and people and not fields:
        people = _chicago_given(people, s["chicago-author-date"])
    first, last = _pages(pages)
    kind = "journal-article"
    if editors:
        kind = "book"
        people = []
    elif venue and _PROC.search(venue):
        kind = "proceedings-article"
    elif venue and not volume and not first:
        kind = "book-chapter"
    elif not venue:
        kind = "book"
    work = Work(
        doi=r.doi,
        title=title,
        authors=tuple(people),
        year=year,
        venue=venue,
        venue_short=_acs_short(s.get("american-chemical-society"), venue, year),
        volume=volume,
        issue=issue,
        first_page=first,
        last_page=last,
        kind=kind,
    )
    return work, _fields_read(work, cut=bool(cut))


#: The marks one style prints curly and another straight (apostrophes, quotes, dashes): one
#: character for one, so a position found in the folded text is the position in the text.
_MARKS = str.maketrans(
    {
        "‘": "'",
        "’": "'",
        "ʼ": "'",
        "′": "'",
        "“": '"',
        "”": '"',
        "„": '"',
        "–": "-",
        "—": "-",
        "‐": "-",
        "‑": "-",
        "−": "-",
    }
)
_CLOSING = "'\"’”"
_OPENS = {"’": "‘", "”": "“", ")": "(", "]": "[", "}": "{", "»": "«", "«": "»"}
_CLOSES = {"[": "]", "(": ")", "«": "»"}


def _letters(text: str) -> tuple[str, list[int]]:
    """The letters and digits of ``text`` in lower case, and where each one stands in it."""
    kept: list[str] = []
    where: list[int] = []
    for at, c in enumerate(text.translate(_MARKS)):
        if c.isalnum():
            low = c.lower()
            kept.append(low if len(low) == 1 else c)
            where.append(at)
    return "".join(kept), where


def _span(text: str, title: str, start: int = 0) -> tuple[int, int] | None:
    """Where ``title`` is printed in ``text`` (from ``start``), whatever marks, spaces and
    punctuation each prints: the styles render one title with curly or straight
    apostrophes and quotes, and CSL moves a full stop inside a closing quote.  The span
    takes in a quote that closes the title."""
    bare, _ = _letters(title)
    if not bare:
        return None
    letters, where = _letters(text)
    first = next((i for i, at in enumerate(where) if at >= start), len(where))
    found = letters.find(bare, first)
    if found < 0:
        return None
    begin, end = where[found], where[found + len(bare) - 1] + 1
    if begin and text[begin - 1] in _CLOSES and _CLOSES[text[begin - 1]] in text[begin:]:
        begin -= 1  # "[Editorial Comment] …", "(Review) …"
    while end < len(text):
        c, inside = text[end], text[begin:end]
        after = text[end + 1 : end + 2]
        if c in _OPENS:
            if inside.count(_OPENS[c]) <= inside.count(c):
                break
        elif c in "'\"":
            if not inside.count(c) % 2:
                break
        elif c == ".":  # "[Russian Text Ignored.]"; else the style's full stop
            if not (after in _OPENS and inside.count(_OPENS[after]) > inside.count(after)):
                break
        elif c.isspace() or c in ",;:":
            break
        end += 1  # "?", "!", "*", "$$" …: the title's own last marks
    return begin, end


def _after(text: str, end: int) -> str:
    """What follows a title ending at ``end``: its full stop and closing quotes left out."""
    return text[end:].lstrip(".?!,;:" + _CLOSING + " ")


def _degraded_numbers(text: str, start: int, year: int | None) -> dict[str, str]:
    """The venue (when ``start`` is the end of the title), year, volume, issue and pages of
    the degraded style, ``Authors. Title. Venue. Year. Volume. Issue. Pages`` (the
    evaluation's ``custom_styles.py``: Crossref's fields joined by ". ", empty ones
    included), found from the year printed after the title.  Counting fields from the end,
    as the first read-back did, shifts them all when an issue holds ". " ("Part 1, No.
    2A")."""
    pattern = rf"\.\s({year})\.(?=\s|$)" if year else r"\.\s(\d{4})?\.(?=\s|$)"
    m = re.compile(pattern).search(text, max(0, start - 2))
    if not m:
        return {}
    out = {"venue": _after(text[: m.start()], start).strip(), "year": m.group(1) or ""}
    parts = (text[m.end() :].removeprefix(" ") + " ").split(". ")
    if len(parts) < 3:
        return out
    out["volume"] = parts[0].strip()
    out["issue"] = ". ".join(parts[1:-1]).strip()
    out["pages"] = parts[-1].strip()
    return out


_APA_JOURNAL = (
    re.compile(
        r"^(?P<venue>.+?), (?P<volume>[^\s,()]+)(?:\((?P<issue>.+?)\))?, (?P<pages>[^\s,]+)$"
    ),
    re.compile(r"^(?P<venue>.+?), (?P<volume>[^\s,()]+)\((?P<issue>.+?)\)$"),
    re.compile(r"^(?P<venue>.+?), (?P<number>[^\s,()]*\d[^\s,()]*)$"),
    re.compile(r"^(?P<venue>(?:(?!, \S*\d).)+)$"),
)
_MLA_TAIL = re.compile(
    r"^(?P<venue>.+?)(?: (?P<volume>[^\s.]*\d[^\s.]*)(?:\.(?P<issue>[^(]+?))?)? "
    r"\((?P<year>\d{4})\)(?:: (?P<pages>.+?))?\.$"
)
_ACS = re.compile(
    r"^\(\d+\)\s*(?P<left>.*?)\s+(?P<year>\d{4})(?:,\s*(?P<volume>[^\s,–-]+))?"
    r"(?:,\s*(?P<pages>[A-Za-z]?\d[^\s,]*))?\.$"
)
_ACS_AUTHOR = re.compile(r"^([^,;]{1,60}), ((?:[^\W\d_][\w'’-]{0,3}\.\s?-?){1,6})")
#: AIP prints a volume with its comma ("Venue 43, 120 (2011)."), a page without a volume
#: alone ("Venue 71 (n.d.).": ``lone``); both print "n.d." for a record without a year.
_AIP = re.compile(
    r"(?:^1\s?|, )(?P<venue>[^,]+?)"
    r"(?: (?P<volume>[^\s,]*\d[^\s,]*),(?: (?P<pages>[A-Za-z]?\d\S*))?| (?P<lone>[A-Za-z]?\d+))?"
    r" \((?P<year>\d{4}|n\.d\.)\)\.$"
)
_ELSEVIER = re.compile(
    r"(?:^\[\d+\]\s?|, )(?P<venue>[^,]+?)(?: (?P<volume>[^\s,]*\d[^\s,]*))? "
    r"\((?P<year>\d{4}|n\.d\.)\)(?: (?P<pages>[A-Za-z]?\d\S*))?\.$"
)


def _apa_tail(apa: str, title_end: int | None, untitled: bool) -> dict[str, str]:
    """Venue, volume, issue and pages after APA's title: ``Venue, 39(Part 1, No. 2A),
    390–392.``  With no title found the tail is read only for a work that has none (APA
    then prints the venue right after the year)."""
    year = re.search(r"\((?:\d{4}|n\.d\.)[a-z]?\)\.\s*", apa)
    if not year:
        return {}
    if title_end is not None and title_end > year.end():
        rest = _after(apa, title_end)
    elif untitled or (title_end is not None and title_end <= year.start()):
        rest = apa[year.end() :]
    else:
        return {}
    rest = rest.strip().removesuffix(".")
    if not rest or rest.startswith("In ") or (untitled and ". " in rest):
        return {}
    for pattern in _APA_JOURNAL:
        m = pattern.match(rest)
        if m:
            return {k: v for k, v in m.groupdict().items() if v and k != "number"}
    return {}


def _mla_tail(mla: str) -> dict[str, str]:
    """Venue, volume, issue, year and pages after MLA's quoted title: ``Venue 39.Part 1,
    No. 2A (2000): 390–392.``"""
    m = re.search(r"”\s*(.*)$", mla)
    tail = _MLA_TAIL.match(m.group(1).strip()) if m else None
    if not tail:
        return {}
    out = {k: v for k, v in tail.groupdict().items() if v}
    if out.get("pages", "").startswith("n. pag"):
        del out["pages"]
    return out


def _acs(text: str) -> dict[str, Any]:
    """Authors (``Family, I.``), venue, year, volume and pages of the ACS style: ``(1)
    Family, I.; Other, J. Venue 2013, 461, 95–100.``  The venue may be Crossref's short
    title (CSL's ACS prints it where the record has one)."""
    m = _ACS.match(text)
    if not m:
        return {}
    out: dict[str, Any] = {k: v for k, v in m.groupdict().items() if v and k != "left"}
    parts = m.group("left").split("; ")
    people: list[Person] = []
    for n, part in enumerate(parts):
        a = _ACS_AUTHOR.match(part.strip())
        if not a:
            if len(parts) > 1:
                return {}
            out["venue"] = part.strip()  # no authors: the venue follows the number
            break
        people.append(Person(a.group(1).strip(), a.group(2).strip()))
        if n == len(parts) - 1:
            out["venue"] = part.strip()[a.end() :].strip()
    out["people"] = people
    return out


def _last_style(pattern: re.Pattern[str], text: str | None) -> dict[str, str]:
    m = pattern.search(text or "")
    got = {k: v.strip() for k, v in m.groupdict().items() if v} if m else {}
    if "lone" in got:
        got["pages"] = got.pop("lone")
    if got.get("year") == "n.d.":
        del got["year"]
    return got


def read_back(r: Rendered) -> tuple[Work, set[str]]:
    """The record the renderings print, and the names of the fields that were read.

    Every rendering is a CSL rendering of the same Crossref record (the degraded styles
    join its raw fields), so a field any style prints is a field the real record holds;
    each field is taken from the styles that print it, the most complete first: the
    title as the degraded style, IEEE or APA prints it (found from the quoted title of
    IEEE, MLA or Chicago whatever apostrophes, quotes and dashes each prints); the venue,
    volume, issue and pages from the degraded style, IEEE, APA, MLA, then ACS, AIP and
    Elsevier (a work rendered only in those still has its venue and numbers; ACS may
    print the short title, so it comes after the styles that print the full one); the
    authors from APA, or ACS when APA has none or cut the list at seven, with full given
    names from the degraded style or Chicago.  A work without a title keeps none (some
    Crossref records have none; the degraded style shows it empty).  The type is left
    unknown: no rendering prints Crossref's type, and a guess from the shape (the first
    read-back typed every record without a venue a "book") is a field the real record
    does not hold.  citeproof reads a record without a type as it reads an article: not
    a notice, not a preprint, not a whole whose parts an entry may cite."""
    s = r.styles
    apa = s.get("apa") or ""
    degraded = s.get("degraded_all_authors") or s.get("degraded_one_author") or ""
    quoted = (
        _quoted(s.get("ieee"))
        or _quoted(s.get("modern-language-association"))
        or _quoted(s.get("chicago-author-date"))
    )
    title = ""
    spans: dict[str, tuple[int, int] | None] = {}
    if quoted:
        for name in ("degraded_all_authors", "degraded_one_author", "ieee", "apa", "harvard3"):
            text = s.get(name)
            spans[name] = _span(text, quoted) if text else None
            found = spans[name]
            if text and found and not title:
                title = text[found[0] : found[1]].strip()
        title = title or quoted
    pairs, cut, editors = _apa_authors(apa)
    people = [] if editors else [Person(f, i) for f, i in pairs]
    acs = _acs(s.get("american-chemical-society") or "")
    # The year where APA prints it ("n.d.": the record has none; a year-shaped number in a
    # venue's name, "2005 IEEE International Symposium", is no year).
    year: int | None = None
    printed = re.search(r"\((\d{4}|n\.d\.)[a-z]?\)\.", apa)
    if printed and printed.group(1).isdigit():
        year = int(printed.group(1))
    candidates: list[dict[str, Any]] = []
    first_got: dict[str, Any] = {}
    if degraded:
        at = spans.get("degraded_all_authors") or spans.get("degraded_one_author")
        if at or not quoted:
            got = _degraded_numbers(degraded, at[1] if at else 0, year)
            if not at:
                got.pop("venue", None)
            candidates.append(got)
            first_got = got
            if got.get("year", "").isdigit():
                year = int(got["year"])
    if s.get("ieee") and quoted:
        candidates.append(_ieee(s["ieee"]))
    apa_at = spans.get("apa")
    candidates.append(_apa_tail(apa, apa_at[1] if apa_at else None, not quoted))
    candidates.append(_mla_tail(s.get("modern-language-association") or ""))
    candidates.append(acs)
    candidates.append(_last_style(_AIP, s.get("american-institute-of-physics")))
    candidates.append(_last_style(_ELSEVIER, s.get("elsevier-without-titles")))
    # A chapter's renderings name two containers: the degraded style Crossref's first
    # container title (the book), the CSL styles the one CSL takes (often the series).
    # The real record holds both, so both are kept: the CSL one where two CSL styles
    # print it alike (one style's reading alone may hold its editors or pages).
    alike = Counter(
        _letters(str(got.get("venue") or ""))[0] for got in candidates if got is not first_got
    )
    names = [
        str(got.get("venue") or "").strip()
        for got in candidates
        if got.get("venue") and alike[_letters(str(got["venue"]))[0]] >= 2
    ]
    read: dict[str, str] = {}
    for got in candidates:
        for name in ("venue", "volume", "issue", "pages"):
            value = str(got.get(name) or "").strip()
            if value and not read.get(name):
                read[name] = value
    venue, volume, issue = read.get("venue", ""), read.get("volume", ""), read.get("issue", "")
    if year is None and not printed:
        for got in candidates:
            if str(got.get("year", "")).isdigit():
                year = int(got["year"])
                break
    # The authors: APA's, or ACS's when APA gives none or stops at seven and ACS goes on
    # with the same names.
    more: list[Person] = acs.get("people") or []
    if not editors and (
        (not people and more)
        or (
            cut
            and len(more) > len(people)
            and all(a.family == b.family for a, b in zip(people, more, strict=False))
        )
    ):
        people = list(more)
    head_at = spans.get("degraded_all_authors")
    upgraded = False
    if s.get("degraded_all_authors") and head_at and not editors:
        # "Family, Given, Other, Given. Title": full given names where the families agree.
        head = s["degraded_all_authors"][: head_at[0]].rstrip().removesuffix(".").strip()
        tokens = [t.strip() for t in head.split(", ")] if head else []
        full = list(zip(tokens[::2], tokens[1::2], strict=False)) if len(tokens) % 2 == 0 else []
        if (
            full
            and len(full) >= len(people)
            and all(f == p.family for (f, _), p in zip(full, people, strict=False))
        ):
            people = [Person(f, g) for f, g in full]
            upgraded = True
    if s.get("chicago-author-date") and people and not upgraded:
        people = _chicago_given(people, s["chicago-author-date"])
    others: list[str] = []
    for name in names:
        bare = _letters(name)[0]
        if all(bare not in _letters(n)[0] and _letters(n)[0] not in bare for n in [venue, *others]):
            others.append(name)
    first, last = _pages(read.get("pages", ""))
    work = Work(
        doi=r.doi,
        title=title,
        authors=tuple(people),
        year=year,
        venue=venue,
        other_venues=tuple(others),
        venue_short=_acs_short(s.get("american-chemical-society"), venue, year),
        volume=volume,
        issue=issue,
        first_page=first,
        last_page=last,
        kind="",
    )
    return work, _fields_read(work, cut=bool(cut and len(people) <= len(pairs)))


def read_string(doi: str, text: str) -> tuple[Work, set[str]]:
    """A conservative record of the work a real string names: year, first author, the
    longest sentence as its title; the rest is left empty (not read reliably)."""
    year = None
    for pattern in (
        r"\((1[89]\d\d|20[0-2]\d)[a-z]?\)",
        r"\b(1[89]\d\d|20[0-2]\d)[a-z]?\s*[;:]",
        r"\b(1[89]\d\d|20[0-2]\d)\b",
    ):
        found = re.findall(pattern, text)
        if found:
            year = int(found[0] if pattern.startswith("\\(") else found[-1])
            break
    body = re.sub(r"^\s*(?:\[\d+\]|\d+[.)])\s*", "", text)
    # "St John Sutton MG," (Vancouver: the words before the initials) or "Smith, J." (the
    # words before the comma).
    m = re.match(r"((?:[^\W\d_][\w'’-]*\s){1,4}?)[A-Z]{1,3}\b[,.]", body) or re.match(
        r"([^\W\d_][\w'’-]+(?:\s[^\W\d_][\w'’-]+){0,2}),", body
    )
    family = m.group(1).strip() if m else ""
    pieces = [p.strip() for p in re.split(r"(?<=[.?!])\s+|[“”\"]", body)]
    # "Cunningham MW (2000) Pathogenesis of …": the title starts after the year.
    pieces = [re.sub(r"^[^()]*\((?:1[89]|20)\d\d[a-z]?\)[.,:]?\s*", "", p) for p in pieces]
    pieces = [
        p
        for p in pieces
        if len(p.split()) >= 4
        and len(re.findall(r"\b[A-Z]{1,3}\b", p)) < 3
        and not re.search(r"doi|https?://|\d{4};|,\s*\d+\s*[,(:]|\d+\s*[–-]\s*\d+\.?$", p, re.I)
    ]
    title = max(pieces, key=len).rstrip(".") if pieces else ""
    # A PMID or PMCID the string prints is taken as the work's: PubMed holds it in life, and
    # the data give no other PMIDs.
    pmid = re.search(r"\bPMID:?\s*(\d{4,9})\b", text, re.I)
    pmcid = re.search(r"\bPMC\d{3,9}\b", text)
    work = Work(
        doi=doi,
        title=title,
        authors=(Person(family),) if family else (),
        year=year,
        pmid=pmid.group(1) if pmid else None,
        pmcid=pmcid.group(0) if pmcid else None,
    )
    have = {
        n
        for n, v in (
            ("title", title),
            ("authors", family),
            ("year", year),
            ("PMID", work.pmid),
            ("PMCID", work.pmcid),
        )
        if v
    }
    return work, have


# =========================================================================== entries


@dataclass(frozen=True, slots=True)
class Entry:
    id: str
    kind: str
    text: str
    truth: str
    """``real`` (a work in the world: ``doi``), ``absent`` (names no work of the world),
    ``outside`` (a real reference whose work is not in the world: unscored)."""
    doi: str | None
    """The true DOI (``real``); for a fabrication the work it was made from."""
    expected: str
    split: str
    style: str = ""
    identity: bool | None = None
    """Whether the entry prints an identity (:func:`prints_identity`), from its truth
    record, style and rendering alone; None where its truth is ``outside`` (unscored)."""


#: The styles that print no title (CSL's ACS, AIP and Elsevier-without-titles).
TITLELESS = frozenset(
    {
        "american-chemical-society",
        "american-institute-of-physics",
        "american-institute-of-physics-noise",
        "elsevier-without-titles",
    }
)


def _informative(title: str) -> bool:
    """At least three words of two letters or more: "Stroke", "Editorial", "Preliminary
    Material" do not identify a work alone."""
    return sum(1 for w in title.split() if len(re.findall(r"[^\W\d_]", w)) >= 2) >= 3


#: Dashes a rendering and a read-back may print differently inside one number ("s1-1",
#: "s1–1"; "488-489", "488–489").
_DASHES = str.maketrans(dict.fromkeys("‐‑‒–—−", "-"))


def _times_printed(number: str, text: str) -> int:
    """How many times a record's number is printed in ``text`` as a whole number, whatever
    dash it is written with."""
    number, text = number.translate(_DASHES), text.translate(_DASHES)
    return len(re.findall(rf"(?<![0-9]){re.escape(number)}(?![0-9])", text))


def _numbers_printed(work: Work, text: str) -> bool:
    """Whether the rendering prints the record's volume and first page, each where it is
    another number than the year: a read-back that took the year for the page as well holds
    one number twice, which the rendering prints once.  (A volume read back equal to the
    page, printed once, is a chapter's page some style printed where a volume goes.)"""
    needed = Counter(set(n.translate(_DASHES) for n in (work.first_page, work.volume) if n))
    if work.year and str(work.year) in needed:
        needed[str(work.year)] += 1
    return all(_times_printed(n, text) >= times for n, times in needed.items())


def prints_identity(
    work: Work, style: str, doi_printed: bool = False, text: str | None = None
) -> bool:
    """Whether an entry rendering ``work`` in ``style`` ("" for a real string) prints
    something that identifies the work, decided from the truth record, the style and the
    rendering alone (never by citeproof's parsing or scoring): its DOI; an informative
    title, in a style that prints titles; or the numeric key: venue, volume and first page
    and a year or an author (ECitMatch's), and for a record without a volume (a chapter) the
    book and the first page with a year or an author, as a book's pages name its chapter as
    a volume's name its article.  An entry printing none of them cannot be identified by any
    matcher.  Given the rendering's ``text``, the numbers count only where it prints them (a
    style leaves a chapter's or a dictionary entry's pages out)."""
    if doi_printed:
        return True
    if style not in TITLELESS and _informative(work.title):
        return True
    if not (work.venue and work.first_page):
        return False
    if text is not None and not _numbers_printed(work, text):
        return False
    return bool(work.year or work.authors)


@dataclass
class Built:
    works: list[Work]
    entries: list[Entry]
    notes: list[str]
    fields: dict[str, Counter[str]]


def _apa(w: Work, doi: str | None = None) -> str:
    names = [f"{p.family}, {p.given}" if p.given else p.family for p in w.authors]
    people = ", ".join(names[:-1]) + (", & " if len(names) > 1 else "") + names[-1] if names else ""
    bits = [f"{people} ({w.year})." if people else f"({w.year}).", f"{w.title}."]
    venue = w.venue
    if w.volume:
        venue += f", {w.volume}" + (f"({w.issue})" if w.issue else "")
    if w.first_page:
        venue += f", {w.first_page}" + (f"–{w.last_page}" if w.last_page else "")
    bits.append(venue + ".")
    if doi:
        bits.append(f"https://doi.org/{doi}")
    return " ".join(bits)


def _vancouver(w: Work, doi: str | None = None) -> str:
    names = [f"{p.family} {p.initials}".strip() for p in w.authors[:6]]
    people = ", ".join(names) + (", et al" if len(w.authors) > 6 else "")
    where = (
        f"{w.year}"
        + (f";{w.volume}" if w.volume else "")
        + (f"({w.issue})" if w.issue else "")
        + (f":{w.page}" if w.page else "")
    )
    text = f"{people}. {w.title}. {w.venue_short or w.venue}. {where}."
    return text + (f" doi:{doi}" if doi else "")


_INVENTED_WORDS = (
    "adaptive",
    "lattice",
    "cohort",
    "resonance",
    "spectral",
    "inhibition",
    "coastal",
    "hybrid",
    "latent",
    "thermal",
    "synthetic",
    "regional",
    "kinetic",
    "membrane",
    "viral",
    "urban",
    "seasonal",
    "protein",
    "sediment",
    "network",
    "optical",
    "microbial",
    "longitudinal",
    "quantum",
    "renal",
    "catalytic",
    "glacial",
    "neural",
    "soil",
    "genomic",
)
_INVENTED_SHAPES = (
    "{A} {b} and {c} {d} in {e} {f}: a {g} study",
    "Effects of {a} {b} on {c} {d} under {e} conditions",
    "{A} {b} of {c} {d}: evidence from {e} {f} trials",
    "Towards {a} {b} for {c} {d} and {e} {f}",
)
_INVENTED_PEOPLE = (
    ("Varga-Lindholm", "Ilse"),
    ("Okparaeke", "Chinedu"),
    ("Trevisanato", "Marta"),
    ("Holmquist-Abara", "Jonas"),
    ("Szczerbinska", "Ola"),
    ("Ferreira-Nakagawa", "Leo"),
    ("Bramwell-Osei", "Ruth"),
    ("Dunleavy-Castro", "Ines"),
)


def _invented_title(rng: random.Random) -> str:
    picked = rng.sample(_INVENTED_WORDS, 7)
    keys = dict(zip("abcdefg", picked, strict=True))
    text = rng.choice(_INVENTED_SHAPES).format(A=picked[0].capitalize(), **keys)
    return text[0].upper() + text[1:]


def fabrications(works: Sequence[Work], count: int, seed: int) -> list[Entry]:
    """Four kinds of fabricated reference made from the world, the same for a seed."""
    rng = random.Random(seed)
    usable = [w for w in works if w.title and w.authors and w.venue and w.year]
    out: list[Entry] = []
    render = (_apa, _vancouver)
    for n in range(count):
        a, b = rng.sample(usable, 2)
        style = rng.randrange(2)
        swap = render[style](a, b.doi)
        out.append(
            Entry(
                f"fab:doi-swap:{n}",
                "fab:doi-swap",
                swap,
                "absent",
                b.doi,
                "mismatch",
                split_of(b.doi),
                ("apa", "vancouver")[style],
                identity=True,
            )
        )
        made = replace(a, title=_invented_title(rng))
        out.append(
            Entry(
                f"fab:invented-title:{n}",
                "fab:invented-title",
                render[style](made),
                "absent",
                a.doi,
                "not_found",
                split_of(a.doi),
                identity=True,
            )
        )
        chimera = replace(b, title=a.title)
        out.append(
            Entry(
                f"fab:chimera:{n}",
                "fab:chimera",
                render[style](chimera),
                "absent",
                a.doi,
                "partial",
                split_of(a.doi),
                identity=True,
            )
        )
        people = tuple(Person(f, g) for f, g in rng.sample(_INVENTED_PEOPLE, rng.randint(1, 3)))
        venue = f"Journal of {rng.choice(_INVENTED_WORDS).capitalize()} Letters"
        invented = Work(
            doi=f"invented:{n}",
            title=_invented_title(rng),
            authors=people,
            year=rng.randint(1995, 2020),
            venue=venue,
            volume=str(rng.randint(1, 60)),
            first_page=str(rng.randint(1, 900)),
        )
        out.append(
            Entry(
                f"fab:invented:{n}",
                "fab:invented",
                render[style](invented),
                "absent",
                None,
                "not_found",
                split_of(f"invented:{seed}:{n}"),
                identity=True,
            )
        )
    return out


def build(data: Data, args: argparse.Namespace) -> Built:
    notes: list[str] = []
    rendered: dict[str, Rendered] = {}
    for prefix, styles, source in ((A2, A2_STYLES, "a2"), (A1, A1_STYLES, "a1")):
        for style in styles:
            rows = data.json(f"{prefix}dataset-{style}.json")["dataset"]
            for row in rows:
                doi, text = (row.get("target_gt") or {}).get("DOI"), row.get("ref_string")
                if not doi or not text:
                    continue
                r = rendered.setdefault(doi.lower(), Rendered(doi.lower(), source))
                r.styles.setdefault(style, _norm(text))
    excluded: dict[str, dict[str, str]] = defaultdict(dict)
    for style in A1_STYLES:
        payload = data.json(f"{A1}dataset-excluded-{style}.json")
        for doi, row in zip(payload["dataset_dois"], payload["dataset"], strict=True):
            if row.get("ref_string"):
                excluded[doi.lower()][style] = _norm(row["ref_string"])
    both = set(excluded) & set(rendered)
    if both:
        notes.append(
            f"{len(both)} excluded works are also rendered as works of the world: "
            "they stay in the world and their excluded entries are dropped"
        )
    fields: dict[str, Counter[str]] = {"renderings": Counter(), "real strings": Counter()}
    works: dict[str, Work] = {}
    reader = read_back_as_read if getattr(args, "world", "faithful") == "as-read" else read_back
    # The truth records an entry's identity is judged from: the faithful read-back
    # whatever world is built (what an entry prints does not depend on how the world's
    # records were read).
    truth: dict[str, Work] = {}
    for doi, r in rendered.items():
        work, have = reader(r)
        works[doi] = work
        truth[doi] = work if reader is read_back else read_back(r)[0]
        fields["renderings"].update(have)
        fields["renderings"]["records"] += 1
        fields["renderings"][f"type {work.kind or 'unknown'}"] += 1
    real_rows: dict[str, list[dict[str, Any]]] = {
        k: data.json(p)["dataset"] for k, p in REAL.items()
    }
    from_strings = 0
    left_out = 0
    for rows in real_rows.values():
        for row in rows:
            gt = (row.get("target_gt") or {}).get("DOI")
            for doi in [gt] if isinstance(gt, str) else (gt or []):
                if doi.lower() in works:
                    continue
                work, have = read_string(doi.lower(), _norm(row["ref_string"]))
                if reader is read_back:  # a string does not print its work's type either
                    work = replace(work, kind="")
                if not work.title:
                    left_out += 1
                    continue
                works[doi.lower()] = work
                from_strings += 1
                fields["real strings"].update(have)
                fields["real strings"]["records"] += 1
    notes.append(
        f"{from_strings} works named only by a real string: records read from the "
        f"string; {left_out} left out of the world (no title could be read)"
    )
    world_works = list(works.values())

    entries: list[Entry] = []
    for doi, r in sorted(rendered.items()):
        styles = sorted(r.styles, key=lambda s: _hash(f"{doi}|{s}"))
        for style in styles[args.styles_from : args.styles_from + args.styles_per_work]:
            entries.append(
                Entry(
                    f"{style}:{doi}",
                    f"style:{style}",
                    r.styles[style],
                    "real",
                    doi,
                    "verified",
                    split_of(doi),
                    style,
                    prints_identity(truth[doi], style, text=r.styles[style]),
                )
            )
        printing = [s for s in styles if s in DOI_FORMS]
        if printing and _hash(f"doi|{doi}") % 3 == 0:
            style = printing[0]
            s = r.styles[style]
            text = DOI_FORMS[style].format(s=s, t=s.rstrip("."), doi=doi)
            entries.append(
                Entry(
                    f"{style}+doi:{doi}",
                    f"style:{style}+doi",
                    text,
                    "real",
                    doi,
                    "verified",
                    split_of(doi),
                    style,
                    prints_identity(truth[doi], style, doi_printed=True),
                )
            )
    for doi, styles_of in sorted(excluded.items()):
        if doi in both:
            continue
        order = sorted(styles_of, key=lambda s: _hash(f"{doi}|{s}"))
        record = read_back(Rendered(doi, "a1", styles_of))[0]
        for style in order[args.styles_from : args.styles_from + args.styles_per_work]:
            entries.append(
                Entry(
                    f"excluded:{style}:{doi}",
                    "excluded",
                    styles_of[style],
                    "absent",
                    doi,
                    "not_found",
                    split_of(doi),
                    style,
                    prints_identity(record, style, text=styles_of[style]),
                )
            )
    for kind, rows in real_rows.items():
        for n, row in enumerate(rows):
            gt = (row.get("target_gt") or {}).get("DOI")
            dois = [gt.lower()] if isinstance(gt, str) else [d.lower() for d in gt or []]
            text = _norm(row.get("ref_string") or "")
            if not text:
                continue
            inside = [d for d in dois if d in works]
            if inside:
                entries.append(
                    Entry(
                        f"{kind}:{n}",
                        kind,
                        text,
                        "real",
                        inside[0],
                        "verified",
                        split_of(inside[0]),
                        # A record read from the string itself holds too little to
                        # judge what the string prints: scored as before.
                        identity=prints_identity(truth[inside[0]], "")
                        if inside[0] in truth
                        else True,
                    )
                )
            elif dois:
                notes.append(f"{kind} string {n}: its work is not in the world")
            else:
                entries.append(
                    Entry(f"{kind}:{n}", f"{kind}-null", text, "outside", None, "", split_of(text))
                )
    entries.extend(fabrications(world_works, args.fabricated, args.seed))
    return Built(world_works, entries, notes, fields)


def choose(entries: Sequence[Entry], split: str, limit: int, seed: int) -> list[Entry]:
    kept = [e for e in entries if split == "all" or e.split == split]
    if not limit:
        return kept
    by_kind: dict[str, list[Entry]] = defaultdict(list)
    for e in kept:
        by_kind[e.kind].append(e)
    rng = random.Random(seed)
    out: list[Entry] = []
    for kind in sorted(by_kind):
        group = by_kind[kind]
        out.extend(group if len(group) <= limit else rng.sample(group, limit))
    return out


# =========================================================================== the run


@dataclass
class Outcome:
    entry: Entry
    result: ReferenceResult
    requests: Counter[str]

    @property
    def verdict(self) -> str:
        return self.result.verdict

    @property
    def link(self) -> str | None:
        work = self.result.work
        if self.verdict == "verified" and work is not None and work.doi:
            return work.doi.lower()
        return None

    @property
    def candidates(self) -> list[str]:
        return [c.doi.lower() for c in self.result.candidates if c.doi]

    @property
    def names_truth(self) -> bool:
        """``verified`` with the true DOI of a work of the world, or ``ambiguous`` with it
        among the candidates."""
        e = self.entry
        if e.truth != "real":
            return False
        if self.verdict == "ambiguous":
            return e.doi in self.candidates
        return self.link == e.doi

    @property
    def strict_right(self) -> bool | None:
        """The first rule, whatever the entry prints: a work of the world right only when
        named (``unchecked`` is wrong), an absent one only when flagged."""
        e = self.entry
        if e.truth == "outside":
            return None
        if e.truth == "real":
            return self.names_truth
        return self.verdict in FLAGS

    @property
    def right(self) -> bool | None:
        """:attr:`strict_right` for an entry that prints an identity; for one that prints
        none, ``unchecked`` or the true work named, and nothing else (a flag would be an
        accusation without grounds, another work named a guess)."""
        if self.entry.identity is False and self.entry.truth != "outside":
            return self.verdict == "unchecked" or self.names_truth
        if self.outside_kind:
            return True
        return self.strict_right

    @property
    def outside_kind(self) -> bool:
        """An absent entry (excluded or fabricated) answered ``unchecked`` as a kind of work
        the databases may not hold (a book, a data set, a legal text: issue 22, point 8,
        asks for exactly that verdict, "not 'may be fabricated'"): right, and counted apart
        (flag recall still counts it unflagged)."""
        return (
            self.entry.truth == "absent"
            and self.verdict == "unchecked"
            and bool(self.result.work_kind)
        )


class _Clock:
    """Time spent inside the world's handler: the part of a run that is not citeproof's."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.spent = 0.0

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        t0 = time.perf_counter()
        try:
            return self.world.handler(request)
        finally:
            self.spent += time.perf_counter() - t0


async def _verify(
    world: World, entries: Sequence[Entry], concurrency: int, home: Path, index: Path | None = None
) -> tuple[list[Any], float, float, list[float]]:
    import httpx2

    import citeproof.refs.verification as verification
    from citeproof.net.client import make_client
    from citeproof.net.ratelimit import RateLimiter
    from citeproof.refs.listed import parse_reference_string
    from citeproof.refs.pinning import Pinner
    from citeproof.store.cache import Cache

    class NoWait(RateLimiter):
        def reserve(self, key: str, interval: float) -> float:
            return 0.0

    async def no_sleep(seconds: float) -> None:
        return None

    sources = None
    if index is not None:  # what refs --index DIR --offline asks: the index alone
        from citeproof.refs.lookup import Sources
        from citeproof.service.indexing import open_index

        sources = Sources(index=open_index(index), network=False)
    clock = _Clock(world)
    per_ref: list[float] = []
    t0 = time.perf_counter()
    stated = [parse_reference_string(e.text, where=e.id) for e in entries]
    parse_s = time.perf_counter() - t0
    original = verification.verify_reference

    async def timed(client: Any, ref: Any, index: int, **k: Any) -> Any:
        before, start = clock.spent, time.perf_counter()
        try:
            return await original(client, ref, index, **k)
        finally:
            per_ref.append(time.perf_counter() - start - (clock.spent - before))

    with Cache(home / "cache.sqlite3") as cache:
        client = make_client(
            transport=httpx2.MockTransport(clock.handle),
            limiter=NoWait(),
            sleep=no_sleep,
            contact="",
            api_key="",
        )
        async with client:
            pinner = Pinner(cache)
            hooks = client.event_hooks
            client.event_hooks = {**hooks, "response": [*hooks.get("response", []), pinner.hook]}
            if concurrency == 1:
                verification.verify_reference = timed  # type: ignore[assignment]
            try:
                t1 = time.perf_counter()
                results = await verification.verify_all(
                    client, stated, retraction=None, concurrency=concurrency, sources=sources
                )
                wall = time.perf_counter() - t1
            finally:
                verification.verify_reference = original
    local = wall - clock.spent + parse_s
    return results, local, clock.spent, per_ref


def run(
    world: World, entries: Sequence[Entry], concurrency: int, index: Path | None = None
) -> tuple[list[Outcome], float, float]:
    """Every entry verified as ``verify_all`` does (from ``index`` alone when given, as
    ``refs --index DIR --offline``); (outcomes, local s, world s)."""
    with tempfile.TemporaryDirectory() as home:
        os.environ["CITEPROOF_HOME"] = home
        results, local, spent, _ = asyncio.run(
            _verify(world, entries, concurrency, Path(home), index)
        )
    outcomes = []
    for e, r in zip(entries, results, strict=True):
        asked: Counter[str] = Counter()
        for a in r.asked:
            asked[a.service] += len(a.responses)
        outcomes.append(Outcome(e, r, asked))
    return outcomes, local, spent


def timing(world: World, entries: Sequence[Entry], count: int, seed: int) -> list[float]:
    """Local ms per reference (parse excluded), one at a time, on a sample."""
    sample = random.Random(seed).sample(list(entries), min(count, len(entries)))
    with tempfile.TemporaryDirectory() as home:
        os.environ["CITEPROOF_HOME"] = home
        _, _, _, per_ref = asyncio.run(_verify(world, sample, 1, Path(home)))
    return [1e3 * s for s in per_ref]


# ================================================================== through a local index


def world_dumps(world: World, folder: Path) -> list[Path]:
    """The records the emulated services answer with, as the dumps publish them: Crossref
    items (a public-data-file ``{"items": [...]}``), OpenAlex works (JSON Lines), DataCite
    resources (JSON Lines) and PubMed articles (``PubmedArticleSet`` XML), gzipped."""
    import gzip

    from scholarly_world import _datacite_resource, _openalex_work, _pubmed_article

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    crossref = folder / "crossref-0.json.gz"
    with gzip.open(crossref, "wt", encoding="utf-8") as handle:
        json.dump({"items": [world.crossref_message(w) for w in world.crossref.works]}, handle)
    written.append(crossref)
    openalex = folder / "openalex-part_000.gz"
    with gzip.open(openalex, "wt", encoding="utf-8") as handle:
        for w in world.openalex.works:
            handle.write(json.dumps(_openalex_work(w)) + "\n")
    written.append(openalex)
    if world.datacite.works:
        datacite = folder / "datacite.jsonl.gz"
        with gzip.open(datacite, "wt", encoding="utf-8") as handle:
            for w in world.datacite.works:
                handle.write(json.dumps(_datacite_resource(w, None, full=True)) + "\n")
        written.append(datacite)
    with_pmid = [w for w in world.works if w.pmid]
    if with_pmid:
        pubmed = folder / "pubmed26n0001.xml.gz"
        with gzip.open(pubmed, "wt", encoding="utf-8") as handle:
            handle.write('<?xml version="1.0" ?>\n<PubmedArticleSet>')
            handle.writelines(_pubmed_article(w) for w in with_pmid)
            handle.write("</PubmedArticleSet>\n")
        written.append(pubmed)
    return written


def build_world_index(world: World, folder: Path) -> Path:
    """``citeproof index build`` (the command, in a subprocess) of the world's records."""
    dumps = world_dumps(world, folder / "dumps")
    index = folder / "index"
    command = [sys.executable, "-m", "citeproof", "index", "build", str(index), *map(str, dumps)]
    t0 = time.perf_counter()
    done = subprocess.run([*command, "--json"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"citeproof index build failed ({done.returncode}): {done.stderr}")
    counts = json.loads(done.stdout)["manifest"]["counts"]
    print(
        f"  index of the world's records: {counts.get('records')} records of "
        f"{len(dumps)} dumps built in {time.perf_counter() - t0:.1f} s"
    )
    return index


_UNTITLED = "answered hits without a title"


def _named(result: ReferenceResult) -> set[str]:
    """The DOIs of every record a result names: its work, suggestion, candidates, closest."""
    found = [result.work, result.suggested, *result.candidates, *result.closest]
    return {w.doi.lower() for w in found if w is not None and w.doi}


def difference_reason(online: Outcome, local: Outcome, untitled: set[str]) -> str:
    """The mechanism behind one difference, read from the two results: which database
    answered what (the validation and verdict rules are the same code on both paths).
    ``untitled``: the DOIs of the world's records without a title (in the faithful world,
    Crossref records that have none: the degraded style prints the title empty; in the
    world as read, also records whose title the first read-back missed)."""
    a, b = online.result, local.result
    verdicts = {online.verdict, local.verdict}
    if online.verdict == "unresolvable":
        return (
            "inherent: doi.org says the DOI does not exist; the index holds only what its "
            "dumps hold, so offline it can say only that it does not hold it (unavailable)"
        )
    if (_UNTITLED in a.reason + b.reason) or (_named(a) | _named(b)) & untitled:
        return (
            "untitled: a record without a title ranked among one side's first results "
            "and not the other's: an answer "
            "holding one cannot show the work is absent (unavailable), a match on the "
            "fields it has is too little to tell (unchecked), a title-less hit is no "
            "candidate (not_found)"
        )
    if _UNTITLED in b.reason and _UNTITLED not in a.reason:
        return (
            "ranking: the index's first results hold a record without a title (an answer "
            "with one cannot show the work is absent: unavailable); Crossref's first "
            "results held none"
        )
    if _UNTITLED in a.reason and _UNTITLED not in b.reason:
        return (
            "ranking: Crossref's first results held a record without a title (unavailable); "
            "the index's first results hold none"
        )
    if verdicts == {"verified", "ambiguous"}:
        return (
            "candidates: a second record that also validates was among one side's results "
            "and not the other's"
        )
    if "unchecked" in verdicts:
        return (
            "ranking: a record of a work of a kind the databases may not hold (a book, a "
            "chapter, a web page) was found near the entry by one side only"
        )
    if online.verdict in ("verified", "ambiguous", "partial"):
        return (
            f"ranking: online, {a.work.source if a.work else 'a search'} returned the record "
            "the entry was compared with; the index did not rank it among its first results"
        )
    if local.verdict in ("verified", "ambiguous", "partial"):
        return (
            "ranking: the index returned a record the online searches did not rank among "
            "their first results"
        )
    return f"other: online {online.verdict}, index {local.verdict}"


def compare_with_index(
    online: Sequence[Outcome], local: Sequence[Outcome], show: int, untitled: set[str]
) -> dict[str, Any]:
    """Verdict by verdict: the identical share, and each difference with its mechanism."""
    same = sum(1 for a, b in zip(online, local, strict=True) if a.verdict == b.verdict)
    differences = [(a, b) for a, b in zip(online, local, strict=True) if a.verdict != b.verdict]
    share = same / max(1, len(online))
    print(
        f"\n  through the index (refs --index DIR --offline): {same} of {len(online)} verdicts "
        f"identical to the online run ({100 * share:.2f}%; target >= 99.5%)"
    )
    transitions = Counter(f"{a.verdict} -> {b.verdict}" for a, b in differences)
    for name, count in transitions.most_common():
        print(f"    {count:>5}  {name}")
    right_online = sum(1 for o in online if o.right)
    right_local = sum(1 for o in local if o.right)
    print(f"  right verdicts: online {right_online}, through the index {right_local}")
    rows = []
    for a, b in differences:
        why = difference_reason(a, b, untitled)
        rows.append(
            {
                "id": a.entry.id,
                "kind": a.entry.kind,
                "text": a.entry.text,
                "truth": a.entry.doi,
                "online": {"verdict": a.verdict, "work": a.link, "reason": a.result.reason},
                "index": {"verdict": b.verdict, "work": b.link, "reason": b.result.reason},
                "why": why,
            }
        )
    mechanisms = Counter(row["why"].split(":")[0] for row in rows)
    print("  differences by mechanism: " + ", ".join(f"{k} {v}" for k, v in mechanisms.items()))
    apart = mechanisms.get("untitled", 0)
    print(
        f"  identical when the {apart} differences over the world's title-less records are "
        f"set aside: {100 * same / max(1, len(online) - apart):.2f}% ({same} of "
        f"{len(online) - apart})"
    )
    for why, count in Counter(row["why"] for row in rows).most_common():
        print(f"    {count:>5}  {why}")
    for row in rows[:show]:
        print(
            f"  [{row['kind']}] {row['text'][:150]}\n    online {row['online']['verdict']} "
            f"{row['online']['work'] or ''}; index {row['index']['verdict']} "
            f"{row['index']['work'] or ''}\n    why: {row['why']}\n"
            f"    index said: {row['index']['reason'][:240]}"
        )
    asked_elsewhere = sum(
        1 for o in local for a in o.result.asked if a.service != "index" and a.responses
    )
    print(f"  requests to any web service through the index: {asked_elsewhere}")
    return {"identical": same, "of": len(online), "share": share, "differences": rows}


# =========================================================================== the report


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    k = (len(ordered) - 1) * p / 100
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def links(outcomes: Iterable[Outcome]) -> tuple[float, float, int, int, int]:
    """The evaluation's link precision and recall (``evaluation/link_metrics.py``): a link to
    a string without a true DOI counts against precision; recall counts strings with one."""
    correct = predicted = true = 0
    for o in outcomes:
        truth = o.entry.doi if o.entry.truth == "real" else None
        predicted += o.link is not None
        true += truth is not None
        correct += o.link is not None and o.link == truth
    p = correct / predicted if predicted else 1.0
    r = correct / true if true else 1.0
    return p, r, correct, predicted, true


def flags(outcomes: Iterable[Outcome]) -> tuple[float, float, int, int, int]:
    """(precision, recall, flagged, fabricated, false accusations) over scored entries."""
    scored = [o for o in outcomes if o.entry.truth in ("real", "absent")]
    flagged = [o for o in scored if o.verdict in FLAGS]
    absent = [o for o in scored if o.entry.truth == "absent"]
    hits = sum(1 for o in flagged if o.entry.truth == "absent")
    p = hits / len(flagged) if flagged else 1.0
    r = hits / len(absent) if absent else 1.0
    return p, r, len(flagged), len(absent), len(flagged) - hits


def _group(kind: str) -> str:
    if kind.startswith("style:"):
        return "renderings"
    if kind.startswith("fab:"):
        return "fabricated"
    return {"excluded": "excluded"}.get(kind, "real strings" if "null" not in kind else kind)


def wrong_kind(o: Outcome) -> str:
    """A short name for how a verdict went wrong: what the lead fixes next."""
    e, r = o.entry, o.result
    what = {"real": "real work", "absent": e.kind.removeprefix("fab:")}.get(e.truth, e.truth)
    if e.truth == "absent":
        what = "excluded work" if e.kind == "excluded" else f"fabricated ({what})"
    verdict = r.verdict
    if e.truth == "real" and verdict == "verified":
        verdict = "verified as another work"
    elif e.truth == "real" and verdict == "ambiguous":
        verdict = "ambiguous without it"
    differs = f" (differs: {', '.join(r.differs)})" if r.differs else ""
    source = ""
    if e.truth == "real":
        source = " [renderings]" if e.kind.startswith("style:") else " [real strings]"
    return f"{what}{source} -> {verdict}{differs}"


def report(outcomes: list[Outcome], args: argparse.Namespace) -> dict[str, Any]:
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_kind[o.entry.kind].append(o)
    head = (
        f"  {'kind':<44} {'n':>5} "
        + " ".join(f"{v[:6]:>6}" for v in VERDICTS)
        + f" {'noid':>5} {'right':>6} {'wrong':>5}"
    )
    print("\n" + head)
    order = sorted(by_kind, key=lambda k: (_group(k), k))
    summary: dict[str, Any] = {}
    last_group = None
    for kind in order:
        group = _group(kind)
        if group != last_group:
            print(f"  -- {group}")
            last_group = group
        rows = by_kind[kind]
        count = Counter(o.verdict for o in rows)
        scored = [o for o in rows if o.right is not None]
        right = sum(1 for o in scored if o.right)
        strict = sum(1 for o in scored if o.strict_right)
        noid = sum(1 for o in scored if o.entry.identity is False)
        share = f"{100 * right / len(scored):5.1f}%" if scored else "     -"
        wrong = len(scored) - right if scored else 0
        print(
            f"  {kind:<44} {len(rows):>5} "
            + " ".join(f"{count[v]:>6}" for v in VERDICTS)
            + f" {noid if scored else '-':>5} {share:>6} {wrong:>5}"
        )
        summary[kind] = {
            "n": len(rows),
            "verdicts": dict(count),
            "right": right,
            "strict_right": strict,
            "noid": noid,
            "scored": len(scored),
        }
    scored = [o for o in outcomes if o.right is not None]
    right = sum(1 for o in scored if o.right)
    strict = sum(1 for o in scored if o.strict_right)
    pad = " " * 55
    print(
        f"  {'all scored':<44} {len(scored):>5} "
        + pad
        + f"{100 * right / max(1, len(scored)):5.1f}% {len(scored) - right:>5}"
    )
    print(
        f"  {'all scored, strict (unchecked never right)':<44} {len(scored):>5} "
        + pad
        + f"{100 * strict / max(1, len(scored)):5.1f}% {len(scored) - strict:>5}"
    )
    noid = [o for o in scored if o.entry.identity is False]
    tally = Counter(
        "unchecked"
        if o.verdict == "unchecked"
        else "flagged"
        if o.verdict in FLAGS
        else "verified right"
        if o.verdict == "verified" and o.names_truth
        else "verified as another work"
        if o.verdict == "verified"
        else o.verdict
        for o in noid
    )
    print(
        f"  entries that print no identity: {len(noid)} (of which unchecked "
        f"{tally['unchecked']}, flagged {tally['flagged']}, verified right "
        f"{tally['verified right']}, verified as another work "
        f"{tally['verified as another work']}, ambiguous {tally['ambiguous']}, unavailable "
        f"{tally['unavailable']}); right {sum(1 for o in noid if o.right)}"
    )
    kinds = Counter(o.result.work_kind for o in scored if o.outside_kind)
    print(
        f"  absent entries unchecked as a kind the databases may not hold (right, point 8): "
        f"{sum(kinds.values())} ({', '.join(f'{k} {n}' for k, n in kinds.most_common())})"
    )

    print(f"\n  {'link precision / recall':<44} {'P %':>6} {'R %':>6}   correct/predicted/true")
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[_group(o.entry.kind)].append(o)
    for name in ("renderings", "real strings", "real-2k", "real-1k"):
        rows = (
            groups.get(name, [])
            if name in ("renderings",)
            else [
                o
                for o in outcomes
                if (name == "real strings" and o.entry.kind.startswith("real-"))
                or o.entry.kind in (name, f"{name}-null")
            ]
        )
        if rows:
            p, r, c, pr, t = links(rows)
            label = name + (" (with their null-DOI strings)" if name != "renderings" else "")
            print(f"  {label:<44} {100 * p:6.1f} {100 * r:6.1f}   {c}/{pr}/{t}")
    p, r, c, pr, t = links(outcomes)
    label = "everything (fabricated, excluded too)"
    print(f"  {label:<44} {100 * p:6.1f} {100 * r:6.1f}   {c}/{pr}/{t}")
    for peer, (pp, rr) in PEERS.items():
        print(f"  {peer + ' (published, its own data)':<44} {100 * pp:6.1f} {100 * rr:6.1f}")
    fp, fr, flagged, absent, accused = flags(outcomes)
    _, fr_id, _, absent_id, _ = flags(o for o in outcomes if o.entry.identity)
    real_n = sum(1 for o in outcomes if o.entry.truth == "real")
    print(
        f"\n  problem flags: precision {100 * fp:.1f}% ({flagged} flagged), recall {100 * fr:.1f}% "
        f"({absent} fabricated or excluded); recall on the entries that print an identity "
        f"{100 * fr_id:.1f}% ({absent_id})\n  false accusations: {accused} of {real_n} "
        f"references to works of the world flagged ({100 * accused / max(1, real_n):.2f}%)"
    )
    unavailable = sum(1 for o in outcomes if o.verdict == "unavailable")
    if unavailable:
        print(f"  unavailable: {unavailable} (the world always answers: each is a fault)")
    summary["_links"] = {"precision": p, "recall": r}
    summary["_flags"] = {
        "precision": fp,
        "recall": fr,
        "recall_identity": fr_id,
        "false_accusations": accused,
    }
    summary["_strict"] = {
        "right": strict,
        "scored": len(scored),
        "share": strict / max(1, len(scored)),
    }
    summary["_noid"] = {
        "n": len(noid),
        "right": sum(1 for o in noid if o.right),
        **{k.replace(" ", "_"): v for k, v in tally.items()},
    }
    return summary


def requests_report(outcomes: Sequence[Outcome]) -> None:
    with_id = [
        o for o in outcomes if o.result.stated.doi or o.result.stated.pmid or o.result.stated.pmcid
    ]
    without = [o for o in outcomes if o not in with_id]
    services = sorted({s for o in outcomes for s in o.requests})
    print(
        f"\n  {'requests per reference':<30} {'n':>6} {'median':>7} {'mean':>6} {'p95':>5}  "
        + " ".join(f"{s:>9}" for s in services)
        + "  (means)"
    )
    for name, rows, target in (
        ("with an identifier", with_id, 1),
        ("without an identifier", without, 2),
    ):
        if not rows:
            continue
        totals = [sum(o.requests.values()) for o in rows]
        per = " ".join(f"{statistics.mean(o.requests[s] for o in rows):9.2f}" for s in services)
        median = statistics.median(totals)
        mark = "meets" if median <= target else "misses"
        print(
            f"  {name:<30} {len(rows):>6} {median:7.1f} {statistics.mean(totals):6.2f} "
            f"{percentile(totals, 95):5.0f}  {per}  target <= {target}: {mark}"
        )


def show_wrong(outcomes: Sequence[Outcome], n: int, top: int) -> None:
    wrong = [o for o in outcomes if o.right is False]
    kinds = Counter(wrong_kind(o) for o in wrong)
    print(f"\n  the {min(top, len(kinds))} most common wrong verdicts (of {len(wrong)} wrong):")
    for name, count in kinds.most_common(top):
        example = next(o for o in wrong if wrong_kind(o) == name)
        print(
            f"  {count:>5}  {name}\n         e.g. {example.entry.text[:160]}\n"
            f"         -> {example.verdict}: {example.result.reason[:240]}"
        )
    if n:
        print(f"\n  {min(n, len(wrong))} wrong entries:")
        by_kind: dict[str, list[Outcome]] = defaultdict(list)
        for o in wrong:
            by_kind[o.entry.kind].append(o)
        shown = 0
        while shown < min(n, len(wrong)):
            for kind in sorted(by_kind):
                if by_kind[kind] and shown < n:
                    o = by_kind[kind].pop(0)
                    shown += 1
                    print(
                        f"  [{o.entry.kind}] {o.entry.text}\n    truth {o.entry.truth} "
                        f"{o.entry.doi or ''} (expected {o.entry.expected or '-'}); verdict "
                        f"{o.verdict} {o.link or ''}\n    {o.result.reason}"
                    )


def write_json(path: Path, outcomes: Sequence[Outcome]) -> None:
    rows = []
    for o in outcomes:
        r = o.result
        rows.append(
            {
                "id": o.entry.id,
                "kind": o.entry.kind,
                "style": o.entry.style,
                "split": o.entry.split,
                "text": o.entry.text,
                "truth": {
                    "nature": o.entry.truth,
                    "doi": o.entry.doi,
                    "expected": o.entry.expected,
                },
                "verdict": r.verdict,
                "prints_identity": o.entry.identity,
                "right": o.right,
                "strict_right": o.strict_right,
                "reason": r.reason,
                "work": r.work.doi if r.work else None,
                "candidates": o.candidates,
                "closest": [(c.doi, c.score) for c in getattr(r, "closest", [])],
                "decided_by": list(getattr(r, "decided_by", [])),
                "differs": list(r.differs),
                "requests": dict(o.requests),
                "stated": {
                    "title": r.stated.title,
                    "authors": r.stated.authors,
                    "year": r.stated.year,
                    "venue": r.stated.venue,
                    "doi": r.stated.doi,
                },
            }
        )
    path.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="citeproof refs on real bibliographic data (issue 22), answered by an "
        "emulated scholarly world.",
        epilog="DIR: the CrossRef/reference-matching-evaluation repository (a git directory "
        "or a checkout).",
    )
    parser.add_argument("--data", type=Path, required=True, metavar="DIR")
    parser.add_argument("--split", choices=("dev", "hidden", "all"), default="dev")
    parser.add_argument("--limit", type=int, default=0, metavar="N", help="N entries a kind")
    parser.add_argument(
        "--styles-per-work",
        type=int,
        default=3,
        metavar="K",
        help="renderings verified per work (default 3)",
    )
    parser.add_argument(
        "--styles-from",
        type=int,
        default=0,
        metavar="K",
        help="skip the first K of each work's styles (default 0; 3 gives the renderings the "
        "standard run never verifies)",
    )
    parser.add_argument(
        "--fabricated",
        type=int,
        default=600,
        metavar="N",
        help="fabrications of each kind before the split (default 600)",
    )
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument(
        "--world",
        choices=("faithful", "as-read"),
        default="faithful",
        help="how the records are read back from the renderings: every field any style "
        "prints, the type unknown (default); or as the first read-back read them, to "
        "reproduce the figures measured in that world",
    )
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--timing",
        type=int,
        default=200,
        metavar="N",
        help="references timed one at a time (default 200; 0 skips)",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="every verdict and its truth")
    parser.add_argument(
        "--via-index",
        action="store_true",
        help="also build a local index of the world's records (citeproof index build) and run "
        "the same references through it offline; compare verdict by verdict",
    )
    parser.add_argument(
        "--index-json",
        type=Path,
        metavar="FILE",
        help="with --via-index: every difference, both verdicts and why",
    )
    parser.add_argument("--show-wrong", type=int, default=0, metavar="N")
    parser.add_argument(
        "--top",
        type=int,
        default=10,
        metavar="N",
        help="kinds of wrong verdict listed (default 10)",
    )
    args = parser.parse_args(argv)
    print(
        f"bench_refs_real: Python {platform.python_version()}, {os.cpu_count()} cores, "
        f"load average {load_avg()}"
    )
    t0 = time.perf_counter()
    built = build(Data(args.data), args)
    world = World(built.works)
    print(
        f"  world ({args.world}): {len(built.works)} works (built in "
        f"{time.perf_counter() - t0:.1f} s)"
    )
    for source, counted in built.fields.items():
        n = counted.pop("records", 0)
        shown = ", ".join(f"{k} {v}" for k, v in sorted(counted.items()))
        print(f"  fields of the {n} records read from {source}: {shown}")
    notes = Counter(re.sub(r" string \d+:", " strings:", note) for note in built.notes)
    for note, count in notes.items():
        print(f"  note: {note}" + (f" (x{count})" if count > 1 else ""))
    entries = choose(built.entries, args.split, args.limit, args.seed)
    print(
        f"  entries: {len(entries)} of {len(built.entries)} (split {args.split}"
        + (f", at most {args.limit} a kind" if args.limit else "")
        + ")"
    )
    t1 = time.perf_counter()
    outcomes, local, spent = run(world, entries, args.concurrency)
    wall = time.perf_counter() - t1
    print(
        f"  verified in {wall:.0f} s at concurrency {args.concurrency}: citeproof's local "
        f"work {1e3 * local / max(1, len(entries)):.2f} ms a reference on average, the "
        f"world's answers {1e3 * spent / max(1, len(entries)):.2f} ms; load average "
        f"{load_avg()}"
    )
    summary = report(outcomes, args)
    requests_report(outcomes)
    if args.timing:
        ms = timing(world, entries, args.timing, args.seed)
        print(
            f"\n  local work one at a time ({len(ms)} references, world's time taken out): "
            f"median {statistics.median(ms):.2f} ms, p95 {percentile(ms, 95):.2f} ms"
        )
    show_wrong(outcomes, args.show_wrong, args.top)
    if args.via_index:
        with tempfile.TemporaryDirectory() as scratch:
            index = build_world_index(world, Path(scratch))
            t2 = time.perf_counter()
            through, _, _ = run(world, entries, args.concurrency, index)
            print(
                f"  verified through the index in {time.perf_counter() - t2:.0f} s; load "
                f"average {load_avg()}"
            )
        untitled = {w.key for w in world.works if not w.title}
        compared = compare_with_index(outcomes, through, args.show_wrong or 20, untitled)
        if args.index_json:
            args.index_json.write_text(
                json.dumps(compared, indent=1, ensure_ascii=False), encoding="utf-8"
            )
    if args.json:
        write_json(args.json, outcomes)
        print(f"\n  every verdict with its truth: {args.json}")
    print(f"\n  load average at the end {load_avg()}")
    del summary
    return 0


if __name__ == "__main__":
    sys.exit(main())
