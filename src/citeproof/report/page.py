"""The HTML pages: the audit view (one self-contained page that shows, sentence by sentence,
what holds) and the references page (``citeproof refs --html``: every entry of one or more
reference lists, the leads to check first).

Why it is built this way:

* Everything on the page comes from untrusted text: the answer was written by a model, the
  quotes and reasons echo it, titles and URLs come from remote services.  So the page is
  rendered by Jinja2 with autoescaping on, nothing is ever marked safe, the embedded report
  JSON goes through ``|tojson`` (safe inside ``<script>``), and URLs from the report are shown
  as text, never as links.  The only links are the References section's identifiers, which the
  view builds itself from a DOI or PMID of the expected shape, to ``https://doi.org/`` or
  ``https://pubmed.ncbi.nlm.nih.gov/`` only (:func:`citeproof.report.reference_card._link`).
  A strict Content-Security-Policy forbids every load, so even a mistake here could not make
  the page fetch anything.  Its ``script-src`` is the SHA-256 of the page's one inline script (the
  rendered ``audit.js``, hashed when this module is imported), not ``'unsafe-inline'``: a
  script that got into the page any other way would not run.  ``base-uri 'none'`` and
  ``form-action 'none'`` close the two doors ``default-src`` leaves open.
* What the page shows is built from the report by the pure :mod:`citeproof.report.view`
  (invisible characters made visible, the report read through the models, sentence
  placement); this module only renders it and writes the file.
* A re-run replaces its own page, never a file of the user's: the page names its generator
  in its head (``<meta name="generator" content="citeproof">``), which :func:`is_audit_page`
  looks for in the first few KB, and :func:`write_audit_html` writes beside the target and
  renames, so a failure or Ctrl-C midway leaves the earlier page (or nothing) as it was,
  never half a page.
* The page works without JavaScript and in print: each citation's details are a ``<details>``
  right after its sentence, the "problems only" filter is a checkbox and CSS; the small inline
  script only adds "Open every citation", Escape, and opens every citation for printing.
* The references page follows the same rules with less: it has no script at all, so its
  policy forbids every script (``script-src 'none'``), and it reuses the audit page's
  reference cards and styles, so an entry reads the same on both.  It names its kind in its
  head too (``<meta name="citeproof-page" content="references">``): ``refs --html`` replaces
  its own earlier page and ``audit --html`` its own, never each other's without asking.
* The manuscript page (``citeproof manuscript --html``) is built the same way, from the
  references page's cards and the audit page's quote evidence
  (:mod:`citeproof.report.manuscript_view`), with no script either; it names its kind
  (``content="manuscript"``), so each command replaces only its own kind of page.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import jinja2

from citeproof.errors import HtmlWriteError
from citeproof.models.manuscript import ManuscriptReport
from citeproof.models.references import ReferencesReport
from citeproof.report.manuscript_view import build_manuscript_view
from citeproof.report.references_view import build_references_view
from citeproof.report.view import answer_text, build_view

__all__ = [
    "CSP",
    "GENERATOR_TAG",
    "MANUSCRIPT_TAG",
    "REFERENCES_CSP",
    "REFERENCES_TAG",
    "SCRIPT_HASH",
    "HtmlWriteError",
    "is_audit_page",
    "is_manuscript_page",
    "is_references_page",
    "render_audit_html",
    "render_manuscript_html",
    "render_references_html",
    "write_audit_html",
    "write_manuscript_html",
    "write_references_html",
]

#: What every audit page carries in its head, and how a later run knows the page is its own.
GENERATOR_TAG: Final = b'<meta name="generator" content="citeproof">'
#: What the references page carries besides, so each command knows its own kind of page.
REFERENCES_TAG: Final = b'<meta name="citeproof-page" content="references">'
#: And the manuscript page.
MANUSCRIPT_TAG: Final = b'<meta name="citeproof-page" content="manuscript">'
#: What every page but the audit's names in its head: its kind.
_KIND_TAG: Final = b'<meta name="citeproof-page"'
#: How far into a file the tag is looked for: the page's head puts it within the first KB.
_HEAD_BYTES: Final = 4096


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("citeproof.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


_ENV = _environment()
#: The page's one inline script, exactly as the template includes it.
SCRIPT = _ENV.get_template("audit.js").render()
SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; "
    f"script-src '{SCRIPT_HASH}'; base-uri 'none'; form-action 'none'"
)
#: The references page runs no script: its report JSON is data, which no policy blocks.
REFERENCES_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'none'; base-uri 'none'; "
    "form-action 'none'"
)
#: A report as the references page takes it: the model, or its JSON (a saved ``--json``).
ReferencesData = Mapping[str, Any] | ReferencesReport


def render_audit_html(
    report: Mapping[str, Any],
    answer: str | None = None,
    *,
    generated_at: str | None = None,
    source_name: str | None = None,
) -> str:
    """The audit page for ``report`` (the JSON form of ``citeproof.audit/1``) and ``answer``.

    ``answer`` is the text that was audited, exactly as given (default: the report's own
    ``answer.text``); sentences and citations are placed in it by their spans.
    ``generated_at`` defaults to the report's own time (``created_at``), else now.
    ``source_name`` names the audited file in the banner (say, ``answer.md``); the report
    does not carry it.
    """
    if answer is None:
        answer = answer_text(report)
    template = _ENV.get_template("audit.html.j2")
    view = build_view(report, answer, generated_at, source_name=source_name)
    return template.render(csp=CSP, **view)


def _head(path: str | os.PathLike[str]) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(_HEAD_BYTES)
    except OSError:
        return b""


def is_audit_page(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` holds a page citeproof wrote (an earlier audit page), which a new
    ``--html`` to the same path may replace without ``--overwrite``.  A references or
    manuscript page is not one: ``audit --html`` asks before replacing it, as any file it
    did not write."""
    head = _head(path)
    return GENERATOR_TAG in head and _KIND_TAG not in head


