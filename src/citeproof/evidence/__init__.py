"""citeproof.evidence.payloads."""
