"""What the evidence log's commands report: a verification, a proof, a repair.

Not versioned schemas like ``citeproof.check/1``, but published all the same: the MCP tool
``verify_log`` returns :class:`VerifyReport`, and ``citeproof log ... --json`` prints these.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from citeproof.models.base import Model

__all__ = [
    "PROOF_FORMAT",
    "ProofBundle",
    "ProofReport",
    "RepairReport",
    "VerifyProblem",
    "VerifyReport",
]

PROOF_FORMAT: Literal["citeproof-inclusion-proof/v1"] = "citeproof-inclusion-proof/v1"


class VerifyProblem(Model):
    """One thing that does not hold; ``seq``/``line`` locate it, ``expected``/``actual``
    give the values that differ (hashes, roots, sequence numbers)."""

    code: str
    message: str
    seq: int | None = None
    line: int | None = None
    expected: str | None = None
    actual: str | None = None


class VerifyReport(Model):
    """The result of :func:`verify_log`; ``ok`` is true only when nothing is wrong."""

    ok: bool
    path: str
    entries: int
    root: str
    head: Literal["ok", "missing", "invalid"]
    signed_size: int | None
    checkpoint_size: int | None = None
    problems: list[VerifyProblem]
    notes: list[str] = Field(default_factory=list)

    @property
    def first_bad(self) -> VerifyProblem | None:
        return self.problems[0] if self.problems else None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump()


class ProofBundle(Model):
    """An entry, its audit path and a signed checkpoint: checkable without the log."""

    format: Literal["citeproof-inclusion-proof/v1"] = PROOF_FORMAT
    entry: str
    leaf_index: int
    tree_size: int
    audit_path: list[str]
    checkpoint: str

    def to_json(self) -> dict[str, Any]:
        return self.model_dump()


class ProofReport(Model):
    """The result of :func:`verify_proof`."""

    ok: bool
    reason: str
    seq: int | None = None
    kind: str | None = None
    hash: str | None = None
    tree_size: int | None = None
    origin: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump()


class RepairReport(Model):
    """What :meth:`EvidenceLog.repair` did."""

    repaired: bool
    message: str
    moved_bytes: int = 0
    moved_to: str | None = None
    moved_sha256: str | None = None
    adopted: int = 0
    entry_seq: int | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump()
