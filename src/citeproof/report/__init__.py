"""Human-readable renderings of citeproof results.

Why a package of its own: the reports (``citeproof.audit/1``, ``citeproof.references/1``,
``citeproof.manuscript/1``) are the contract, and a rendering is only a view of one.  Keeping
the views here, fed by the reports as plain JSON data, means a page can be produced from a
report saved earlier (or by another citeproof version) without running the work again, and
the code that does the work never depends on templates.
"""

from __future__ import annotations

from citeproof.report.page import (
    render_audit_html,
    render_manuscript_html,
    render_references_html,
    write_audit_html,
    write_manuscript_html,
    write_references_html,
)

__all__ = [
    "render_audit_html",
    "render_manuscript_html",
    "render_references_html",
    "write_audit_html",
    "write_manuscript_html",
    "write_references_html",
]
