"""citeproof.loading."""
