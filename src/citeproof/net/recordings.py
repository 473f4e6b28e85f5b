"""Recorded HTTP responses on disk: read them, match requests to them, write new ones.

Tests never touch the network, so every source is tested against real answers recorded once
and replayed byte for byte (see ``citeproof.net.replay``). Two on-disk formats are read:

* **litcheck pairs** — ``<name>.body`` (the decoded response bytes) beside
  ``<name>.meta.json`` with ``url``, ``status``, ``headers`` (lower-cased), ``date`` and
  ``body_sha256`` (optionally ``method``, ``form``, ``provenance`` and ``error``). This is also
  the format :func:`write_recording` produces, so the shared corpus's litcheck fixtures replay
  as they are.  ``error`` records a request that got no answer at all (``{"type":
  "ConnectError", "message": ...}``, status 0, an empty body): a run recorded while a service
  was unreachable replays as the same failure, UNAVAILABLE, not as a request never made.
* **tekmeria records** — one JSON object per file with ``url``, ``status``, ``content_type`` and
  ``body`` (the response *text*; it is stored as UTF-8 here and hashed after loading, since the
  format carries no hash of its own).

A request matches a record by :func:`request_key`: method, host, path and query parameters,
with parameters in any order, percent-encoding decoded, and contact/API-key parameters
removed — those differ between whoever recorded and whoever replays, and must never be
written to disk.  The parameters of an ``application/x-www-form-urlencoded`` POST body count
as query parameters: without them, two form POSTs to one URL (E-utilities ``esummary`` asked
for two batches of ids) would be the same request and only one could be replayed.  The
litcheck format stores that body as ``form`` in the meta JSON; a record without it (every
GET, and every record made before the field existed) has no form.

This module does file I/O but no network, no clock and no globals: dates are passed in.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from citeproof.errors import BodyHashMismatchError, RecordingError
from citeproof.redact import is_secret_param, strip_secret_params

__all__ = [
    "BODY_SUFFIX",
    "META_SUFFIX",
    "BodyHashMismatchError",
    "Recording",
    "RecordingError",
    "RequestKey",
    "load_folder",
    "load_litcheck",
    "load_tekmeria",
    "request_key",
    "write_recording",
]

BODY_SUFFIX = ".body"
META_SUFFIX = ".meta.json"

#: Query parameters that identify the caller rather than the resource (NCBI ``tool``/``email``/
#: ``api_key``, Crossref and OpenAlex ``mailto``). Compared case-insensitively.

#: Response headers never stored: cookies identify a session, not the answer.
_DROPPED_HEADERS: frozenset[str] = frozenset({"set-cookie", "cookie", "set-cookie2"})

_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class RequestKey(NamedTuple):
    """What identifies a request for replay; equal keys mean "the same request"."""

    method: str
    host: str
    path: str
    query: tuple[tuple[str, str], ...]

    def __str__(self) -> str:
        """Readable form used in error messages (decoded, parameters sorted)."""
        if not self.query:
            return f"{self.method} {self.host}{self.path}"
        params = "&".join(f"{name}={value}" for name, value in self.query)
        return f"{self.method} {self.host}{self.path}?{params}"


def request_key(
    method: str,
    url: str,
    *,
    form: str | None = None,
    contact: str | None = None,
    secrets: Iterable[str] = (),
) -> RequestKey:
    """Canonicalise a request so that equivalent spellings of it compare equal.

    Percent-encoding is decoded in path and query (``%28`` and ``(`` agree; ``+`` in a query is
    a space, as forms encode it), the host is lower-cased and a default port dropped, query
    parameters are sorted (duplicates kept), and contact/API-key parameters — by name, or
    because the value is ``contact`` or one of ``secrets`` — are removed.  ``form`` is a
    url-encoded request body: its parameters join the query's before sorting and stripping.
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    port = parts.port
    if port is not None and port != _DEFAULT_PORTS.get(parts.scheme.lower()):
        host = f"{host}:{port}"
    path = unquote(parts.path) or "/"
    secret_list = [s for s in secrets if s]
    query = tuple(
        sorted(
            (name, value)
            for name, value in [
                *parse_qsl(parts.query, keep_blank_values=True),
                *parse_qsl(form or "", keep_blank_values=True),
            ]
            if not is_secret_param(name, value, contact, secret_list)
        )
    )
    return RequestKey(method.upper(), host, path, query)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Recording:
    """One recorded response, with the request (method and URL) it answered.

    ``body`` is the decoded response body (no content-encoding); ``body_sha256`` is the hash
    the record claims for it, checked by :meth:`verify`. ``name`` is the record's file stem and
    ``path`` the file it came from (for error messages), when it came from disk.  ``form`` is
    the url-encoded body of a form POST (without contact/API-key parameters), else ``None``.
    """

    method: str
    url: str
    status: int
    headers: Mapping[str, str] = field(hash=False)
    body: bytes = field(repr=False)
    body_sha256: str
    date: str | None
    name: str
    path: Path | None = field(default=None, compare=False)
    form: str | None = None
    error: tuple[str, str] | None = None
    """A request that got no answer: the transport error's class name and message."""

    def key(self, *, contact: str | None = None, secrets: Iterable[str] = ()) -> RequestKey:
        """The :func:`request_key` this recording answers."""
        return request_key(self.method, self.url, form=self.form, contact=contact, secrets=secrets)

    def verify(self) -> None:
        """Raise :class:`BodyHashMismatchError` unless the body hashes to ``body_sha256``.

        A replayed answer must be the bytes that were recorded; a silently edited fixture
        would make a test pass against data no service ever sent.
        """
        actual = _sha256(self.body)
        if actual != self.body_sha256.lower():
            where = str(self.path) if self.path is not None else self.name
            raise BodyHashMismatchError(
                f"Recorded body {where} does not match its record: sha256 is {actual}, "
                f"the record says {self.body_sha256}. Restore the body or re-record it."
            )


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordingError(f"Cannot read recording {path}: {exc}.") from exc


def _need(record: Mapping[str, Any], name: str, kind: type, path: Path) -> Any:
    value = record.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise RecordingError(
            f"Recording {path} has no valid {name!r} ({kind.__name__} expected); "
            "fix or re-record it."
        )
    return value


def load_litcheck(meta_path: Path) -> Recording:
    """Load a ``<name>.meta.json`` and its ``<name>.body``, verifying the body's sha256."""
    if not meta_path.name.endswith(META_SUFFIX):
        raise RecordingError(f"{meta_path} is not a {META_SUFFIX} file.")
    name = meta_path.name[: -len(META_SUFFIX)]
    body_path = meta_path.with_name(name + BODY_SUFFIX)
    record = _read_json(meta_path)
    if not isinstance(record, dict):
        raise RecordingError(f"Recording {meta_path} is not a JSON object.")
    url = _need(record, "url", str, meta_path)
    status = _need(record, "status", int, meta_path)
    sha = _need(record, "body_sha256", str, meta_path)
    raw_headers = record.get("headers", {})
    if not isinstance(raw_headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in raw_headers.items()
    ):
        raise RecordingError(f"Recording {meta_path} has headers that are not strings.")
    date = record.get("date")
    method = record.get("method", "GET")
    form = record.get("form")
    if (
        not isinstance(method, str)
        or (date is not None and not isinstance(date, str))
        or (form is not None and not isinstance(form, str))
    ):
        raise RecordingError(f"Recording {meta_path} has an invalid 'method', 'date' or 'form'.")
    error = _error_of(record.get("error"), meta_path)
    try:
        body = body_path.read_bytes()
    except OSError as exc:
        raise RecordingError(
            f"Recording {meta_path} has no readable body {body_path.name}: {exc}."
        ) from exc
    recording = Recording(
        method=method.upper(),
        url=url,
        status=status,
        headers={k.lower(): v for k, v in raw_headers.items()},
        body=body,
        body_sha256=sha,
        date=date,
        name=name,
        path=body_path,
        form=form,
        error=error,
    )
    recording.verify()
    return recording


def _error_of(value: Any, path: Path) -> tuple[str, str] | None:
    if value is None:
        return None
    if (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and isinstance(value.get("message"), str)
        and value["type"].isidentifier()
    ):
        return value["type"], value["message"]
    raise RecordingError(
        f"Recording {path} has an invalid 'error' (an object with 'type' and 'message' "
        "strings expected); fix or re-record it."
    )


def _is_tekmeria(record: Any) -> bool:
    return isinstance(record, dict) and "url" in record and "body" in record


def load_tekmeria(path: Path) -> Recording:
    """Load a tekmeria JSON record; its text body is stored as UTF-8 and hashed here."""
    return _tekmeria_from(_read_json(path), path)


def _tekmeria_from(record: Any, path: Path) -> Recording:
    """Build a Recording from an already-parsed tekmeria record (read once by load_folder)."""
    if not _is_tekmeria(record):
        raise RecordingError(f"{path} is not a tekmeria recording (needs 'url' and 'body').")
    url = _need(record, "url", str, path)
    status = _need(record, "status", int, path)
    text = _need(record, "body", str, path)
    content_type = record.get("content_type")
    headers = {"content-type": content_type} if isinstance(content_type, str) else {}
    body = text.encode("utf-8")
    return Recording(
        method="GET",
        url=url,
        status=status,
        headers=headers,
        body=body,
        body_sha256=_sha256(body),
        date=None,
        name=path.stem,
        path=path,
    )


def load_folder(folder: Path, *, skip_incomplete: bool = False) -> list[Recording]:
    """Load every recording in ``folder`` (not recursive), sorted by name.

    ``*.meta.json`` files are litcheck records; other ``*.json`` files are tekmeria records
    when they have ``url`` and ``body`` and are ignored otherwise (tekmeria ships a
    ``scenario.json`` beside its records). A record whose body file is missing raises, unless
    ``skip_incomplete`` — the shared corpus has one such record (``pmc-text-pmc10496602.1``).
    Every litcheck body is verified against its sha256.
    """
    if not folder.is_dir():
        raise RecordingError(f"Recordings folder {folder} does not exist.")
    recordings: list[Recording] = []
    for path in sorted(folder.iterdir()):
        if not path.is_file():
            continue
        if path.name.endswith(META_SUFFIX):
            body_path = path.with_name(path.name[: -len(META_SUFFIX)] + BODY_SUFFIX)
            if skip_incomplete and not body_path.is_file():
                continue
            recordings.append(load_litcheck(path))
        elif path.suffix == ".json":
            record = _read_json(path)
            if _is_tekmeria(record):
                recordings.append(_tekmeria_from(record, path))
    return recordings


def _secret_forms(contact: str | None, secrets: Iterable[str]) -> list[str]:
    """Every spelling of a secret that could leak into a file: raw and percent-encoded."""
    forms: set[str] = set()
    for secret in [contact or "", *secrets]:
        if secret:
            forms.update({secret, quote(secret, safe=""), quote(secret, safe="@")})
    return sorted(forms)


def _contains_secret(text: str, forms: list[str]) -> bool:
    lowered = text.lower()
    return any(form.lower() in lowered for form in forms)


def _format_date(date: datetime) -> str:
    if date.tzinfo is None:
        raise RecordingError("A recording date must be timezone-aware (UTC).")
    return date.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_recording(
    folder: Path,
    name: str,
    *,
    url: str,
    status: int,
    headers: Mapping[str, str] | Iterable[tuple[str, str]],
    body: bytes,
    date: datetime,
    method: str = "GET",
    contact: str | None = None,
    secrets: Iterable[str] = (),
    provenance: str | None = None,
    form: str | None = None,
    error: tuple[str, str] | None = None,
) -> Recording:
    """Write ``<name>.body`` and ``<name>.meta.json`` in the litcheck format; return it re-read.

    ``error`` (the transport error's class name and message) records a request that got no
    answer; ``status`` is then 0 and ``body`` empty.

    ``form`` is the url-encoded body of a form POST, stored as ``form`` so the replay key
    tells such POSTs apart.  The URL and the form lose their contact/API-key parameters,
    headers are lower-cased without cookies and without any header whose value carries the
    contact address or a secret; ``body`` must be the decoded body. Nothing is written if the
    body itself contains the contact address or a secret (a recording is shared, so it must
    not leak them), or if ``name`` is not a plain file name.
    """
    if not _SAFE_NAME.fullmatch(name):
        raise RecordingError(
            f"Recording name {name!r} is not a plain file name (letters, digits, '.', '_', '-')."
        )
    secret_list = [s for s in secrets if s]
    forms = _secret_forms(contact, secret_list)
    if forms and _contains_secret(body.decode("utf-8", errors="replace"), forms):
        raise RecordingError(
            f"Not writing recording {name}: the response body contains the contact address "
            "or an API key. Record it with a different contact, or not at all."
        )
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    kept_headers: dict[str, str] = {}
    for key, value in pairs:
        lower = key.lower()
        if lower in _DROPPED_HEADERS or (forms and _contains_secret(value, forms)):
            continue
        kept_headers[lower] = value
    meta: dict[str, Any] = {
        "body_sha256": _sha256(body),
        "date": _format_date(date),
        "headers": dict(sorted(kept_headers.items())),
        "method": method.upper(),
        "status": status,
        "url": strip_secret_params(url, contact=contact, secrets=secret_list),
    }
    if provenance is not None:
        meta["provenance"] = provenance
    if form is not None:
        meta["form"] = _strip_form(form, contact, secret_list)
    if error is not None:
        meta["error"] = {"type": error[0], "message": error[1]}
    meta_text = json.dumps(meta, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if forms and _contains_secret(meta_text, forms):
        raise RecordingError(
            f"Not writing recording {name}: its URL or metadata still contains the contact "
            "address or an API key."
        )
    folder.mkdir(parents=True, exist_ok=True)
    body_path = folder / (name + BODY_SUFFIX)
    meta_path = folder / (name + META_SUFFIX)
    _write_atomic(body_path, body)
    _write_atomic(meta_path, meta_text.encode("utf-8"))
    return load_litcheck(meta_path)


def _strip_form(form: str, contact: str | None, secrets: list[str]) -> str:
    """``form`` without contact/API-key parameters, by the same rule as a URL's query."""
    stripped = strip_secret_params("?" + form, contact=contact, secrets=secrets)
    return stripped.partition("?")[2]


def _write_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file and rename, so a crash never leaves a half-written record."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
