"""JATS XML (PMC OA ``.nxml``, Europe PMC ``fullTextXML``, PMC ``pmc-articleset``) to Document.

Articles come from the network and from users, so parsing goes through
``parse_xml_safely``: no DTD, no network, no entity expansion, entity declarations refused.

Decisions where JATS leaves room:

* Blocks are joined by a blank line; XML whitespace inside a block collapses to one space.
* Headings carry the section path of the section they open (their own title included).
  Section paths hold titles without labels; heading blocks show "label title" ("2.1 Methods").
* A figure/table/supplement gives one caption block: label, caption title and caption
  paragraphs.  Each table cell is one block (kind ``cell``, region ``table``): cells are
  what a reader quotes, and joining them would invent separators.
* A reference is one block.  ``mixed-citation`` keeps its own punctuation (a space is added
  only where two fields would otherwise touch); ``element-citation`` is rendered
  Vancouver-like ("Smith J, Doe A. Title. Source. 2010;12(3):45-67."; see ``jats_refs``).
* Formulas contribute MathML text, else the body of their TeX, never the TeX preamble.
* Only bibliographic and footnote ``<xref>`` s are markers (``bibr``, ``fn``, ``table-fn``,
  or no ref-type with a citation-like text); figure and table references are ordinary text.
* ``pmc-articleset``: the first ``<article>`` is read.  Sub-articles (eLife decision letters,
  author responses) are back matter under their own title.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace

from lxml import etree

from citeproof.documents._text import Context, DocBuilder, collapse, licence_name, word_set
from citeproof.documents.jats_refs import Capture, element_citation, has_own_text, person_name
from citeproof.documents.model import Document, DocumentMeta, Region
from citeproof.documents.safe_xml import entity_chars, local_name, parse_xml_safely
from citeproof.errors import UnsupportedFormatError

__all__ = ["parse_jats"]

_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_MAX_DEPTH = 200  # libxml2 stops at 256 levels; keep Python's stack well clear of its limit
_CITE_TEXT = re.compile(r"[\[(]?\s*\d+[a-z]?(?:\s*[,;\u2013\u2014-]\s*\d+[a-z]?)*\s*[\])]?")
_TEX_DOC = re.compile(r"\\begin\{document\}(.*?)\\end\{document\}", re.DOTALL)
_SKIP = word_set(
    "object-id graphic inline-graphic alt-text long-desc annotation annotation-xml "
    "private-char sec-meta permissions copyright-year copyright-holder license_ref "
    "free_to_read processing-meta institution-id"
)
_FORMATTING = word_set(
    "italic bold sup sub sc monospace underline overline roman sans-serif strike "
    "styled-content named-content abbrev"
)
_CAPTIONED = word_set(
    "fig table-wrap supplementary-material media chem-struct-wrap boxed-text fig-group "
    "table-wrap-group"
)
_TITLES = word_set("article-title subtitle trans-title trans-subtitle")
_SECTIONS = word_set("sec app app-group notes glossary bio statement")
_PARAGRAPHS = word_set("p license-p copyright-statement corresp")
_CITATIONS = ("mixed-citation", "citation", "element-citation", "nlm-citation")
# Elements that start a block of their own: name -> (kind, region or None to inherit, single).
# fmt: off
_BLOCKS: dict[str, tuple[str, Region | None, bool]] = {
    "list": ("paragraph", None, False), "def-list": ("paragraph", None, False),
    "list-item": ("list-item", None, True), "def-item": ("definition", None, True),
    "disp-quote": ("quote", None, False), "caption": ("caption", "caption", True),
    "table": ("paragraph", "table", False), "td": ("cell", "table", True),
    "th": ("cell", "table", True), "entry": ("cell", "table", True),
    "table-wrap-foot": ("footnote", "footnote", False),
}
# fmt: on

Handler = Callable[[etree._Element, Context, int], None]


def parse_jats(data: bytes) -> Document:
    """Parse a JATS article; refuses entity declarations and reports malformed XML."""
    root = parse_xml_safely(data)
    if root is None:
        return Document(text="", blocks=[], format="jats")
    article = root if local_name(root) == "article" else _kid(root, "article")
    if article is None:
        raise UnsupportedFormatError(
            f"The XML has root element <{local_name(root)}> and no <article>, so it is not a JATS "
            "article; supply the article's full-text XML (PMC .nxml or Europe PMC fullTextXML)."
        )
    return _Walker().run(article)


def _kids(el: etree._Element, *names: str) -> Iterator[etree._Element]:
    return (c for c in el if local_name(c) in names)


def _kid(el: etree._Element | None, *names: str) -> etree._Element | None:
    return None if el is None else next(_kids(el, *names), None)


def _first(el: etree._Element | None, name: str) -> etree._Element | None:
    return None if el is None else next((d for d in el.iter() if local_name(d) == name), None)


class _Walker:
    """One pass over the article tree, feeding a DocBuilder.

    ``visit`` dispatches on the element's local name; an element without a handler is
    inline: its text joins the current block.  Handlers that start blocks restore the
    builder's previous context when they end, so an element's tail lands where it belongs.
    """

    def __init__(self) -> None:
        self.b = DocBuilder(Context("paragraph", "body"))
        self.capturing = 0
        self.rows = 0
        self.handlers: dict[str, Handler] = {
            **dict.fromkeys(_SECTIONS, self._sec),
            **dict.fromkeys(_CAPTIONED, self._captioned),
            **dict.fromkeys(_SKIP, self._skip),
            **dict.fromkeys(_PARAGRAPHS, self._p),
            **dict.fromkeys(_BLOCKS, self._context_block),
            **dict.fromkeys(_CITATIONS, self._citation),
            **dict.fromkeys(("abstract", "trans-abstract"), self._abstract),
            **dict.fromkeys(("preformat", "code"), self._pre),
            "ack": lambda el, ctx, d: self._sec(el, ctx, d, default="Acknowledgements"),
            "fn-group": lambda el, ctx, d: self._sec(el, ctx, d, region="footnote"),
            "ref-list": lambda el, ctx, d: self._sec(el, ctx, d, "References", "references"),
            "title": self._title,
            "label": self._label,
            "ref": self._ref,
            "fn": self._fn,
            "xref": self._xref,
            "alternatives": self._alternatives,
            "disp-formula": self._formula,
            "break": lambda el, ctx, d: self.b.soft_break(),
            "tr": self._row,  # an XHTML table row
            "row": self._row,  # an OASIS (CALS) table row
            "tex-math": lambda el, ctx, d: self.b.add(_tex_body("".join(el.itertext()))),
            "math": lambda el, ctx, d: self.b.add(_math_text(el)),
        }

    def run(self, article: etree._Element) -> Document:
        meta_el = _kid(_kid(article, "front"), "article-meta")
        meta = DocumentMeta()
        if meta_el is not None:
            meta = _meta(meta_el, self._capture)
            self._front(meta_el)
        for part in article:
            name = local_name(part)
            if name in ("body", "floats-group"):
                self._block(part, Context("paragraph", "body"), 0)
            elif name == "back":
                self._block(part, Context("paragraph", "back-matter"), 0)
            elif name in ("sub-article", "response"):
                self._sub_article(part)
        text = self.b.text()
        markers = tuple(self.b.markers)
        return Document(text=text, blocks=self.b.blocks, format="jats", meta=meta, markers=markers)

    # --- the walk -----------------------------------------------------------------------

    def visit(self, el: etree._Element, ctx: Context, depth: int) -> None:
        name = local_name(el)
        if not name:
            if isinstance(el, etree._Entity):  # a named entity the (unloaded) DTD would define
                self.b.add(entity_chars(el.name))
            return
        if depth > _MAX_DEPTH:
            self.b.add(" ".join(el.itertext()))
            return
        handler = self.handlers.get(name)
        if handler is None:
            self.children(el, ctx, depth)
        else:
            handler(el, ctx, depth)

    def children(
        self, el: etree._Element, ctx: Context, depth: int, skip: tuple[object, ...] = ()
    ) -> None:
        b = self.b
        b.add(el.text)
        for child in el:
            if not any(child is s for s in skip):
                guard = ctx.guard and local_name(child) not in _FORMATTING
                if guard:
                    b.guard()
                self.visit(child, ctx, depth + 1)
                if guard:
                    b.guard()
            b.add(child.tail)

    def _block(
        self, el: etree._Element, ctx: Context, depth: int, skip: tuple[object, ...] = ()
    ) -> None:
        old = self.b.begin(ctx)
        self.children(el, ctx, depth, skip)
        self.b.begin(old)

    def _capture(self, el: etree._Element) -> str:
        """The inline text of ``el`` for titles and metadata, citation markers left out."""
        if not len(el):  # the common leaf case (name parts, citation fields), done cheaply
            return collapse(el.text or "").strip()
        saved = self.b
        self.b = DocBuilder(Context("paragraph", "body", single=True))
        self.capturing += 1
        try:
            self.children(el, self.b.ctx, 0)
            return collapse(" ".join(self.b.block_texts())).strip()
        finally:
            self.b = saved
            self.capturing -= 1

    # --- front matter -------------------------------------------------------------------

    def _front(self, meta: etree._Element) -> None:
        front: dict[str, str] = {"author-notes": "note", "permissions": "permissions"}
        for child in meta:
            name = local_name(child)
            if name == "title-group":
                for t in child.iter():
                    if local_name(t) in _TITLES:
                        self._block(t, Context("title", "title"), 0)
            elif name == "contrib-group":
                self._contribs(child)
            elif name == "aff":
                self._aff(child)
            elif name in front:
                self._block(child, Context(front[name], "front-matter"), 0)
            elif name in ("abstract", "trans-abstract"):
                self._abstract(child, Context("paragraph", "abstract"), 0)
            elif name == "kwd-group":
                self._keywords(child)
            elif name == "funding-group":
                for fs in child.iter():
                    if local_name(fs) == "funding-statement":
                        self._block(fs, Context("funding", "front-matter"), 0)

    def _contribs(self, group: etree._Element) -> None:
        names: list[str] = []
        for contrib in _kids(group, "contrib"):
            if contrib.get("contrib-type", "author") != "author":
                continue
            person = _kid(contrib, "name", "string-name", "collab", "name-alternatives")
            if person is not None and local_name(person) == "name-alternatives":
                person = _kid(person, "name", "string-name")
            if person is not None:
                names.append(person_name(person, self._capture))
        self._literal(", ".join(names), Context("authors", "front-matter"))
        for aff in group.iter():
            if local_name(aff) == "aff":
                self._aff(aff)

    def _aff(self, aff: etree._Element) -> None:
        ctx = Context("affiliation", "front-matter", guard=True)
        self._block(aff, ctx, 0, skip=tuple(_kids(aff, "label")))

    def _keywords(self, group: etree._Element) -> None:
        title = _kid(group, "title")
        words = "; ".join(filter(None, map(self._capture, _kids(group, "kwd", "compound-kwd"))))
        heading = self._capture(title) if title is not None else ""
        if heading and words:
            words = heading + ("" if heading.endswith(":") else ":") + " " + words
        self._literal(words, Context("keywords", "front-matter"))

    def _literal(self, text: str, ctx: Context) -> None:
        old = self.b.begin(ctx)
        self.b.add(text)
        self.b.begin(old)

    # --- sections -----------------------------------------------------------------------

    def _sec(
        self,
        el: etree._Element,
        ctx: Context,
        depth: int,
        default: str = "",
        region: Region | None = None,
    ) -> None:
        label, title = _kid(el, "label"), _kid(el, "title")
        name = self._capture(title) if title is not None else ""
        if not name and label is not None:
            name = self._capture(label)
        name = name or ("" if ctx.section else default)  # no "References" twice
        section = (*ctx.section, name) if name else ctx.section
        if el.get("sec-type") == "ref-list":  # Europe PMC wraps the ref-list in a <sec>
            region = "references"
        reg: Region = region or ctx.region
        inner = Context("footnote" if reg == "footnote" else "paragraph", reg, section)
        old = self.b.begin(Context("heading", reg, section))
        if label is not None:
            self._label(label, inner, depth + 1)
        if title is not None:
            self.children(title, inner, depth + 1)
        self.b.begin(inner)
        self.children(el, inner, depth, skip=(label, title))
        self.b.begin(old)

    def _abstract(self, el: etree._Element, ctx: Context, depth: int) -> None:
        self._sec(el, Context("paragraph", "abstract"), depth, default="Abstract")

    def _sub_article(self, el: etree._Element) -> None:
        title = _first(_kid(el, "front-stub", "front"), "article-title")
        name = self._capture(title) if title is not None else el.get("article-type", "")
        ctx = Context("paragraph", "back-matter", (name,) if name else ())
        if title is not None:
            self._block(title, Context("heading", "back-matter", ctx.section), 0)
        for part in el:
            if local_name(part) in ("body", "back"):
                self._block(part, ctx, 0)
            elif local_name(part) in ("sub-article", "response"):
                self._sub_article(part)

    # --- blocks -------------------------------------------------------------------------

    def _p(self, el: etree._Element, ctx: Context, depth: int) -> None:
        if ctx.single:  # a paragraph inside a caption, cell, list item, footnote ...
            self.b.soft_break()
            self.children(el, ctx, depth)
            self.b.soft_break()
        else:
            self._block(el, ctx, depth)

    def _title(self, el: etree._Element, ctx: Context, depth: int) -> None:
        if ctx.single:
            self._p(el, ctx, depth)
        else:
            self._block(el, Context("heading", ctx.region, ctx.section), depth)

    def _label(self, el: etree._Element, ctx: Context, depth: int) -> None:
        self.children(el, ctx, depth)
        self.b.soft_break(sticky=True)

    def _context_block(self, el: etree._Element, ctx: Context, depth: int) -> None:
        kind, region, single = _BLOCKS[local_name(el)]
        inner = Context(kind, region or ctx.region, ctx.section, single=single, row=ctx.row)
        self._block(el, inner, depth)

    def _row(self, el: etree._Element, ctx: Context, depth: int) -> None:
        self.rows += 1
        self.children(el, replace(ctx, row=self.rows), depth)

    def _fn(self, el: etree._Element, ctx: Context, depth: int) -> None:
        if self.capturing:  # a footnote inside a title is not part of the title
            return
        region: Region = "front-matter" if ctx.region == "front-matter" else "footnote"
        self._block(el, Context("footnote", region, ctx.section, single=True), depth)

    def _captioned(self, el: etree._Element, ctx: Context, depth: int) -> None:
        label, caption = _kid(el, "label"), _kid(el, "caption")
        if label is not None or caption is not None:
            cap = Context("caption", "caption", ctx.section, single=True)
            old = self.b.begin(cap)
            if label is not None:
                self._label(label, cap, depth + 1)
            if caption is not None:
                self.children(caption, cap, depth + 1)
            self.b.begin(old)
        inner = Context("paragraph", ctx.region, ctx.section) if ctx.single else ctx
        self._block(el, inner, depth, skip=(label, caption, *_kids(el, "attrib")))

    def _pre(self, el: etree._Element, ctx: Context, depth: int) -> None:
        old = self.b.begin(Context("preformatted", ctx.region, ctx.section))
        self.b.preserve = True
        try:
            self.children(el, self.b.ctx, depth)
        finally:
            self.b.preserve = False
        self.b.begin(old)

    def _ref(self, el: etree._Element, ctx: Context, depth: int) -> None:
        ref = Context("reference", "references", ctx.section, single=True)
        old = self.b.begin(ref)
        for item in el:
            child: etree._Element | None = item
            if local_name(item) == "citation-alternatives":  # the same reference twice: read one
                child = _kid(item, "mixed-citation")
                child = child if child is not None else _kid(item, *_CITATIONS)
            if child is None:
                continue
            name = local_name(child)
            if name in _CITATIONS:
                self.b.soft_break()
                self._citation(child, ref, depth + 1)
            else:
                self.visit(child, ref, depth + 1)
        self.b.begin(old)

    # --- inline -------------------------------------------------------------------------

    def _citation(self, el: etree._Element, ctx: Context, depth: int) -> None:
        if local_name(el) in ("element-citation", "nlm-citation") or not has_own_text(el):
            text = element_citation(el, self._capture)
            if text:
                self.b.add(text)
                return
        # mixed content: its own punctuation, plus a space where two fields would touch
        self.children(el, replace(ctx, guard=True), depth)

    def _skip(self, el: etree._Element, ctx: Context, depth: int) -> None:
        return

    def _xref(self, el: etree._Element, ctx: Context, depth: int) -> None:
        kind = el.get("ref-type")
        marker = kind in ("bibr", "fn", "table-fn") or (
            kind is None and _CITE_TEXT.fullmatch(collapse("".join(el.itertext()))) is not None
        )
        if not marker:
            self.children(el, ctx, depth)
        elif not self.capturing:
            self.b.open_marker()
            self.children(el, ctx, depth)
            self.b.close_marker()

    def _alternatives(self, el: etree._Element, ctx: Context, depth: int) -> None:
        for preferred in ("table", "math", "tex-math", "textual-form"):
            choice = _kid(el, preferred)
            if choice is not None:
                self.visit(choice, ctx, depth + 1)
                return

    def _formula(self, el: etree._Element, ctx: Context, depth: int) -> None:
        self.b.space()
        self.children(el, ctx, depth, skip=tuple(_kids(el, "label")))
        self.b.space()


def _math_text(el: etree._Element) -> str:
    """MathML as its token text: whitespace between MathML elements is not rendered."""
    name = local_name(el)
    if not name:
        return entity_chars(el.name) if isinstance(el, etree._Entity) else ""
    if name in ("annotation", "annotation-xml"):
        return ""
    parts = [collapse(el.text or "")]
    for child in el:
        parts.append(_math_text(child))
        parts.append(collapse(child.tail or ""))
    return "".join(parts)


def _tex_body(tex: str) -> str:
    m = _TEX_DOC.search(tex)
    return (m.group(1) if m else tex).strip().strip("$").strip()


def _meta(meta: etree._Element, capture: Capture) -> DocumentMeta:
    ids: dict[str, str] = {}
    for aid in _kids(meta, "article-id"):
        kind, value = aid.get("pub-id-type", ""), collapse("".join(aid.itertext()))
        if value:
            ids.setdefault(kind, value)
    pmcid = ids.get("pmcid") or ids.get("pmc")
    if pmcid:
        pmcid = "PMC" + pmcid.upper().removeprefix("PMC")
    title = _kid(_kid(meta, "title-group"), "article-title")
    return DocumentMeta(
        title=(capture(title) or None) if title is not None else None,
        doi=ids.get("doi"),
        pmid=ids.get("pmid"),
        pmcid=pmcid,
        licence=_licence(meta),
    )


def _licence(meta: etree._Element) -> str | None:
    permissions = _kid(meta, "permissions")
    for lic in _kids(permissions, "license") if permissions is not None else ():
        urls = [lic.get(_XLINK_HREF) or ""]
        urls += [d.text or "" for d in lic.iter() if local_name(d) == "license_ref"]
        urls += [d.get(_XLINK_HREF) or "" for d in lic.iter() if local_name(d) == "ext-link"]
        if name := licence_name(urls, " ".join(lic.itertext())):
            return name
    return None
