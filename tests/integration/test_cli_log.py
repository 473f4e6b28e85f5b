"""``citeproof log``: every subcommand through click, on a log in a temporary home."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from citeproof.cli.log import log as log_group
from citeproof.evidence.log import EvidenceLog

if TYPE_CHECKING:
    from conftest import CliRun


@pytest.fixture
def run(run_cli: CliRun) -> Callable[..., str]:
    """``citeproof log ARGS``'s stdout, once its exit code is ``code``."""

    def run(*args: str, code: int = 0) -> str:
        result = run_cli(*args, command=log_group)
        assert result.exit_code == code, (args, result.output, result.stderr)
        return result.stdout

    return run


def _filled(home: Path, n: int = 5) -> EvidenceLog:
    log = EvidenceLog(home / "data" / "evidence.jsonl", key_dir=home / "data" / "keys")
    log.append_many([("check" if i % 2 else "search", {"i": i}) for i in range(n)])
    return log


def test_path_and_key(run: Callable[..., str], home: Path) -> None:
    assert run("path").strip() == str(home / "data" / "evidence.jsonl")
    assert run("--log", str(home / "x.jsonl"), "path").strip() == str(home / "x.jsonl")
    key = run("key").strip()
    assert key.startswith("citeproof-log-") and key.count("+") >= 2


