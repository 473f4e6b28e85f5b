"""citeproof.search.queries."""
