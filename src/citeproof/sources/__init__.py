"""One module per public service: each builds its requests and turns the answers into data.

Every source takes an ``httpx2.AsyncClient`` (made by ``citeproof.net.client.make_client``,
or one whose transport replays recorded responses in tests) and answers with a
``SourceOutcome`` from ``base.py``; none of them reads the disk, the cache or the clock.
"""
