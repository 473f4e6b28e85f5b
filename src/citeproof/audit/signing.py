"""Sign an audit report with the log's Ed25519 key, and verify a signed report.

Why sign: an audit gates a pipeline, and its report travels (attached to a manuscript, kept by
an editor).  A signature over the report's canonical JSON lets anyone holding the public key
(``citeproof log key`` prints it) check that no verdict, flag or count was changed since the
audit ran, without the secret.

The signing itself is :mod:`citeproof.service.signatures`, which a manuscript's report
(``citeproof.manuscript/1``) is signed with too, so both reports have one signature format:
Ed25519 over the canonical JSON of the report object exactly as printed, minus its
``signature`` field, with ``key_id`` the ``NAME+HASH`` of the evidence log's key.  This
module keeps the audit's own names (and its messages for a file that is not an audit
report), which the audit, its command and its tests use.
"""

from __future__ import annotations

from typing import Any

from citeproof.models.audit import SCHEMA, AuditReport
from citeproof.service.signatures import (
    ReportVerification,
    key_id,
    load_signed_json,
    report_bytes,
    sign_model,
    signed_bytes,
    verifier_for,
    verify_report,
)
from citeproof.store.keys import LogKey

__all__ = [
    "ReportVerification",
    "key_id",
    "load_report_json",
    "report_bytes",
    "sign_report",
    "signed_bytes",
    "verifier_for",
    "verify_report",
]


def sign_report(report: AuditReport, key: LogKey) -> AuditReport:
    """``report`` with ``signature`` set (any earlier signature is replaced)."""
    return sign_model(report, key)


def load_report_json(text: str | bytes) -> dict[str, Any]:
    """The report object in ``text``.

    Raises:
        BadInputError: not JSON, or not a ``citeproof.audit/1`` object.
    """
    return load_signed_json(text, SCHEMA, "an audit report", "citeproof audit --json")
