"""A seeded generator of planted citations: invented documents, and answers that cite them.

Why planted cases: the audit's job is to say, citation by citation, what holds.  The only way
to know it said the right thing on a thousand citations is to build each citation knowing
what is wrong with it -- a code with one character changed, a quote with one number changed,
a passage that was later removed -- and record that (:class:`oracle.Plant`) for the oracle.

This module is pure: :func:`plan` turns a seed into documents (paragraph lists under invented
identifiers: PMIDs from 99100000, PMCIDs from PMC99100000, DOIs under 10.5555, a prefix
reserved for examples) and answers whose citations name them.  Handles are not known until
the documents are pinned and their passages issued, so answers are rendered later by
:func:`render_answer` from the real handles (``conftest.py`` does the I/O).  All prose is
invented for these tests (see :class:`Prose`); none is taken from any recorded article.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Final, Literal

from .oracle import Edit, Plant

SEED: Final = 20261130
CASES_PER_CATEGORY: Final = 25
PMID_BASE: Final = 99100000
DOI_PREFIX: Final = "10.5555/cpconf"
CROCKFORD: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LABEL: Final = "Invented example document for citeproof's conformance tests; not a real study."

PLACES: Final = (
    "Marrowfield",
    "Lower Pipton",
    "Ashcombe Vale",
    "Greywillow",
    "Fennick Cross",
    "Brambleton",
    "Oakhollow",
    "Saltmarsh End",
    "Kettleby",
    "Wrenfold",
    "Hazelmere",
    "Thistledown",
    "Coldharbour Rise",
    "Pennyacre",
    "Bellwether Green",
    "Moorcastle",
    "Little Quenby",
    "Rushbrook",
    "Stonecroft",
    "Elderwick",
)
CROPS: Final = (
    "runner beans",
    "kale",
    "leeks",
    "beetroot",
    "broad beans",
    "chard",
    "squash",
    "parsnips",
    "radishes",
    "spinach",
    "courgettes",
    "shallots",
)
THINGS: Final = (
    "raised beds",
    "seed trays",
    "cold frames",
    "potato rows",
    "herb borders",
    "fruit cages",
    "bean trenches",
    "onion sets",
)
GROUPS: Final = (
    "allotment society",
    "school gardeners",
    "weekend volunteers",
    "retired growers",
    "community orchard team",
    "village seed club",
)
CREATURES: Final = ("bumblebees", "ladybirds", "hoverflies", "blackbirds", "lacewings")
COVERS: Final = ("straw mulch", "wood chips", "cardboard sheets", "leaf mould", "grass cuttings")
SEASONS: Final = ("spring", "summer", "autumn", "winter")
FILLERS: Final = (
    "This record belongs to an invented example dataset written for software tests.",
    "The notes were kept by hand and typed up at the end of each month.",
    "Measurements were taken with the same spring balance throughout the year.",
    "The plots share one water butt and one tool shed near the gate.",
    "Every figure in this passage is made up for the purpose of testing.",
    "Weather notes from the nearest station were added later by the secretary.",
    "The committee meets on the first Tuesday of each month to read the logbook.",
    "Each bed measures roughly two metres by one metre and faces south.",
)
#: Base sentences, each with a comma, numbers and one word that ``WORD_SWAPS`` changes.
BASES: Final = (
    "In the {place} plots, the {thing} stayed moist for {n1} days after each watering, "
    "while the open beds dried out within {n2} days",
    "Volunteers at the {place} site weighed {d1} kg of {crop} per bed in the first season, "
    "and the figure held steady through the {season} months",
    "Across {n1} allotments near {place}, the {group} recorded a mean soil temperature of "
    "{d1} degrees at dawn, with little change by noon",
    "The {group} of {place} counted {n1} {creature} on the {thing} each morning, and the "
    "tally rose to {n2} once the hedges were trimmed",
    "At the {place} garden, beds covered with {cover} lost {d1} cm of topsoil over {n1} "
    "weeks, whereas bare beds lost noticeably more",
    "The {place} survey found that {n1} of {n2} households kept a compost heap, and most "
    "of them turned it by hand in {season}",
)
WORD_SWAPS: Final = (
    ("stayed moist", "stayed damp"),
    ("held steady", "held firm"),
    ("at dawn", "at dusk"),
    ("each morning", "each evening"),
    ("of topsoil", "of subsoil"),
    ("by hand", "by fork"),
)
UNIT_SWAPS: Final = ((" days", " weeks"), (" kg", " g"), (" cm", " mm"), (" weeks", " days"))
NEGATED: Final = (
    (
        "At the {place} allotments, the {cover} ",
        "did not",
        " reduce the weeding time on the {thing} over the {n1} weeks of the {season} trial",
    ),
    (
        "The {group} at {place} ",
        "saw no",
        " change in the {crop} harvest after {n1} weeks of "
        "evening watering, despite the extra effort",
    ),
    (
        "Beds at {place} were ",
        "never",
        " watered during the {n1} dry weeks of {season}, yet the {crop} still flowered on time",
    ),
    (
        "The {crop} at {place} grew for {n1} weeks ",
        "without",
        " any added feed, and the leaves of the {thing} stayed a healthy green",
    ),
)
#: What each negation becomes when it is dropped (``negation_dropped``).
UNNEGATED: Final = {"did not": "did", "saw no": "saw a", "never": "ever", "without": "with"}
CLEAN_GAPS: Final = (
    ("clearly", "reduced"),
    ("by all accounts", "reduced"),
    ("as hoped", "reduced"),
    ("in most beds", "reduced"),
    ("once again", "shortened"),
)
NEG_GAPS: Final = (
    ("did not", "reduce"),
    ("never", "reduced"),
    ("could not", "reduce"),
    ("was not shown to", "reduce"),
    ("did not, in the end,", "reduce"),
)
ELLIPSES: Final = ("...", "…", "[...]", "[…]")
GAP_SENTENCE: Final = (
    "At the {place} allotments, the {cover}|{gap}|{verb} the weeding time on the {thing} "
    "over the {n1} weeks of the {season} trial"
)

Style = Literal["handle", "block", "inline", "numbered"]


# ------------------------------------------------------------------------------- the plan


@dataclass
class Doc:
    """One invented document: its paragraphs become its passages."""

    key: str
    paragraphs: list[str] = field(default_factory=list)
    handles: bool = True  # issue handles for its passages
    after: Literal["keep", "truncate", "remove"] = "keep"
    keep: int = 0  # paragraphs kept when truncated
    references: list[str] = field(default_factory=list)  # a JATS article when non-empty
    aliases: list[str] = field(default_factory=list)  # the same text pinned under these keys

    def text(self, paragraphs: Sequence[str] | None = None) -> str:
        body = self.paragraphs if paragraphs is None else paragraphs
        return "\n\n".join([LABEL, *body])


@dataclass(frozen=True, slots=True)
class Cite:
    """How one case's citation is written in the answer."""

    style: Style
    doc: str = ""  # the document whose passage a handle names
    para: int = 0
    mutate: str = ""  # see mutate_handle
    other: tuple[str, int] | None = None  # (doc, para) whose handle the mutation borrows
    ref: str = ""  # inline style: the written citation, e.g. "[PMID 99100001]"
    number: str = ""  # numbered style: what is inside the brackets


