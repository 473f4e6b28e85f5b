"""Searches of the literature, recorded as evidence, and the search for where a quote's words
really are.

``params`` checks what a search may be asked (engines, limits, dates); ``engines`` holds each
engine's request plan and runs it into a ``citeproof.search/1`` record; ``queries`` are the
entry points (``citeproof search``, ``citeproof citing``, the MCP tools).  ``finder`` is
find-source: the cache, then Europe PMC phrase search and LitSense (``candidates``), every
candidate verified by the match step the check pipeline passes in.

May import ``loading``, ``sources``, ``net``, ``store``, ``models``, ``match``, ``identifiers``
and ``errors``; never the service (find-source is one of its steps).
"""
