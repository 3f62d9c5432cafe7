"""GLEU: `peet-fast gleu` against the official compute_gleu (cnap/gec-ranking, 2016 update) on the CoNLL-14 and SEEDA
outputs of the shared corpus, with the two CoNLL-14 annotators as references (each annotator's corrected sentences,
from official-2014.combined.m2 by peet_fast.formats.m2.annotator_corrections) and 500 iterations.

Every run is a whole process, as a user runs it: per output file one `peet-fast gleu` process and one official
process, then one process of each over all the files. Reports wall and CPU seconds (children's user + system) of
each, the ratios official / ours, and whether every printed line is identical. The official runs only when
PEET_FAST_GLEU_SCRIPT names its compute_gleu (Python 2.7 with numpy and scipy: PEET_FAST_PYTHON2, default python2;
e.g. PYENV_VERSION=2.7.18). Timings are never pass/fail: the exit status is 1 only when a figure differs.

    PEET_FAST_GLEU_SCRIPT=/tmp/gec-ranking/scripts/compute_gleu PYENV_VERSION=2.7.18 \\
        python benchmarks/gleu.py [--files N] [--json OUT]
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
CORPORA = ROOT / ".." / "shared" / "corpora"
sys.path.insert(0, str(ROOT))


def timed(cmd: list[str], cwd: Path) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} failed ({res.returncode}): {res.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, res.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", type=Path, default=CORPORA, help="the shared corpora directory")
    ap.add_argument("--files", type=int, default=0, help="only the first N output files (default: all)")
    ap.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = ap.parse_args()

    from peet_fast.formats.m2 import annotator_corrections, read_m2

    conll = args.corpora / "conll14"
    systems = sorted((conll / "systems").glob("*.txt"))
    if args.files:
        systems = systems[:args.files]
    source = conll / "systems" / "conll14-task-INPUT.txt"
    script = os.environ.get("PEET_FAST_GLEU_SCRIPT")
    python2 = os.environ.get("PEET_FAST_PYTHON2", "python2")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        m2 = conll / "official-2014.combined.m2"
        refs = []
        for a, lines in annotator_corrections(read_m2(str(m2)), str(m2)).items():
            refs.append(work / f"ref{a}.txt")
            refs[-1].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        common = ["-s", str(source), "-r", *map(str, refs), "-o"]
        ours_cmd = [sys.executable, "-m", "peet_fast.cli", "gleu", *common]
        official_cmd = [python2, script, *common] if script else None
        rows = []
        identical = True
        print(f"{'file':<26} {'ours s':>7} {'cpu':>6} {'official s':>10} {'cpu':>7} {'x wall':>7} {'x cpu':>7}  same")
        for path in [*systems, None]:
            files = [str(p) for p in systems] if path is None else [str(path)]
            label = f"all {len(systems)} files" if path is None else path.name
            wall, cpu, out = timed(ours_cmd + files, work)
            row = {"file": label, "ours_wall": wall, "ours_cpu": cpu, "ours": out.decode().splitlines()}
            line = f"{label:<26} {wall:>7.2f} {cpu:>6.2f}"
            if official_cmd:
                owall, ocpu, oout = timed(official_cmd + files, work)
                same = oout == out
                identical &= same
                row.update(official_wall=owall, official_cpu=ocpu, identical=same)
                line += f" {owall:>10.2f} {ocpu:>7.2f} {owall / wall:>7.1f} {ocpu / cpu:>7.1f}  {'yes' if same else 'NO'}"
            rows.append(row)
            print(line, flush=True)
    per_file = [r for r in rows if not r["file"].startswith("all ")]
    total = {k: sum(r[k] for r in per_file) for k in ("ours_wall", "ours_cpu", "official_wall", "official_cpu")
             if all(k in r for r in per_file)}
    if "official_wall" in total:
        print(f"per-file processes in all: ours {total['ours_wall']:.2f} s wall / {total['ours_cpu']:.2f} s CPU, "
              f"official {total['official_wall']:.2f} s / {total['official_cpu']:.2f} s: "
              f"{total['official_wall'] / total['ours_wall']:.1f}x wall, "
              f"{total['official_cpu'] / total['ours_cpu']:.1f}x CPU; every line identical: "
              f"{'yes' if identical else 'NO'}")
    else:
        print(f"per-file processes in all: ours {total['ours_wall']:.2f} s wall / {total['ours_cpu']:.2f} s CPU "
              "(set PEET_FAST_GLEU_SCRIPT to run the official)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "total": total, "identical": identical}, indent=1))
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
