"""Persistent state between runs: where it lives on disk (``paths``), the content-addressed
cache of pinned source bytes (``cache``, its records and errors in ``cache_records``, its export
file in ``archive``), the store of issued passages (``issued``), the keys (``keys``), and the
SQLite base the two stores share (``sqlite``).

May import only ``errors`` and ``redact``: every layer above keeps its state here.
"""
