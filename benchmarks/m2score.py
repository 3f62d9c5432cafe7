"""MaxMatch (M2): `peet-fast m2scorer` against the official NUS m2scorer 3.2 on the CoNLL-14 outputs.

    python benchmarks/m2score.py [--corpora DIR] [--official PATH/m2scorer.py] [--official-files N]
                                 [--official-timeout S] [--cache DIR] [--verbose-check] [--json OUT]

Inputs: the 27 system outputs in DIR/conll14/systems (12 CoNLL-14 submissions, the unchanged INPUT and 14 SEEDA
outputs) and the 5 PEET CoNLL-14 files (DIR/peet/CONLL14/*.txt), each against DIR/conll14/official-2014.combined.m2.

peet-fast runs as one process per file (`peet-fast m2scorer SYSTEM GOLD`, timed end to end: start, import, read,
score). The official scorer (--official, or $PEET_FAST_M2SCORER; run with $PEET_FAST_PYTHON2 or `python2`) is slow
(minutes per file), so it runs on the first --official-files files only (default 3), niced, each under
--official-timeout seconds; its stdout and time are cached in --cache (default /tmp/m2oracle: NAME.v.out or NAME.out
and NAME.time) and reused, so a later run compares every file the cache holds. With --verbose-check peet-fast also
runs with -v and its report is compared byte for byte with a cached official -v report.

Prints per file: peet-fast's seconds, P/R/F, the official's seconds and whether the figures (and -v reports) are
identical; then the totals and the speed-up on the files where both ran."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DEFAULT_CORPORA = (HERE / ".." / "shared" / "corpora").resolve()


def inputs(corpora: Path) -> list[tuple[str, Path]]:
    systems = sorted((corpora / "conll14" / "systems").glob("*.txt"))
    peet = sorted((corpora / "peet" / "CONLL14").glob("*.txt"))
    return [(p.stem, p) for p in systems] + [(f"peet-{p.stem}", p) for p in peet]


def run_ours(system: Path, gold: Path, verbose: bool) -> tuple[float, bytes]:
    cmd = [sys.executable, "-m", "peet_fast.cli", "m2scorer", *(["-v"] if verbose else []), str(system), str(gold)]
    t = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, check=True, cwd=HERE)
    return time.perf_counter() - t, res.stdout


def run_official(python2: str, script: str, system: Path, gold: Path, timeout: float,
                 cache: Path, name: str) -> tuple[float | None, bytes | None]:
    """The official's stdout (-v) and seconds, from the cache or by running it (niced, under timeout)."""
    for suffix in (".v.out", ".out"):
        out, tfile = cache / f"{name}{suffix}", cache / f"{name}.time"
        rc = cache / f"{name}.rc"
        if out.exists() and rc.exists() and rc.read_text().strip() == "0":
            words = tfile.read_text().split() if tfile.exists() else []
            secs = float(words[-1]) if words else None
            return secs, out.read_bytes()
    if not script:
        return None, None
    cache.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    try:
        res = subprocess.run(["nice", "-n", "19", python2, script, "-v", str(system), str(gold)],
                             capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"  official: {name} timed out after {timeout:.0f} s", file=sys.stderr)
        return None, None
    secs = time.perf_counter() - t
    if res.returncode != 0:
        print(f"  official: {name} failed: {res.stderr.decode(errors='replace')[-200:]}", file=sys.stderr)
        return None, None
    (cache / f"{name}.v.out").write_bytes(res.stdout)
    (cache / f"{name}.time").write_text(f"{secs:.2f}\n")
    (cache / f"{name}.rc").write_text("0\n")
    return secs, res.stdout


def summary(stdout: bytes) -> list[str]:
    return stdout.decode("utf-8", "replace").splitlines()[-3:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--official", default=os.environ.get("PEET_FAST_M2SCORER", ""),
                    help="the official scripts/m2scorer.py (default $PEET_FAST_M2SCORER)")
    ap.add_argument("--python2", default=os.environ.get("PEET_FAST_PYTHON2", "python2"))
    ap.add_argument("--official-files", type=int, default=3, help="run the official on at most N uncached files")
    ap.add_argument("--official-timeout", type=float, default=1800)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/m2oracle"))
    ap.add_argument("--verbose-check", action="store_true", help="also compare -v reports byte for byte")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    gold = args.corpora / "conll14" / "official-2014.combined.m2"
    files = inputs(args.corpora)
    if not gold.exists() or not files:
        ap.error(f"no CoNLL-14 gold/systems under {args.corpora}")
    python2 = shutil.which(args.python2) or args.python2
    rows = []
    runs_left = args.official_files
    print(f"{'file':28} {'peet-fast s':>11} {'P':>7} {'R':>7} {'F0.5':>7} {'official s':>10}  identical")
    for name, path in files:
        secs, out = run_ours(path, gold, False)
        off_secs, off_out = run_official(python2, "", path, gold, 0, args.cache, name)
        if off_out is None and args.official and runs_left > 0:
            runs_left -= 1
            off_secs, off_out = run_official(python2, args.official, path, gold, args.official_timeout, args.cache,
                                             name)
        same = None
        vsame = None
        if off_out is not None:
            same = summary(out) == summary(off_out)
            if args.verbose_check and b">> Chosen Annotator" in off_out:
                _, vout = run_ours(path, gold, True)
                vsame = vout == off_out
        p, r, f = (line.split(":")[1].strip() for line in summary(out))
        mark = "-" if same is None else ("yes" if same else "NO")
        if vsame is not None:
            mark += " (-v yes)" if vsame else " (-v NO)"
        print(f"{name:28} {secs:11.2f} {p:>7} {r:>7} {f:>7} {off_secs if off_secs else float('nan'):10.1f}  {mark}",
              flush=True)
        rows.append({"file": name, "seconds": secs, "precision": p, "recall": r, "f0.5": f,
                     "official_seconds": off_secs, "identical": same, "verbose_identical": vsame})
    systems = [r for r in rows if not r["file"].startswith("peet-")]
    total = sum(r["seconds"] for r in systems)
    both = [r for r in rows if r["official_seconds"]]
    print(f"\n{len(systems)} CoNLL-14/SEEDA outputs: {total:.1f} s in all (peet-fast, one process each); "
          f"all {len(rows)} files: {sum(r['seconds'] for r in rows):.1f} s")
    if both:
        ours = sum(r["seconds"] for r in both)
        theirs = sum(r["official_seconds"] for r in both)
        print(f"official on {len(both)} files: {theirs:.0f} s vs peet-fast {ours:.1f} s: {theirs / ours:.0f}x; "
              f"figures identical on {sum(bool(r['identical']) for r in both)} of {len(both)}")
    bad = [r["file"] for r in rows if r["identical"] is False or r["verbose_identical"] is False]
    if bad:
        print("DIFFERENT:", ", ".join(bad))
    if args.json:
        args.json.write_text(json.dumps({"files": rows, "total_seconds": total}, indent=1) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
