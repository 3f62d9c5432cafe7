"""Memory of a sharded featurize job as the corpus grows: RSS of the (single, in-process) worker after every shard.

    python benchmarks/memory_flat.py [--pairs N] [--shard-rows R] [--sentences FILE] [--seed S] [--json OUT]

Synthetic pairs (peet-fast synth) from --sentences (default: the shared PEET BEA-19 post-edits when present, else the
test fixture), written to a temporary JSONL file, featurized as a resumable job with one worker in this process. The
issue's goal: 1 M pairs stay under 3 GB RSS per worker; flat RSS from the first to the last shard is what matters."""
from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "corpora" / "peet" / "BEA19" / "gector_EC.txt"


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--shard-rows", type=int, default=20_000)
    ap.add_argument("--sentences", default=str(SHARED if SHARED.exists() else HERE.parent / "tests" / "fixtures"
                                                / "sample" / "reference.txt"))
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--json", help="write the per-shard RSS series as JSON here")
    args = ap.parse_args(argv)
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    CACHE = private_cache()       # a fresh private parse cache (benchmarks/_parse_cache.py)

    from peet_fast.io import read_lines
    from peet_fast.jobs import JobSpec, LocalRunner, run_job, table_source
    from peet_fast.en.synth import synthesize
    from peet_fast.formats.pairs import write_pairs

    series = []
    with tempfile.TemporaryDirectory() as tmp:
        pairs_path = Path(tmp) / "pairs.jsonl"
        write_pairs(pairs_path, synthesize(read_lines(args.sentences), args.pairs, args.seed))
        start_rss = rss_mb()
        t0 = time.perf_counter()

        def progress(done_rows: int) -> None:
            series.append({"rows": done_rows, "rss_mb": round(rss_mb(), 1), "s": round(time.perf_counter() - t0, 1)})
            print(f"{done_rows:>10} rows  RSS {series[-1]['rss_mb']:8.1f} MB  {series[-1]['s']:8.1f} s", flush=True)

        run_job(JobSpec("featurize", table_source(pairs_path), shard_rows=args.shard_rows), str(Path(tmp) / "out"),
                LocalRunner(), progress)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    first, last = series[0]["rss_mb"], series[-1]["rss_mb"]
    res = {"pairs": args.pairs, "shard_rows": args.shard_rows, "rss_before_job_mb": round(start_rss, 1),
           "rss_after_first_shard_mb": first, "rss_after_last_shard_mb": last, "peak_rss_mb": round(peak, 1),
           "pairs_per_s": round(args.pairs / series[-1]["s"], 1), "series": series, "parse_cache": CACHE}
    print(f"RSS after the first shard {first:.0f} MB, after the last {last:.0f} MB; peak {peak:.0f} MB "
          f"(goal: under 3072 MB per worker for 1 M pairs)")
    if args.json:
        from peet_fast.io import atomic_write
        with atomic_write(args.json) as fh:
            json.dump(res, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
