"""Checking the evidence log: the full verification, inclusion proofs and their checking.

Why separate from the writer: verification must work on a log someone else handed over
(with only its public key and maybe a checkpoint), must never modify anything, and must
stream: a million entries are checked in one pass with O(log n) memory (a compact range
for the Merkle root, the previous hash for the chain).

What :func:`verify_log` establishes, in order:

1. every line is a whole, canonical entry whose ``hash`` matches its content, with ``seq``
   counting up from 1 and ``prev`` naming the previous entry's hash; the FIRST line that
   is not is reported with the expected and the actual value, and checking stops there;
2. the signed head verifies with the log key, the first ``head.size`` entries have exactly
   the signed Merkle root (so an edit with the whole chain recomputed, a deletion, a swap
   or a truncation is detected), and no entries follow that nobody signed;
3. with a checkpoint: its signature verifies, and the first ``checkpoint.size`` entries of
   the current log have exactly its root (the current log extends the checkpoint).

An append killed after recording its intent (``<log>.intent``, see
:mod:`citeproof.evidence.lines`) is judged as the next appender will settle it: entries
that are exactly what a valid intent of the head signs are covered by that signature (a
note, not a problem); a partial write it explains is an ``interrupted`` problem that the
next append rolls back by itself; an intent whose append wrote nothing is a note.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from citeproof.evidence.checkpoint import Checkpoint, CheckpointError, verify_checkpoint
from citeproof.evidence.lines import (
    ZERO_HASH,
    Head,
    Intent,
    IntentOutcome,
    LineProblemError,
    LogEntry,
    LogError,
    LogTamperedError,
    check_line,
    head_path_for,
    intent_outcome,
    intent_path_for,
    iter_raw_lines,
    parse_line,
    read_head,
    read_intent,
)
from citeproof.evidence.merkle import (
    EMPTY_ROOT,
    CompactRange,
    inclusion_ranges,
    leaf_hash,
    range_hashes,
    verify_inclusion,
)
from citeproof.models.evidence import (
    PROOF_FORMAT,
    ProofBundle,
    ProofReport,
    VerifyProblem,
    VerifyReport,
)
from citeproof.store.keys import Verifier, parse_verifier_key

__all__ = [
    "PROOF_FORMAT",
    "ProofBundle",
    "ProofReport",
    "VerifyProblem",
    "VerifyReport",
    "iter_raw_lines",
    "prove",
    "read_entry_line",
    "verify_log",
    "verify_proof",
]


def _no_key(what: str) -> str:
    return (
        f"there is no log key here to check {what} with: the log was signed with a key that "
        "is not in this data directory; restore the key (keys/log-ed25519.pem) from a backup, "
        "or set CITEPROOF_HOME to the data directory that holds it."
    )


def verify_log(
    path: Path, verifier: Verifier | None, checkpoint: str | None = None
) -> VerifyReport:
    """Check the log at ``path`` against its signed head and, if given, a checkpoint.

    ``verifier`` None: there is no log key (verifying never creates one, which could only
    say that nothing verifies).  A log with nothing signed is then checked as it is; a
    signed head or checkpoint that cannot be checked is a problem saying where the key is.

    Each step below is its own small verifier, in the order of the module docstring, and
    adds what it finds; the first bad line (or an interrupted append) is reported first.
    """
    found = _Findings()
    head, head_cp, head_state = _signed_head(path, verifier, found)
    cp = _given_checkpoint(checkpoint, verifier, found)
    scan = _scan(path, head, head_cp, cp, found)
    covered = head.size if head is not None else 0
    base = _settled_base(head, head_cp, head_state, scan)
    if base is not None:  # covered is base.size, unless an intent signs more
        covered = _judge_interrupted(path, base, verifier, found)
    if found.first_bad is not None:
        found.problems.insert(0, found.first_bad)
    if head is not None and head_cp is not None:
        _check_signed(head, head_cp, scan, covered, found)
    elif head_state == "missing" and scan.count and covered < scan.count:
        _check_unsigned(path, cp, scan, found)
    if cp is not None:
        _check_checkpoint(cp, scan, found)
    return VerifyReport(
        ok=not found.problems,
        path=str(path),
        entries=scan.count,
        root=scan.acc.root().hex(),
        head=head_state,
        signed_size=head.size if head is not None else None,
        checkpoint_size=cp.size if cp is not None else None,
        problems=found.problems,
        notes=found.notes,
    )


@dataclass(slots=True)
class _Findings:
    """What the verifiers found: problems and notes in the order found, and the first bad
    line (reported before every other problem)."""

    problems: list[VerifyProblem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    first_bad: VerifyProblem | None = None
    rolled_back: bool = False
    """An interrupted append's partial write, which the next append moves aside."""


