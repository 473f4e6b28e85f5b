"""The evidence log: an append-only, hash-chained record of every check and search, with
signed checkpoints and inclusion proofs.

``log`` appends (locked, whole lines, fsynced) and reads the log; ``lines`` is the line format
and its parsing; ``canonical`` the canonical JSON every hash is taken over (pure);
``merkle`` the RFC 6962 tree (pure); ``checkpoint`` signed checkpoints; ``verify`` checks a log
against its head or a checkpoint and an entry against a proof; ``payloads`` is what a check's
line says (pure); ``recheck`` reads the recorded checks and compares a re-run with them (the
re-run itself is the check pipeline's, in ``citeproof.service.logbook``).

May import ``store`` (keys, paths), ``models``, ``match`` (options) and ``errors``;
``canonical`` and ``merkle`` import no I/O layer.
"""
