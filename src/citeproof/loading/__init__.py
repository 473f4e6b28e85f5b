"""Loading a source: what a user names (a file, ``-``, text, an identifier) to a Document.

``load`` holds the one rule that tells a file from an identifier (and ``files=False`` for a
server that must not read its files); ``files`` reads files and standard input under the size
cap; ``pins`` reads an identifier's pinned bytes from the cache, or runs the best-available-text
``chain`` and pins what it fetched; ``memo`` parses each distinct set of bytes once per process;
``failure`` is the answer when a work gives no text; ``describe`` is the one ``SourceInfo``
every result reports.

May import ``sources``, ``net``, ``store``, ``documents``, ``models``, ``identifiers`` and
``errors``; imported by the check pipeline and by the features that read sources (handles,
find-source).
"""
