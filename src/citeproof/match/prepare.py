"""The prepared form of a source text: built once per Document, reused by every check.

Three strings take part in a check, each a view of the one before it:

* the original text (what offsets in results index);
* ``norm``: its t1 normalisation, with the offset map back to the original;
* ``layer``: ``norm`` with citation markers deleted, where quotes are searched.

A layer only ever deletes, so its map to the text below is a list of breakpoints.  The
lower-cased layer and the ``t1+dehyphen`` layer are built on first use only.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from citeproof.match.exact import Haystack
from citeproof.match.markers import find_markers
from citeproof.match.normalize import Normalized, normalize_with_map

# A hyphen (and the space a line break left after it) between two letters: what PDF line
# layout leaves of a word split at a line end, "treat- ment".
_DEHYPHEN = re.compile(r"(?<=[^\W\d_])- ?(?=[^\W\d_])")


@dataclass(frozen=True, slots=True)
class Layer:
    """A string made by deleting spans of a parent string, with the map back to it."""

    text: str
    starts: list[int]
    """Layer positions where a kept segment begins."""
    parent_starts: list[int]
    """Parent positions of those segment starts."""

    def to_parent(self, i: int) -> int:
        if not self.starts:
            return i
        k = bisect.bisect_right(self.starts, i) - 1
        if k < 0:
            return i
        return self.parent_starts[k] + (i - self.starts[k])

    def to_parent_end(self, j: int) -> int:
        """Map an exclusive end: the position after the parent of character ``j - 1``."""
        return self.to_parent(j - 1) + 1 if j > 0 else self.to_parent(0)

    def from_parent(self, i: int) -> int:
        """The layer position of parent position ``i`` (the next kept one if deleted)."""
        if not self.starts:
            return i
        k = bisect.bisect_right(self.parent_starts, i) - 1
        if k < 0:
            return 0
        end = self.starts[k + 1] if k + 1 < len(self.starts) else len(self.text)
        return min(self.starts[k] + (i - self.parent_starts[k]), end)

    def deleted_before(self, i: int) -> int:
        """Parent position where the deletion just before layer position ``i`` began, or
        ``to_parent(i)`` when nothing was deleted there."""
        k = bisect.bisect_right(self.starts, i) - 1
        if k < 0 or self.starts[k] != i:
            return self.to_parent(i)
        if k == 0:
            return 0
        return self.parent_starts[k - 1] + (self.starts[k] - self.starts[k - 1])

    def deleted_after(self, j: int, parent_len: int) -> int:
        """Parent position where the deletion just after layer end ``j`` ended, or
        ``to_parent_end(j)`` when nothing was deleted there."""
        k = bisect.bisect_left(self.starts, j)
        if k < len(self.starts) and self.starts[k] == j and j > 0:
            return self.parent_starts[k]
        if j == len(self.text) and self.starts:
            return parent_len
        return self.to_parent_end(j)


def _lower_each(text: str) -> str:
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def lower_in_place(text: str) -> tuple[str, Callable[[str], str]]:
    """``text`` lower-cased position for position, and the rule that did it, to apply to
    each of its words alike.  ``str.lower`` when it keeps the length (then it keeps every
    character's, since no character lower-cases to nothing, and its one rule of context,
    the final sigma, stops at a space); otherwise character by character, keeping those
    whose lower case is longer ("İ")."""
    low = text.lower()
    if len(low) == len(text):
        return low, str.lower
    return _lower_each(text), _lower_each


def delete_spans(text: str, spans: Iterable[tuple[int, int]]) -> Layer:
    """``text`` with the sorted, disjoint ``spans`` removed."""
    parts: list[str] = []
    starts: list[int] = []
    parent_starts: list[int] = []
    pos = 0
    out = 0
    for a, b in spans:
        if a > pos:
            starts.append(out)
            parent_starts.append(pos)
            parts.append(text[pos:a])
            out += a - pos
        pos = max(pos, b)
    if pos < len(text) or not starts:
        starts.append(out)
        parent_starts.append(pos)
        parts.append(text[pos:])
    if len(parts) == 1 and len(parts[0]) == len(text):
        return Layer(text, [], [])  # nothing deleted: the identity map
    return Layer("".join(parts), starts, parent_starts)


def deletion_points(layer: Layer) -> list[int]:
    """Layer positions right after something of the parent was deleted."""
    out = []
    for k, (start, parent) in enumerate(zip(layer.starts, layer.parent_starts, strict=True)):
        if k == 0:
            if parent > 0:
                out.append(start)
        elif parent != layer.parent_starts[k - 1] + (start - layer.starts[k - 1]):
            out.append(start)
    return out


def strip_markers(
    norm: Normalized, known: Iterable[tuple[int, int]] = ()
) -> tuple[Layer, list[tuple[int, int]]]:
    """The marker-free layer of ``norm`` and the marker spans (in ``norm.text``)."""
    spans = find_markers(norm.text, norm.superscripts, known)
    return delete_spans(norm.text, spans), spans


def dehyphenate(text: str) -> Layer:
    return delete_spans(text, (m.span() for m in _DEHYPHEN.finditer(text)))


@dataclass(eq=False, slots=True)
class Prepared:
    """Everything about a source text that checks reuse."""

    original: str
    norm: Normalized
    layer: Layer
    markers: list[tuple[int, int]]
    """Citation-marker spans in ``norm.text``."""
    hay: Haystack
    """The marker-free layer, ready for searching."""
    dehyphen: bool = False
    known_markers: bool = False
    """Whether the parser marked citations (JATS ``<xref>``), which may be words."""
    _lower: Haystack | None = field(default=None, init=False)
    _norm_hay: Haystack | None = field(default=None, init=False)
    _dehyphenated: tuple[Layer, Haystack] | None = field(default=None, init=False)
    _deletion_points: frozenset[int] | None = field(default=None, init=False)

    @property
    def deletion_points(self) -> frozenset[int]:
        """Positions of the marker-free layer where a marker was removed."""
        if self._deletion_points is None:
            self._deletion_points = frozenset(deletion_points(self.layer))
        return self._deletion_points

    @property
    def lower(self) -> Haystack:
        """The marker-free layer lower-cased, position for position."""
        if self._lower is None:
            low, fold = lower_in_place(self.layer.text)
            self._lower = Haystack(low, folded_from=(self.hay, fold))
        return self._lower

    @property
    def norm_hay(self) -> Haystack:
        """The t1 text with its markers, for quotes that carry or cut markers."""
        if self._norm_hay is None:
            self._norm_hay = Haystack(self.norm.text)
        return self._norm_hay

    @property
    def dehyphenated(self) -> tuple[Layer, Haystack]:
        """The marker-free layer with hyphens between letters removed (``t1+dehyphen``)."""
        if self._dehyphenated is None:
            layer = dehyphenate(self.layer.text)
            self._dehyphenated = (layer, Haystack(layer.text))
        return self._dehyphenated

    def build_indexes(self) -> None:
        """Index every layer checks search (``exact.Haystack.build_index``) now, instead of
        once their scans have cost as much: for a caller that knows many checks of this
        text will follow.  What a check answers does not change, only how fast."""
        self.hay.build_index()
        self.lower.build_index()
        self.norm_hay.build_index()
        if self.dehyphen:
            self.dehyphenated[1].build_index()

    def layer_to_norm(self, start: int, end: int) -> tuple[int, int]:
        return self.layer.to_parent(start), self.layer.to_parent_end(end)

    def norm_to_original(self, start: int, end: int) -> tuple[int, int]:
        omap = self.norm.map
        return omap.start(start), omap.end(end)


def prepare(
    text: str, *, markers: Iterable[tuple[int, int]] = (), dehyphen: bool = False
) -> Prepared:
    """Prepare ``text`` for checks; ``markers`` are known citation spans in ``text``."""
    norm = normalize_with_map(text)
    known = [(norm.map.from_original(a), norm.map.from_original(b)) for a, b in markers if a < b]
    layer, spans = strip_markers(norm, known)
    return Prepared(text, norm, layer, spans, Haystack(layer.text), dehyphen, bool(known))