@dataclass(frozen=True, slots=True)
class Case:
    category: str
    index: int
    plants: tuple[Plant, ...]
    cite: Cite | None
    quote: str | None = None  # the quote as written in the answer
    entries: tuple[tuple[int, str], ...] = ()  # reference-list entries this case needs
    prefix: str = ""  # a heading or bold lead-in before the cited sentence
    probes: tuple[tuple[str, str], ...] = ()  # (unique snippet, expected sentence status)
    uncited: int = 0  # uncited claims this case adds

    @property
    def tag(self) -> str:
        return f"Observation {self.index} is"


@dataclass(frozen=True, slots=True)
class Answer:
    category: str
    cases: tuple[Case, ...]
    whole: bool = False

    @property
    def json(self) -> bool:
        return self.category == "json_claims"


@dataclass
class Plan:
    seed: int
    docs: dict[str, Doc]
    answers: list[Answer]
    retracted: list[str]  # DOIs the invented Retraction Watch CSV lists as retracted
    concern: list[str]  # ... and with an expression of concern


class Ctx:
    """What a category builder gets: the seeded random source and the document book."""

    def __init__(self, rng: Random, docs: dict[str, Doc], number: int) -> None:
        self.rng = rng
        self.docs = docs
        self.number = number
        self.retracted: list[str] = []
        self.concern: list[str] = []

    @property
    def pmid(self) -> str:
        return str(PMID_BASE + 100 * self.number)

    def doc(self, key: str | None = None, **kw: object) -> Doc:
        key = key or f"pmid:{self.pmid}"
        if key not in self.docs:
            self.docs[key] = Doc(key, **kw)  # type: ignore[arg-type]
        return self.docs[key]

    def add(self, target: str, key: str | None = None) -> tuple[str, int]:
        """Put ``target`` in a paragraph of the document; (doc key, paragraph index)."""
        d = self.doc(key)
        d.paragraphs.append(self.paragraph(target))
        return d.key, len(d.paragraphs) - 1

    # -------------------------------------------------------------------------- prose
    def fields(self) -> dict[str, str]:
        r = self.rng
        n1 = r.randint(3, 40)
        return {
            "place": r.choice(PLACES),
            "crop": r.choice(CROPS),
            "thing": r.choice(THINGS),
            "group": r.choice(GROUPS),
            "creature": r.choice(CREATURES),
            "cover": r.choice(COVERS),
            "season": r.choice(SEASONS),
            "n1": str(n1),
            "n2": str(n1 + r.randint(11, 50)),
            "d1": f"{r.randint(1, 9)}.{r.randint(11, 98)}",
        }

    def base(self, which: Sequence[int] | None = None) -> tuple[str, dict[str, str], int]:
        f = self.fields()
        k = self.rng.choice(list(which) if which is not None else range(len(BASES)))
        return BASES[k].format(**f), f, k

    def paragraph(self, target: str) -> str:
        return f"{self.rng.choice(FILLERS)} {target}. {self.rng.choice(FILLERS)}"

    def unrelated(self) -> str:
        f = self.fields()
        return (
            f"The {f['group']} of {f['place']} planted {f['n2']} rows of {f['crop']} beside "
            f"the old railway line and harvested them by moonlight in {f['season']}"
        )


# ------------------------------------------------------------------------------ helpers


def _case(
    ctx: Ctx,
    name: str,
    i: int,
    span: str,
    quote: str | None,
    edit: Edit,
    style: Style = "handle",
    *,
    planted: str | None = None,
    key: str | None = None,
    **plant: Any,
) -> Case:
    """Plant ``planted`` (default ``span``) in a paragraph and cite it with ``quote``."""
    doc, para = ctx.add(planted if planted is not None else span, key)
    kind = "handle" if style in ("handle", "block") else doc.split(":", 1)[0]
    ref = ""
    if style == "inline":
        ref = _written_ref(doc, i)
    p = Plant(kind, quote, span, edit, **plant)  # type: ignore[arg-type]
    return Case(name, i, (p,), Cite(style, doc, para, ref=ref), quote)


