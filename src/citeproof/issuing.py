"""Kept so that ``from citeproof.issuing import passages_for, resolve_handle`` still works."""

from citeproof.handles.registry import passages_for, resolve_handle

__all__ = ["passages_for", "resolve_handle"]
