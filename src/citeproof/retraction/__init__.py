"""Is the cited work retracted?  Every source asked, each reported as answered, failed or not
asked, and a status that never claims more than the answers allow.

``answers`` turns each source's answer (PMC, Crossref, PubMed, Europe PMC, the local Retraction
Watch snapshot) into one ``SourceReport``; ``status`` asks them concurrently and decides
(``RETRACTED``, ``CONCERN``, ``NOT_RETRACTED_AS_OF`` or ``UNVERIFIABLE``).

May import ``sources``, ``net``, ``models``, ``identifiers`` and ``errors``.
"""
