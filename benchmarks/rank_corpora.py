"""`peet-fast rank` on the shared corpora with human judgements: time per phase and correlations (findings, not
pass/fail).

    python benchmarks/rank_corpora.py [--bootstrap 1000] [--seed 0] [--lines N] [--json OUT]

Runs, each in this process with one spaCy pipeline loaded untimed beforehand (peet_fast.evaluation.rank.rank_systems, the code
behind `peet-fast rank`):

1. GMEG FCE and Wiki, dev and test separately (each split has its own human CSV, `{split}/{domain}-corpus-scores.csv`):
   7 outputs (amu, lstm, lstm-r, marian, nus, transformer, source) x 4 references (ref0..ref3); the CSV's `ref` row
   (the references' own score) is skipped, as `--human-ignore ref` does.
2. CoNLL-2014: the 13 `conll14-task-*` outputs (12 submissions + INPUT) and the 14 `seeda-*` outputs, against the two
   annotators' references (applied from official-2014.combined.m2 into a temporary directory: annotator 0 and 1,
   edits of one annotator applied left to right; noop edits ignored). One scoring run for all 27 outputs; then the
   correlations with each human CSV over the systems it scores: gjg_EW (13 systems), seeda_{EW,TS}_{sent,edit}
   (the 14 SEEDA outputs and INPUT).

Timings: the score phase (the `score` path: annotate + features + model), WER, and bootstrap (CIs, paired p-values,
correlations), and the ratio (WER + bootstrap) / score: what `rank` adds on top of `score` in one run. Correlation
signs are raw: PEET and WER are lower-is-better, so agreement with the humans is negative.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPORA = (HERE.parent / ".." / "shared" / "corpora").resolve()
sys.path.insert(0, str(HERE.parent))

from peet_fast.en.annotator import Annotator  # noqa: E402
from peet_fast.io import read_lines  # noqa: E402
from peet_fast.metrics.stats import correlations  # noqa: E402
from peet_fast.peet.model import load_model  # noqa: E402
from peet_fast.evaluation.rank import RankOptions, rank_systems, read_human_scores  # noqa: E402
from peet_fast.languages import Annotators  # noqa: E402
from peet_fast.metrics.base import EvalSet  # noqa: E402
from peet_fast.formats.systems import system_name  # noqa: E402

GMEG_SYSTEMS = ["amu", "lstm", "lstm-r", "marian", "nus", "transformer", "source"]


def m2_references(path: Path, annotators=(0, 1)) -> list[list[str]]:
    """Each annotator's corrected sentences from an M2 file (edits applied left to right; noop ignored)."""
    refs: list[list[str]] = [[] for _ in annotators]
    blocks = path.read_text("utf-8").strip("\n").split("\n\n")
    for block in blocks:
        lines = block.split("\n")
        src = lines[0][2:].split(" ") if lines[0] != "S" else []
        src = [t for t in src if t]
        edits: dict[int, list[tuple[int, int, list[str]]]] = {a: [] for a in annotators}
        for line in lines[1:]:
            span, etype, corr, _, _, ann = line[2:].split("|||")
            a = int(ann)
            if etype == "noop" or a not in edits:
                continue
            start, end = map(int, span.split())
            edits[a].append((start, end, corr.split() if corr not in ("-NONE-", "") else []))
        for k, a in enumerate(annotators):
            out, pos = [], 0
            for start, end, toks in sorted(edits[a], key=lambda e: (e[0], e[1])):
                out.extend(src[pos:start])
                out.extend(toks)
                pos = max(pos, end)
            out.extend(src[pos:])
            refs[k].append(" ".join(out))
    return refs


