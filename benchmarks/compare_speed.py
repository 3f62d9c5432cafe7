"""`peet-fast compare` vs errant_compare on the same M2 files, in one run (reading + scoring, imports excluded).

English: the CoNLL-14 official M2 (2 annotators) as reference and hypothesis M2 files made by `peet-fast m2` from
conll14-task-INPUT.txt -> each system (made once, in a temporary directory; not timed). errant_compare runs in this
process (errant.commands.compare_m2.main with its stdout captured); its report must equal ours byte for byte.
Chinese: the MuCGEC reference M2 files (ChERRANT's compare cannot be run here; our time alone, and the counts are
checked against scores.json).

    python benchmarks/compare_speed.py [--systems AMU CAMB ...] [--repeat N]"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "corpora"
MODES = ("cs", "cse", "ds", "dt")


def errant_report(hyp: Path, ref: Path, mode: str) -> str:
    from errant.commands import compare_m2

    saved, sys.argv = sys.argv, ["errant_compare", "-hyp", str(hyp), "-ref", str(ref), "-" + mode]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            compare_m2.main()
    finally:
        sys.argv = saved
    return out.getvalue()


def our_report(hyp: Path, ref: Path, mode: str, lang: str = "en") -> str:
    from peet_fast.evaluation import inputs as C
    from peet_fast.languages import span_rules
    from peet_fast.metrics import span

    h, r = C.load_m2_pair(str(hyp), str(ref))
    sentences = span.m2_sentences(h), span.m2_sentences(r)
    return span.format_results(span.compare_edits(*sentences, span.SpanOptions(mode=mode, **span_rules(lang))))


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t)
    return best, value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", nargs="+", default=["AMU", "CAMB", "UFC"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    CACHE = private_cache()       # a fresh private parse cache (benchmarks/_parse_cache.py)
    print(f"parse cache: a fresh private directory ({CACHE['dir']}), removed at exit")
    if not SHARED.is_dir():
        print(f"needs {SHARED}", file=sys.stderr)
        return 1
    sysdir = SHARED / "conll14" / "systems"
    ref = SHARED / "conll14" / "official-2014.combined.m2"
    with tempfile.TemporaryDirectory() as tmp:
        total_e = total_o = 0.0
        for name in args.systems:
            hyp = Path(tmp) / f"{name}.m2"
            subprocess.run([sys.executable, "-m", "peet_fast.cli", "m2", "-orig", str(sysdir / "conll14-task-INPUT.txt"),
                            "-cor", str(sysdir / f"conll14-task-{name}.txt"), "-out", str(hyp)], check=True,
                           capture_output=True)
            for mode in MODES:
                te, exp = best_of(lambda: errant_report(hyp, ref, mode), args.repeat)
                to, got = best_of(lambda: our_report(hyp, ref, mode), args.repeat)
                assert got == exp, (name, mode)
                total_e += te
                total_o += to
                print(f"conll14 {name:<5} -{mode:<3}  errant_compare {te * 1000:7.1f} ms   peet-fast {to * 1000:7.1f} ms"
                      f"   {te / to:5.2f}x")
        print(f"conll14 total: errant_compare {total_e:.2f} s, peet-fast {total_o:.2f} s, {total_e / total_o:.2f}x")
        # whole commands, as a user runs them (process start and imports included)
        hyp = Path(tmp) / f"{args.systems[0]}.m2"
        bin_dir = Path(sys.executable).parent
        cmds = {"errant_compare": [str(bin_dir / "errant_compare"), "-hyp", str(hyp), "-ref", str(ref)],
                "peet-fast compare": [sys.executable, "-m", "peet_fast.cli", "compare", "--hyp", str(hyp), "--ref",
                                      str(ref)]}
        walls = {}
        for label, cmd in cmds.items():
            walls[label], out = best_of(lambda: subprocess.run(cmd, check=True, capture_output=True, text=True).stdout,
                                        args.repeat)
        print(f"command line, {args.systems[0]}: errant_compare {walls['errant_compare']:.2f} s, peet-fast compare "
              f"{walls['peet-fast compare']:.2f} s, {walls['errant_compare'] / walls['peet-fast compare']:.2f}x")
    refdir = SHARED / "mucgec" / "reference"
    scores = json.loads((refdir / "scores.json").read_text("utf-8"))
    for key in ("chERRANT_default_all", "chERRANT_first"):
        exp = scores[key]
        t, rep = best_of(lambda: our_report(refdir / exp["hyp"], refdir / exp["ref"], "cs", "zh"), args.repeat)
        counts = rep.strip().splitlines()[-2].split("\t")[:3]
        assert list(map(int, counts)) == [exp["TP"], exp["FP"], exp["FN"]], key
        print(f"mucgec {key}: peet-fast {t * 1000:.1f} ms (TP/FP/FN {'/'.join(counts)} = ChERRANT's)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
