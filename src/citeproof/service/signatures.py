"""Sign a report with the evidence log's Ed25519 key, and verify a signed report.

Why sign: a report gates a pipeline and travels (an audit attached to a manuscript, a
manuscript's check kept by an editor).  A signature over the report's canonical JSON lets
anyone holding the public key (``citeproof log key`` prints it) check that no verdict, flag
or count was changed since the report was made, without the secret.

Why here, in the service: two reports are signed, the audit's (``citeproof.audit/1``, by
:mod:`citeproof.audit.signing`) and a manuscript's (``citeproof.manuscript/1``, by
:mod:`citeproof.service.manuscripts`), and the manuscript run sits in the service, below the
audit package.  So the signing that does not depend on what a report holds lives here once,
and both sign and verify with it: one format, whatever the report.

Decisions:

* **What is signed**: the canonical JSON (:mod:`citeproof.evidence.canonical`) of the report
  object exactly as printed, minus its ``signature`` field.  Verification works on the JSON
  as read, never on a re-parsed model, so a field a newer or older reader does not know is
  still covered and cannot be stripped unnoticed.
* **The key** is the evidence log's signing key, so one public key vouches for the log's
  checkpoints and for the reports.  ``key_id`` is ``NAME+HASH`` (the signed-note name and key
  hash, without the key itself): a report naming another key is reported as such, not merely
  as "invalid".
* A report with no signature, a damaged one, or any changed byte is *invalid* with a
  reason; malformed input (not JSON, not a report of the kind asked for) is bad input.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from citeproof.errors import BadInputError
from citeproof.evidence.canonical import canonical_bytes
from citeproof.models.audit import Signature
from citeproof.models.base import Model
from citeproof.store.keys import LogKey, Verifier, load_or_create_log_key, parse_verifier_key
from citeproof.store.paths import default_dirs

__all__ = [
    "ReportVerification",
    "key_id",
    "load_signed_json",
    "log_key",
    "report_bytes",
    "sign_model",
    "signature_for",
    "signed_bytes",
    "verifier_for",
    "verify_report",
]


@dataclass(frozen=True, slots=True)
class ReportVerification:
    """Whether a report's signature holds, and why not."""

    valid: bool
    reason: str
    key_id: str | None = None
    verdict: str | None = None


#: A published report model with a ``signature`` field.
M = TypeVar("M", bound=Model)


def key_id(verifier: Verifier) -> str:
    """``NAME+HASH`` of a public key: names it without carrying it."""
    return f"{verifier.name}+{verifier.hash.hex()}"


def log_key() -> LogKey:
    """This machine's log key, created on first use (what a report is signed with)."""
    return load_or_create_log_key(default_dirs().keys)


def report_bytes(data: Mapping[str, Any]) -> bytes:
    """Canonical JSON of a report object (whatever fields it has).

    Written with the standard encoder under canonical JSON's settings first (a report is
    large and the validating walk of :func:`canonical_bytes` would double the cost); for
    any value canonical JSON accepts the bytes are the same (a test pins this), and a value
    the fast path refuses goes through :func:`canonical_bytes` for its precise error.
    """
    try:
        text = json.dumps(
            data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
        return text.encode("utf-8")
    except (TypeError, ValueError, RecursionError):
        return canonical_bytes(dict(data))


def signed_bytes(data: Mapping[str, Any]) -> bytes:
    """The bytes a signature covers: canonical JSON of ``data`` without ``signature``."""
    return report_bytes({k: v for k, v in data.items() if k != "signature"})


def signature_for(data: Mapping[str, Any], key: LogKey) -> Signature:
    """The signature of a report object (its ``signature`` field, if any, left out)."""
    value = base64.b64encode(key.sign(signed_bytes(data))).decode("ascii")
    return Signature(key_id=key_id(key.verifier), value=value)


def sign_model(report: M, key: LogKey) -> M:
    """``report`` with ``signature`` set (any earlier signature is replaced)."""
    unsigned = report.model_copy(update={"signature": None})
    signature = signature_for(unsigned.model_dump(mode="json"), key)
    return unsigned.model_copy(update={"signature": signature})


def verifier_for(public_key: str | None) -> Verifier:
    """The key to check a report with: ``public_key`` (``NAME+HASH+KEY`` as ``citeproof log
    key`` prints it, or a file holding it), else this machine's own log key."""
    if public_key is not None:
        return parse_verifier_key(public_key)
    return log_key().verifier


def load_signed_json(text: str | bytes, schema: str, what: str, command: str) -> dict[str, Any]:
    """The report object in ``text``, which must be a ``schema`` object.

    ``what`` names the report ("an audit report"), ``command`` the command that writes one
    (``citeproof audit --json``), for the one line that says what to give instead.

    Raises:
        BadInputError: not JSON, or not a ``schema`` object.
    """
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise BadInputError(
            f"the report is not valid JSON ({exc}); give the file `{command}` wrote."
        ) from None
    if not isinstance(data, dict) or data.get("schema") != schema:
        raise BadInputError(
            f"the file is not {what} (schema {schema}); give the file `{command}` wrote."
        )
    return data


def verify_report(data: Mapping[str, Any], verifier: Verifier) -> ReportVerification:
    """Check ``data`` (a report as read from JSON) against ``verifier``'s public key."""
    verdict = data.get("verdict") if isinstance(data.get("verdict"), str) else None
    signature = data.get("signature")
    if not isinstance(signature, dict):
        return ReportVerification(False, "the report is not signed.", None, verdict)
    sid = signature.get("key_id")
    value = signature.get("value")
    if signature.get("algorithm") != "ed25519" or not isinstance(value, str):
        return ReportVerification(
            False, "the signature is not an ed25519 signature.", _str(sid), verdict
        )
    wanted = key_id(verifier)
    if sid != wanted:
        return ReportVerification(
            False,
            f"the report was signed by {sid!r}, not by the given key {wanted!r}.",
            _str(sid),
            verdict,
        )
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return ReportVerification(False, "the signature is not valid base64.", wanted, verdict)
    try:
        message = signed_bytes(data)
    except BadInputError as exc:
        reason = f"the report cannot be canonicalised: {exc}"
        return ReportVerification(False, reason, wanted, verdict)
    if not verifier.verify(message, raw):
        return ReportVerification(
            False,
            "the signature does not match the report: it was changed after signing.",
            wanted,
            verdict,
        )
    return ReportVerification(True, "the signature is valid.", wanted, verdict)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
