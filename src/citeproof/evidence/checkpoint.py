"""Signed checkpoints: the log's size and Merkle root, in the transparency-log text format.

Why this format: a checkpoint is what a user keeps (in an e-mail, a paper's supplement, a
ticket) to prove later that the log was not rewritten.  The transparency-dev / C2SP
checkpoint is plain text any tool can read and any signed-note verifier can check::

    <origin>
    <decimal size>
    <base64 root>

    — <key name> <base64(4-byte key hash || Ed25519 signature)>

The signature covers the body (the three lines, each ending in a newline) and nothing else;
the key hash is the first 4 bytes of SHA-256(name || "\\n" || 0x01 || public key), as in
Go's ``golang.org/x/mod/sumdb/note``.

Parsing is strict (exact shape, decimal size without leading zeros, 32-byte root), and
verification fails with a message saying why: no signature by the expected key, a signature
that does not verify (forged or altered text), or a different origin.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from citeproof.errors import CheckpointError
from citeproof.store.keys import LogKey, Verifier

__all__ = [
    "Checkpoint",
    "CheckpointError",
    "NoteSignature",
    "ParsedCheckpoint",
    "parse_checkpoint",
    "sign_checkpoint",
    "verify_checkpoint",
]

SIG_PREFIX = "\u2014 "
MAX_SIGNATURES = 100
MAX_NOTE_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """What a checkpoint commits to."""

    origin: str
    size: int
    root: bytes

    def body(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode('ascii')}\n"


@dataclass(frozen=True, slots=True)
class NoteSignature:
    """One signature line: the key name, the 4-byte key hash and the signature bytes."""

    name: str
    key_hash: bytes
    signature: bytes


@dataclass(frozen=True, slots=True)
class ParsedCheckpoint:
    """A checkpoint as read, signatures not yet checked."""

    checkpoint: Checkpoint
    body: str
    signatures: tuple[NoteSignature, ...]


def sign_checkpoint(checkpoint: Checkpoint, key: LogKey) -> str:
    """The signed checkpoint text (ending in a newline)."""
    if checkpoint.origin != checkpoint.origin.strip() or not checkpoint.origin:
        raise ValueError("a checkpoint origin must be non-empty without surrounding spaces")
    body = checkpoint.body()
    sig = key.sign(body.encode("utf-8"))
    blob = base64.b64encode(key.verifier.hash + sig).decode("ascii")
    return f"{body}\n{SIG_PREFIX}{key.name} {blob}\n"


def _bad(why: str) -> CheckpointError:
    return CheckpointError(f"the checkpoint is malformed: {why}.")


def parse_checkpoint(text: str) -> ParsedCheckpoint:
    """Split a checkpoint into its body and signature lines; check the body's shape."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_NOTE_BYTES:
        raise _bad("it is larger than 1 MiB")
    if any(ord(ch) < 0x20 and ch != "\n" for ch in text):
        raise _bad("it holds control characters (only newlines are allowed)")
    if not text.endswith("\n"):
        raise _bad("it does not end with a newline")
    cut = text.rfind("\n\n")
    if cut < 0:
        raise _bad("there is no blank line before the signatures")
    body, sig_text = text[: cut + 1], text[cut + 2 :]
    lines = body.split("\n")[:-1]
    if len(lines) < 3 or any(not line for line in lines):
        raise _bad("the body must have an origin, a size and a root hash, one per line")
    origin, size_text, root_text = lines[:3]
    if (
        not size_text.isascii()
        or not size_text.isdigit()
        or (size_text != "0" and size_text.startswith("0"))
    ):
        raise _bad(f"the size {size_text!r} is not a decimal number")
    try:
        root = base64.b64decode(root_text, validate=True)
    except binascii.Error as exc:
        raise _bad(f"the root hash is not base64 ({exc})") from exc
    if len(root) != 32:
        raise _bad(f"the root hash is {len(root)} bytes, not 32")
    sig_lines = sig_text.split("\n")[:-1]
    if not sig_lines:
        raise _bad("it has no signature lines")
    if len(sig_lines) > MAX_SIGNATURES:
        raise _bad(f"it has more than {MAX_SIGNATURES} signatures")
    sigs: list[NoteSignature] = []
    for line in sig_lines:
        if not line.startswith(SIG_PREFIX):
            raise _bad(f"the signature line {line[:40]!r} does not start with an em dash")
        parts = line[len(SIG_PREFIX) :].split(" ")
        if len(parts) != 2 or not parts[0]:
            raise _bad(f"the signature line {line[:40]!r} is not '— NAME SIGNATURE'")
        try:
            blob = base64.b64decode(parts[1], validate=True)
        except binascii.Error as exc:
            raise _bad(f"the signature of {parts[0]} is not base64") from exc
        if len(blob) < 5:
            raise _bad(f"the signature of {parts[0]} is too short")
        sigs.append(NoteSignature(parts[0], blob[:4], blob[4:]))
    return ParsedCheckpoint(Checkpoint(origin, int(size_text), root), body, tuple(sigs))


def verify_checkpoint(text: str, verifier: Verifier, *, origin: str | None = None) -> Checkpoint:
    """The checkpoint in ``text`` if ``verifier``'s key signed it; else :class:`CheckpointError`.

    ``origin`` defaults to the key's name (citeproof logs use the key name as origin).  As
    in Go's ``note.Open``, the first signature line by the expected key decides: a bad
    signature there rejects the checkpoint even if later lines were to verify.
    """
    parsed = parse_checkpoint(text)
    want_origin = verifier.name if origin is None else origin
    if parsed.checkpoint.origin != want_origin:
        raise CheckpointError(
            f"the checkpoint is for the log {parsed.checkpoint.origin!r}, not "
            f"{want_origin!r}: it was issued by another log or key."
        )
    for sig in parsed.signatures:
        if sig.name == verifier.name and sig.key_hash == verifier.hash:
            if verifier.verify(parsed.body.encode("utf-8"), sig.signature):
                return parsed.checkpoint
            raise CheckpointError(
                f"the checkpoint's signature by {verifier.name} does not verify: the "
                "checkpoint was forged or altered after signing."
            )
    raise CheckpointError(
        f"the checkpoint carries no signature by the key {verifier.name} "
        f"({verifier.hash.hex()}); check that you passed the log's public key."
    )
