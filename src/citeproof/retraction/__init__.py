"""citeproof.retraction.status."""
