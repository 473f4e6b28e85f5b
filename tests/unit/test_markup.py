"""Markup in short fields (``citeproof.documents.markup``): a record's title reads the same
from an API answer and from a dump, and a reference copied with its tags meets it.  Every
title here is INVENTED."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from citeproof.documents.markup import plain_text, typeset_free
from citeproof.index import records
from citeproof.sources.crossref import record_from_message

_ANY_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")


def _slow(value: str) -> str | None:
    """What the function promises, written the slow way: every tag a space, entities
    decoded, every run of whitespace one space."""
    return " ".join(html.unescape(_ANY_TAG.sub(" ", value)).split()) or None


_PIECES = [*"ab <>/i&;#x1 \t\n\r\x0b\x0c\x1c\x85\u00a0\u2003é", "<sub>", "&amp;", "<i>"]


@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_the_quick_paths_give_what_the_slow_one_does(value: str) -> None:
    assert plain_text(value) == _slow(value)


def test_a_title_s_markup_entities_and_spaces_are_gone() -> None:
    assert plain_text("Ni<sub>3</sub>Ge &amp; <i>KRAS</i>\u00a0 in invented soils") == (
        "Ni 3 Ge & KRAS in invented soils"
    )
    assert plain_text(1999) == "1999"
    assert (
        plain_text(True) is None and plain_text(None) is None and plain_text(" <i> </i> ") is None
    )


def test_a_dump_and_an_api_answer_read_a_title_alike() -> None:
    """A non-breaking space inside a title: the index's own copy of the rule left it, the
    sources' collapsed it, and the same record read two ways differed (online vs through
    ``--index``)."""
    message = {
        "DOI": "10.5555/invented.markup.1",
        "title": ["Invented\u00a0compost and earthworms"],
        "type": "journal-article",
    }
    parsed = records.crossref_item(message)
    assert parsed is not None
    _ids, fields = records.decode_blob(records.encode_blob(parsed))
    online = record_from_message(message)
    assert fields["title"] == online.title == "Invented compost and earthworms"


def test_a_reference_keeps_its_links_and_its_ampersands() -> None:
    text = 'Ng, A. <i>R&D</i> &amp; notes. <a href="https://doi.org/10.5555/x">link</a>'
    free = typeset_free(text)
    assert "<i>" not in free and "&amp;" not in free
    assert "R&D" in free and '<a href="https://doi.org/10.5555/x">' in free
