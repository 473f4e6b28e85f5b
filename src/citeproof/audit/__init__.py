"""Whole-answer audits: read an AI answer, find its claims, citations and quotes, and say
citation by citation what holds.

Why a package: reading the answer (:mod:`citeproof.audit.parse`, pure, no I/O) is kept apart
from checking each citation against its source (network, cache) and from building the signed
``citeproof.audit/1`` report, so the reading can be tested exhaustively on its own and the
HTML view can reuse the same spans the report names.
"""
