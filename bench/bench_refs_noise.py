"""Fresh noise on clean renderings, real and absent alike (issue 22): what noise costs.

Why a second script beside ``bench_refs_real.py``: the dataset gives its two noisy styles
(AIP and APA "with noise") to works of the world only, never to the excluded sample, so the
standard run cannot tell a rule that forgives noise from one that hides absent works: on its
entries, forgiving noise looks free.  Here the same kind of noise is put on the clean
renderings of real and excluded entries alike, with a seed, and both sides are counted: how
many real works the noise turns into a flag (false accusations), and how many absent
entries it turns into something other than a flag (lost recall).

The noise is the dataset's model as its evaluation describes it (its ``utils.add_noise``):
three times, with even odds, one space deleted; three times, with even odds, one space
inserted anywhere; five times, with odds 0.3, one character replaced by a random ASCII
letter.  It is written here from that description.

    python bench/bench_refs_noise.py --data DIR [--split dev] [--seed 404] [--count 8000]

Compare two versions of citeproof by running the script in each checkout with the same seed:
the sample and its noise depend on the seed alone.  Never a timed test: nothing here is
timed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_refs_real as real

#: The clean styles the noise is put on: the three that print no title and two that do.
STYLES = (
    "american-institute-of-physics",
    "american-chemical-society",
    "elsevier-without-titles",
    "apa",
    "chicago-author-date",
)


def add_noise(text: str, rng: random.Random) -> str:
    """The dataset's noise (module docstring), drawn from ``rng``."""
    for _ in range(3):
        if " " in text and rng.random() < 0.5:
            at = rng.choice([m.start() for m in re.finditer(" ", text)])
            text = text[:at] + text[at + 1 :]
    for _ in range(3):
        if rng.random() < 0.5:
            at = rng.randint(0, len(text))
            text = text[:at] + " " + text[at:]
    for _ in range(5):
        if text and rng.random() < 0.3:
            at = rng.randint(0, len(text) - 1)
            text = text[:at] + rng.choice(string.ascii_letters) + text[at + 1 :]
    return text


def noisy_sample(
    entries: list[real.Entry], split: str, styles: tuple[str, ...], count: int, seed: int
) -> list[real.Entry]:
    """``count`` clean renderings of the split, real and absent, each given fresh noise."""
    rng = random.Random(seed)
    clean = [
        e
        for e in entries
        if e.split == split
        and e.truth in ("real", "absent")
        and e.style in styles
        and not e.kind.endswith("+doi")
    ]
    chosen = rng.sample(clean, min(count, len(clean)))
    return [
        replace(e, id=f"{e.id}:noise", text=add_noise(e.text, rng), kind=f"{e.kind}+noise")
        for e in chosen
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, metavar="DIR")
    parser.add_argument("--split", choices=("dev", "hidden"), default="dev")
    parser.add_argument("--seed", type=int, default=404)
    parser.add_argument("--count", type=int, default=8000, metavar="N")
    parser.add_argument("--styles", default=",".join(STYLES), help="comma-separated CSL styles")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--json", type=Path, metavar="FILE", help="every noisy entry's verdict")
    args = parser.parse_args(argv)
    print(f"bench_refs_noise: load average {real.load_avg()}")
    built = real.build(
        real.Data(args.data),
        argparse.Namespace(
            styles_per_work=len(real.A2_STYLES) + len(real.A1_STYLES),
            styles_from=0,
            fabricated=600,
            seed=22,
            world="faithful",
            split=args.split,
            limit=0,
        ),
    )
    world = real.World(built.works)
    sample = noisy_sample(
        built.entries, args.split, tuple(args.styles.split(",")), args.count, args.seed
    )
    outcomes, _, _ = real.run(world, sample, args.concurrency)
    works = [o for o in outcomes if o.entry.truth == "real"]
    absent = [o for o in outcomes if o.entry.truth == "absent"]
    accused = [o for o in works if o.result.verdict in real.FLAGS]
    flagged = [o for o in absent if o.result.verdict in real.FLAGS]
    verified_absent = [o for o in absent if o.result.verdict == "verified"]
    flags = len(accused) + len(flagged)
    print(f"  {len(sample)} clean renderings of the {args.split} split, noise seed {args.seed}")
    print(
        f"  works of the world: {len(works)}; flagged (false accusations) {len(accused)}, "
        f"verified {sum(o.result.verdict == 'verified' for o in works)}"
    )
    print(
        f"  absent (excluded, fabricated): {len(absent)}; flagged {len(flagged)}, "
        f"verified as some work {len(verified_absent)}"
    )
    print(
        f"  flag precision {100 * len(flagged) / max(1, flags):.2f}%, "
        f"flag recall {100 * len(flagged) / max(1, len(absent)):.2f}%"
    )
    by_style = Counter(o.entry.style for o in accused)
    print("  false accusations by style: " + ", ".join(f"{s} {n}" for s, n in by_style.items()))
    if args.json:
        rows = [
            {
                "text": o.entry.text,
                "kind": o.entry.kind,
                "truth": o.entry.truth,
                "doi": o.entry.doi,
                "verdict": o.result.verdict,
                "reason": o.result.reason,
            }
            for o in outcomes
        ]
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