def run(annotator, model, hyp_files, ref_files, human_csv, ignore, args) -> dict:
    hyps = [read_lines(f)[:args.lines] for f in hyp_files]
    refs = [read_lines(f)[:args.lines] for f in ref_files]
    names = [system_name(f) for f in hyp_files]
    timings: dict = {}
    human = read_human_scores(human_csv, names, ignore) if human_csv else None
    t = time.perf_counter()
    data = EvalSet(None, refs, annotator=Annotators.given(annotator), options={"model": model})
    ranking = rank_systems(data, hyp_files, hyps, options=RankOptions(args.bootstrap, args.seed, human,
                                                                      timings=timings))
    total = time.perf_counter() - t
    return {"lines": len(refs[0]), "systems": len(hyps), "references": len(refs), "total_s": round(total, 3),
            **{f"{k}_s": round(v, 3) for k, v in timings.items()},
            "rank_overhead_ratio": round((timings["wer"] + timings["bootstrap"]) / timings["score"], 4),
            "ranking": [{"name": s.name, "peet": round(s.peet, 4), "ci": [round(s.ci_low, 4), round(s.ci_high, 4)],
                         "p_next": s.p_next, "wer": round(s.wer, 5), "human": s.human} for s in ranking.systems],
            "correlation": ranking.correlation, "_ranking": ranking}


def fmt_corr(c: dict) -> str:
    return (f"n={c['systems']:>2}  PEET: Spearman {c['peet']['spearman']:+.3f} Pearson {c['peet']['pearson']:+.3f}   "
            f"WER: Spearman {c['wer']['spearman']:+.3f} Pearson {c['wer']['pearson']:+.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lines", type=int, default=None, help="keep the first N lines of every corpus")
    ap.add_argument("--json", metavar="OUT")
    args = ap.parse_args()
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    CACHE = private_cache()       # a fresh private parse cache (benchmarks/_parse_cache.py)
    if not CORPORA.is_dir():
        print(f"shared corpora not found at {CORPORA}", file=sys.stderr)
        return 0
    model = load_model()
    annotator = Annotator()
    annotator.parse(["Warm up the pipeline ."])          # load spaCy untimed
    results: dict = {"bootstrap": args.bootstrap, "seed": args.seed, "cpus": os.cpu_count(), "runs": {}}

    for split in ("dev", "test"):
        for domain in ("fce", "wiki"):
            base = CORPORA / "gmeg" / split / domain
            r = run(annotator, model, [str(base / s) for s in GMEG_SYSTEMS],
                    [str(base / f"ref{k}") for k in range(4)], str(base.parent / f"{domain}-corpus-scores.csv"),
                    ["ref"], args)
            r.pop("_ranking")
            results["runs"][f"gmeg/{split}/{domain}"] = r
            print(f"gmeg {split}/{domain}: {r['lines']} lines x {r['systems']} systems x {r['references']} refs: "
                  f"{r['total_s']:.1f} s (score {r['score_s']:.1f}, WER {r['wer_s']:.2f}, bootstrap "
                  f"{r['bootstrap_s']:.2f}); {fmt_corr(r['correlation'])}", flush=True)

    conll = CORPORA / "conll14"
    with tempfile.TemporaryDirectory() as tmp:
        ref_files = []
        for k, lines in enumerate(m2_references(conll / "official-2014.combined.m2")):
            p = Path(tmp) / f"conll14-ref{k}.txt"
            p.write_text("".join(line + "\n" for line in lines), "utf-8")
            ref_files.append(str(p))
        hyp_files = sorted(str(p) for p in (conll / "systems").glob("*.txt"))
        r = run(annotator, model, hyp_files, ref_files, None, [], args)
        ranking = r.pop("_ranking")
        names = [s.name for s in ranking.systems]
        corr = {}
        for csv in sorted((conll / "human").glob("*.csv")):
            human = read_human_scores(str(csv), names)
            have = [s for s in ranking.systems if s.name in human]
            corr[csv.stem] = correlations({"peet": [s.peet for s in have], "wer": [s.wer for s in have]},
                                          [human[s.name] for s in have])
        r["correlation"] = corr
        results["runs"]["conll14"] = r
        print(f"conll14: {r['lines']} lines x {r['systems']} systems x {r['references']} refs: {r['total_s']:.1f} s "
              f"(score {r['score_s']:.1f}, WER {r['wer_s']:.2f}, bootstrap {r['bootstrap_s']:.2f})")
        for name, c in corr.items():
            print(f"  {name:<16} {fmt_corr(c)}")
    if args.json:
        results["parse_cache"] = CACHE
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=2)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
