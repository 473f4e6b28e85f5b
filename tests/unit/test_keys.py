"""Keys: created once, private, race-free, and exported in the signed-note verifier format."""

from __future__ import annotations

import base64
import os
import stat
import threading
import warnings
from pathlib import Path

import pytest

from citeproof.errors import BadInputError, KeyFileWarning
from citeproof.store.keys import (
    HANDLE_KEY_ENV,
    STRICT_KEYS_ENV,
    KeyFileError,
    LogKey,
    Verifier,
    handle_key,
    key_hash,
    load_or_create_log_key,
    parse_verifier_key,
    strict_keys,
)
from citeproof.store.paths import resolve_dirs, resolve_log_path


def test_log_key_is_created_once_with_mode_0600(tmp_path: Path) -> None:
    key_dir = tmp_path / "keys"
    first = load_or_create_log_key(key_dir)
    files = [p for p in key_dir.iterdir()]
    assert len(files) == 1
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert load_or_create_log_key(key_dir).public == first.public
    assert first.name.startswith("citeproof-log-")


def test_concurrent_first_use_agrees_on_one_key(tmp_path: Path) -> None:
    key_dir = tmp_path / "keys"
    publics: list[bytes] = []
    secrets: list[bytes] = []
    barrier = threading.Barrier(8)

    def worker() -> None:
        barrier.wait()
        publics.append(load_or_create_log_key(key_dir).public)
        secrets.append(handle_key(key_dir, env={}))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(publics) == len(secrets) == 8
    assert len(set(publics)) == 1 and len(set(secrets)) == 1
    assert sorted(p.name for p in key_dir.iterdir()) == ["handle.key", "log-ed25519.pem"]


def test_damaged_key_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "log-ed25519.pem").write_text("not a key")
    (tmp_path / "log-ed25519.pem").chmod(0o600)
    with pytest.raises(KeyFileError, match="damaged"):
        load_or_create_log_key(tmp_path)
    (tmp_path / "handle.key").write_bytes(b"short")
    (tmp_path / "handle.key").chmod(0o600)
    with pytest.raises(KeyFileError, match="not 32"):
        handle_key(tmp_path, env={})


def test_handle_key_env_override(tmp_path: Path) -> None:
    assert handle_key(tmp_path, env={HANDLE_KEY_ENV: "a shared team secret"}) == (
        b"a shared team secret"
    )
    assert not (tmp_path / "handle.key").exists()
    with pytest.raises(BadInputError, match="too short"):
        handle_key(tmp_path, env={HANDLE_KEY_ENV: "short"})
    stored = handle_key(tmp_path, env={})
    assert len(stored) == 32 and stat.S_IMODE((tmp_path / "handle.key").stat().st_mode) == 0o600


def test_verifier_key_round_trip_and_format(tmp_path: Path) -> None:
    key = LogKey.generate()
    text = key.verifier.verifier_key()
    name, hash_hex, data = text.split("+", 2)
    assert name == key.name and bytes.fromhex(hash_hex) == key_hash(name, key.public)
    assert base64.b64decode(data) == b"\x01" + key.public
    assert parse_verifier_key(text) == key.verifier
    file = tmp_path / "pub.txt"
    file.write_text(text + "\n")
    assert parse_verifier_key(str(file)) == key.verifier


def test_verifier_key_rejects_splices_and_junk(tmp_path: Path) -> None:
    key, other = LogKey.generate("a"), LogKey.generate("b")
    name, hash_hex, _ = key.verifier.verifier_key().split("+", 2)
    spliced = f"{name}+{hash_hex}+{other.verifier.verifier_key().split('+', 2)[2]}"
    with pytest.raises(KeyFileError, match="does not match"):
        parse_verifier_key(spliced)
    with pytest.raises(KeyFileError, match="neither"):
        parse_verifier_key(str(tmp_path / "missing"))
    data = base64.b64encode(bytes([2]) + b"k" * 32).decode()
    not_ed = f"x+{key_hash('x', b'k' * 32).hex()}+{data}"
    with pytest.raises(KeyFileError, match="Ed25519"):
        parse_verifier_key(not_ed)