def _written_ref(key: str, i: int) -> str:
    scheme, value = key.split(":", 1)
    if scheme == "pmid":
        return ("[PMID {}]", "[PMID: {}]", "(PMID {})")[i % 3].format(value)
    if scheme == "pmcid":
        return ("[{}]", "({})")[i % 2].format(value)
    return ("(doi:{})", "[doi:{}]", "(https://doi.org/{})")[i % 3].format(value)


def _sub_token(text: str, token: str, new: str) -> str:
    """Replace the first standalone occurrence of the number ``token``."""
    pattern = r"(?<![\d.])" + re.escape(token) + r"(?![\d.])"
    out, n = re.subn(pattern, new, text, count=1)
    assert n == 1, (text, token)
    return out


def _other_number(rng: Random, token: str) -> str:
    while True:
        new = "".join(str(rng.randint(1, 9)) if ch.isdigit() else ch for ch in token)
        if new != token:
            return new


# --------------------------------------------------------------------------- categories
Builder = Callable[[Ctx, str, int], Case]


def _fold(
    transform: Callable[[Ctx, str, int], tuple[str, str]], style: Style = "handle"
) -> Builder:
    """A fold category: (source wording, quote) differ only in what t1 folds."""

    def build(ctx: Ctx, name: str, i: int) -> Case:
        text, _, _ = ctx.base()
        source, quote = transform(ctx, text, i)
        return _case(ctx, name, i, source, quote, "fold", style)

    return build


def _single_quotes(ctx: Ctx, text: str, i: int) -> tuple[str, str]:
    f = ctx.fields()
    curly = f"{text}, as the ‘{f['season']} notes’ of the {f['group']}’s logbook record"
    straight = curly.replace("‘", "'").replace("’", "'")
    return (curly, straight) if i % 2 == 0 else (straight, curly)


def _double_quotes(ctx: Ctx, text: str, i: int) -> tuple[str, str]:
    f = ctx.fields()
    curly = f"{text}, in what the {f['group']} called “{f['season']} work” that year"
    straight = curly.replace("“", '"').replace("”", '"')
    return (curly, straight) if i % 2 == 0 else (straight, curly)


def _dashes(ctx: Ctx, text: str, i: int) -> tuple[str, str]:
    n = ctx.rng.randint(2, 9)
    d = f"0.{ctx.rng.randint(11, 98)}"
    dash = ("–", "—", "‒", "―")[i % 4]
    fancy = f"{text} ({n}{dash}{n + 3} visits a week {'—'} mostly at dawn; net change −{d})"
    return fancy, fancy.replace(dash, "-").replace("—", "-").replace("−", "-")


_SPACES: Final = ("\u00a0", "\u2009", "\u202f", "\u2007", "\u3000", "\u2002")


def _spaces(ctx: Ctx, text: str, i: int) -> tuple[str, str]:
    words = text.split(" ")
    k = 1 + i % (len(words) - 3)
    fancy = " ".join(words[:k]) + _SPACES[i % len(_SPACES)] + " ".join(words[k:])
    fancy = fancy.replace(" kg", "\u00a0kg").replace(" cm", "\u202fcm")
    return (fancy, text) if i % 3 else (text, fancy)


_LIGATURES: Final = (("ffi", "ﬃ"), ("ffl", "ﬄ"), ("ff", "ﬀ"), ("fi", "ﬁ"), ("fl", "ﬂ"))


def _ligatures(ctx: Ctx, text: str, i: int) -> tuple[str, str]:
    plain = f"{text}, according to the field officer and the final flower tally of the staff"
    fancy = plain
    for a, b in _LIGATURES:
        fancy = fancy.replace(a, b)
    return (fancy, plain) if i % 4 else (plain, fancy)


def _unicode_forms(ctx: Ctx, text: str, i: int) -> tuple[str, str]:
    plain = f"{text}, as noted by the café owner in the naïve résumé of the crèche garden"
    nfc, nfd = unicodedata.normalize("NFC", plain), unicodedata.normalize("NFD", plain)
    return (nfc, nfd) if i % 2 == 0 else (nfd, nfc)


def _line_breaks(ctx: Ctx, text: str, i: int) -> tuple[str, str]:
    words = text.split(" ")
    a, b = sorted(ctx.rng.sample(range(2, len(words) - 2), 2))
    brk = ("\n", "\r\n", "\n  ", " \n")[i % 4]
    broken = " ".join(words[:a]) + brk + " ".join(words[a:b]) + brk + " ".join(words[b:])
    return broken, text


