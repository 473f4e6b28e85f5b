"""RFC 6962 Merkle maths: against a literal transcription of the RFC's recursive definitions,
the published test vector, and properties (proofs verify; any change makes them fail)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeproof.evidence import merkle
from citeproof.evidence.merkle import (
    EMPTY_ROOT,
    CompactRange,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    node_hash,
    root_of,
    verify_consistency,
    verify_inclusion,
)


def _k(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(leaves: list[bytes]) -> bytes:
    """MTH(D[n]) exactly as RFC 9162 2.1.1 writes it (leaves are leaf hashes)."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = _k(len(leaves))
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


def path(m: int, leaves: list[bytes]) -> list[bytes]:
    if len(leaves) == 1:
        return []
    k = _k(len(leaves))
    if m < k:
        return [*path(m, leaves[:k]), mth(leaves[k:])]
    return [*path(m - k, leaves[k:]), mth(leaves[:k])]


def subproof(m: int, leaves: list[bytes], b: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if b else [mth(leaves)]
    k = _k(n)
    if m <= k:
        return [*subproof(m, leaves[:k], b), mth(leaves[k:])]
    return [*subproof(m - k, leaves[k:], False), mth(leaves[:k])]


def _leaves(n: int) -> list[bytes]:
    return [leaf_hash(f"entry {i}".encode()) for i in range(n)]


def test_rfc6962_test_vector() -> None:
    # The eight-leaf tree of the RFC 6962 reference test data (certificate-transparency).
    data = [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ]
    leaves = [leaf_hash(bytes.fromhex(d)) for d in data]
    assert root_of(leaves).hex() == (
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"
    )
    assert EMPTY_ROOT.hex() == hashlib.sha256(b"").hexdigest()


def test_hash_prefixes_separate_leaves_from_nodes() -> None:
    a, b = b"a" * 32, b"b" * 32
    assert leaf_hash(a + b) != node_hash(a, b)
    assert leaf_hash(b"x") == hashlib.sha256(b"\x00x").digest()
    assert node_hash(a, b) == hashlib.sha256(b"\x01" + a + b).digest()


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 33, 100])
def test_streaming_root_and_proofs_match_the_rfc_definitions(n: int) -> None:
    leaves = _leaves(n)
    assert root_of(leaves) == mth(leaves)
    for m in range(n):
        assert inclusion_proof(m, leaves) == path(m, leaves)
    for m in range(1, n):
        assert consistency_proof(m, leaves) == subproof(m, leaves, True)


def test_compact_range_holds_log_n_hashes_and_resumes() -> None:
    acc = CompactRange()
    leaves = _leaves(1000)
    for i, h in enumerate(leaves, 1):
        acc.append_hash(h)
        assert len(acc.hashes) == bin(i).count("1")
        if i == 600:
            resumed = CompactRange(acc.size, acc.hashes)
    for h in leaves[600:]:
        resumed.append_hash(h)
    assert resumed.root() == acc.root() == mth(leaves)
    with pytest.raises(ValueError):
        CompactRange(5, acc.hashes[:1])


def test_range_hashes_needs_enough_leaves() -> None:
    with pytest.raises(ValueError):
        merkle.range_hashes([(0, 4)], _leaves(3))
    with pytest.raises(ValueError):
        merkle.inclusion_ranges(5, 5)
    with pytest.raises(ValueError):
        merkle.consistency_ranges(6, 5)


@st.composite
def tree_and_index(draw: st.DrawFn) -> tuple[list[bytes], int]:
    n = draw(st.integers(1, 300))
    return _leaves(n), draw(st.integers(0, n - 1))


@settings(deadline=None)
@given(tree_and_index(), st.data())
def test_inclusion_proofs_verify_and_any_change_fails(
    case: tuple[list[bytes], int], data: st.DataObject
) -> None:
    leaves, m = case
    n, root = len(leaves), root_of(leaves)
    proof = inclusion_proof(m, leaves)
    assert verify_inclusion(leaves[m], m, n, proof, root)
    other = data.draw(st.integers(0, n - 1))
    if other != m:
        assert not verify_inclusion(leaves[other], m, n, proof, root)
    assert not verify_inclusion(leaf_hash(b"changed"), m, n, proof, root)
    assert not verify_inclusion(leaves[m], m, n, proof, leaf_hash(b"other root"))
    if proof:
        i = data.draw(st.integers(0, len(proof) - 1))
        bad = list(proof)
        bad[i] = bytes(b ^ 1 for b in bad[i])
        assert not verify_inclusion(leaves[m], m, n, bad, root)
        assert not verify_inclusion(leaves[m], m, n, proof[:-1], root)
    assert not verify_inclusion(leaves[m], m, n, [*proof, root], root)


@settings(deadline=None)
@given(st.integers(1, 300), st.data())
def test_consistency_proofs_verify_and_any_change_fails(n: int, data: st.DataObject) -> None:
    leaves = _leaves(n)
    m = data.draw(st.integers(1, n))
    old_root, new_root = root_of(leaves[:m]), root_of(leaves)
    proof = consistency_proof(m, leaves)
    assert verify_consistency(m, n, old_root, new_root, proof)
    if m < n:
        # Any changed leaf among the first m breaks it: the old tree no longer matches.
        i = data.draw(st.integers(0, m - 1))
        changed = list(leaves)
        changed[i] = leaf_hash(b"rewritten")
        assert not verify_consistency(m, n, old_root, root_of(changed), proof)
        assert not verify_consistency(
            m, n, old_root, root_of(changed), consistency_proof(m, changed)
        )
        j = data.draw(st.integers(0, len(proof) - 1))
        bad = list(proof)
        bad[j] = bytes(b ^ 1 for b in bad[j])
        assert not verify_consistency(m, n, old_root, new_root, bad)
        assert not verify_consistency(m, n, leaf_hash(b"x"), new_root, proof)
    else:
        assert proof == []
        assert not verify_consistency(m, n, old_root, leaf_hash(b"x"), proof)


def test_consistency_edge_cases() -> None:
    leaves = _leaves(8)
    assert verify_consistency(0, 8, EMPTY_ROOT, root_of(leaves), [])
    assert not verify_consistency(0, 8, EMPTY_ROOT, root_of(leaves), [leaves[0]])
    assert not verify_consistency(5, 4, root_of(leaves[:5]), root_of(leaves[:4]), [])
    assert not verify_consistency(4, 8, root_of(leaves[:4]), root_of(leaves), [])
