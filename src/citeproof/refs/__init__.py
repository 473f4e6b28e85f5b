"""Is this reference real? Read a bibliography, find each work in the scholarly record, and
say whether the entry names the work it claims to (see docs/references.md).

The pure half reads reference lists (``bibtex``, ``ris``, ``csl``, ``listed``,
``jats_list``, ``pdf_list``, into :class:`~citeproof.refs.stated.StatedReference`), compares
a stated reference with a database's record (``scoring``) and decides the verdict
(``decide``).  The rest asks the databases (``lookup``), pins every answer read
(``pinning``) and verifies many references at once (``verify``).
"""