def _invisible(ctx: Ctx, text: str, i: int) -> tuple[str, str]:
    words = text.split(" ")
    long = [k for k, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
    marks = ("\u00ad", "\u200b", "\u2060", "\ufeff", "\u200c")
    for n, k in enumerate(long[:3]):
        w = words[k]
        words[k] = w[:3] + marks[(i + n) % len(marks)] + w[3:]
    return " ".join(words), text


def _whitespace(ctx: Ctx, text: str, i: int) -> tuple[str, str]:
    spaced = text.replace(", ", ",  ", 1).replace(" the ", " \tthe ", 1)
    return (spaced, text) if i % 2 == 0 else (text, spaced)


def _block_lines(ctx: Ctx, text: str, i: int) -> tuple[str, str]:
    words = text.split(" ")
    a = len(words) // 2
    return text, " ".join(words[:a]) + "\n" + " ".join(words[a:])


def partial_mid_number(ctx: Ctx, name: str, i: int) -> Case:
    text, f, _ = ctx.base((1, 2, 4) if i % 2 == 0 else (0, 3, 5))
    token = f["d1"] if i % 2 == 0 else f["n2"]
    at = re.search(r"(?<![\d.])" + re.escape(token) + r"(?![\d.])", text)
    assert at is not None
    quote = text[: at.start() + (3 if "." in token else 1)]  # "4.3" of "4.37"; "5" of "57"
    return _case(ctx, name, i, text, quote, "partial")


def partial_start(ctx: Ctx, name: str, i: int) -> Case:
    text, _, _ = ctx.base()
    m = [w for w in re.finditer(r"[A-Za-z]{6,}", text) if w.start() > 0][i % 3]
    return _case(ctx, name, i, text, text[m.start() + 2 :], "partial")


def partial_end(ctx: Ctx, name: str, i: int) -> Case:
    text, _, _ = ctx.base()
    m = list(re.finditer(r"[A-Za-z]{5,}", text))[-1 - i % 2]
    return _case(ctx, name, i, text, text[: m.end() - 2], "partial")


def _gap_case(ctx: Ctx, name: str, i: int, gaps: Sequence[tuple[str, str]], edit: Edit) -> Case:
    f = ctx.fields()
    gap, verb = gaps[i % len(gaps)]
    a, _, b = GAP_SENTENCE.format(gap=gap, verb=verb, **f).split("|")
    source = f"{a} {gap} {b}"
    quote = f"{a} {ELLIPSES[i % len(ELLIPSES)]} {b}"
    return _case(ctx, name, i, source, quote, edit)


def ellipsis_clean(ctx: Ctx, name: str, i: int) -> Case:
    return _gap_case(ctx, name, i, CLEAN_GAPS, "ellipsis")


def ellipsis_hidden_negation(ctx: Ctx, name: str, i: int) -> Case:
    return _gap_case(ctx, name, i, NEG_GAPS, "ellipsis_negation")


def number_changed(ctx: Ctx, name: str, i: int) -> Case:
    text, f, k = ctx.base()
    present = [t for t in ("n1", "n2", "d1") if "{" + t + "}" in BASES[k]]
    token = f[present[i % len(present)]]
    return _case(
        ctx, name, i, text, _sub_token(text, token, _other_number(ctx.rng, token)), "number"
    )


def unit_changed(ctx: Ctx, name: str, i: int) -> Case:
    text, _, _ = ctx.base((0, 1, 4))
    swaps = [(a, b) for a, b in UNIT_SWAPS if re.search(r"\d" + a + r"\b", text)]
    a, b = swaps[i % len(swaps)]
    quote = re.sub(r"(\d)" + a + r"\b", lambda m: m.group(1) + b, text, count=1)
    return _case(ctx, name, i, text, quote, "number")


def sign_changed(ctx: Ctx, name: str, i: int) -> Case:
    f = ctx.fields()
    sign = ("−", "-", "+", "−")[i % 4]
    other = ("+", "", "−", "")[i % 4]
    text = (
        f"The {f['place']} soil survey put the change in acidity at {{}}{f['d1']} units over "
        f"{f['n1']} years, a shift the {f['group']} could live with"
    )
    return _case(ctx, name, i, text.format(sign), text.format(other), "number")


def comparison_changed(ctx: Ctx, name: str, i: int) -> Case:
    f = ctx.fields()
    pairs = (("<", ">"), (">", "<"), ("≤", "≥"), ("≥", "≤"))
    a, b = pairs[i % 4]
    text = (
        f"Beds at {f['place']} mulched with {f['cover']} had fewer weeds than bare beds "
        f"(p {{}} 0.0{f['n1'][-1]}), so the {f['group']} kept mulching in {f['season']}"
    )
    return _case(ctx, name, i, text.format(a), text.format(b), "number")


_DIRECTIONS: Final = (
    ("increased", "decreased"),
    ("rose", "fell"),
    ("higher", "lower"),
    ("improved", "worsened"),
    ("more", "less"),
)


def direction_word(ctx: Ctx, name: str, i: int) -> Case:
    f = ctx.fields()
    a, b = _DIRECTIONS[i % len(_DIRECTIONS)]
    if i % 2:
        a, b = b, a
    text = (
        f"The {f['crop']} harvest at {f['place']} {{}} markedly after the {f['group']} "
        f"switched to {f['cover']}, and it stayed that way through {f['season']}"
    )
    return _case(ctx, name, i, text.format(a), text.format(b), "word")


def _negated(ctx: Ctx, i: int) -> tuple[str, str, str]:
    f = ctx.fields()
    a, neg, b = NEGATED[i % len(NEGATED)]
    return a.format(**f), neg, b.format(**f)


def negation_dropped(ctx: Ctx, name: str, i: int) -> Case:
    a, neg, b = _negated(ctx, i)
    return _case(ctx, name, i, a + neg + b, a + UNNEGATED[neg] + b, "negation")


def negation_added(ctx: Ctx, name: str, i: int) -> Case:
    a, neg, b = _negated(ctx, i)
    return _case(ctx, name, i, a + UNNEGATED[neg] + b, a + neg + b, "negation")


def case_only(ctx: Ctx, name: str, i: int) -> Case:
    text, _, _ = ctx.base()
    words = text.split(" ")
    k = 2 + i % (len(words) - 4)
    while not (words[k].isalpha() and len(words[k]) > 3) or words[k] in ("days", "weeks"):
        k += 1
    words[k] = words[k][:1].swapcase() + words[k][1:]
    return _case(ctx, name, i, text, " ".join(words), "case")


def punctuation_only(ctx: Ctx, name: str, i: int) -> Case:
    text, _, _ = ctx.base()
    quote = text.replace(", ", (" ", "; ", ": ")[i % 3], 1)
    return _case(ctx, name, i, text, quote, "punctuation")


def word_changed(ctx: Ctx, name: str, i: int) -> Case:
    text, _, k = ctx.base()
    a, b = WORD_SWAPS[k]
    return _case(ctx, name, i, text, text.replace(a, b, 1), "word")


def not_found(ctx: Ctx, name: str, i: int) -> Case:
    text, _, _ = ctx.base()
    return _case(ctx, name, i, text, ctx.unrelated(), "absent", ("handle", "inline")[i % 2])


_MARKERS: Final = ("[{a}]", "[{a}, {b}]", "[{a}–{b}]", "({a}, {b})", "[{a},{b}]")


def _marked(ctx: Ctx, text: str, i: int) -> str:
    a = ctx.rng.randint(2, 40)
    marker = _MARKERS[i % len(_MARKERS)].format(a=a, b=a + 1)
    words = text.split(" ")
    k = len(words) // 2  # between two plain words: after a number it could be data
    while not (words[k - 1].isalpha() and words[k].isalpha()):
        k += 1
    return " ".join([*words[:k], marker, *words[k:]])


def markers_in_source(ctx: Ctx, name: str, i: int) -> Case:
    text, _, _ = ctx.base()
    return _case(
        ctx,
        name,
        i,
        text,
        text,
        "marker",
        ("handle", "inline")[i % 2],
        planted=_marked(ctx, text, i),
    )


def marker_inside_quote(ctx: Ctx, name: str, i: int) -> Case:
    text, _, _ = ctx.base()
    marked = _marked(ctx, text, i)
    return _case(ctx, name, i, marked, marked, "none", "inline")


def _references_doc(ctx: Ctx) -> Doc:
    return ctx.doc(f"pmcid:PMC{ctx.pmid}", handles=False)


def match_in_references(ctx: Ctx, name: str, i: int) -> Case:
    d = _references_doc(ctx)
    f = ctx.fields()
    title = (
        f"{f['crop'].capitalize()} yields under {f['cover']} in the {f['place']} allotments "
        f"over {f['n1']} seasons of record keeping"
    )
    d.references.append(title)
    d.paragraphs.append(ctx.paragraph(ctx.base()[0]))
    p = Plant("pmcid", title, title, "none", in_references=True)
    return Case(name, i, (p,), Cite("inline", d.key, ref=_written_ref(d.key, i)), title)


def _exact(
    ctx: Ctx, name: str, i: int, style: Style = "handle", key: str | None = None, **plant: Any
) -> Case:
    text, _, _ = ctx.base()
    return _case(ctx, name, i, text, text, "none", style, key=key, **plant)


def other_passage_quote(ctx: Ctx, name: str, i: int) -> Case:
    """The quote is the words of another passage of the same document, not the cited one."""
    elsewhere = ctx.unrelated()  # another template: nothing near it in the cited passage
    ctx.add(elsewhere)
    case = _exact(ctx, name, i)
    p = Plant("handle", elsewhere, case.quote, "absent")
    return Case(name, i, (p,), case.cite, elsewhere)


_JSON_PARTS: Final = (
    "exact_handle",
    "number_changed",
    "forged_code_char",
    "plain_pmid",
    "handle_no_quote",
    "ellipsis_hidden_negation",
)


def json_claims(ctx: Ctx, name: str, i: int) -> Case:
    """The same plants, written as JSON claims (rendered by :func:`render_answer`)."""
    builder = dict(CATEGORIES)[_JSON_PARTS[i % len(_JSON_PARTS)]]
    case = builder(ctx, name, i)
    return Case(name, i, case.plants, case.cite, case.quote)


def _mutated(mutation: str | Sequence[str], fault: str | None, other: str = "") -> Builder:
    def build(ctx: Ctx, name: str, i: int) -> Case:
        case = _exact(ctx, name, i, fault=fault) if fault else _exact(ctx, name, i)
        assert case.cite is not None
        how = mutation if isinstance(mutation, str) else mutation[i % len(mutation)]
        borrowed: tuple[str, int] | None = None
        if other == "passage":
            borrowed = ctx.add(ctx.base()[0])
        elif other == "key":
            twin = ctx.doc(f"pmid:{int(ctx.pmid) + 1}")
            while len(twin.paragraphs) <= case.cite.para:
                twin.paragraphs.append(ctx.paragraph(ctx.base()[0]))
            borrowed = (twin.key, case.cite.para)
        cite = Cite("handle", case.cite.doc, case.cite.para, how, borrowed)
        return Case(name, i, case.plants, cite, case.quote)

    return build


MALFORMED_CODE: Final = ("no_tilde", "short_code", "long_code", "bad_char", "two_tildes")
MALFORMED_PATH: Final = (
    "empty_path",
    "upper_path",
    "double_dot",
    "dash_edge",
    "bad_path_char",
    "too_long",
)
MALFORMED_ID: Final = ("bad_scheme", "bad_id", "pmid_version", "no_slash", "zero_id", "pmcid_v0")


def mutate_handle(handle: str, how: str, other: str | None, i: int) -> str:
    """The handle as the case writes it (``other``: a borrowed handle)."""
    base, code = handle.rsplit("~", 1)
    head, path = base.rsplit("/", 1)
    scheme, ident = head.split(":", 1)
    pos = i % 8
    if how == "code_char":
        new = CROCKFORD[(CROCKFORD.index(code[pos]) + 1 + i % 30) % 32]
        return f"{base}~{code[:pos]}{new}{code[pos + 1 :]}"
    if how == "other_passage":
        assert other is not None
        return f"{base}~{other.rsplit('~', 1)[1]}"
    if how == "made_up_path":
        return f"{head}/body.p{900 + i}~{code}"
    if how == "other_key":
        assert other is not None
        return f"{other.rsplit('/', 1)[0]}/{path}~{code}"
    if how == "lower":
        return f"{base}~{code.lower()}"
    if how == "alias":
        spelled = code.replace("0", "O").replace("1", "L")
        return f"{base}~{spelled if spelled != code else code.lower()}"
    written = {
        "no_tilde": base,
        "short_code": f"{base}~{code[:7]}",
        "long_code": f"{base}~{code}7",
        "bad_char": f"{base}~{code[:pos]}U{code[pos + 1 :]}",
        "two_tildes": f"{base}~{code[:4]}~{code[4:]}",
        "empty_path": f"{head}/~{code}",
        "upper_path": f"{head}/{path.upper()}~{code}",
        "double_dot": f"{head}/{path.replace('.', '..')}~{code}",
        "dash_edge": f"{head}/{path}-~{code}",
        "bad_path_char": f"{head}/{path}_x~{code}",
        "bad_scheme": f"pmx:{ident}/{path}~{code}",
        "bad_id": f"{scheme}:{ident}x/{path}~{code}",
        "pmid_version": f"{scheme}:{ident}.v2/{path}~{code}",
        "no_slash": f"{head}~{code}",
        "zero_id": f"{scheme}:0/{path}~{code}",
        "pmcid_v0": f"pmcid:PMC{ident}.v0/{path}~{code}",
        "too_long": f"{head}/{path}{'.x' * 300}~{code}",
    }
    return written.get(how, handle)


def unresolvable_no_entry(ctx: Ctx, name: str, i: int) -> Case:
    case = _exact(ctx, name, i)
    p = Plant("numbered", case.quote, case.quote, "none", fault="no_entry")
    entry = (i + 1, f"Example A. Invented record {i + 1}. PMID {ctx.pmid}.")
    return Case(name, i, (p,), Cite("numbered", number=str(200 + i)), case.quote, (entry,))


def unresolvable_no_identifier(ctx: Ctx, name: str, i: int) -> Case:
    case = _exact(ctx, name, i)
    p = Plant("numbered", case.quote, case.quote, "none", fault="no_identifier")
    entry = (
        i + 1,
        f"Example A, Sample B. An invented handbook of allotment practice, part "
        f"{i + 1}. Example Press; 2021.",
    )
    return Case(name, i, (p,), Cite("numbered", number=str(i + 1)), case.quote, (entry,))


def unavailable_plain(ctx: Ctx, name: str, i: int) -> Case:
    text, _, _ = ctx.base()
    n = PMID_BASE + 90000 + 100 * ctx.number + i
    key = (f"pmid:{n}", f"pmcid:PMC{n}", f"doi:{DOI_PREFIX}.missing.{n}")[i % 3]
    p = Plant(key.split(":", 1)[0], text, text, "none", source="unpinned")  # type: ignore[arg-type]
    return Case(name, i, (p,), Cite("inline", ref=_written_ref(key, i)), text)


def unavailable_handle(ctx: Ctx, name: str, i: int) -> Case:
    ctx.doc(after="remove")
    return _exact(ctx, name, i, source="unpinned")


def _changed_doc(ctx: Ctx) -> Doc:
    return ctx.doc(f"pmid:{PMID_BASE + 99999}", after="truncate", keep=CASES_PER_CATEGORY)


def version_changed(ctx: Ctx, name: str, i: int) -> Case:
    d = _changed_doc(ctx)
    assert len(d.paragraphs) < d.keep, "version_changed must come before withdrawn"
    return _exact(ctx, name, i, key=d.key, source="changed")


def withdrawn(ctx: Ctx, name: str, i: int) -> Case:
    d = _changed_doc(ctx)
    while len(d.paragraphs) < d.keep:
        d.paragraphs.append(ctx.paragraph(ctx.base()[0]))
    return _exact(ctx, name, i, key=d.key, source="withdrawn")


def _standing(kind: str) -> Builder:
    def build(ctx: Ctx, name: str, i: int) -> Case:
        doi = f"{DOI_PREFIX}.{kind}.{ctx.number}.{i}"
        (ctx.retracted if kind == "retracted" else ctx.concern).append(doi)
        style: Style = ("inline", "handle")[i % 2]
        return _exact(ctx, name, i, style, key=f"doi:{doi}", standing=kind)

    return build


def _plain(scheme: str) -> Builder:
    def build(ctx: Ctx, name: str, i: int) -> Case:
        key = {
            "pmid": f"pmid:{ctx.pmid}",
            "pmcid": f"pmcid:PMC{ctx.pmid}",
            "doi": f"doi:{DOI_PREFIX}.plain.{ctx.number}",
        }[scheme]
        return _exact(ctx, name, i, "inline", key=key)

    return build


def _entry_for(ctx: Ctx, n: int) -> tuple[int, str]:
    d = ctx.doc()
    if not d.aliases:
        d.aliases += [f"doi:{DOI_PREFIX}.numbered.{ctx.number}", f"pmcid:PMC{ctx.pmid}"]
    written = (
        f"PMID {ctx.pmid}",
        f"doi:{DOI_PREFIX}.numbered.{ctx.number}",
        f"https://doi.org/{DOI_PREFIX}.numbered.{ctx.number}",
        f"PMCID: PMC{ctx.pmid}",
    )[n % 4]
    return n, f"Example A, Sample B. Invented record number {n}. J Invented Ex. 2024. {written}"


def numbered_ok(ctx: Ctx, name: str, i: int) -> Case:
    case = _exact(ctx, name, i)
    p = Plant("numbered", case.quote, case.quote, "none")
    return Case(
        name, i, (p,), Cite("numbered", number=str(i + 1)), case.quote, (_entry_for(ctx, i + 1),)
    )


def numbered_range(ctx: Ctx, name: str, i: int) -> Case:
    a = 10 * i + 1
    numbers = (a, a + 2, a + 3, a + 4)
    written = ("{0}, {1}-{3}", "{0}, {1}–{3}", "{0}; {1}-{3}", "{0},{1}-{3}")[i % 4]
    plants = tuple(Plant("numbered") for _ in numbers)
    entries = tuple(_entry_for(ctx, n) for n in numbers)
    return Case(name, i, plants, Cite("numbered", number=written.format(*numbers)), None, entries)


def handle_no_quote(ctx: Ctx, name: str, i: int) -> Case:
    case = _exact(ctx, name, i)
    return Case(name, i, (Plant("handle"),), case.cite, None)


def headings(ctx: Ctx, name: str, i: int) -> Case:
    case = _exact(ctx, name, i, ("handle", "inline")[i % 2], key=f"pmid:{ctx.pmid}")
    level = "#" * (1 + i % 4)
    prefix = f"{level} Notes on plot {i}-H\n\n"
    return Case(
        name,
        i,
        case.plants,
        case.cite,
        case.quote,
        prefix=prefix,
        probes=((f"plot {i}-H", "not_a_claim"),),
    )


def lead_ins(ctx: Ctx, name: str, i: int) -> Case:
    case = _exact(ctx, name, i, ("handle", "inline")[i % 2])
    label = (f"**Plot {i}-L:** ", f"__Plot {i}-L:__ ", f"**Plot {i}-L**: ")[i % 3]
    return Case(
        name,
        i,
        case.plants,
        case.cite,
        case.quote,
        prefix=label,
        probes=((f"Plot {i}-L", "not_a_claim"),),
    )


def uncited(ctx: Ctx, name: str, i: int) -> Case:
    f = ctx.fields()
    text = f"Plot {i}-U at {f['place']} stayed dry through most of {f['season']}."
    return Case(
        name, i, (), None, None, prefix=text, probes=((f"Plot {i}-U", "uncited"),), uncited=1
    )


def _styled(style: Style, builder: Callable[[Ctx, str, int, Style], Case]) -> Builder:
    return lambda ctx, name, i: builder(ctx, name, i, style)


CATEGORIES: Final[tuple[tuple[str, Builder], ...]] = (
    ("exact_handle", lambda c, n, i: _exact(c, n, i)),
    ("handle_no_quote", handle_no_quote),
    ("fold_single_quotes", _fold(_single_quotes)),
    ("fold_double_quotes", _fold(_double_quotes, "block")),
    ("fold_dashes", _fold(_dashes)),
    ("fold_spaces", _fold(_spaces)),
    ("fold_ligatures", _fold(_ligatures)),
    ("fold_nfc_nfd", _fold(_unicode_forms)),
    ("fold_line_breaks", _fold(_line_breaks)),
    ("fold_invisible", _fold(_invisible)),
    ("fold_whitespace_runs", _fold(_whitespace)),
    ("fold_blockquote_lines", _fold(_block_lines, "block")),
    ("partial_mid_number", partial_mid_number),
    ("partial_start", partial_start),
    ("partial_end", partial_end),
    ("ellipsis_clean", ellipsis_clean),
    ("ellipsis_hidden_negation", ellipsis_hidden_negation),
    ("number_changed", number_changed),
    ("unit_changed", unit_changed),
    ("sign_changed", sign_changed),
    ("comparison_changed", comparison_changed),
    ("direction_word", direction_word),
    ("negation_dropped", negation_dropped),
    ("negation_added", negation_added),
    ("case_only", case_only),
    ("punctuation_only", punctuation_only),
    ("word_changed", word_changed),
    ("not_found", not_found),
    ("markers_in_source", markers_in_source),
    ("marker_inside_quote", marker_inside_quote),
    ("match_in_references", match_in_references),
    ("forged_code_char", _mutated("code_char", "forged")),
    ("forged_other_passage", _mutated("other_passage", "forged", "passage")),
    ("forged_made_up_path", _mutated("made_up_path", "forged")),
    ("forged_other_key", _mutated("other_key", "forged", "key")),
    ("handle_code_spelling", _mutated(("lower", "alias"), None)),
    ("malformed_code", _mutated(MALFORMED_CODE, "malformed")),
    ("malformed_path", _mutated(MALFORMED_PATH, "malformed")),
    ("malformed_identifier", _mutated(MALFORMED_ID, "malformed")),
    ("unresolvable_no_entry", unresolvable_no_entry),
    ("unresolvable_no_identifier", unresolvable_no_identifier),
    ("unavailable_plain", unavailable_plain),
    ("unavailable_handle", unavailable_handle),
    ("version_changed", version_changed),
    ("withdrawn", withdrawn),
    ("retracted", _standing("retracted")),
    ("concern", _standing("concern")),
    ("plain_pmid", _plain("pmid")),
    ("plain_pmcid", _plain("pmcid")),
    ("plain_doi", _plain("doi")),
    ("numbered_ok", numbered_ok),
    ("numbered_range", numbered_range),
    ("headings", headings),
    ("lead_ins", lead_ins),
    ("uncited", uncited),
    ("quote_from_other_passage", other_passage_quote),
    ("json_claims", json_claims),
)
#: Parts a whole answer is made of, by the overall verdict they push it towards.
WHOLE_PARTS: Final = {
    "pass": (
        "exact_handle",
        "plain_pmid",
        "headings",
        "lead_ins",
        "ellipsis_clean",
        "fold_dashes",
        "handle_no_quote",
        "plain_doi",
    ),
    "warn": ("uncited", "word_changed", "concern", "direction_word"),
    "incomplete": ("unavailable_plain",),
    "fail": (
        "number_changed",
        "forged_code_char",
        "retracted",
        "not_found",
        "malformed_code",
        "partial_end",
        "ellipsis_hidden_negation",
    ),
}
WHOLE_ANSWERS: Final = 25


def plan(seed: int = SEED, per_category: int = CASES_PER_CATEGORY) -> Plan:
    """Every document and answer of the suite, as a pure function of ``seed``."""
    rng = Random(seed)
    docs: dict[str, Doc] = {}
    answers: list[Answer] = []
    ctxs: dict[str, Ctx] = {}
    builders = dict(CATEGORIES)
    for number, (name, builder) in enumerate(CATEGORIES, start=1):
        ctx = ctxs[name] = Ctx(rng, docs, number)
        cases = tuple(builder(ctx, name, i) for i in range(per_category))
        answers.append(Answer(name, cases))
    targets = ("pass", "warn", "incomplete", "fail")
    for n in range(WHOLE_ANSWERS):
        target = targets[n % 4]
        names = list(rng.sample(WHOLE_PARTS["pass"], 3))
        for level in targets[1 : targets.index(target) + 1]:
            if level == target or rng.random() < 0.5:
                names.append(rng.choice(WHOLE_PARTS[level]))
        rng.shuffle(names)
        cases = tuple(
            builders[part](ctxs[part], part, 1000 * (n + 1) + k) for k, part in enumerate(names)
        )
        answers.append(Answer("whole_answers", cases, whole=True))
    retracted = [d for c in ctxs.values() for d in c.retracted]
    concern = [d for c in ctxs.values() for d in c.concern]
    return Plan(seed, docs, answers, retracted, concern)


# ------------------------------------------------------------------------------- render


def _quoted(quote: str, i: int) -> str:
    return f"“{quote}”" if '"' in quote or i % 2 else f'"{quote}"'


def render_case(case: Case, handles: Mapping[str, Sequence[str]]) -> str:
    """The Markdown of one case, with the real handles of the pinned documents."""
    cite, quote, i = case.cite, case.quote, case.index
    if cite is None:
        return case.prefix
    if cite.style in ("handle", "block"):
        other = handles[cite.other[0]][cite.other[1]] if cite.other else None
        h = mutate_handle(handles[cite.doc][cite.para], cite.mutate, other, i)
        if cite.style == "block":
            assert quote is not None
            lines = quote.replace("\r\n", "\n").split("\n")
            return case.prefix + "\n".join(f"> {line}" for line in lines) + f" [{h}]"
        written = f"[{h}]" if quote is None else f'[{h} "{quote}"]'
        return f"{case.prefix}{case.tag} recorded in the source {written}."
    ref = cite.ref if cite.style == "inline" else f"[{cite.number}]"
    if quote is None:
        return f"{case.prefix}{case.tag} recorded in the sources {ref}."
    return f"{case.prefix}{case.tag} recorded as {_quoted(quote, i)} {ref}."


def _json_answer(answer: Answer, handles: Mapping[str, Sequence[str]]) -> str:
    claims = []
    for case in answer.cases:
        cite = case.cite
        assert cite is not None and cite.style in ("handle", "inline")
        if cite.style == "handle":
            other = handles[cite.other[0]][cite.other[1]] if cite.other else None
            ref = mutate_handle(handles[cite.doc][cite.para], cite.mutate, other, case.index)
        else:
            ref = cite.ref.strip("[]()")
        citation: dict[str, str] = {"ref": ref}
        if case.quote is not None:
            citation["quote"] = case.quote
        claims.append({"text": f"{case.tag} recorded in the source.", "citations": [citation]})
    return json.dumps({"claims": claims}, ensure_ascii=False, indent=1)


def render_answer(answer: Answer, handles: Mapping[str, Sequence[str]]) -> str:
    if answer.json:
        return _json_answer(answer, handles)
    blocks = [render_case(c, handles) for c in answer.cases]
    entries = sorted({e for c in answer.cases for e in c.entries})
    if entries:
        blocks.append("## References\n\n" + "\n".join(f"{n}. {text}" for n, text in entries))
    return "\n\n".join(blocks) + "\n"


def jats(doc: Doc, paragraphs: Sequence[str]) -> bytes:
    """A minimal JATS article: the paragraphs as its body, ``doc.references`` as its list."""
    from xml.sax.saxutils import escape

    body = "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
    refs = "".join(
        f'<ref id="R{k}"><label>{k}</label><mixed-citation publication-type="journal">'
        f"<person-group><name><surname>Example</surname><given-names>A</given-names></name>"
        f"</person-group>. <article-title>{escape(t)}</article-title>. "
        f"<source>J Invented Ex</source>. <year>2020</year>.</mixed-citation></ref>"
        for k, t in enumerate(doc.references, start=1)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<!-- INVENTED EXAMPLE for citeproof tests -->\n'
        '<article article-type="research-article"><front><article-meta><title-group>'
        f"<article-title>{escape(LABEL)}</article-title></title-group></article-meta></front>"
        f'<body><sec id="s1"><title>Results</title>{body}</sec></body>'
        f"<back><ref-list><title>References</title>{refs}</ref-list></back></article>\n"
    ).encode()
