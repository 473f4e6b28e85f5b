"""The only place that talks HTTP (httpx2): the client factory, per-host rate limits, retries
with backoff, body caps, the contact header, the SSRF-safe fetcher for user URLs
(``ssrf``, whose pure half is ``addresses``), and recording and replaying responses
(``recordings``, ``record``, ``replay``); ``session`` opens the clients a command uses (live,
replay or record).

May import only ``errors``, ``redact`` and the package version.
"""
