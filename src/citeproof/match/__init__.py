"""The pure quote matcher: normalisation with an offset map, exact search, the closest
passage, ellipsis fragments, citation markers.

No network, disk or clock here, and no pydantic: the matcher speaks in offsets and plain
result types (``types``), which ``citeproof.service.results`` turns into the public result.
Imports nothing else of citeproof (an import-linter contract keeps the pure core pure).
"""
