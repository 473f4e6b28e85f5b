"""SIGKILL during appends: no appender is ever blocked, nothing acknowledged is lost.

Target (issue "a killed process never stops the log"): 100 trials, each killing one of two
processes that append to the same log as fast as they can; after every kill the other
process and the killed one's replacement must go on appending without anyone running
``citeproof log repair``, no append whose call returned may be missing afterwards, and
``citeproof log verify`` must pass at the end.

Each appender is this script run with ``--worker``: it appends batches of 1 to 4 ``check``
entries (durable: every append fsyncs, as in real use) and, after each call returns, writes
``ack SEQ HASH`` lines to its own acknowledgement file.  An appender that is refused (a
:class:`LogError` such as "run `citeproof log repair`") writes ``blocked ...`` there and
exits 2; the controller then counts it, repairs the log (so later trials still mean
something) and starts it again.

A trial: wait a random 0-30 ms; pause the other appender (SIGSTOP) at a moment it holds no
lock; SIGKILL the victim at a random moment, or, every ``--aim``-th trial, the moment its
lines are on disk and the signed head does not cover them yet (the case that used to need
repair); note what the kill left behind (nothing, an intent only, lines the signed head
does not cover, a write cut short); let the other appender go on (SIGCONT); start a
replacement; and wait until both live appenders have acknowledged new appends after the
kill (or one of them was blocked).  The pause makes the note exact: with the other
appender stopped outside the lock, the state on disk is the one the victim left.

Prints the counts and exits 1 on any blocked appender, lost acknowledged entry or failed
verify; 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PROGRESS = 3  # acknowledged appends each live appender must make after a kill
TRIAL_TIMEOUT_S = 20.0


# --------------------------------------------------------------------------- worker


def _worker(writer: str, life: int, ack_path: Path) -> int:
    from citeproof.errors import LogError
    from citeproof.evidence.log import open_log

    stop = False

    def _stop(signum: int, frame: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, _stop)
    log = open_log()  # CITEPROOF_LOG, key from CITEPROOF_HOME: what every interface uses
    ack = os.open(ack_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    rng = random.Random(f"{writer}-{life}")
    i = 0
    while not stop:
        n = rng.choice((1, 1, 1, 2, 4))
        items = [
            ("check", {"writer": writer, "life": life, "i": i + k, "pad": "x" * rng.randrange(400)})
            for k in range(n)
        ]
        try:
            entries = log.append_many(items)
        except LogError as exc:
            message = " ".join(str(exc).split())
            os.write(ack, f"blocked {type(exc).__name__}: {message}\n".encode())
            return 2
        os.write(ack, "".join(f"ack {e.seq} {e.hash}\n" for e in entries).encode())
        i += n
    return 0


# --------------------------------------------------------------------------- controller


@dataclass
class Appender:
    writer: str
    life: int
    ack_path: Path
    proc: subprocess.Popen[bytes]

    def acks(self) -> int:
        return sum(1 for line in _lines(self.ack_path) if line.startswith("ack "))

    def blocked(self) -> str | None:
        for line in _lines(self.ack_path):
            if line.startswith("blocked "):
                return line
        return None


@dataclass
class Counts:
    trials: int = 0
    aimed: int = 0
    blocked_trials: int = 0
    blocked_appenders: int = 0
    acknowledged: int = 0
    lost: int = 0
    entries: int = 0
    rolled_back_files: int = 0
    left: dict[str, int] = field(default_factory=dict)
    verify_ok: bool = False
    verify_problems: list[str] = field(default_factory=list)
    blocked_messages: list[str] = field(default_factory=list)


def _lines(path: Path) -> list[str]:
    try:
        data = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return data.splitlines()[: data.count("\n")]  # a torn last line is not an ack


class Controller:
    def __init__(self, folder: Path, seed: int) -> None:
        self.folder = folder
        self.log_path = folder / "data" / "evidence.jsonl"
        self.env = dict(os.environ, CITEPROOF_HOME=str(folder), CITEPROOF_LOG=str(self.log_path))
        self.env.pop("CITEPROOF_STRICT_KEYS", None)
        self.rng = random.Random(seed)
        self.lives = 0
        self.retired: list[Appender] = []

    def start(self, writer: str) -> Appender:
        self.lives += 1
        ack_path = self.folder / f"acks-{writer}-{self.lives}.txt"
        proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", writer, str(self.lives), str(ack_path)],
            env=self.env,
        )
        return Appender(writer, self.lives, ack_path, proc)

    def wait_progress(self, live: list[Appender], base: dict[int, int]) -> list[Appender]:
        """Wait until every appender in ``live`` acknowledged PROGRESS more; the blocked."""
        deadline = time.monotonic() + TRIAL_TIMEOUT_S
        while True:
            blocked = [a for a in live if a.blocked() is not None]
            if blocked:
                return blocked
            if all(a.acks() >= base.get(a.life, 0) + PROGRESS for a in live):
                return []
            dead = [a for a in live if a.proc.poll() is not None]
            if dead or time.monotonic() > deadline:
                raise SystemExit(
                    f"an appender died or stalled without being refused: "
                    f"{[(a.writer, a.life, a.proc.poll()) for a in dead or live]}"
                )
            time.sleep(0.002)

    def pause_outside_the_lock(self, appender: Appender) -> None:
        import fcntl

        lock = self.log_path.with_name(self.log_path.name + ".lock")
        while True:
            appender.proc.send_signal(signal.SIGSTOP)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return  # closing the descriptor releases the lock
            except BlockingIOError:
                pass
            finally:
                os.close(fd)
            appender.proc.send_signal(signal.SIGCONT)
            time.sleep(0.0005)

    def left_behind(self) -> str:
        """What the killed appender left on disk (nobody else runs an append now)."""
        from citeproof.evidence import lines

        head = lines.read_head(lines.head_path_for(self.log_path))
        base = head or lines.Head(0, 0, lines.ZERO_HASH, (), "")
        size = self.log_path.stat().st_size if self.log_path.exists() else 0
        try:  # the code before the intent existed has none of this
            intent = lines.read_intent(lines.intent_path_for(self.log_path))
        except AttributeError:
            intent = None
        except lines.LogError:
            return "a half-written intent"
        if size == base.end:
            return "an intent, no line yet" if intent else "nothing (between appends)"
        if intent is None:
            return "lines the head does not cover, no intent"
        with self.log_path.open("rb") as f:
            f.seek(base.end)
            outcome = lines.intent_outcome(base, intent, f.read())
        return {
            "finish": "lines the head does not cover (the intent's)",
            "roll-back": "a write cut short",
        }.get(outcome, f"a tail the intent does not explain ({outcome})")

    def wait_for_the_window(self) -> None:
        """Return once lines are on disk that the signed head does not cover."""
        from citeproof.evidence import lines

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                head = lines.read_head(lines.head_path_for(self.log_path))
                if self.log_path.stat().st_size > (head.end if head else 0):
                    return
            except (OSError, lines.LogError):
                pass
            time.sleep(0.0002)
        raise SystemExit("the victim never reached the window between its write and its head")

    def run(self, trials: int, aim: int) -> Counts:
        from citeproof.evidence.log import EvidenceLog

        counts = Counts()
        live = [self.start("a"), self.start("b")]
        blocked = self.wait_progress(live, {})
        assert not blocked, blocked  # a fresh log never refuses
        for _ in range(trials):
            counts.trials += 1
            time.sleep(self.rng.uniform(0.0, 0.03))
            victim = self.rng.choice(live)
            (survivor,) = [a for a in live if a is not victim]
            self.pause_outside_the_lock(survivor)
            if aim and counts.trials % aim == 0:
                counts.aimed += 1
                self.wait_for_the_window()
            else:
                time.sleep(self.rng.uniform(0.0, 0.005))
            victim.proc.send_signal(signal.SIGKILL)
            victim.proc.wait()
            left = self.left_behind()
            counts.left[left] = counts.left.get(left, 0) + 1
            survivor.proc.send_signal(signal.SIGCONT)
            self.retired.append(victim)
            live = [a for a in live if a is not victim] + [self.start(victim.writer)]
            base = {a.life: a.acks() for a in live}
            blocked = self.wait_progress(live, base)
            if blocked:
                counts.blocked_trials += 1
                # Give the other appender a moment to run into the same refusal.
                time.sleep(0.3)
                blocked = [a for a in live if a.blocked() is not None]
                counts.blocked_appenders += len(blocked)
                counts.blocked_messages += [str(a.blocked()) for a in blocked]
                for a in live:  # stop both, repair, start again: the next trial starts clean
                    a.proc.send_signal(signal.SIGTERM)
                for a in live:
                    a.proc.wait()
                self.retired += live
                EvidenceLog(self.log_path, key_dir=self.folder / "data" / "keys").repair()
                live = [self.start("a"), self.start("b")]
                if self.wait_progress(live, {}):
                    raise SystemExit("appenders were refused right after a repair")
        for a in live:
            a.proc.send_signal(signal.SIGTERM)
        for a in live:
            a.proc.wait()
        self.retired += live

        entries = {}
        for raw in self.log_path.read_bytes().splitlines():
            obj = json.loads(raw)
            entries[obj["seq"]] = obj["hash"]
        counts.entries = len(entries)
        for appender in self.retired:
            for line in _lines(appender.ack_path):
                if line.startswith("ack "):
                    _, seq, digest = line.split()
                    counts.acknowledged += 1
                    counts.lost += entries.get(int(seq)) != digest
        counts.rolled_back_files = len(list(self.log_path.parent.glob("*.rolled-back-*")))
        done = subprocess.run(
            [sys.executable, "-m", "citeproof", "log", "verify", "--json"],
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        try:
            report = json.loads(done.stdout)
        except ValueError:
            report = {"ok": False, "problems": [{"message": done.stderr.strip()}]}
        counts.verify_ok = done.returncode == 0 and bool(report["ok"])
        counts.verify_problems = [p["message"] for p in report.get("problems", [])]
        return counts


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    if args_list[:1] == ["--worker"]:
        writer, life, ack_path = args_list[1:4]
        return _worker(writer, int(life), Path(ack_path))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100, help="kills (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="seed for the kill timing")
    parser.add_argument(
        "--aim",
        type=int,
        default=2,
        metavar="N",
        help="aim every Nth kill between an append's write and its head (0: never; default 2)",
    )
    parser.add_argument("--dir", type=Path, help="where to build the log (default: a temp dir)")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args(args_list)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        counts = Controller(Path(tmp), args.seed).run(args.trials, args.aim)
    elapsed = time.perf_counter() - started
    failed = bool(counts.blocked_appenders or counts.lost or not counts.verify_ok)
    if args.json:
        print(json.dumps({**counts.__dict__, "seconds": round(elapsed, 1), "ok": not failed}))
    else:
        print(f"{'trials (SIGKILLs)':<40} {counts.trials:>8}")
        print(f"{'  of which aimed at write..head':<40} {counts.aimed:>8}")
        print(f"{'trials where an appender was blocked':<40} {counts.blocked_trials:>8}")
        print(f"{'blocked appenders (needed repair)':<40} {counts.blocked_appenders:>8}")
        print(f"{'acknowledged entries':<40} {counts.acknowledged:>8}")
        print(f"{'acknowledged entries lost':<40} {counts.lost:>8}")
        print(f"{'entries in the log':<40} {counts.entries:>8}")
        print(f"{'torn appends rolled back':<40} {counts.rolled_back_files:>8}")
        print("what the kills left behind:")
        for what, n in sorted(counts.left.items(), key=lambda kv: -kv[1]):
            print(f"  {what:<46} {n:>4}")
        print(f"{'citeproof log verify':<40} {'ok' if counts.verify_ok else 'FAIL':>8}")
        for message in counts.verify_problems + sorted(set(counts.blocked_messages))[:3]:
            print(f"  {message}")
        print(f"{'seconds':<40} {elapsed:>8.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
