"""RFC 6962 / RFC 9162 Merkle tree maths for the evidence log, free of I/O.

Why a Merkle tree on top of the hash chain: a chain proves that each entry follows the one
before it, but whoever rewrites an entry can simply recompute every later hash.  A signed
Merkle root commits to the first ``n`` entries *as a set in order*, so a checkpoint kept by
anyone proves later that the log still begins with exactly those entries (the log was not
rewritten, reordered or truncated), and an inclusion proof shows one entry is in the log
without showing the others.  Using the RFC's hashing (leaf prefix ``0x00``, node prefix
``0x01``, split at the largest power of two below ``n``) keeps the proofs checkable by any
standard transparency-log tool.

Why everything streams: the log can hold millions of entries, so roots are computed with a
*compact range* (the hashes of the O(log n) perfect subtrees that make up ``n`` leaves), and
proofs are computed in two steps: :func:`inclusion_ranges` / :func:`consistency_ranges`
say which leaf ranges' roots a proof needs (pure arithmetic on sizes), and
:func:`range_hashes` computes those roots in one pass over the leaf hashes, again with
O(log n) memory per range.  The convenience functions taking a full list of leaves are for
tests and small trees.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

__all__ = [
    "EMPTY_ROOT",
    "CompactRange",
    "consistency_proof",
    "consistency_ranges",
    "inclusion_proof",
    "inclusion_ranges",
    "leaf_hash",
    "node_hash",
    "range_hashes",
    "root_of",
    "verify_consistency",
    "verify_inclusion",
]

#: The root of the empty tree: SHA-256 of the empty string (RFC 9162, 2.1.1).
EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    """``SHA-256(0x00 || data)``: the hash of one leaf."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """``SHA-256(0x01 || left || right)``: the hash of an interior node."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two strictly smaller than ``n`` (``n >= 2``)."""
    return 1 << ((n - 1).bit_length() - 1)


class CompactRange:
    """The perfect subtrees covering leaves ``[0, size)``, largest first.

    Appending a leaf pushes a one-leaf subtree and merges equal-sized neighbours, so the
    state never holds more than ``log2(size) + 1`` hashes, and :meth:`root` folds them from
    the right, which is exactly the RFC's tree over ``size`` leaves.
    """

    __slots__ = ("_hashes", "_sizes", "size")

    def __init__(self, size: int = 0, hashes: Sequence[bytes] = ()) -> None:
        expected = [1 << bit for bit in range(size.bit_length() - 1, -1, -1) if size >> bit & 1]
        if len(expected) != len(hashes) or any(len(h) != 32 for h in hashes):
            raise ValueError(f"a compact range of {size} leaves has {len(expected)} hashes")
        self.size = size
        self._sizes = expected
        self._hashes = list(hashes)

    @property
    def hashes(self) -> list[bytes]:
        """The subtree hashes, largest (leftmost) subtree first."""
        return list(self._hashes)

    def append_hash(self, leaf: bytes) -> None:
        """Add one leaf, given as its leaf hash."""
        sizes, hashes = self._sizes, self._hashes
        sizes.append(1)
        hashes.append(leaf)
        while len(sizes) > 1 and sizes[-1] == sizes[-2]:
            right = hashes.pop()
            sizes.pop()
            hashes[-1] = node_hash(hashes[-1], right)
            sizes[-1] *= 2
        self.size += 1

    def append(self, data: bytes) -> None:
        """Add one leaf, given as its data."""
        self.append_hash(leaf_hash(data))

    def root(self) -> bytes:
        """The RFC 6962 root of the leaves added so far."""
        if not self._hashes:
            return EMPTY_ROOT
        root = self._hashes[-1]
        for left in reversed(self._hashes[:-1]):
            root = node_hash(left, root)
        return root

    def copy(self) -> CompactRange:
        return CompactRange(self.size, self._hashes)


