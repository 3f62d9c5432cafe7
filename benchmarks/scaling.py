"""Worker scaling of a sharded featurize job: weak scaling (N pairs per worker) and strong scaling (a fixed total).

    python benchmarks/scaling.py --workers 1 2 4 8 16 --pairs-per-worker N [--strong-pairs M] [--mode weak|strong|both]
                                 [--shards-per-worker K] [--seed S] [--json]

Workload: synthetic GEC pairs (peet_fast.en.synth over the distinct sentences of the shared peet/*/*_EC.txt, else the
fixture's corrected side) written as mo.txt / trg.txt, then peet_fast.jobs.run_job with a JobSpec "featurize" over
text_source([mo, trg]), shards of ceil(pairs / (K x workers)) rows (K = 4 by default, docs/jobs.md's advice), into a
fresh directory. One worker is the in-process runner (what --workers 1 does, no Ray); W > 1 is what --workers W
does: a RayRunner(W) that starts a new local Ray instance of W CPUs in the background while this process computes
shards, then W-1 actors (the instance is shut down after the run).

Each run reports, apart:
  - ray_start_s: ray.init (0 in process), which runs during the job (the driver computes meanwhile): it is part of
    job_s, not added to it;
  - warmup_s: the fixed part of the job (Ray's start as far as the driver's work does not hide it, the actors'
    processes, imports and spaCy loads; in process the spaCy load, the cached pipeline being dropped before each
    run): job_s - pairs / steady rate;
  - ray_stop_s: ray.shutdown after the job (a command pays it at exit; 0 in process), not in the speed-ups;
  - steady_pairs_per_s: the rate once every worker is warm: rows of the shards finished after the first W shards
    finished, over the time from the W-th to the last completion (progress callback times);
  - end_to_end_pairs_per_s: pairs / job_s;
  - speed-ups and efficiencies against the 1-worker run of the same mode (weak: rate ratio, the work grows with W;
    strong: time ratio), steady and end to end; efficiency = speed-up / W;
  - CPU seconds during the job: this driver process, Ray's daemons (raylet, gcs_server, agents) and the actors (all
    processes descending from this one, from /proc), and the whole machine's busy CPU seconds (/proc/stat), so that
    load from other processes on a shared machine shows.
Strong-scaling outputs must be identical tables for every worker count (exit 1 otherwise). Timings never fail.

Small run for this 2-core machine (CI uses --workers 1 --pairs-per-worker 50 --json, tests/test_scaling_bench.py):
    python benchmarks/scaling.py --workers 1 2 --pairs-per-worker 20000 --mode weak
On a large machine (16+ cores, e.g. 32 GB memory; each worker needs one CPU and ~0.5 GB):
    python benchmarks/scaling.py --workers 1 2 4 8 16 --pairs-per-worker 20000 --strong-pairs 320000 --json > s.json
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "corpora"
FIXTURE = ROOT / "tests" / "fixtures" / "en_pairs.tsv"
TICK = os.sysconf("SC_CLK_TCK")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def sentences() -> tuple[str, list[str]]:
    """Clean sentences to corrupt: the distinct sentences of the shared PEET corrections, else the fixture's."""
    from peet_fast.io import read_lines

    found = sorted((SHARED / "peet").glob("*/*_EC.txt")) if (SHARED / "peet").is_dir() else []
    seen: dict[str, None] = {}
    for p in found:
        for line in read_lines(p):
            if " ".join(line.split()):
                seen.setdefault(" ".join(line.split()))
    if seen:
        return f"distinct sentences of shared peet/*/*_EC.txt ({len(found)} files)", list(seen)
    rows = [ln.split("\t") for ln in FIXTURE.read_text("utf-8").splitlines() if ln.strip()]
    return "tests/fixtures/en_pairs.tsv (corrected side)", [r[1].strip() for r in rows if len(r) > 1 and r[1].strip()]


def write_pairs(pairs: list, n: int, d: str) -> tuple[str, str]:
    """The first n pairs as d/mo-N.txt, d/trg-N.txt (written once per size)."""
    mo, trg = os.path.join(d, f"mo-{n}.txt"), os.path.join(d, f"trg-{n}.txt")
    if not os.path.exists(mo):
        with open(mo, "w", encoding="utf-8") as fm, open(trg, "w", encoding="utf-8") as ft:
            for a, b in pairs[:n]:
                fm.write(a + "\n")
                ft.write(b + "\n")
    return mo, trg


