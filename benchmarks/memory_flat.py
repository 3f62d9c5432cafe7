"""Memory of a featurize job as distinct sentences pass through: RSS of the driver and of each worker after every shard.

    python benchmarks/memory_flat.py [--sentences N] [--workers W] [--shard-rows R] [--cache] [--root DIR]
                                     [--base FILE] [--json OUT]

Every sentence is new: pair k is a clean base sentence (the shared PEET corrections when present, else the test
fixture's) with two words no other pair has spliced in (a name and a noun made from the syllables of k's number,
and k's number), then learner errors injected by peet-fast's synth; MO and TRG of a pair differ, so a run of N
distinct sentences has N / 2 pairs (--sentences 1000000 is the issue's million). The pairs are written to a
temporary JSONL file and `peet-fast featurize --pairs ... --out DIR --workers W` runs as a subprocess (with
`--no-cache` unless --cache) with the peet_fast this Python imports, or that of --root DIR (another checkout, to
measure its code: it must be built, `pip install -e DIR` or `python setup.py build_ext --inplace`; an unbuilt one is
refused, since its import would fall back to the installed package).

Sampled every half second from /proc: RSS and RssAnon of the driver (the command's process) and of each Ray worker
(the processes titled `ray::...` below the driver, idle ones left out: the actors, `_ShardActor`, and Ray's
agents, `DashboardAgent` and `RuntimeEnvAgent`, each named by its class and pid, one series per process however its
title changes from task to task); one row per shard as its part file appears (the last shard's from the last sample
before the command ended: its process is gone when the file is seen), and the peaks, against the documented budget
(BUDGET_MB: docs/jobs.md "Memory" and peet_fast/cluster/example-cluster.yaml give the same figures). Growth is
reported per 10,000 distinct sentences, from a least-squares line through the per-shard RSS after the first quarter
of the run (the pipeline's own warm-up and the last-sample row left out). A measurement, not a test: the tests
of the bound are tests/en/test_memory.py."""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "corpora" / "peet"
# the documented memory budget (docs/jobs.md "Memory", the example cluster YAML): a Ray worker actor's RSS and the
# driver's (the command's process), at peak, with shards of up to 10,000 pairs, however many distinct sentences
BUDGET_MB = {"actor": 1000, "driver": 750}
SYLLABLES = ("ba", "ko", "ri", "mu", "te", "zo", "fi", "la", "ne", "pu", "sa", "vo", "ge", "di", "hu", "ja")


def spelled(k: int, capital: bool) -> str:
    """k spelled in SYLLABLES (base 16, at least three syllables): distinct for distinct k."""
    out = []
    while True:
        k, d = divmod(k, 16)
        out.append(SYLLABLES[d])
        if not k and len(out) >= 3:
            break
    word = "".join(out)
    return word.capitalize() if capital else word


def base_sentences(path: str | None) -> list[str]:
    if path:
        files = [Path(path)]
    else:
        files = sorted(SHARED.glob("*/*_EC.txt")) or [HERE.parent / "tests" / "fixtures" / "sample" / "reference.txt"]
    seen = dict.fromkeys(line.strip() for f in files for line in f.read_text(encoding="utf-8").splitlines())
    return [s for s in seen if 4 <= len(s.split()) <= 60]


def distinct_pairs(bases: list[str], n_pairs: int, seed: int):
    """(mo, trg) pairs whose 2 * n_pairs sentences are all distinct (see the module's docstring)."""
    from peet_fast.en.synth import synthesize

    rng = random.Random(seed)
    k = 0
    while k < n_pairs:
        chunk = []
        for j in range(k, min(n_pairs, k + 2000)):
            words = rng.choice(bases).split()
            at = rng.randrange(len(words))
            new = [spelled(j, True), "and", "the", spelled(j * 7919 + 13, False) + "s", "of", str(j)]
            chunk.append(" ".join(words[:at] + new + words[at:]))
        for mo, trg in synthesize(chunk, len(chunk), seed + k):
            if mo == trg:                        # no error drawn: one more, so that MO is its own sentence
                mo = " ".join(["So", *trg.split()])
            yield mo, trg
        k += len(chunk)


