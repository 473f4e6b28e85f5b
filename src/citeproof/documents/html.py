"""HTML to Document: the text a reader of the page sees, in blocks, with headings as sections.

A quote is checked against what the page *shows*, so scripts, styles, templates,
``<noscript>``, the ``<head>`` and anything hidden (``hidden``, ``aria-hidden="true"``,
inline ``display:none`` / ``visibility:hidden``) are dropped.  Stylesheets are not
evaluated: text hidden by a CSS class stays.  The one site-specific rule drops Wikipedia's
``[edit]`` links (class ``mw-editsection``), which would otherwise end every heading.

Decisions:

* Inline whitespace collapses as a browser collapses it (ASCII whitespace only: NBSP and
  other Unicode spaces are content); ``<pre>`` keeps its text; ``<br>`` is a line break
  inside the block.  Blocks are joined by a blank line.
* ``<h1>``-``<h6>`` give the section path as a stack (an ``<h2>`` under an ``<h1>`` gives
  both).  The page's first ``<h1>`` (inside ``<main>`` when there is one) is the title:
  kind ``title``, region ``title``, not part of any section path.
* Regions: ``nav``/``header``/``footer``/``aside`` and their ARIA roles, and everything
  outside ``<main>`` when the page has one, are ``other``; text under a heading named
  References, Bibliography, Notes, Sources, Further reading ... (or inside a reference list
  such as ``ol.references``) is ``references``, with list items of kind ``reference``;
  "See also" and "External links" sections are ``other``; ``<figcaption>``/``<caption>``
  are ``caption``; table cells (one block per cell) are ``table``; the rest is ``body``.
* Decoding: a byte-order mark wins, then ``<meta charset>`` / ``http-equiv`` in the first
  8 KiB, else UTF-8.  Bytes invalid for the chosen encoding are an error, never guessed.
* Citation markers: ``<sup>`` holding only numbers, commas and dashes (or a short bracketed
  note such as ``[1]``) right after a word, ``<sup class="reference">``, and links to
  ``#cite...``/``#ref...``/``#bib...``-style anchors or with a ``reference`` class.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

from lxml import etree

from citeproof.documents._decode import decode_unicode_text, split_bom
from citeproof.documents._text import Context, DocBuilder, collapse, licence_name, word_set
from citeproof.documents.model import Document, DocumentMeta, Region
from citeproof.errors import DocumentError, EncodingError

__all__ = ["parse_html"]

_DROP = word_set(
    "script style template noscript head title meta link base iframe object embed svg canvas "
    "audio video source track select option datalist textarea input button map area img "
    "picture"
)
_OTHER_TAGS = word_set("nav header footer aside")
_OTHER_ROLES = word_set("navigation banner contentinfo complementary search")
_BLOCKS = word_set(
    "p div section article main blockquote pre figure ul ol dl table thead tbody tfoot tr "
    "address details summary fieldset legend form center hgroup menu dialog body html hr "
    "li dt dd td th caption figcaption nav header footer aside h1 h2 h3 h4 h5 h6 noframes"
)
# Single-block containers: name -> (kind, region or None to inherit).
_SINGLE: dict[str, tuple[str, Region | None]] = {
    "li": ("list-item", None),
    "dt": ("term", None),
    "dd": ("definition", None),
    "td": ("cell", "table"),
    "th": ("cell", "table"),
    "caption": ("caption", "caption"),
    "figcaption": ("caption", "caption"),
}
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_REFERENCE_HEADING = re.compile(
    r"(?:notes,? )?(?:and )?(?:references?|bibliography|notes|footnotes|endnotes|works cited|"
    r"literature cited|cited literature|citations|sources|further reading)"
    r"(?: and (?:notes|footnotes|sources))?",
    re.IGNORECASE,
)
_OTHER_HEADING = re.compile(r"see also|external links|related links", re.IGNORECASE)
_REFERENCE_CLASSES = word_set("references reflist refbegin bibliography")
_REFERENCE_ROLES = word_set("doc-bibliography doc-endnotes doc-footnotes")
_CITE_HREF = re.compile(
    r"#(?:cite|ref|bib|fn|footnote|endnote|note)[\w:.-]*$|#(?:CR|B|R|r|b|c|ref)\d+$"
)
_SUP_CITE = re.compile(r"[\[(]?\d+[a-z]?(?:\s*[,\u2013\u2014-]\s*\d+[a-z]?)*[\])]?|\[[^\]]{1,40}\]")
_META_CHARSET = re.compile(rb"<meta[^>]+?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE)
_MAX_DEPTH = 200

Handler = Callable[[etree._Element, Context, int], None]


def parse_html(data: bytes) -> Document:
    """Parse an HTML page (or fragment) into the visible text, in blocks."""
    text = _decode(data)
    if not text.strip():
        return Document(text="", blocks=[], format="html")
    parser = etree.HTMLParser(
        encoding="utf-8", remove_comments=True, remove_pis=True, no_network=True
    )
    root = etree.fromstring(text.encode("utf-8"), parser)
    fatal = [e for e in parser.error_log if e.level == etree.ErrorLevels.FATAL]
    if fatal:  # libxml2 drops the whole tree past its limits; say so rather than return ""
        raise DocumentError(
            f"The HTML could not be read completely ({fatal[0].message}, line {fatal[0].line}); "
            "citeproof reads pages nested less than 256 elements deep with text runs under "
            "10 MB, so simplify the page or save its text."
        )
    if root is None:  # only comments or whitespace after all
        return Document(text="", blocks=[], format="html")
    return _Walker(root).run()


def _decode(data: bytes) -> str:
    codec, _ = split_bom(data)
    if codec is not None:
        return decode_unicode_text(data, what="HTML")
    m = _META_CHARSET.search(data[:8192])
    name = m.group(1).decode("ascii").lower() if m else "utf-8"
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        codec = "utf-8"  # an unknown label: the WHATWG fallback for documents is UTF-8
    if codec in ("latin-1", "iso8859-1", "ascii"):
        codec = "cp1252"  # what browsers do with these labels
    if codec.startswith("utf-16") or codec.startswith("utf-32"):
        codec = "utf-8"  # a meta tag cannot declare UTF-16: the bytes would not be ASCII
    if codec == "utf-8":
        return decode_unicode_text(data, what="HTML")
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        raise EncodingError(
            f"The HTML declares the encoding {name} but the byte at offset {exc.start} is not "
            f"valid in it; convert the page to UTF-8 and try again."
        ) from None


def _is_licence(el: etree._Element) -> bool:
    return "license" in el.get("rel", "").lower().split() and bool(el.get("href"))


def _hidden(el: etree._Element) -> bool:
    if el.get("hidden") is not None or el.get("aria-hidden", "").strip().lower() == "true":
        return True
    style = el.get("style")
    if style and _HIDDEN_STYLE.search(style):
        return True
    return "mw-editsection" in el.get("class", "")


class _Walker:
    def __init__(self, root: etree._Element) -> None:
        self.root = root
        self.main = next(
            (e for e in root.iter() if e.tag == "main" or e.get("role") == "main"), None
        )
        self.title_h1 = self._find_title()
        self.stack: list[tuple[int, str]] = []
        self.rows = 0
        self.b = DocBuilder(Context("paragraph", "body"), resolve=self._resolve)

    def run(self) -> Document:
        start: Region = "other" if self.main is not None else "body"
        body = self.root.find("body")
        self._block(body if body is not None else self.root, Context("paragraph", start), 0)
        title_el = self.root.find(".//title")
        title = collapse("".join(title_el.itertext())) if title_el is not None else ""
        licences = [e.get("href", "") for e in self.root.iter("link", "a") if _is_licence(e)]
        return Document(
            text=self.b.text(),
            blocks=self.b.blocks,
            format="html",
            meta=DocumentMeta(title=title or None, licence=licence_name(licences)),
            markers=tuple(self.b.markers),
        )

    def _find_title(self) -> etree._Element | None:
        scopes = [self.root] if self.main is None else [self.main, self.root]
        for scope in scopes:
            for h1 in scope.iter("h1"):
                chain = [h1, *h1.iterancestors()]
                if not any(a.tag in ("nav", "aside", "footer") or _hidden(a) for a in chain):
                    return h1
        return None

    def _resolve(self, ctx: Context) -> Context:
        """Section path and heading-driven region, applied when a block is closed."""
        if ctx.region in ("other", "title"):
            return ctx
        section = tuple(text for _, text in self.stack)
        region = ctx.region
        for _, text in reversed(self.stack):
            if _REFERENCE_HEADING.fullmatch(text):
                region = "references" if region == "body" else region
                break
            if _OTHER_HEADING.fullmatch(text):
                region = "other" if region == "body" else region
                break
        kind = "reference" if region == "references" and ctx.kind == "list-item" else ctx.kind
        return Context(kind, region, section, ctx.single, row=ctx.row)

    # --- the walk -----------------------------------------------------------------------

    def visit(self, el: etree._Element, ctx: Context, depth: int) -> None:
        tag = el.tag
        if not isinstance(tag, str) or tag in _DROP or _hidden(el):
            return
        if depth > _MAX_DEPTH:
            self.b.add(" ".join(el.itertext()))
            return
        tag = tag.lower()
        region = self._region(el, tag, ctx.region)
        if region != ctx.region:
            ctx = Context(ctx.kind, region, ctx.section, ctx.single, row=ctx.row)
        if tag in _HEADINGS:
            self._heading(el, tag, ctx, depth)
        elif tag == "br":
            self.b.soft_break()
        elif tag == "hr":
            self.b.begin(self.b.ctx)
        elif tag == "pre":
            self._pre(el, ctx, depth)
        elif tag in _SINGLE:
            kind, reg = _SINGLE[tag]
            if reg is None or ctx.region in ("other", "references"):
                reg = ctx.region
            self._block(el, Context(kind, reg, single=True, row=ctx.row), depth)
        elif tag in _BLOCKS:
            if ctx.single:
                self.b.soft_break()
                self.children(el, ctx, depth)
                self.b.soft_break()
            else:
                kind = "quote" if tag == "blockquote" else "paragraph"
                table = tag in ("table", "thead", "tbody", "tfoot", "tr")
                reg = "table" if table and ctx.region not in ("other", "references") else None
                row = ctx.row
                if tag == "tr":
                    self.rows += 1
                    row = self.rows
                self._block(el, Context(kind, reg or ctx.region, row=row), depth)
        elif tag in ("sup", "a") and self._is_marker(el, tag):
            self.b.open_marker()
            self.children(el, ctx, depth)
            self.b.close_marker()
        else:
            self.children(el, ctx, depth)

    def children(self, el: etree._Element, ctx: Context, depth: int) -> None:
        b = self.b
        b.add(el.text)
        for child in el:
            self.visit(child, ctx, depth + 1)
            b.add(child.tail)

    def _block(self, el: etree._Element, ctx: Context, depth: int) -> None:
        old = self.b.begin(ctx)
        self.children(el, ctx, depth)
        self.b.begin(old)

    def _region(self, el: etree._Element, tag: str, region: Region) -> Region:
        if el is self.main:
            return "body"
        role = el.get("role", "")
        if region == "other" or tag in _OTHER_TAGS or role in _OTHER_ROLES:
            return "other"
        classes = el.get("class", "").split()
        if el.get("id") == "toc" or "toc" in classes:  # a table of contents is navigation
            return "other"
        if role in _REFERENCE_ROLES or any(c in _REFERENCE_CLASSES for c in classes):
            return "references"
        return region

    def _heading(self, el: etree._Element, tag: str, ctx: Context, depth: int) -> None:
        if el is self.title_h1:
            self._block(el, Context("title", "title"), depth)
            return
        if ctx.region == "other":  # a heading of the page's chrome, not of the article
            self._block(el, Context("heading", "other"), depth)
            return
        old = self.b.begin(Context("heading", ctx.region))
        level = _HEADINGS[tag]
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        text = collapse(self._visible_text(el)).strip()
        if text:
            self.stack.append((level, text))
        self.children(el, ctx, depth)
        self.b.begin(old)

    def _visible_text(self, el: etree._Element) -> str:
        parts: list[str] = [el.text or ""]
        for child in el:
            if isinstance(child.tag, str) and child.tag not in _DROP and not _hidden(child):
                parts.append(self._visible_text(child))
            parts.append(child.tail or "")
        return "".join(parts)

    def _pre(self, el: etree._Element, ctx: Context, depth: int) -> None:
        old = self.b.begin(Context("preformatted", ctx.region))
        self.b.preserve = True
        try:
            self.children(el, self.b.ctx, depth)
        finally:
            self.b.preserve = False
        self.b.begin(old)

    def _is_marker(self, el: etree._Element, tag: str) -> bool:
        classes = el.get("class", "").split()
        if tag == "a":
            href = el.get("href", "")
            cited = _CITE_HREF.search(href) is not None or "reference" in classes
            cited = cited or el.get("role") in ("doc-noteref", "doc-biblioref")
            return cited and 0 < len(collapse("".join(el.itertext()))) <= 40
        if "reference" in classes:
            return True
        text = collapse("".join(el.itertext()))
        if not _SUP_CITE.fullmatch(text):
            return False
        recent = self.b.recent(4)
        if not recent or recent[-1].isspace() or recent[-1].isdigit():
            return False  # "10<sup>5</sup>" is a power, and a marker follows a word
        word = re.search(r"[A-Za-z]+$", recent)
        return not (text in ("2", "3") and word is not None and len(word.group()) <= 2)