def root_of(leaf_hashes: Iterable[bytes]) -> bytes:
    """The root over leaf hashes, streamed."""
    acc = CompactRange()
    for h in leaf_hashes:
        acc.append_hash(h)
    return acc.root()


# --------------------------------------------------------------------------- which ranges


def inclusion_ranges(index: int, size: int) -> list[tuple[int, int]]:
    """The leaf ranges ``[start, end)`` whose roots form the audit path, bottom-up.

    Follows PATH(m, D[n]) of RFC 9162 2.1.3.1.
    """
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
    out: list[tuple[int, int]] = []
    lo, n, m = 0, size, index
    while n > 1:
        k = _split(n)
        if m < k:
            out.append((lo + k, lo + n))
            n = k
        else:
            out.append((lo, lo + k))
            lo, m, n = lo + k, m - k, n - k
    out.reverse()
    return out


def consistency_ranges(old: int, new: int) -> list[tuple[int, int]]:
    """The leaf ranges whose roots form the consistency proof from ``old`` to ``new``.

    Follows PROOF(m, D[n]) / SUBPROOF of RFC 9162 2.1.4.1; empty when ``old`` is 0 or equal
    to ``new`` (nothing to prove).
    """
    if not 0 <= old <= new:
        raise ValueError(f"cannot prove a tree of {old} leaves consistent with {new} leaves")
    if old in (0, new):
        return []
    out: list[tuple[int, int]] = []
    lo, m, n, complete = 0, old, new, True
    while m != n:
        k = _split(n)
        if m <= k:
            out.append((lo + k, lo + n))
            n = k
        else:
            out.append((lo, lo + k))
            lo, m, n, complete = lo + k, m - k, n - k, False
    if not complete:
        out.append((lo, lo + m))
    out.reverse()
    return out


def range_hashes(ranges: Sequence[tuple[int, int]], leaf_hashes: Iterable[bytes]) -> list[bytes]:
    """The root of each range, in the order given, from ONE pass over the leaf hashes.

    The ranges must not overlap (proof ranges never do); leaves past the last range are not
    read, so a caller may pass an iterator over a long log.
    """
    if not ranges:
        return []
    order = sorted(range(len(ranges)), key=lambda i: ranges[i][0])
    accs = [CompactRange() for _ in ranges]
    end = max(r[1] for r in ranges)
    pos = 0
    cursor = 0
    for i, h in enumerate(leaf_hashes):
        if i >= end:
            break
        while cursor < len(order) and ranges[order[cursor]][1] <= i:
            cursor += 1
        if cursor < len(order):
            start, stop = ranges[order[cursor]]
            if start <= i < stop:
                accs[order[cursor]].append_hash(h)
        pos = i + 1
    if pos < end:
        raise ValueError(f"the tree has {pos} leaves; the proof needs {end}")
    return [acc.root() for acc in accs]


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """The audit path of leaf ``index`` over all ``leaves`` (leaf *hashes*)."""
    return range_hashes(inclusion_ranges(index, len(leaves)), leaves)


def consistency_proof(old: int, leaves: Sequence[bytes]) -> list[bytes]:
    """The consistency proof from the first ``old`` leaves to all ``leaves`` (leaf hashes)."""
    return range_hashes(consistency_ranges(old, len(leaves)), leaves)


# --------------------------------------------------------------------------- verification


def verify_inclusion(
    leaf: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> bool:
    """True when ``proof`` shows the leaf hash ``leaf`` at ``index`` in the tree ``root``.

    RFC 9162 2.1.3.2.
    """
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(
    old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """True when ``proof`` shows the tree ``new_root`` extends ``old_root``.

    RFC 9162 2.1.4.2; a tree of 0 leaves is consistent with anything (empty proof), a tree
    is consistent with itself when the roots are equal (empty proof).
    """
    if not 0 <= old <= new:
        return False
    if old == 0:
        return not proof
    if old == new:
        return not proof and old_root == new_root
    path = list(proof)
    if old & (old - 1) == 0:
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == old_root and sr == new_root and sn == 0