def test_citeproof_log_env_chooses_the_file(
    run: Callable[..., str], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_LOG", str(home / "elsewhere.jsonl"))
    assert run("path").strip() == str(home / "elsewhere.jsonl")


def test_verify_ok_and_failing(run: Callable[..., str], home: Path) -> None:
    log = _filled(home)
    report = json.loads(run("verify", "--json"))
    assert report["ok"] and report["entries"] == 5
    lines = log.path.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"i":1', b'"i":9')
    log.path.write_bytes(b"".join(lines))
    report = json.loads(run("verify", "--json", code=1))
    assert report["problems"][0]["code"] == "hash-mismatch"
    assert report["problems"][0]["seq"] == 2


def test_verify_human_output_names_expected_and_actual(
    run: Callable[..., str], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _filled(home)
    lines = log.path.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"i":1', b'"i":9')
    log.path.write_bytes(b"".join(lines))
    monkeypatch.setattr("citeproof.cli._common.want_json", lambda flag: flag)
    out = run("verify", code=1)
    assert "FAILED" in out and "expected sha256:" in out and "actual   sha256:" in out


def test_checkpoint_then_verify_against_it(
    run: Callable[..., str], home: Path, tmp_path: Path
) -> None:
    log = _filled(home)
    cp = run("checkpoint")
    assert cp.split("\n")[1] == "5" and "\u2014 citeproof-log-" in cp
    cp_file = tmp_path / "cp.txt"
    cp_file.write_text(cp, encoding="utf-8")
    log.append("check", {"later": True})
    assert json.loads(run("verify", "--checkpoint", str(cp_file), "--json"))["ok"]
    forged = cp.replace("\n5\n", "\n6\n")
    cp_file.write_text(forged, encoding="utf-8")
    report = json.loads(run("verify", "--checkpoint", str(cp_file), "--json", code=1))
    assert report["problems"][0]["code"] == "checkpoint-invalid"


def test_prove_and_verify_proof_without_the_log(
    run_cli: CliRun, run: Callable[..., str], home: Path, tmp_path: Path
) -> None:
    _filled(home)
    bundle = json.loads(run("prove", "3"))
    assert bundle["leaf_index"] == 2 and bundle["tree_size"] == 5
    key = run("key").strip()
    proof = tmp_path / "proof.json"
    proof.write_text(json.dumps(bundle))
    (home / "data" / "evidence.jsonl").unlink()  # the log is not needed
    report = json.loads(run("verify-proof", str(proof), "--key", key, "--json"))
    assert report["ok"] and report["seq"] == 3
    key_file = tmp_path / "key.pub"
    key_file.write_text(key + "\n")
    assert json.loads(run("verify-proof", str(proof), "--key", str(key_file), "--json"))["ok"]
    bundle["entry"] = bundle["entry"].replace('"i":2', '"i":7')
    proof.write_text(json.dumps(bundle))
    assert not json.loads(run("verify-proof", str(proof), "--key", key, "--json", code=1))["ok"]
    result = run_cli("verify-proof", proof, "--key", "nonsense", command=log_group)
    assert result.exit_code == 2 and "citeproof: error:" in result.stderr


def test_prove_out_of_range_is_an_error(run_cli: CliRun, home: Path) -> None:
    _filled(home)
    result = run_cli("prove", "99", command=log_group)
    assert result.exit_code == 2 and "not in the signed log" in result.stderr
    assert "Traceback" not in result.output


def test_annotate_show_and_export(
    run_cli: CliRun, run: Callable[..., str], home: Path, tmp_path: Path
) -> None:
    _filled(home)
    entry = json.loads(run("annotate", "2", "--support", "contradicts", "--by", "Ann", "--json"))
    assert entry["seq"] == 6 and entry["payload"]["support"] == "contradicts"
    assert json.loads(run("show", "6", "--json"))["kind"] == "annotation"
    assert [e["seq"] for e in json.loads(run("show", "--kind", "check", "--json"))] == [2, 4]
    assert [e["seq"] for e in json.loads(run("show", "--last", "2", "--json"))] == [5, 6]
    out = tmp_path / "export.jsonl"
    run("export", "-o", str(out))
    assert out.read_bytes() == (home / "data" / "evidence.jsonl").read_bytes()
    assert run("export").encode() == out.read_bytes()
    cp = tmp_path / "cp"
    cp.write_text(run("checkpoint"))
    # The exported copy (no head) verifies against a checkpoint that covers it.
    report = json.loads(run("--log", str(out), "verify", "--checkpoint", str(cp), "--json"))
    assert report["ok"] and report["notes"]
    bad = run_cli("annotate", "2", "--support", "maybe", "--by", "x", command=log_group)
    assert bad.exit_code == 2


def test_damaged_log_then_repair(run_cli: CliRun, run: Callable[..., str], home: Path) -> None:
    log = _filled(home)
    with log.path.open("ab") as f:
        f.write(b'{"torn')
    result = run_cli("annotate", "1", "--support", "absent", "--by", "x", command=log_group)
    assert result.exit_code == 2 and "citeproof log repair" in result.stderr
    report = json.loads(run("repair", "--json"))
    assert report["repaired"] and report["moved_bytes"] == 6
    assert json.loads(run("verify", "--json"))["ok"]
    assert "nothing to do" in json.loads(run("repair", "--json"))["message"]


def test_empty_log(run: Callable[..., str], home: Path) -> None:
    assert json.loads(run("verify", "--json"))["entries"] == 0
    assert run("checkpoint").split("\n")[1] == "0"
    assert json.loads(run("show", "--json")) == []


def test_an_interrupted_append_does_not_stop_the_next_command(
    run_cli: CliRun, run: Callable[..., str], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after writing its line, before replacing the signed head: `log verify` says
    so and passes, and the next command appends without `citeproof log repair`."""
    log = _filled(home, 2)
    real_replace = os.replace

    def killed(src: Path, dst: Path) -> None:
        if Path(dst) == log.head_path:
            raise KeyboardInterrupt  # stands for SIGKILL: nothing after it runs
        real_replace(src, dst)

    with monkeypatch.context() as patched, pytest.raises(KeyboardInterrupt):
        patched.setattr(os, "replace", killed)
        log.append("check", {"interrupted": True})
    report = json.loads(run("verify", "--json"))
    assert report["ok"] and report["entries"] == 3 and report["signed_size"] == 2
    assert any("interrupted" in note for note in report["notes"])
    result = run_cli("annotate", "3", "--support", "absent", "--by", "x", command=log_group)
    assert result.exit_code == 0, result.stderr
    report = json.loads(run("verify", "--json"))
    assert report["ok"] and report["entries"] == report["signed_size"] == 4
    assert not report["notes"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_a_key_file_others_can_read_warns_once_or_is_refused(
    run_cli: CliRun, run: Callable[..., str], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    monkeypatch.setenv("CITEPROOF_STRICT_KEYS", "0")  # and restored: --strict-keys sets it
    key = run("key")
    pem = home / "data" / "keys" / "log-ed25519.pem"
    pem.chmod(0o644)
    result = run_cli("key", command=log_group)
    assert result.exit_code == 0 and result.stdout == key
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"citeproof: warning: the key file {pem} is readable by other users")
    assert f"chmod 600 {pem}" in line
    # The same through the top-level group, and refused with --strict-keys or the variable.
    result = run_cli("log", "key")
    assert result.exit_code == 0 and result.stderr.startswith("citeproof: warning: ")
    result = run_cli("--strict-keys", "log", "key")
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"citeproof: error: refusing the key file {pem}: it is readable")
    assert f"chmod 600 {pem}" in line
    monkeypatch.setenv("CITEPROOF_STRICT_KEYS", "1")
    result = run_cli("verify", "--json", command=log_group)
    assert result.exit_code == 2 and "refusing the key file" in result.stderr
    pem.chmod(0o600)
    result = run_cli("--strict-keys", "log", "key")
    assert result.exit_code == 0 and result.stdout == key and result.stderr == ""
