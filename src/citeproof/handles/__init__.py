"""Citation handles: naming one passage of one source so that a made-up citation shows.

``grammar`` (pure) parses handles, makes their canonical form and their check codes;
``passages`` (pure) cuts a Document into citable passages with stable paths and ranks them
(BM25); ``registry`` issues handles for a source's passages, records them in the store of
issued passages, and resolves a handle to what it names now.

May import ``loading``, ``store``, ``models``, ``documents``, ``identifiers`` and ``errors``;
``grammar`` and ``passages`` import no I/O layer (an import-linter contract).
"""
