"""The persistent parse cache on the multi-system workload of benchmarks/throughput.py (step 5: GMEG FCE dev+test,
7 outputs x 4 references; synthetic outputs over the fixture sentences without the GMEG data).

Every run is a whole `peet-fast score --summary` process (python -m peet_fast.cli), as a user runs it:

1. the 7 outputs with --no-cache; the same with a fresh cache (cold: parses and writes), then again (warm: every
   sentence from the cache, spaCy never imported). Target: warm >= 10x faster than cold; the summaries must be equal.
2. "one more system": a fresh cache warmed by scoring the 6 other outputs against the 4 references, then the 7th
   output alone with the cache, against the 7th alone with --no-cache. Target: <= 0.6x. Its score must equal its
   score in the full run.

Best of --repeat for the timed runs that do not change the cache (warm, 7th with/without). Timings are never
pass/fail: the exit status is 1 only when numbers differ.

    python benchmarks/cache.py [--lines L] [--repeat 3] [--tokenize] [--json OUT]

--tokenize runs every score with -tok (raw text through spaCy's tokenizer): then the warm run also takes sentence
lengths and the tokens of unchanged pairs from the cache's token records.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from throughput import multisystem_data  # noqa: E402  (benchmarks/ is not a package)


def score(hyps: list[str], refs: list[str], summary: str, *flags: str) -> float:
    """Wall seconds of one `peet-fast score` process."""
    cmd = [sys.executable, "-m", "peet_fast.cli", "score", "-hyp", *hyps, "-ref", *refs, "--summary", summary,
           *flags]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    elapsed = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"score failed ({res.returncode}): {res.stderr.strip()}")
    return elapsed


def best(repeat: int, *args) -> float:
    return min(score(*args) for _ in range(repeat))


def systems(summary: str) -> dict[str, float]:
    with open(summary, encoding="utf-8") as fh:
        return {s["name"]: s["peet"] for s in json.load(fh)["systems"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, help="keep the first L lines of every file")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seventh", default="source", help="the output scored last (default: source)")
    ap.add_argument("--tokenize", action="store_true", help="score with -tok")
    ap.add_argument("--json", metavar="OUT")
    args = ap.parse_args()
    tok = ["-tok"] if args.tokenize else []
    with tempfile.TemporaryDirectory() as tmp:
        desc, hyps, refs = multisystem_data(args.lines, args.seed, tmp)
        hyps.sort(key=lambda p: Path(p).name == args.seventh)     # the --seventh output last
        out = lambda name: os.path.join(tmp, name + ".json")          # noqa: E731
        cache = ["--cache-dir", os.path.join(tmp, "cache"), *tok]
        no_cache_s = score(hyps, refs, out("nocache"), "--no-cache", *tok)
        cold_s = score(hyps, refs, out("cold"), *cache)
        warm_s = best(args.repeat, hyps, refs, out("warm"), *cache)
        full = systems(out("nocache"))
        same = full == systems(out("cold")) == systems(out("warm"))

        one = ["--cache-dir", os.path.join(tmp, "cache6"), *tok]
        six_s = score(hyps[:-1], refs, out("six"), *one)
        seventh_cached_s = best(args.repeat, hyps[-1:], refs, out("seventh"), *one)
        seventh_plain_s = best(args.repeat, hyps[-1:], refs, out("seventh_plain"), "--no-cache", *tok)
        last = Path(hyps[-1]).name
        same_7th = systems(out("seventh")) == systems(out("seventh_plain")) == {last: full[last]}
    fig = {"workload": desc, "tokenize": args.tokenize, "outputs": len(hyps), "references": len(refs),
           "no_cache_s": no_cache_s,
           "cold_s": cold_s, "warm_s": warm_s, "warm_speedup_over_cold": cold_s / warm_s,
           "warm_speedup_over_no_cache": no_cache_s / warm_s, "six_outputs_cold_s": six_s,
           "seventh_cached_s": seventh_cached_s, "seventh_no_cache_s": seventh_plain_s,
           "seventh_ratio": seventh_cached_s / seventh_plain_s, "same_numbers": same and same_7th,
           "parse_cache": {"mode": "measured", "note": "--no-cache runs, and cache runs in new private --cache-dir "
                                                       "directories of this run (never the user's cache)"}}
    print(f"workload: {desc}; {len(hyps)} outputs x {len(refs)} references (whole `peet-fast score"
          f"{' -tok' if tok else ''}` processes)")
    print(f"  --no-cache        {no_cache_s:8.2f} s")
    print(f"  cold cache        {cold_s:8.2f} s")
    print(f"  warm cache        {warm_s:8.2f} s   {cold_s / warm_s:5.1f}x faster than cold (target >= 10x)")
    print(f"one more system: 6 outputs + refs cached ({six_s:.2f} s), then the 7th ({last}):")
    print(f"  cached            {seventh_cached_s:8.2f} s   {seventh_cached_s / seventh_plain_s:5.2f}x of "
          f"--no-cache {seventh_plain_s:.2f} s (target <= 0.6x)")
    print(f"numbers equal: {fig['same_numbers']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(fig, fh, indent=1)
    return 0 if fig["same_numbers"] else 1


if __name__ == "__main__":
    sys.exit(main())
