"""Time `peet-fast excgec` on the EXCGEC test set (1,500 samples) against the EXCGEC evaluator's time.

The evaluator (THUKElab/EXCGEC exp-cgec/evaluation.py) needs an old pydantic, LTP (and with it PyTorch), WordNet and
its own environment; it was not re-run here: its time is the given figure, ~127 s for this test set on this machine
(``--reference-seconds``). Ours is measured here, best of ``--repeat`` runs:

- ``end-to-end``: the command as a user runs it (a fresh interpreter: imports, reading and validating both files,
  explanation metrics, loading the Chinese aligner's resources, annotating every distinct (source, target) pair,
  CLEME and ChERRANT), via ``python -m peet_fast.cli``: wall time (best and median of ``--repeat`` runs) and the
  process's CPU time (user + system), which a loaded machine inflates far less than the wall time;
- ``in-process``: the same work inside this process (no interpreter start-up), split into its stages.

``--tree DIR`` (repeatable) times the command of other source trees too (another checkout or worktree, e.g. the main
branch for a before/after figure; each must have its kernels built), in the same run.

    python benchmarks/excgec_eval.py [--data ../shared/corpora/excgec] [--confusion .../confusion_dict.txt]
                                     [--repeat 5] [--tree ../main]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpora"


def end_to_end(root: Path, hyp: Path, ref: Path, confusion: Path | None, repeat: int) -> dict:
    """Wall and CPU seconds of ``repeat`` runs of the command from source tree ``root``: best and median."""
    walls, cpus = [], []
    env = {**os.environ, "PYTHONPATH": str(root)}
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "peet_fast.cli", "excgec", "--hyp", str(hyp), "--ref", str(ref),
               "--summary", os.path.join(tmp, "s.json")]
        if confusion is not None:
            cmd += ["--confusion", str(confusion)]
        for _ in range(repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=root, env=env)
            walls.append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {"wall_best": min(walls), "wall_median": statistics.median(walls), "cpu_best": min(cpus),
            "cpu_median": statistics.median(cpus)}


def in_process(hyp: Path, ref: Path, confusion: Path | None, repeat: int) -> dict:
    from peet_fast.evaluation import excgec as X
    from peet_fast.zh import ZhAnnotator

    best: dict = {}
    for _ in range(repeat):
        stages = {}
        t = time.perf_counter()
        h, r = X.read_excgec(hyp), X.read_excgec(ref)
        X.check_aligned(h, r, str(hyp), str(ref))
        stages["read + validate"] = time.perf_counter() - t
        t = time.perf_counter()
        X.explanation_scores(h, r)
        stages["explanation metrics"] = time.perf_counter() - t
        t = time.perf_counter()
        annotator = ZhAnnotator(confusion=confusion, t2s=False)
        stages["aligner resources"] = time.perf_counter() - t
        t = time.perf_counter()
        X.correction_scores(h, r, annotator)
        stages["char edits + CLEME + ChERRANT"] = time.perf_counter() - t
        stages["total"] = sum(stages.values())
        for k, v in stages.items():
            best[k] = min(best.get(k, float("inf")), v)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=SHARED / "excgec", help="folder with test.hyp.json, test.ref.json")
    ap.add_argument("--confusion", type=Path, default=SHARED / "mucgec" / "resources" / "confusion_dict.txt",
                    help="ChERRANT's confusion set (the evaluator's); skipped when missing")
    ap.add_argument("--reference-seconds", type=float, default=127.0,
                    help="the EXCGEC evaluator's time on the same files (default: the given ~127 s)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tree", type=Path, action="append", default=[],
                    help="also time the command from this source tree (repeatable)")
    args = ap.parse_args()
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    CACHE = private_cache()       # a fresh private parse cache (benchmarks/_parse_cache.py)
    print(f"parse cache: a fresh private directory ({CACHE['dir']}), removed at exit")
    hyp, ref = args.data / "test.hyp.json", args.data / "test.ref.json"
    confusion = args.confusion if args.confusion.is_file() else None
    print(f"EXCGEC test set: {hyp.name} vs {ref.name}; confusion set: {confusion or 'none'}; {args.repeat} runs; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    stages = in_process(hyp, ref, confusion, args.repeat)
    for k, v in stages.items():
        print(f"  in-process {k:<30} {v:7.3f} s (best)")
    secs = args.reference_seconds
    for root in [ROOT, *args.tree]:
        e = end_to_end(root.resolve(), hyp, ref, confusion, args.repeat)
        print(f"  end-to-end {str(root):<30} wall {e['wall_best']:.3f} s best, {e['wall_median']:.3f} s median; "
              f"CPU {e['cpu_best']:.3f} s best, {e['cpu_median']:.3f} s median")
        print(f"    EXCGEC evaluator (given) {secs:.0f} s -> {secs / e['wall_best']:.0f}x (best wall), "
              f"{secs / e['wall_median']:.0f}x (median wall), {secs / e['cpu_median']:.0f}x (median CPU)")
    print(f"  in-process total: {secs / stages['total']:.0f}x")


if __name__ == "__main__":
    main()
