"""GREEN, CLEME and CLEME2.0 against their reference implementations, on the same input, in one run: the 27
CoNLL-14 / SEEDA outputs of the shared corpus (13 shared-task files with the INPUT, 14 SEEDA outputs), with the two
CoNLL-14 annotators as references (official-2014.combined.m2).

- GREEN: peet-fast's `green` (sentence_stats + corpus and sentence scores of every output) against gec-metrics'
  GREEN (score_corpus, then score_sentence, of every output) run in its own venv (tests/metrics/gecm.py:
  $PEET_GEC_METRICS_PYTHON or ../venv-gecm); the seconds each spends scoring (imports and reading excluded), the
  ratio, and whether every figure is identical.
- CLEME / CLEME2.0 (only with $PEET_FAST_CLEME_CHECKOUT, a THUKElab/CLEME checkout, and $PEET_FAST_CLEME_PYTHON, a
  Python with its dependencies): --cleme-systems outputs (default 1, AMU) are written as M2 by peet-fast's English
  annotator; CLEME's evaluate() (both modes; tests/fixtures/cleme2/run_cleme.py) and peet-fast's cleme and cleme2
  (from the same M2 files: reading, chunks, both modes, corpus and sentence statistics) are timed, and their corpus
  figures compared.

- --rank: one `rank` run (peet_fast.evaluation.rank.rank_systems, the gold M2 as references, --bootstrap 200) of
  all the outputs by green, cleme and cleme2, and the seconds rank spent in each metric (its `timings`).

Timings are never pass/fail: the exit status is 1 only when a figure differs.

    python benchmarks/reference_metrics.py [--json OUT] [--cleme-systems N] [--rank]"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / ".." / "shared" / "corpora"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "metrics"))


def outputs(corpora: Path) -> tuple[list[str], list[list[str]], list[str], list[list[str]]]:
    """(sources, references, output names, outputs) of CoNLL-14 and SEEDA."""
    from peet_fast.formats.m2 import annotator_references, read_m2
    from peet_fast.io import read_parallel

    gold = corpora / "conll14" / "official-2014.combined.m2"
    blocks = read_m2(str(gold))
    files = sorted((corpora / "conll14" / "systems").glob("*.txt"))
    return ([" ".join(b.source) for b in blocks], annotator_references(blocks, str(gold)), [f.stem for f in files],
            read_parallel([str(f) for f in files]))


def green(sources, refs, hyps) -> dict:
    import gecm

    from peet_fast.metrics.base import EvalSet, get_metric

    t0 = time.perf_counter()
    metric = get_metric("green")
    data = EvalSet(sources, refs)
    ours = {"corpus": [], "sentence": []}
    for h in hyps:
        stats = metric.sentence_stats(h, data)
        ours["corpus"].append(metric.corpus_score(stats))
        ours["sentence"].append(metric.sentence_scores(stats).tolist())
    seconds = time.perf_counter() - t0
    row = {"metric": "green", "outputs": len(hyps), "ours_s": seconds}
    if gecm.python() is None:
        print("GREEN: gec-metrics' venv not found; peet-fast only", file=sys.stderr)
        return row
    theirs = gecm.run("green", {}, sources, hyps, refs, keep_time=True)
    row.update(reference_s=theirs["corpus_seconds"] + theirs["sentence_seconds"],
               reference_corpus_s=theirs["corpus_seconds"],
               identical=ours["corpus"] == theirs["corpus"] and ours["sentence"] == theirs["sentence"])
    row["ratio"] = row["reference_s"] / seconds
    return row


def cleme(sources, refs, names, hyps, count: int, corpora: Path) -> list[dict]:
    checkout, python = os.environ.get("PEET_FAST_CLEME_CHECKOUT"), os.environ.get("PEET_FAST_CLEME_PYTHON")
    if not (checkout and python):
        print("CLEME: set PEET_FAST_CLEME_CHECKOUT and PEET_FAST_CLEME_PYTHON to time THUKElab/CLEME",
              file=sys.stderr)
        return []
    import peet_fast
    from peet_fast.metrics.base import get_metric
    from peet_fast.metrics.cleme import cleme_sentences

    gold = corpora / "conll14" / "official-2014.combined.m2"
    picked = [k for k, n in enumerate(names) if n == "conll14-task-AMU"] + \
        [k for k, n in enumerate(names) if n != "conll14-task-AMU"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in picked[:count]:
            path = Path(tmp) / f"{names[k]}.m2"
            path.write_text(peet_fast.m2(sources, [hyps[k]]), encoding="utf-8")
            t0 = time.perf_counter()
            sents = cleme_sentences(path, gold)
            ours = {}
            for mode in ("dependent", "independent"):
                for weighted in (False, True):
                    for name in ("cleme", "cleme2"):
                        m = get_metric(name, mode=mode, weighted=weighted)
                        stats = m.stats_of(sents)
                        ours[(name, mode, weighted)] = (m.corpus_score(stats), m.sentence_scores(stats))
            seconds = time.perf_counter() - t0
            proc = subprocess.run([python, str(ROOT / "tests" / "fixtures" / "cleme2" / "run_cleme.py"), checkout,
                                   str(path), str(gold)], capture_output=True, text=True, cwd=checkout)
            if proc.returncode != 0:
                raise SystemExit(f"CLEME failed: {proc.stderr[-2000:]}")
            fig = next(iter(json.loads(proc.stdout).values()))
            same = True
            for mode in ("dependent", "independent"):
                for weighted in (False, True):
                    tag = "weighted" if weighted else "unweighted"
                    same &= ours[("cleme", mode, weighted)][0] == fig[mode][f"prf_corpus_{tag}"]["f"]
                    same &= abs(ours[("cleme2", mode, weighted)][0] - fig[mode][f"heuo_corpus_{tag}"]["com"]) < 1e-12
            ref_s = sum(fig[m]["evaluate_seconds"] for m in ("dependent", "independent"))
            rows.append({"metric": "cleme+cleme2", "output": names[k], "ours_s": seconds, "reference_s": ref_s,
                         "ratio": ref_s / seconds, "identical": bool(same)})
    return rows


def rank_run(names, hyps, corpora: Path) -> dict:
    import peet_fast
    from peet_fast.evaluation.rank import RankOptions, rank_systems
    from peet_fast.languages import Annotators
    from peet_fast.metrics.base import EvalSet
    from peet_fast.formats.m2 import annotator_references, read_m2

    gold = corpora / "conll14" / "official-2014.combined.m2"
    blocks = read_m2(str(gold))
    timings: dict = {}
    t0 = time.perf_counter()
    data = EvalSet([" ".join(b.source) for b in blocks], annotator_references(blocks, str(gold)), blocks, str(gold),
                   Annotators("en"))
    rank_systems(data, names, hyps, ["green", "cleme", "cleme2"], RankOptions(200, 0, names=names, timings=timings))
    return {"metric": "rank", "outputs": len(hyps), "total_s": time.perf_counter() - t0, **timings}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", type=Path, default=CORPORA, help="the shared corpora directory")
    ap.add_argument("--cleme-systems", type=int, default=1, help="outputs scored by CLEME (default 1: AMU)")
    ap.add_argument("--rank", action="store_true", help="also time one rank run by green, cleme and cleme2")
    ap.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = ap.parse_args()
    sources, refs, names, hyps = outputs(args.corpora)
    rows = [green(sources, refs, hyps), *cleme(sources, refs, names, hyps, args.cleme_systems, args.corpora)]
    if args.rank:
        r = rank_run(names, hyps, args.corpora)
        print(f"rank of {r['outputs']} outputs: " + ", ".join(f"{k} {v:.2f} s" for k, v in r.items()
                                                           if k.endswith("_s") or k in ("green", "cleme", "cleme2",
                                                                                        "wer", "bootstrap")))
        rows.append(r)
    for r in rows:
        if r["metric"] == "rank":
            continue
        ratio = f"{r['ratio']:.0f}x" if "ratio" in r else "-"
        print(f"{r['metric']:<13} {r.get('output', str(r.get('outputs', '')) + ' outputs'):<22} ours "
              f"{r['ours_s']:.3f} s  reference {r.get('reference_s', float('nan')):.2f} s  {ratio:>6}  "
              f"identical: {r.get('identical', '-')}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0 if all(r.get("identical", True) for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