@dataclass(frozen=True, slots=True)
class _Scanned:
    """One pass over the lines: the Merkle range, how many intact entries, and the root (and
    the last hash and end offset) at the signed head's size and at the checkpoint's."""

    acc: CompactRange
    count: int
    at_head: tuple[bytes, str] | None
    head_end: int | None
    at_cp: bytes | None


_HeadState = Literal["ok", "missing", "invalid"]


def _signed_head(
    path: Path, verifier: Verifier | None, found: _Findings
) -> tuple[Head | None, Checkpoint | None, _HeadState]:
    """The head, the checkpoint it signs, and whether it is there and verifies."""
    try:
        head = read_head(head_path_for(path))
        if head is None:
            return None, None, "missing"
        if verifier is None:
            raise LogError(_no_key(f"its signed head ({head_path_for(path).name})"))
        return head, head.verify(verifier), "ok"
    except LogError as exc:
        found.problems.append(VerifyProblem(code="head-invalid", message=str(exc)))
        return None, None, "invalid"


def _given_checkpoint(
    checkpoint: str | None, verifier: Verifier | None, found: _Findings
) -> Checkpoint | None:
    """The checkpoint given, once its signature verifies."""
    if checkpoint is None:
        return None
    try:
        if verifier is None:
            raise CheckpointError(_no_key("the checkpoint"))
        return verify_checkpoint(checkpoint, verifier)
    except CheckpointError as exc:
        found.problems.append(VerifyProblem(code="checkpoint-invalid", message=str(exc)))
        return None


def _scan(
    path: Path,
    head: Head | None,
    head_cp: Checkpoint | None,
    cp: Checkpoint | None,
    found: _Findings,
) -> _Scanned:
    """The fast scan of a sound log, else the full one, which finds the first bad line."""
    fast = _fast_scan(path, head, head_cp, cp)
    if fast is not None:
        return _Scanned(*fast)
    acc, count, at_head, head_end, at_cp, found.first_bad = _full_scan(path, head, cp)
    return _Scanned(acc, count, at_head, head_end, at_cp)


def _settled_base(
    head: Head | None, head_cp: Checkpoint | None, head_state: _HeadState, scan: _Scanned
) -> Head | None:
    """The state an interrupted append would extend: the signed head when the log matches
    it up to its end, the empty log when there is no head; None when neither holds."""
    if head is not None and head_cp is not None:
        at_head = scan.at_head
        if at_head is not None and at_head[0] == head_cp.root and scan.head_end == head.end:
            return head
        return None
    return Head(0, 0, ZERO_HASH, (), "") if head_state == "missing" else None


def _judge_interrupted(path: Path, base: Head, verifier: Verifier | None, found: _Findings) -> int:
    """An interrupted append after ``base``, judged as the next appender will settle it; how
    many entries a signature covers (``base``'s, or a valid intent's that signs more)."""
    outcome, intent = _judge_intent(path, base, verifier)
    intent_name = intent_path_for(path).name
    if intent is not None and outcome == "finish":
        found.notes.append(
            f"entries {base.size + 1} to {intent.head.size} were written by an append that was "
            f"interrupted before it replaced the head; its intent ({intent_name}), signed "
            "with the log key, covers them, and the next append commits it."
        )
        return intent.head.size
    if outcome == "roll-back":
        found.rolled_back = True
        found.first_bad = VerifyProblem(
            code="interrupted",
            message=f"an append was interrupted while writing: the bytes after entry "
            f"{base.size} are its partial write, which its intent ({intent_name}) "
            "explains; the next append moves them aside by itself, no repair is needed.",
            seq=base.size + 1,
        )
    elif outcome == "nothing":
        found.notes.append(
            f"an append was interrupted before it wrote anything; the next append drops "
            f"its intent ({intent_name})."
        )
    elif outcome == "foreign":
        found.notes.append(
            f"an append intent ({intent_name}) is present but does not explain the data "
            "after the signed entries."
        )
    return base.size


