"""Checkpoints: the transparency-log text format, signed as a signed note; forgery fails."""

from __future__ import annotations

import base64
import hashlib

import pytest

from citeproof.evidence.checkpoint import (
    Checkpoint,
    CheckpointError,
    parse_checkpoint,
    sign_checkpoint,
    verify_checkpoint,
)
from citeproof.store.keys import LogKey

ROOT = hashlib.sha256(b"root").digest()


@pytest.fixture
def key() -> LogKey:
    return LogKey.generate()


def test_format_matches_the_spec(key: LogKey) -> None:
    text = sign_checkpoint(Checkpoint(key.name, 42, ROOT), key)
    lines = text.split("\n")
    assert lines[:4] == [key.name, "42", base64.b64encode(ROOT).decode(), ""]
    assert lines[4].startswith("\u2014 " + key.name + " ") and lines[5] == ""
    blob = base64.b64decode(lines[4].split(" ")[2])
    assert blob[:4] == key.verifier.hash and len(blob) == 68
    # The signature covers the body including its final newline, nothing more.
    body = f"{key.name}\n42\n{base64.b64encode(ROOT).decode()}\n".encode()
    assert key.verifier.verify(body, blob[4:])
    assert verify_checkpoint(text, key.verifier) == Checkpoint(key.name, 42, ROOT)


def test_forged_signature_fails(key: LogKey) -> None:
    text = sign_checkpoint(Checkpoint(key.name, 42, ROOT), key)
    forger = LogKey.generate(key.name)  # same name, different key: the hash differs
    forged = sign_checkpoint(Checkpoint(key.name, 43, ROOT), forger)
    with pytest.raises(CheckpointError, match="no signature by the key"):
        verify_checkpoint(forged, key.verifier)
    # Same key hash, altered body: a bad signature rejects the whole note.
    altered = text.replace("\n42\n", "\n43\n")
    with pytest.raises(CheckpointError, match="forged or altered"):
        verify_checkpoint(altered, key.verifier)
    sig_line = text.split("\n")[4]
    raw = bytearray(base64.b64decode(sig_line.split(" ")[2]))
    raw[10] ^= 1
    flipped = text.replace(sig_line.split(" ")[2], base64.b64encode(bytes(raw)).decode())
    with pytest.raises(CheckpointError, match="forged or altered"):
        verify_checkpoint(flipped, key.verifier)


def test_other_origin_is_refused(key: LogKey) -> None:
    text = sign_checkpoint(Checkpoint("another-log", 1, ROOT), key)
    with pytest.raises(CheckpointError, match="another-log"):
        verify_checkpoint(text, key.verifier)
    assert verify_checkpoint(text, key.verifier, origin="another-log").size == 1


def test_extra_signatures_are_tolerated(key: LogKey) -> None:
    text = sign_checkpoint(Checkpoint(key.name, 7, ROOT), key)
    witness = LogKey.generate("witness")
    extra = "\u2014 witness " + base64.b64encode(witness.verifier.hash + b"s" * 64).decode()
    assert verify_checkpoint(text + extra + "\n", key.verifier).size == 7
    assert len(parse_checkpoint(text + extra + "\n").signatures) == 2


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("origin\n1\n" + base64.b64encode(ROOT).decode() + "\n", "blank line"),
        ("origin\n01\nAAAA\n\n\u2014 a AAAAAAAA\n", "decimal"),
        ("origin\n-1\nAAAA\n\n\u2014 a AAAAAAAA\n", "decimal"),
        ("origin\n1\nnot base64!\n\n\u2014 a AAAAAAAA\n", "base64"),
        ("origin\n1\nAAAA\n\n\u2014 a AAAAAAAA\n", "not 32"),
        ("origin\n1\n" + base64.b64encode(ROOT).decode() + "\n\n- a AAAAAAAA\n", "em dash"),
        ("origin\n1\n" + base64.b64encode(ROOT).decode() + "\n\n", "no signature"),
        ("origin\n1\n" + base64.b64encode(ROOT).decode() + "\n\n\u2014 a AAAAAAAA", "newline"),
        ("origin\x07\n1\nAAAA\n\n\u2014 a AAAAAAAA\n", "control"),
        ("origin\n\n1\nAAAA\n\n\u2014 a AAAAAAAA\n", "origin, a size"),
    ],
)
def test_malformed_checkpoints(text: str, why: str) -> None:
    with pytest.raises(CheckpointError, match=why):
        parse_checkpoint(text)
