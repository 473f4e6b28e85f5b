"""Plain text: decode strictly, keep every character, mark paragraphs as blocks.

The text is kept exactly as decoded (``\\r\\n`` stays ``\\r\\n``, tabs stay tabs) because
offsets into it are reported to users, who will look them up in the file they gave; the
matcher's normalisation, not the parser, decides which differences do not matter.  Only a
byte-order mark is dropped: it is an encoding signature, not text.  A string passed directly
(``document_from_string``) is used as it is, even if it starts with U+FEFF.
"""

from __future__ import annotations

import re

from citeproof.documents._decode import decode_unicode_text
from citeproof.documents.model import Block, Document

__all__ = ["document_from_string", "paragraph_blocks", "parse_text"]

# A line: its content (group 1) and its line ending, or the end of the text.
_LINE = re.compile(r"([^\r\n]*)(?:\r\n|\r|\n|$)")


def parse_text(data: bytes) -> Document:
    """UTF-8 (BOM optional) or UTF-16/32 with a BOM; anything else raises EncodingError."""
    return document_from_string(decode_unicode_text(data))


def document_from_string(text: str) -> Document:
    """A Document over ``text`` exactly as given; blocks are its paragraphs."""
    return Document(text=text, blocks=paragraph_blocks(text), format="text")


def paragraph_blocks(text: str) -> list[Block]:
    """Paragraphs separated by blank lines (lines holding only whitespace).

    Each block spans its paragraph from the first to the last non-whitespace character, so
    ``text[b.start:b.end]`` never starts or ends with the blank space between paragraphs.
    """
    blocks: list[Block] = []
    start = -1  # start of the current paragraph's first non-blank line
    end = -1
    for m in _LINE.finditer(text):
        line = m.group(1)
        if line and not line.isspace():
            first = m.start(1) + (len(line) - len(line.lstrip()))
            if start < 0:
                start = first
            end = m.start(1) + len(line.rstrip())
        elif start >= 0:
            blocks.append(Block(start, end, "paragraph"))
            start = -1
        if m.end() >= len(text):
            break
    if start >= 0:
        blocks.append(Block(start, end, "paragraph"))
    return blocks