def _check_signed(
    head: Head, head_cp: Checkpoint, scan: _Scanned, covered: int, found: _Findings
) -> None:
    """The signed head: its entries intact with its Merkle root, and nothing after them
    that no signature covers."""
    if scan.at_head is None:
        found.problems.append(
            VerifyProblem(
                code="truncated",
                message=f"the signed head covers {head.size} entries but only the first "
                f"{scan.count} are intact: entries were removed or damaged.",
                expected=str(head.size),
                actual=str(scan.count),
            )
        )
    elif scan.at_head[0] != head_cp.root:
        found.problems.append(
            VerifyProblem(
                code="rewritten",
                message=f"the first {head.size} entries do not have the signed Merkle "
                "root: an entry was rewritten and the hash chain recomputed after it "
                f"(the last signed entry's hash was {head.last}, it is now {scan.at_head[1]}).",
                seq=head.size,
                expected=head_cp.root.hex(),
                actual=scan.at_head[0].hex(),
            )
        )
    if scan.count > covered and found.first_bad is None:
        found.problems.append(
            VerifyProblem(
                code="unsigned",
                message=f"entries {covered + 1} to {scan.count} are not covered by the "
                "signed head: they were appended without the log key, or an append was "
                "interrupted; inspect them with `citeproof log show`, then run "
                "`citeproof log repair`.",
                seq=covered + 1,
                expected=str(covered),
                actual=str(scan.count),
            )
        )


def _check_unsigned(path: Path, cp: Checkpoint | None, scan: _Scanned, found: _Findings) -> None:
    """A log with entries and no signed head: covered only by a checkpoint of all of it."""
    if found.rolled_back:
        return  # the partial write is the problem; the next append settles it
    if cp is not None and cp.size == scan.count and scan.at_cp == cp.root:
        found.notes.append("the log has no signed head; the checkpoint given covers all of it.")
        return
    found.problems.append(
        VerifyProblem(
            code="head-missing",
            message=f"the log has no signed head ({head_path_for(path).name}), so "
            f"none of its {scan.count} entries is covered by a signature. If the log "
            "was copied, copy its .head file too, or verify it with --checkpoint; "
            "`citeproof log repair` signs it as it is.",
        )
    )


def _check_checkpoint(cp: Checkpoint, scan: _Scanned, found: _Findings) -> None:
    """The checkpoint given: the log's first ``cp.size`` entries have exactly its root."""
    if scan.at_cp is None:
        found.problems.append(
            VerifyProblem(
                code="checkpoint-truncated",
                message=f"the checkpoint covers {cp.size} entries but the log has only "
                f"{scan.count} intact ones: entries were removed since the checkpoint.",
                expected=str(cp.size),
                actual=str(scan.count),
            )
        )
    elif scan.at_cp != cp.root:
        found.problems.append(
            VerifyProblem(
                code="checkpoint-mismatch",
                message=f"the log's first {cp.size} entries do not have the checkpoint's "
                "root: the log was rewritten, reordered or had entries removed since.",
                expected=cp.root.hex(),
                actual=scan.at_cp.hex(),
            )
        )


_Scan = tuple[CompactRange, int, "tuple[bytes, str] | None", "int | None", "bytes | None"]


def _fast_scan(
    path: Path, head: Head | None, head_cp: Checkpoint | None, cp: Checkpoint | None
) -> _Scan | None:
    """The scan of a sound log, from one parse per line; None at the first doubt.

    Every line is parsed once and checked with :func:`check_line` (fields, hash from the
    raw bytes, chain).  Two shortcuts rest on signatures, and both are re-checked: the
    first ``cp.size`` lines of a verified checkpoint are only hashed into the Merkle tree
    (its signed root then vouches for their bytes, and so for their chain), and lines a
    verified head covers skip the canonical-form re-encoding (its root vouches for them).
    The signer only ever signs lines it built or checked, so a log whose roots match has
    no problem there; whenever a root does not match, or any line or link is wrong, this
    gives up and :func:`_full_scan` re-checks everything to report the first problem
    exactly as it always did.
    """
    acc = CompactRange()
    append_hash = acc.append_hash
    sha256 = hashlib.sha256
    prev, count, offset = ZERO_HASH, 0, 0
    head_size = head.size if head is not None and head_cp is not None else -1
    signed = head_size if head_size > 0 else 0
    trusted = cp.size if cp is not None else 0
    at_head: tuple[bytes, str] | None = (EMPTY_ROOT, ZERO_HASH) if head and not head.size else None
    head_end = 0 if head is not None and not head.size else None
    at_cp: bytes | None = EMPTY_ROOT if cp and not cp.size else None
    for raw in iter_raw_lines(path):
        if count < trusted:
            if raw[-1:] != b"\n":
                return None
            digest = raw[9:80].decode("ascii", "replace")
        else:
            try:
                seq, link, digest = check_line(raw, canonical=count >= signed)
            except LineProblemError:
                return None
            if seq != count + 1 or link != prev:
                return None
        append_hash(sha256(b"\x00" + raw[:-1]).digest())
        count += 1
        offset += len(raw)
        prev = digest
        if count == head_size:
            at_head, head_end = (acc.root(), digest), offset
            if head_cp is None or head is None or at_head[0] != head_cp.root or offset != head.end:
                return None
        if count == trusted and cp is not None:
            at_cp = acc.root()
            if at_cp != cp.root:
                return None
    if count < max(head_size, trusted):
        return None  # truncated: the full scan says where
    return acc, count, at_head, head_end, at_cp


