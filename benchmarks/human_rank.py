"""Human rankings from judgments: the TrueSkill bootstrap of GJG15 (1,000 runs of TS.py -n 2 -d 0 over
grammatical/evaluation's data/judgments.xml, then cluster.py's rank ranges) by `peet_fast.meta_eval.human.ranking`
against TS.py's loop on the `trueskill` package's rate() (the oracle of the tests), in one run on the same input.

The package's run is timed on --package-runs runs (default 1: a run is ~110,000 rate() calls) and its time for
1,000 runs extrapolated from them. Also: Expected Wins with its 1,000-resample bootstrap, EW.pl's own run when
PEET_FAST_EW_PL names GJG15's EW.pl (Perl with XML::Twig; ~130 CPU-s), and with --spread K the spread of the
1,000-run TrueSkill means over K seeds next to the published Table 3c figures (K x the 1,000-run time). Reports wall
and CPU seconds (this process); timings are never pass/fail.

    python benchmarks/human_rank.py [--package-runs N] [--spread K] [--json OUT]
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / ".." / "shared" / "corpora"
sys.path.insert(0, str(ROOT))


def timed(fn):
    """(wall seconds, CPU seconds, result) of fn()."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def package_run(systems, judgments, rng: random.Random) -> dict[str, float]:
    """One run of TS.py -n 2 -d 0 on the trueskill package (next_comparison.get, random.choice, rate())."""
    import trueskill

    n_matches = sum(len(v) for v in judgments.values()) + 1
    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=0.5 * (n_matches / 40.0), tau=0.0, draw_probability=0.25)
    rating = {s: env.create_rating() for s in systems}
    for _ in range(n_matches):
        a = sorted(((r.sigma ** 2, s) for s, r in rating.items()), reverse=True)[0][1]
        others = [s for s in systems if s != a and judgments.get(tuple(sorted((a, s))))]
        weights = [1.0 / math.exp(abs(rating[a].mu - rating[s].mu)) for s in others]
        target, acc, b = rng.random() * sum(weights), 0.0, others[-1]
        for s, w in zip(others, weights):
            acc += w
            if target < acc:
                b = s
                break
        pair = tuple(sorted((a, b)))
        (r1,), (r2,) = env.rate([(rating[pair[0]],), (rating[pair[1]],)], ranks=rng.choice(judgments[pair]))
        rating[pair[0]], rating[pair[1]] = r1, r2
    return {s: r.mu for s, r in rating.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", type=Path, default=CORPORA, help="the shared corpora directory")
    ap.add_argument("--runs", type=int, default=1000, help="TrueSkill runs of ours (default 1000)")
    ap.add_argument("--package-runs", type=int, default=1, help="runs on the trueskill package (default 1)")
    ap.add_argument("--spread", type=int, default=0, metavar="K", help="K seeds of --runs runs each, for the spread")
    ap.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = ap.parse_args()

    from peet_fast.meta_eval.human.ranking import human_rank
    from peet_fast.meta_eval.human.judgments import pair_table, read_judgments

    path = args.corpora / "judgments" / "gjg15" / "data" / "judgments.xml"
    published = {r["system"].removeprefix("conll14-task-"): r
                 for r in csv.DictReader(open(args.corpora / "conll14" / "human" / "gjg_TS.csv"))}
    judgments = read_judgments(path)
    pairs = judgments.pairs()
    figures: dict = {"judgments": str(path), "pairs": len(pairs), "runs": args.runs}
    print(f"GJG15: {len(judgments)} ranking items, {len(pairs)} pairwise judgments, {len(pairs.systems)} systems")

    wall, cpu, ts = timed(lambda: human_rank(judgments, "ts", args.runs, seed=0))
    figures["ours_ts"] = {"wall": wall, "cpu": cpu}
    print(f"ours: {args.runs} TrueSkill runs + rank ranges: {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"({1000 * cpu / args.runs:.1f} ms CPU a run)")
    same = sum(s.range_text == published[s.name]["range"] for s in ts.systems)
    print(f"  rank ranges equal to Table 3c's: {same} of {len(ts.systems)}; max |score - published| "
          f"{max(abs(s.score - float(published[s.name]['score'])) for s in ts.systems):.4f}")

    counts, table = pairs.counts(), pair_table(len(pairs.systems))
    by_pair = {}
    for i, a in enumerate(pairs.systems):
        for j, b in enumerate(pairs.systems):
            if i < j:
                c = counts[table[i, j]]
                by_pair[(a, b)] = [(1, 2)] * int(c[0]) + [(1, 1)] * int(c[1]) + [(2, 1)] * int(c[2])
    if args.package_runs:
        rng = random.Random(0)
        wall, cpu, _ = timed(lambda: [package_run(pairs.systems, by_pair, rng) for _ in range(args.package_runs)])
        per_run = cpu / args.package_runs
        figures["package_ts"] = {"wall": wall, "cpu": cpu, "runs": args.package_runs, "cpu_per_run": per_run}
        ours_per_run = figures["ours_ts"]["cpu"] / args.runs
        print(f"trueskill package: {args.package_runs} run(s) of TS.py's loop: {wall:.2f} s wall, {cpu:.2f} s CPU "
              f"({per_run:.2f} s CPU a run; 1,000 runs: {per_run * 1000 / 3600:.2f} CPU-hours)")
        print(f"  ratio package / ours, CPU per run: {per_run / ours_per_run:.0f}x")
        figures["ratio_cpu"] = per_run / ours_per_run

    wall, cpu, ew = timed(lambda: human_rank(judgments, "ew", 1000, seed=0))
    figures["ours_ew"] = {"wall": wall, "cpu": cpu}
    print(f"ours: Expected Wins + 1,000 bootstrap resamples: {wall:.2f} s wall, {cpu:.2f} s CPU")
    script = os.environ.get("PEET_FAST_EW_PL")
    if script:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        with open(path, "rb") as fh:
            out = subprocess.run(["perl", script], stdin=fh, capture_output=True, text=True, check=True).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        pcpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        theirs = {ln.split()[0]: ln.split()[1] for ln in out.splitlines() if not ln.startswith("+")}
        equal = sum(format(s.score, ".4f") == theirs.get(s.name) for s in ew.systems)
        figures["ew_pl"] = {"wall": time.perf_counter() - t0, "cpu": pcpu, "equal_4_decimals": equal}
        print(f"EW.pl: {time.perf_counter() - t0:.1f} s wall, {pcpu:.1f} s CPU; scores equal at 4 decimals: "
              f"{equal} of {len(ew.systems)}; ratio EW.pl / ours, CPU: {pcpu / cpu:.0f}x")

    if args.spread:
        means = []
        for seed in range(args.spread):
            r = human_rank(judgments, "ts", args.runs, seed=seed)
            means.append({s.name: s.score for s in r.systems})
        print(f"spread of the mean of {args.runs} runs over {args.spread} seeds (published: Table 3c):")
        print(f"  {'system':<8} {'published':>9} {'mean':>8} {'sd':>7} {'min':>8} {'max':>8} {'se (1 set)':>10}")
        rows = {}
        for s in ts.systems:
            vals = [m[s.name] for m in means]
            mean = sum(vals) / len(vals)
            sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / max(1, len(vals) - 1))
            se = s.sd / math.sqrt(args.runs)
            rows[s.name] = {"published": float(published[s.name]["score"]), "mean": mean, "sd": sd,
                            "min": min(vals), "max": max(vals), "se_one_set": se}
            print(f"  {s.name:<8} {float(published[s.name]['score']):>+9.3f} {mean:>+8.4f} {sd:>7.4f} "
                  f"{min(vals):>+8.4f} {max(vals):>+8.4f} {se:>10.4f}")
        figures["spread"] = rows
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
