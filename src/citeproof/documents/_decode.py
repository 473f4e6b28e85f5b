"""Bytes to str, done the same way by every parser.

Plain text, HTML and XML all decode through here (UTF-16/32 XML is re-encoded before its
prolog is scanned), so a file means the same characters whichever parser reads it and an
undecodable byte gets the same error, with its offset, everywhere.  No legacy code page is
ever guessed: a BOM names the encoding, otherwise the bytes must be UTF-8.
"""

from __future__ import annotations

import codecs
import json

from citeproof.errors import DocumentError, EncodingError

__all__ = ["decode_unicode_text", "json_document", "split_bom"]

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def split_bom(data: bytes) -> tuple[str | None, bytes]:
    """Return (codec named by the byte-order mark, bytes after it); (None, data) without one.

    UTF-32 marks are tested before UTF-16 because ``FF FE 00 00`` starts with ``FF FE``.
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, data[len(bom) :]
    return None, data


def decode_unicode_text(data: bytes, *, what: str = "text") -> str:
    """Decode UTF-8 (BOM optional) or UTF-16/32 with a BOM; refuse anything else.

    Guessing a legacy code page would silently change characters, and a quote check against
    mis-decoded text is worse than no check, so invalid bytes are an error with their offset.
    """
    codec, payload = split_bom(data)
    bom_len = len(data) - len(payload)
    try:
        return payload.decode(codec or "utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + bom_len
        raise EncodingError(
            f"The {what} is not valid {(codec or 'utf-8').upper()}: the byte at offset {offset} "
            f"(0x{data[offset]:02x}) cannot be decoded; convert the file to UTF-8 "
            "(for example with `iconv -f latin1 -t utf-8`) and try again."
        ) from None


def json_document(data: bytes, thing: str) -> object:
    """``data`` read as JSON (an API's answer: a study, a label), or a DocumentError that
    says to download the ``thing`` again, since an answer cut short or mangled reads so."""
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise DocumentError(
            f"The JSON is not well-formed ({exc}); download the {thing} again."
        ) from None