def test_signature_checks() -> None:
    key = LogKey.generate()
    sig = key.sign(b"message")
    assert key.verifier.verify(b"message", sig)
    assert not key.verifier.verify(b"messagE", sig)
    assert not Verifier(key.name, LogKey.generate().public).verify(b"message", sig)


def test_paths_for_log_and_keys() -> None:
    dirs = resolve_dirs({"CITEPROOF_HOME": "/h"})
    assert dirs.log == Path("/h/data/evidence.jsonl")
    assert dirs.keys == Path("/h/data/keys")
    assert resolve_log_path({"CITEPROOF_HOME": "/h"}) == dirs.log
    assert resolve_log_path({"CITEPROOF_HOME": "/h", "CITEPROOF_LOG": "/x/l.jsonl"}) == Path(
        "/x/l.jsonl"
    )


# --------------------------------------------------------------------------- permissions

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


@posix_only
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620])
def test_a_key_file_others_can_read_or_change_is_warned_about(tmp_path: Path, mode: int) -> None:
    first = load_or_create_log_key(tmp_path, env={})
    path = tmp_path / "log-ed25519.pem"
    path.chmod(mode)
    with pytest.warns(KeyFileWarning) as caught:
        again = load_or_create_log_key(tmp_path, env={})
    assert again.public == first.public  # still used
    (message,) = [str(w.message) for w in caught]
    assert str(path) in message and f"chmod 600 {path}" in message
    assert f"mode {mode:04o}" in message and "STRICT_KEYS" in message


@posix_only
def test_strict_keys_refuses_an_exposed_key_file(tmp_path: Path) -> None:
    load_or_create_log_key(tmp_path, env={})
    handle_key(tmp_path, env={})
    for name in ("log-ed25519.pem", "handle.key"):
        (tmp_path / name).chmod(0o644)
    strict = {STRICT_KEYS_ENV: "1"}
    with pytest.raises(KeyFileError, match=r"refusing the key file .*log-ed25519\.pem") as e:
        load_or_create_log_key(tmp_path, env=strict)
    assert "readable by other users (mode 0644)" in str(e.value)
    assert f"chmod 600 {tmp_path / 'log-ed25519.pem'}" in str(e.value)
    assert e.value.exit_code == 2
    with pytest.raises(KeyFileError, match=r"handle\.key"):
        handle_key(tmp_path, env=strict)
    # An overriding handle secret has no file to check.
    assert handle_key(tmp_path, env={**strict, HANDLE_KEY_ENV: "a shared team secret"})
    for name in ("log-ed25519.pem", "handle.key"):
        (tmp_path / name).chmod(0o600)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # private again: no warning, no refusal
        load_or_create_log_key(tmp_path, env=strict)
        handle_key(tmp_path, env=strict)


def test_strict_keys_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for value, expected in (("1", True), ("yes", True), ("TRUE", True), ("0", False), ("", False)):
        monkeypatch.setenv(STRICT_KEYS_ENV, value)
        assert strict_keys() is expected
    assert strict_keys({}) is False


@posix_only
def test_the_log_honours_strict_keys_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citeproof.evidence.log import EvidenceLog

    monkeypatch.delenv(STRICT_KEYS_ENV, raising=False)
    keys = tmp_path / "keys"
    EvidenceLog(tmp_path / "l.jsonl", key_dir=keys).append("check", {})
    (keys / "log-ed25519.pem").chmod(0o640)
    with pytest.warns(KeyFileWarning, match="readable by other users"):
        EvidenceLog(tmp_path / "l.jsonl", key_dir=keys).append("check", {})
    monkeypatch.setenv(STRICT_KEYS_ENV, "1")
    with pytest.raises(KeyFileError, match="chmod 600"):
        EvidenceLog(tmp_path / "l.jsonl", key_dir=keys).append("check", {})
