"""Human-readable renderings of citeproof results.

Why a package of its own: the audit report (``citeproof.audit/1``) is the contract, and a
rendering is only a view of it.  Keeping the views here, fed by the report as plain JSON data,
means a page can be produced from a report saved earlier (or by another citeproof version)
without re-running the audit, and the audit code never depends on templates.
"""

from __future__ import annotations

from citeproof.report.page import render_audit_html, write_audit_html

__all__ = ["render_audit_html", "write_audit_html"]