def _full_scan(
    path: Path, head: Head | None, cp: Checkpoint | None
) -> tuple[
    CompactRange,
    int,
    tuple[bytes, str] | None,
    int | None,
    bytes | None,
    VerifyProblem | None,
]:
    """Every line checked with :func:`parse_line`, stopping at the first problem."""
    acc = CompactRange()
    prev, count, offset = ZERO_HASH, 0, 0
    at_head: tuple[bytes, str] | None = (EMPTY_ROOT, ZERO_HASH) if head and not head.size else None
    head_end = 0 if head is not None and not head.size else None
    at_cp: bytes | None = EMPTY_ROOT if cp and not cp.size else None
    first_bad: VerifyProblem | None = None
    for lineno, raw in enumerate(iter_raw_lines(path), 1):
        try:
            entry = parse_line(raw)
        except LineProblemError as p:
            first_bad = VerifyProblem(
                code=p.code,
                message=f"line {lineno} (entry {p.seq or count + 1}): {p.message}.",
                seq=p.seq or count + 1,
                line=lineno,
                expected=p.expected,
                actual=p.actual,
            )
            break
        if entry.seq != count + 1 or entry.prev != prev:
            wrong_seq = entry.seq != count + 1
            first_bad = VerifyProblem(
                code="seq-gap" if wrong_seq else "chain-broken",
                message=(
                    f"line {lineno}: expected entry {count + 1}, found entry {entry.seq} "
                    "(an entry was deleted, inserted or moved)."
                    if wrong_seq
                    else f"line {lineno} (entry {entry.seq}): its prev hash does not name "
                    "the entry before it (an entry was replaced, deleted or moved)."
                ),
                seq=entry.seq,
                line=lineno,
                expected=str(count + 1) if wrong_seq else prev,
                actual=str(entry.seq) if wrong_seq else entry.prev,
            )
            break
        acc.append(raw[:-1])
        count += 1
        offset += len(raw)
        prev = entry.hash
        if head is not None and count == head.size:
            at_head, head_end = (acc.root(), entry.hash), offset
        if cp is not None and count == cp.size:
            at_cp = acc.root()
    return acc, count, at_head, head_end, at_cp, first_bad