def process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process."""
    out = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read().decode("utf-8", "replace")
            with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            continue
        out[int(entry.name)] = (int(stat.rsplit(")", 1)[1].split()[1]), cmd)
    return out


def memory_mb(pid: int) -> tuple[float, float] | None:
    """(VmRSS, RssAnon) of a process in MB, or None when it is gone."""
    got = {}
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "RssAnon"):
                    got[key] = int(value.split()[0]) / 1024
    except OSError:
        return None
    return (got["VmRSS"], got.get("RssAnon", float("nan"))) if "VmRSS" in got else None


def workers_of(driver: int) -> list[tuple[int, str]]:
    """(pid, title) of the busy Ray worker processes below the driver (their titles start with ray::, idle ones say
    ray::IDLE)."""
    table = process_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [driver]
    while todo:
        for pid in children.get(todo.pop(), []):
            todo.append(pid)
            cmd = table[pid][1]
            if cmd.startswith("ray::") and not cmd.startswith("ray::IDLE"):
                # the class, not the title: an actor is `ray::_ShardActor` idle and `ray::_ShardActor.run` busy
                found.append((pid, cmd.split()[0][len("ray::"):].split(".")[0]))
    return sorted(found)


def slope_per_10k(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of (sentences, MB) points, in MB per 10,000 sentences."""
    if len(points) < 2:
        return None
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return None if not sxx else 1e4 * sum((x - mx) * (y - my) for x, y in points) / sxx


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sentences", type=int, default=1_000_000, help="distinct sentences (pairs x 2; default 1 M)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--shard-rows", type=int, default=2_500)
    ap.add_argument("--cache", action="store_true", help="keep the parse cache on (a private one)")
    ap.add_argument("--root", help="a built checkout whose peet_fast runs the job (default: the one this Python "
                    "imports)")
    ap.add_argument("--base", help="clean base sentences, one per line (default: the shared PEET corrections)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--json", help="write the per-shard series as JSON here")
    args = ap.parse_args(argv)
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    cache = private_cache()
    from peet_fast.formats.pairs import write_pairs

    n_pairs = args.sentences // 2
    env = {**os.environ, "PEET_FAST_RAY_MIN_SENTENCES": "0"}
    if args.root:
        ext = Path(args.root) / "peet_fast" / "_ext"
        if not any(p.suffix in (".so", ".pyd") for p in ext.glob("*.*")):
            print(f"memory_flat.py: --root {args.root}: {ext} holds no compiled kernels (an unbuilt checkout, whose "
                  f"import would fall back to the installed peet_fast): build it first (pip install -e "
                  f"{args.root}, or python setup.py build_ext --inplace there)", file=sys.stderr)
            return 2
        env["PYTHONPATH"] = os.pathsep.join([str(Path(args.root).resolve()), os.environ.get("PYTHONPATH", "")])
    with tempfile.TemporaryDirectory() as tmp:
        pairs_path = Path(tmp) / "pairs.jsonl"
        write_pairs(pairs_path, distinct_pairs(base_sentences(args.base), n_pairs, args.seed))
        out = Path(tmp) / "out"
        cmd = [sys.executable, "-m", "peet_fast.cli", "featurize", "--pairs", str(pairs_path), "--out", str(out),
               "--workers", str(args.workers), "--shard-rows", str(args.shard_rows)]
        cmd += [] if args.cache else ["--no-cache"]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        rows, peaks, seen_parts = [], {"driver": 0.0, "workers": 0.0, "total": 0.0}, 0
        last = {}
        while proc.poll() is None:
            time.sleep(0.5)
            sample = {"driver": memory_mb(proc.pid)}
            for pid, title in workers_of(proc.pid):
                sample[f"{title} {pid}"] = memory_mb(pid)
            sample = {k: v for k, v in sample.items() if v is not None}
            if "driver" not in sample:
                continue
            last = sample
            peaks["driver"] = max(peaks["driver"], sample["driver"][0])
            peaks["workers"] = max([peaks["workers"]] + [v[0] for k, v in sample.items() if k != "driver"])
            peaks["total"] = max(peaks["total"], sum(v[0] for v in sample.values()))
            parts = len(list(out.glob("part-*.parquet"))) if out.is_dir() else 0
            if parts > seen_parts:
                seen_parts = parts
                row = {"shards": parts, "sentences": 2 * min(n_pairs, parts * args.shard_rows),
                       "s": round(time.perf_counter() - t0, 1),
                       **{k: {"rss_mb": round(v[0], 1), "anon_mb": round(v[1], 1)} for k, v in sample.items()}}
                rows.append(row)
                shown = "  ".join(f"{k} {v['rss_mb']:7.1f} ({v['anon_mb']:7.1f} anon)" for k, v in row.items()
                                  if isinstance(v, dict))
                print(f"{parts:>5} shards {row['sentences']:>9,} sentences {row['s']:8.1f} s  {shown}", flush=True)
        parts = len(list(out.glob("part-*.parquet"))) if out.is_dir() else 0
        if parts > seen_parts and last:         # the last shard(s): the command ended before a sample saw them
            rows.append({"shards": parts, "sentences": 2 * min(n_pairs, parts * args.shard_rows),
                         "s": round(time.perf_counter() - t0, 1), "from_last_sample": True,
                         **{k: {"rss_mb": round(v[0], 1), "anon_mb": round(v[1], 1)} for k, v in last.items()}})
            print(f"{parts:>5} shards {rows[-1]['sentences']:>9,} sentences (the last sample before the command "
                  f"ended)", flush=True)
        err = proc.stderr.read().decode("utf-8", "replace")
        if proc.returncode:
            print(err, file=sys.stderr)
            return proc.returncode
    wall = time.perf_counter() - t0
    tail = [r for r in rows if r["sentences"] >= args.sentences / 4 and not r.get("from_last_sample")]
    growth = {}
    for who in sorted({k for r in rows for k in r if isinstance(r[k], dict)}):
        for kind in ("rss_mb", "anon_mb"):
            growth[f"{who} {kind}"] = slope_per_10k([(r["sentences"], r[who][kind]) for r in tail if who in r])
    res = {"sentences": 2 * n_pairs, "pairs": n_pairs, "workers": args.workers, "shard_rows": args.shard_rows,
           "root": args.root or os.path.dirname(os.path.dirname(__import__("peet_fast").__file__)),
           "cache": args.cache, "budget_mb": BUDGET_MB, "wall_s": round(wall, 1),
           "sentences_per_s": round(2 * n_pairs / wall, 1), "peak_mb": {k: round(v, 1) for k, v in peaks.items()},
           "growth_mb_per_10k_sentences": {k: (None if v is None else round(v, 2)) for k, v in growth.items()},
           "last_sample": last, "series": rows, "parse_cache": cache}
    actor_peak = max([0.0] + [v["rss_mb"] for r in rows for k, v in r.items()
                              if isinstance(v, dict) and k.startswith("_ShardActor")])
    print(f"{2 * n_pairs:,} distinct sentences in {wall:.0f} s on {args.workers} worker(s); peak RSS: driver "
          f"{peaks['driver']:.0f} MB, a Ray process {peaks['workers']:.0f} MB, together {peaks['total']:.0f} MB")
    within = peaks["driver"] <= BUDGET_MB["driver"] and peaks["workers"] <= BUDGET_MB["actor"]
    print(f"  the documented budget, actor {BUDGET_MB['actor']} MB and driver {BUDGET_MB['driver']} MB: "
          f"{'within it' if within else 'EXCEEDED'} (an actor's RSS after a shard: at most {actor_peak:.0f} MB)")
    for k, v in growth.items():
        if v is not None:
            print(f"  growth after the first quarter, {k}: {v:+.2f} MB per 10,000 sentences")
    if args.json:
        from peet_fast.io import atomic_write
        with atomic_write(args.json) as fh:
            json.dump(res, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
