"""`rank --by-type 3` against errant_compare -cat 3 on the CoNLL-14 shared-task systems (issue 44).

For each of the 12 conll14-task-* systems over all 1,312 sentences: errant's own errant_parallel writes the system's
M2 and the M2 of the official gold's two annotators' corrections (tests/errant_oracle.py), errant_compare -cat 3
scores it; `peet-fast rank --by-type 3` scores all twelve at once. Prints how many (system, type) rows are identical
(TP, FP, FN, P, R, F0.5) and the CPU seconds of each side.

    python benchmarks/by_type.py [--sentences N] [--work DIR]
"""
from __future__ import annotations

import argparse
import json
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
CONLL = ROOT / ".." / "shared" / "corpora" / "conll14"


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cat_rows(report: str) -> dict:
    lines = report.splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.startswith("Category"))
    out = {}
    for ln in lines[start + 1:]:
        if not ln.strip():
            break
        name, tp, fp, fn, p, r, f = ln.split()
        out[name] = (int(tp), int(fp), int(fn), float(p), float(r), float(f))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=0, help="the first N sentences only (default: all)")
    ap.add_argument("--work", help="a directory for the M2 files (default: a temporary one)")
    args = ap.parse_args()
    import errant_oracle

    from peet_fast.cli import main as cli
    from peet_fast.formats.m2 import annotator_references, read_m2

    work = Path(args.work or tempfile.mkdtemp(prefix="by-type-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    blocks = (CONLL / "official-2014.combined.m2").read_text(encoding="utf-8").strip().split("\n\n")
    n = args.sentences or len(blocks)
    (work / "gold.m2").write_text("\n\n".join(blocks[:n]) + "\n\n", encoding="utf-8")
    parsed = read_m2(str(work / "gold.m2"))
    (work / "src.txt").write_text("".join(" ".join(b.source) + "\n" for b in parsed), encoding="utf-8")
    refs = []
    for k, lines in enumerate(annotator_references(parsed)):
        refs.append(str(work / f"ref{k}.txt"))
        Path(refs[-1]).write_text("".join(ln + "\n" for ln in lines), encoding="utf-8")
    systems = {}
    for path in sorted((CONLL / "systems").glob("conll14-task-*.txt")):
        name = path.stem.replace("conll14-task-", "")
        if name != "INPUT":
            systems[name] = work / f"{name}.txt"
            systems[name].write_text("".join(path.read_text(encoding="utf-8").splitlines(True)[:n]), encoding="utf-8")
    t0, w0 = cpu(), time.time()
    errant_oracle.run(["-orig", str(work / "src.txt"), "-cor", *refs, "-out", str(work / "ref.m2")])
    expected = {}
    for name, path in systems.items():
        errant_oracle.run(["-orig", str(work / "src.txt"), "-cor", str(path), "-out", str(work / f"{name}.m2")])
        expected[name] = cat_rows(errant_oracle.errant_compare(work / f"{name}.m2", work / "ref.m2", "-cat", "3"))
    oracle_cpu = cpu() - t0
    t0 = cpu()
    code = cli(["rank", "--hyp", *(f"{k}={v}" for k, v in systems.items()), "--ref", str(work / "gold.m2"),
                "--metric", "wer", "--by-type", "3", "--summary", str(work / "summary.json")])
    ours_cpu = cpu() - t0
    assert code == 0
    got = {s["name"]: s["types"] for s in json.loads((work / "summary.json").read_text())["by_type"]["systems"]}
    same = total = 0
    differ = []
    for name, rows in expected.items():
        mine = {t: (r["TP"], r["FP"], r["FN"], r["P"], r["R"], r["F0.5"]) for t, r in got[name].items()}
        for t in sorted(set(rows) | set(mine)):
            total += 1
            if rows.get(t) == mine.get(t):
                same += 1
            else:
                differ.append((name, t, rows.get(t), mine.get(t)))
    print(f"{len(systems)} systems x {n} sentences: {same} of {total} (system, type) rows identical to "
          f"errant_compare -cat 3 (TP, FP, FN, P, R, F0.5)")
    for row in differ[:20]:
        print("  differs:", row)
    print(f"errant_parallel + errant_compare: {oracle_cpu:.1f} CPU-s; peet-fast rank --metric wer --by-type 3 "
          f"(1000 resamples, in this process, the parse cache as found): {ours_cpu:.1f} CPU-s; wall {time.time() - w0:.0f} s in all")
    print(re.sub(r"\s+", " ", f"work files in {work}"))


if __name__ == "__main__":
    main()