def _judge_intent(
    path: Path, base: Head, verifier: Verifier | None
) -> tuple[IntentOutcome | None, Intent | None]:
    """What the next appender will do with the intent next to ``path`` (None: there is no
    intent); an intent that cannot be read, or is not signed with the log key, explains
    nothing (``foreign``, or ``nothing`` when no byte follows ``base``)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        size = 0
    try:
        intent = read_intent(intent_path_for(path))
    except LogError:
        return ("nothing" if size <= base.end else "foreign"), None
    if intent is None:
        return None, None
    if size - base.end > intent.head.end - base.end:
        return "foreign", intent
    tail = b""
    if size > base.end:
        with path.open("rb") as f:
            f.seek(base.end)
            tail = f.read(size - base.end)
    outcome = intent_outcome(base, intent, tail)
    if outcome in ("finish", "roll-back"):
        if verifier is None:
            return "foreign", intent  # nothing here can say it was signed with the log key
        try:
            intent.head.verify(verifier)
        except LogTamperedError:
            return "foreign", intent
    return outcome, intent


# --------------------------------------------------------------------------- proofs


def read_entry_line(path: Path, seq: int) -> bytes | None:
    """The raw line of entry ``seq`` (line number ``seq``), or None."""
    for lineno, raw in enumerate(iter_raw_lines(path), 1):
        if lineno == seq:
            return raw
    return None


def _leaf_hashes(path: Path, limit: int) -> Iterator[bytes]:
    for i, raw in enumerate(iter_raw_lines(path)):
        if i >= limit:
            return
        yield leaf_hash(raw[:-1] if raw.endswith(b"\n") else raw)


def prove(path: Path, head: Head, verifier: Verifier, seq: int) -> ProofBundle:
    """An inclusion proof of entry ``seq`` in the tree of the signed head.

    The proof is checked before it is returned: a log that does not match its head raises
    :class:`LogTamperedError` instead of handing out a proof that would fail later.
    """
    cp = head.verify(verifier)
    if not 1 <= seq <= head.size:
        raise LogError(
            f"entry {seq} is not in the signed log, which holds entries 1 to {head.size}; "
            "`citeproof log show` lists them."
        )
    raw = read_entry_line(path, seq)
    if raw is None:
        raise LogTamperedError(f"entry {seq} is missing from the log: run `citeproof log verify`.")
    try:
        entry = parse_line(raw)
    except LineProblemError as p:
        raise LogTamperedError(f"entry {seq} is damaged ({p.message}).") from None
    ranges = inclusion_ranges(seq - 1, head.size)
    try:
        audit = range_hashes(ranges, _leaf_hashes(path, head.size))
    except ValueError as exc:
        raise LogTamperedError(f"the log is shorter than its signed head ({exc}).") from exc
    if entry.seq != seq or not verify_inclusion(
        leaf_hash(raw[:-1]), seq - 1, head.size, audit, cp.root
    ):
        raise LogTamperedError(
            "the log does not match its signed head, so no proof can be given: run "
            "`citeproof log verify`."
        )
    return ProofBundle(
        entry=raw[:-1].decode("utf-8"),
        leaf_index=seq - 1,
        tree_size=head.size,
        audit_path=[base64.b64encode(h).decode("ascii") for h in audit],
        checkpoint=head.checkpoint,
    )


def _fail(reason: str, **kw: Any) -> ProofReport:
    return ProofReport(ok=False, reason=reason, **kw)


def verify_proof(
    bundle: ProofBundle | Mapping[str, Any] | str, public_key: Verifier | str
) -> ProofReport:
    """Check an inclusion-proof bundle with nothing but the log's public key.

    Holds when the checkpoint is signed by the key, the entry line is a valid entry whose
    position is its leaf index, and the audit path leads from the entry to the signed root.
    A malformed public key raises :class:`KeyFileError`; everything else is a report.
    """
    verifier = public_key if isinstance(public_key, Verifier) else parse_verifier_key(public_key)
    try:
        if isinstance(bundle, str):
            bundle = json.loads(bundle)
        proof = bundle if isinstance(bundle, ProofBundle) else ProofBundle.model_validate(bundle)
    except (ValueError, ValidationError) as exc:
        return _fail(f"the proof bundle is malformed ({str(exc).splitlines()[0]}).")
    try:
        cp = verify_checkpoint(proof.checkpoint, verifier)
    except CheckpointError as exc:
        return _fail(str(exc), tree_size=proof.tree_size)
    try:
        entry: LogEntry = parse_line(proof.entry.encode("utf-8") + b"\n")
    except LineProblemError as p:
        return _fail(f"the entry in the bundle is not a valid log entry: {p.message}.")
    info: dict[str, Any] = {
        "seq": entry.seq,
        "kind": entry.kind,
        "hash": entry.hash,
        "tree_size": cp.size,
        "origin": cp.origin,
    }
    if proof.tree_size != cp.size:
        return _fail(
            f"the bundle claims a tree of {proof.tree_size} entries but its checkpoint "
            f"signs {cp.size}.",
            **info,
        )
    if entry.seq != proof.leaf_index + 1:
        return _fail(
            f"the entry is number {entry.seq} but the proof is for position "
            f"{proof.leaf_index + 1}.",
            **info,
        )
    try:
        audit = [base64.b64decode(h, validate=True) for h in proof.audit_path]
    except (binascii.Error, ValueError):
        return _fail("the audit path is not base64.", **info)
    if any(len(h) != 32 for h in audit) or not verify_inclusion(
        leaf_hash(proof.entry.encode("utf-8")), proof.leaf_index, cp.size, audit, cp.root
    ):
        return _fail(
            "the audit path does not lead from the entry to the signed root: the entry or "
            "the proof was altered.",
            **info,
        )
    return ProofReport(
        ok=True,
        reason=f"entry {entry.seq} is in the log {cp.origin} of {cp.size} entries, "
        "signed by its key.",
        **info,
    )
