"""Whole-answer audits: read an AI answer, find its claims, citations and quotes, and say
citation by citation what holds.

Why a package: reading the answer (``parse``, ``sentences``, ``citations``, ``references``,
``assemble``, into the ``answer`` model; pure, no I/O) is kept apart from checking each
citation against its source (``run`` and ``works``, through the check pipeline) and from the
rules that decide verdicts (``verdicts``, ``metrics``; pure) and the signature (``signing``),
so the reading can be tested exhaustively on its own and the HTML view can reuse the same
spans the report (``citeproof.models.audit``) names.

May import the service and everything below it; the reading and the rules import no I/O
layer.  ``citeproof.audit_answer`` is ``run.audit_answer``.
"""
