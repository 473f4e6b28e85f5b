"""A local bibliographic index: the public metadata dumps, searchable offline.

Built from the dumps as they are downloaded (Crossref, OpenAlex, PubMed, DBLP, arXiv,
DataCite, Retraction Watch) with ``citeproof index build``; answers identifier look-ups and
bibliographic searches for ``citeproof refs --index`` (docs/index.md).  Needs the ``index``
extra (``pip install "citeproof[index]"``).
"""
