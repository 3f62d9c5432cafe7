"""Agreement of correction sets: `peet-fast agreement` against errant_parallel + errant_compare, in one run.

    python benchmarks/agreement.py [--corpora DIR] [--sets NAME ...] [--json OUT]

Default input: the three CoNLL-14 post-edited sets of the PEET data (DIR/peet/CONLL14/{source,gector,gecpd}_EC.txt),
SRC = the S lines of DIR/conll14/official-2014.combined.m2. Each set is scored against the other two.

Both sides run as processes, timed end to end (process start, spaCy load, parsing, scoring):
- peet-fast: one `peet-fast agreement --src SRC --ref SETS... --summary`;
- errant, as it is scripted today: per set X, `errant_parallel -orig SRC -cor X` (X's M2), `errant_parallel -orig
  SRC -cor OTHERS...` (the references' M2) and `errant_compare -hyp X.m2 -ref OTHERS.m2` (errant_parallel through
  tests/errant_oracle.py, which gives errant the pipeline peet-fast uses under its installed name).
The TP/FP/FN/P/R/F of every set must be equal; the script prints both times and the ratio.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DEFAULT_CORPORA = (HERE / ".." / "shared" / "corpora").resolve()
SETS = ("source_EC", "gector_EC", "gecpd_EC")


def run(cmd: list[str]) -> str:
    """stdout of a command; exits with its stderr when it fails."""
    env = dict(os.environ, PYTHONPATH=str(HERE))
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr[-2000:]}")
    return res.stdout


def write_src(m2: Path, out: Path) -> int:
    """The S lines of an M2 file, one sentence per line; returns the count."""
    lines = [ln[2:].rstrip("\n") for ln in m2.read_text("utf-8").splitlines() if ln.startswith("S ")]
    out.write_text("".join(ln + "\n" for ln in lines), "utf-8")
    return len(lines)


def errant_side(src: Path, sets: list[Path], tmp: Path, model: str) -> dict:
    """{set name: (TP, FP, FN, P, R, F)} by errant_parallel + errant_compare, one set at a time."""
    oracle = [sys.executable, str(HERE / "tests" / "errant_oracle.py"), "--spacy-model", model]
    compare = Path(sys.executable).with_name("errant_compare")
    out = {}
    for x in sets:
        others = [s for s in sets if s != x]
        hyp, ref = tmp / f"{x.stem}.m2", tmp / f"refs_of_{x.stem}.m2"
        run([*oracle, "-orig", str(src), "-cor", str(x), "-out", str(hyp)])
        run([*oracle, "-orig", str(src), "-cor", *map(str, others), "-out", str(ref)])
        report = run([str(compare), "-hyp", str(hyp), "-ref", str(ref)])
        line = [ln for ln in report.splitlines() if re.match(r"^\d+\t", ln)][-1].split("\t")
        out[x.stem] = (int(line[0]), int(line[1]), int(line[2]), float(line[3]), float(line[4]), float(line[5]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--sets", nargs="+", default=list(SETS), help="set names under DIR/peet/CONLL14 (no .txt)")
    ap.add_argument("--json", type=Path, help="write the figures as JSON")
    args = ap.parse_args()
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    CACHE = private_cache()       # a fresh private parse cache (benchmarks/_parse_cache.py)
    from peet_fast.en.parse import default_model_name

    model = default_model_name()
    sets = [args.corpora / "peet" / "CONLL14" / f"{name}.txt" for name in args.sets]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        src = tmp / "src.txt"
        n = write_src(args.corpora / "conll14" / "official-2014.combined.m2", src)
        peet = [sys.executable, "-m", "peet_fast.cli", "agreement", "--src", str(src), "--ref", *map(str, sets),
                "--spacy-model", model, "--summary", str(tmp / "ours.json")]
        t0 = time.perf_counter()
        table = run(peet)
        t_ours = time.perf_counter() - t0
        ours = {s["name"]: (s["TP"], s["FP"], s["FN"], s["P"], s["R"], s["F"])
                for s in json.loads((tmp / "ours.json").read_text("utf-8"))["sets"]}
        t0 = time.perf_counter()
        theirs = errant_side(src, sets, tmp, model)
        t_errant = time.perf_counter() - t0
    print(table, end="")
    print(f"{n} sentences x {len(sets)} sets; peet-fast agreement {t_ours:.1f} s, errant_parallel + errant_compare "
          f"{t_errant:.1f} s: {t_errant / t_ours:.1f}x")
    same = ours == theirs
    print("counts equal (TP/FP/FN/P/R/F of every set)" if same else f"COUNTS DIFFER: ours {ours} errant {theirs}")
    if args.json:
        args.json.write_text(json.dumps({"sentences": n, "sets": args.sets, "peet_fast_s": t_ours,
                                         "errant_s": t_errant, "ratio": t_errant / t_ours, "ours": ours,
                                         "errant": theirs, "equal": same, "parse_cache": CACHE}, indent=2) + "\n", "utf-8")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