def is_references_page(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` holds an earlier references page, which ``refs --html`` to the same
    path may replace without ``--overwrite`` (an audit page it may not)."""
    head = _head(path)
    return GENERATOR_TAG in head and REFERENCES_TAG in head


def is_manuscript_page(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` holds an earlier manuscript page, which ``manuscript --html`` to the
    same path may replace without ``--overwrite`` (an audit or references page it may not)."""
    head = _head(path)
    return GENERATOR_TAG in head and MANUSCRIPT_TAG in head


def _as_data(report: ReferencesData) -> Mapping[str, Any]:
    if isinstance(report, ReferencesReport):
        return report.model_dump(mode="json")
    return report


def render_references_html(
    reports: ReferencesData | Sequence[ReferencesData],
    *,
    source_names: Sequence[str | None] = (),
    generated_at: str | None = None,
) -> str:
    """The references page for one report or several (``citeproof.references/1``, as the
    model or its JSON), each list's leads to check first.

    ``source_names`` names the file each report was read from, one per report (``None``
    keeps the report's own ``source``); a report whose results name several files (``refs
    a.bib b.ris``) is shown as one list per file.  ``generated_at`` defaults to now.
    """
    given = [reports] if isinstance(reports, Mapping | ReferencesReport) else list(reports)
    data = [_as_data(r) for r in given]
    view = build_references_view(data, source_names=source_names, generated_at=generated_at)
    template = _ENV.get_template("references.html.j2")
    return template.render(csp=REFERENCES_CSP, ref_level=4, **view)


def write_references_html(
    reports: ReferencesData | Sequence[ReferencesData],
    path: str | Path,
    *,
    source_names: Sequence[str | None] = (),
    generated_at: str | None = None,
) -> Path:
    """Render the references page and write it to ``path`` (UTF-8), whole or not at all;
    return the path written.  Whether ``path`` may be written is the caller's to decide
    first (``is_references_page`` says which existing file is an earlier page)."""
    page = render_references_html(reports, source_names=source_names, generated_at=generated_at)
    return _write(Path(path), page, "the references page")


def render_manuscript_html(
    report: Mapping[str, Any] | ManuscriptReport,
    *,
    generated_at: str | None = None,
    source_name: str | None = None,
) -> str:
    """The manuscript page for ``report`` (``citeproof.manuscript/1``, as the model or its
    JSON): the problems first, then what was not checked, then what matched.

    ``source_name`` names the manuscript in the banner (default: the report's own name);
    ``generated_at`` defaults to the report's time (``created_at``).
    """
    view = build_manuscript_view(report, generated_at=generated_at, source_name=source_name)
    template = _ENV.get_template("manuscript.html.j2")
    return template.render(csp=REFERENCES_CSP, ref_level=4, **view)


def write_manuscript_html(
    report: Mapping[str, Any] | ManuscriptReport,
    path: str | Path,
    *,
    generated_at: str | None = None,
    source_name: str | None = None,
) -> Path:
    """Render the manuscript page and write it to ``path`` (UTF-8), whole or not at all;
    return the path written.  Whether ``path`` may be written is the caller's to decide
    first (``is_manuscript_page`` says which existing file is an earlier page)."""
    page = render_manuscript_html(report, generated_at=generated_at, source_name=source_name)
    return _write(Path(path), page, "the manuscript page")


def _write(target: Path, page: str, what: str) -> Path:
    """``page`` at ``target`` (see :func:`_replace`), or one line saying why not."""
    try:
        _replace(target, page.encode("utf-8"))
    except OSError as err:
        raise HtmlWriteError(
            f"Could not write {what} to {target}: {err.strerror or err}. "
            "Choose a writable path for --html."
        ) from err
    return target


def write_audit_html(
    report: Mapping[str, Any],
    answer: str | None,
    path: str | Path,
    *,
    generated_at: str | None = None,
    source_name: str | None = None,
) -> Path:
    """Render the page and write it to ``path`` (UTF-8); return the path written.

    ``source_name`` names the audited file on the page (see :func:`render_audit_html`).
    """
    page = render_audit_html(report, answer, generated_at=generated_at, source_name=source_name)
    return _write(Path(path), page, "the audit page")


def _replace(target: Path, data: bytes) -> None:
    """Put ``data`` at ``target`` whole or not at all: written to a new file beside it (same
    folder, so the rename cannot cross file systems), flushed, then renamed over it.  The new
    file is created with the usual permissions (0666 less the umask), as a plain write's."""
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temporary, target)
    except BaseException:  # a failure or Ctrl-C: the half-written file goes, the error stays
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
