"""citeproof.handles.grammar."""
