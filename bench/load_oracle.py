"""The loading code that issue 16 replaced, kept as the comparison: ``bench_load.py`` times
the new code against it, and ``tests/unit/test_load_fast.py`` checks that both give the same
blocks and the same counts (the old code is the oracle)."""

from __future__ import annotations

import re

from citeproof.documents.model import Block

_OLD_LINE = re.compile(r"([^\r\n]*)(?:\r\n|\r|\n|$)")
_OLD_CONTROL = frozenset(range(32)) - {9, 10, 12, 13, 27}
"""The control bytes that mark binary data, as the old sniff listed them."""


def old_paragraph_blocks(text: str) -> list[Block]:
    """The per-line loop ``paragraph_blocks`` replaced."""
    blocks: list[Block] = []
    start = -1
    end = -1
    for m in _OLD_LINE.finditer(text):
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


def old_control_bytes(head: bytes) -> int:
    """The per-byte loop the ``bytes.translate`` count replaced."""
    return sum(b in _OLD_CONTROL for b in head)