def machine_busy_s() -> float:
    with open("/proc/stat") as fh:
        f = [int(x) for x in fh.readline().split()[1:]]
    return (sum(f) - f[3] - f[4]) / TICK          # all but idle and iowait


def descendants_cpu_s() -> dict[str, float]:
    """CPU seconds (user + system) of the processes descending from this one, as 'daemons' (raylet, gcs_server,
    Ray's agents) and 'actors' (ray::... workers and other Python processes)."""
    parent, cpu, name = {}, {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                raw = fh.read()
        except OSError:
            continue
        comm = raw[raw.index("(") + 1:raw.rindex(")")]
        fields = raw[raw.rindex(")") + 2:].split()
        pid = int(entry)
        parent[pid], cpu[pid], name[pid] = int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, comm
    me, out = os.getpid(), {"daemons": 0.0, "actors": 0.0}
    for pid in cpu:
        p = parent.get(pid)
        while p not in (None, 0, 1, me):
            p = parent.get(p)
        if p == me:
            is_actor = name[pid].startswith("ray::") or name[pid].startswith("python")
            out["actors" if is_actor else "daemons"] += cpu[pid]
    return out


def own_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def steady(done: list[tuple[float, int]], workers: int, pairs: int, job_s: float) -> tuple[float, float]:
    """(steady pairs/s, warm-up s) from the shard completions (time since the job's start, rows)."""
    done = sorted(done)
    if len(done) <= workers:
        rate = pairs / job_s                       # too few shards to tell: all of the job counts
        return rate, 0.0
    t0 = done[workers - 1][0]
    rows = sum(r for _, r in done[workers:])
    rate = rows / max(done[-1][0] - t0, 1e-9)
    return rate, max(0.0, job_s - pairs / rate)


def run_one(workers: int, mo: str, trg: str, pairs: int, spw: int, out: str) -> dict:
    """One job of `pairs` pairs on `workers` workers (1: in process)."""
    from peet_fast.jobs import JobSpec, LocalRunner, RayRunner, run_job, text_source

    shard_rows = max(1, math.ceil(pairs / (spw * workers)))
    # the parse cache off: every run parses all its sentences (a warm cache would make later runs look faster)
    spec = JobSpec("featurize", text_source([mo, trg]), shard_rows=shard_rows, cache={"cache": False})
    import peet_fast.en.parse as parse

    parse._PIPELINES.clear()     # every run as cold as a new process: its spaCy load counts as warm-up
    runner = LocalRunner() if workers == 1 else RayRunner(workers)
    done: list[tuple[float, int]] = []
    last = [0]
    cpu0, busy0, own0 = descendants_cpu_s(), machine_busy_s(), own_cpu_s()
    t0 = time.perf_counter()

    def progress(rows: int, total: int | None = None) -> None:
        if rows == last[0]:
            return                    # the report made once the shards are planned (no shard finished yet)
        done.append((time.perf_counter() - t0, rows - last[0]))
        last[0] = rows

    try:
        run_job(spec, out, runner, progress)
        job_s = time.perf_counter() - t0
        cpu1, busy1, own1 = descendants_cpu_s(), machine_busy_s(), own_cpu_s()
    finally:
        stop_s = 0.0
        if workers > 1:
            import ray

            t = time.perf_counter()
            ray.shutdown()
            stop_s = time.perf_counter() - t
    rate, warm = steady(done, workers, pairs, job_s)
    # the runner starts Ray itself, in the background while the driver computes its first shards: ray.init's time
    # is reported, but it is inside the job's time, not added to it
    ray_s = getattr(runner, "ray_start_s", None) or 0.0
    return {"workers": workers, "pairs": pairs, "shard_rows": shard_rows, "shards": len(done),
            "runner": "in process" if workers == 1 else "local Ray", "ray_start_s": ray_s, "job_s": job_s,
            "ray_stop_s": stop_s,
            "total_s": job_s, "warmup_s": warm, "fixed_overhead_s": warm,
            "steady_pairs_per_s": rate, "end_to_end_pairs_per_s": pairs / job_s,
            "cpu_s": {"driver": own1 - own0, "ray_daemons": cpu1["daemons"] - cpu0["daemons"],
                      "actors": cpu1["actors"] - cpu0["actors"], "machine_busy": busy1 - busy0}}


def add_ratios(runs: list[dict], weak: bool) -> None:
    """Speed-ups and efficiencies against the run with one worker (the first)."""
    base = runs[0]
    for r in runs:
        w = r["workers"]
        if weak:
            s_steady = r["steady_pairs_per_s"] / base["steady_pairs_per_s"]
            s_total = r["end_to_end_pairs_per_s"] / base["end_to_end_pairs_per_s"]
        else:
            s_steady = (base["pairs"] / base["steady_pairs_per_s"]) / (r["pairs"] / r["steady_pairs_per_s"])
            s_total = base["total_s"] / r["total_s"]
        r.update({"speedup_steady": s_steady, "speedup_end_to_end": s_total,
                  "efficiency_steady": s_steady / w, "efficiency_end_to_end": s_total / w})


def same_output(dirs: list[str]) -> bool:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from peet_fast.jobs import shard_paths

    tables = [pa.concat_tables([pq.read_table(p) for p in shard_paths(d)]) for d in dirs]
    return all(t.equals(tables[0]) for t in tables[1:])


def report(res: dict) -> None:
    log(f"source: {res['source']}; cpus: {res['cpus']}; load average at start: {res['load_average']}")
    for mode in ("weak", "strong"):
        if not res[mode]:
            continue
        log(f"{mode} scaling:")
        log(f"{'workers':>7} {'pairs':>8} {'start s':>8} {'warm-up s':>9} {'job s':>7} {'stop s':>6} {'steady/s':>9} "
            f"{'x steady':>8} {'eff':>5} {'x total':>8} {'eff':>5} {'driver cpu':>10} {'ray cpu':>8}")
        for r in res[mode]:
            log(f"{r['workers']:>7} {r['pairs']:>8} {r['ray_start_s']:>8.1f} {r['warmup_s']:>9.1f} {r['job_s']:>7.1f} "
                f"{r['ray_stop_s']:>6.1f} "
                f"{r['steady_pairs_per_s']:>9.1f} {r['speedup_steady']:>8.2f} {r['efficiency_steady']:>5.2f} "
                f"{r['speedup_end_to_end']:>8.2f} {r['efficiency_end_to_end']:>5.2f} {r['cpu_s']['driver']:>10.1f} "
                f"{r['cpu_s']['ray_daemons']:>8.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], metavar="W")
    ap.add_argument("--pairs-per-worker", type=int, default=20_000, metavar="N")
    ap.add_argument("--strong-pairs", type=int, metavar="M", help="strong scaling's total (default N x max W)")
    ap.add_argument("--mode", choices=("weak", "strong", "both"), default="both")
    ap.add_argument("--shards-per-worker", type=int, default=4, metavar="K")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    args = ap.parse_args(argv)
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    CACHE = private_cache()       # a fresh private parse cache (benchmarks/_parse_cache.py)
    if min(args.workers) < 1 or args.pairs_per_worker < 1 or args.shards_per_worker < 1:
        ap.error("--workers, --pairs-per-worker and --shards-per-worker must be at least 1")
    workers = sorted(set(args.workers) | {1})
    strong = args.strong_pairs or args.pairs_per_worker * max(workers)
    from peet_fast.en.synth import synthesize

    source, sents = sentences()
    sizes = ([args.pairs_per_worker * w for w in workers] if args.mode != "strong" else []) + \
        ([strong] if args.mode != "weak" else [])
    pairs = synthesize(sents, max(sizes), args.seed)
    res = {"source": source, "cpus": os.cpu_count(), "load_average": os.getloadavg(), "workers": workers,
           "pairs_per_worker": args.pairs_per_worker, "strong_pairs": strong if args.mode != "weak" else None,
           "shards_per_worker": args.shards_per_worker, "seed": args.seed, "weak": [], "strong": [],
           "strong_identical": None}
    tmp = tempfile.mkdtemp(prefix="peet-fast-scaling-")
    try:
        for mode in ("weak", "strong"):
            if args.mode not in (mode, "both"):
                continue
            dirs = []
            for w in workers:
                n = args.pairs_per_worker * w if mode == "weak" else strong
                mo, trg = write_pairs(pairs, n, tmp)
                dirs.append(os.path.join(tmp, f"{mode}-{w}"))
                log(f"[{mode}] {w} worker(s), {n} pairs ...")
                res[mode].append(run_one(w, mo, trg, n, args.shards_per_worker, dirs[-1]))
            add_ratios(res[mode], weak=mode == "weak")
            if mode == "strong":
                res["strong_identical"] = same_output(dirs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report(res)
    if args.json:
        res["parse_cache"] = {**CACHE, "note": "off in every run (cache=False): each run parses all its sentences"}
        print(json.dumps(res, indent=1))
    return 1 if res["strong_identical"] is False else 0


if __name__ == "__main__":
    sys.exit(main())
