"""One module per public service: each builds its requests and turns the answers into data.

Every network source takes an ``httpx2.AsyncClient`` (made by ``citeproof.net.client.make_client``,
or one whose transport replays recorded responses in tests) and answers with a
``SourceOutcome`` from ``base.py``; none of them reads the cache or the clock.  The exception is
``retractionwatch``, the local snapshot of the Retraction Watch dataset (imported from its CSV
into SQLite under the data directory).  A service's client and the parser of what it serves
may share a name (``sources/ctgov.py`` and ``documents/ctgov.py``).

May import ``net``, ``documents``, ``identifiers``, ``store`` (paths), ``errors`` and
``redact``.
"""
