"""`peet-fast meta-eval`: metrics' system-, window- and sentence-level agreement with the human judgments of SEEDA
or GJG15 (peet_fast.meta_eval; docs/meta-eval.md)."""
from __future__ import annotations

import argparse
import os
import sys

from peet_fast.cli._common import add_output_option, add_pipeline_options, load_annotator, model_summary
from peet_fast.io import InputError, check_not_input, check_output, write_json

HUMAN_TITLES = {"ew_sent": "EW sent", "ew_edit": "EW edit", "ts_sent": "TS sent", "ts_edit": "TS edit",
                "ew": "EW", "ts": "TS"}


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "meta-eval", help="meta-evaluate metrics against SEEDA's or GJG15's human judgments",
        description="Score every system of a meta-evaluation dataset with each metric once, then: the Pearson and "
                    "Spearman correlation of the metric's system scores with each human system score (SEEDA: "
                    "Expected Wins and TrueSkill of its sentence- and edit-based judgments; GJG15: its Table 3), "
                    "with --window N the same over each N systems adjacent in the human ranking, and the pairwise "
                    "accuracy and Kendall's tau of its sentence scores over the pairs of outputs an annotator ranked "
                    "differently (counted as gec-metrics and SEEDA count them: a metric tie is a loss of the first "
                    "system), with a tie-aware variant. Lower-is-better metrics (peet, wer) have their sign flipped, "
                    "so a positive figure is agreement. --bootstrap adds 95 % intervals and significance tests of "
                    "every two metrics (Williams' test; paired bootstrap at the sentence level).")
    p.add_argument("--data", nargs=2, required=True, metavar=("NAME", "DIR"),
                   help="the dataset, seeda or gjg15, and a clone of its repository (tmu-nlp/SEEDA; "
                        "grammatical/evaluation)")
    p.add_argument("--gold", required=True, metavar="CONLL14.m2",
                   help="the CoNLL-14 test set's gold M2 (official-2014.combined.m2): the references are its two "
                        "annotators' corrections")
    p.add_argument("--metric", nargs="+", required=True, metavar="NAME",
                   help="metrics of the registry (peet, wer, errant, m2, gleu, ...)")
    p.add_argument("--system-set", metavar="SET",
                   help="SEEDA's systems: base (default), +INPUT, +REF-F_GPT-3.5 (+fluency) or all; GJG15: all")
    p.add_argument("--aggregation", default="corpus", choices=("corpus", "ts", "ew"),
                   help="a metric's system score: its corpus score (default), or its sentence scores turned into "
                        "pairwise wins and aggregated by TrueSkill (ts) or Expected Wins (ew), as gec-metrics' "
                        "rank_systems(aggregation=...)")
    p.add_argument("--level", nargs="+", default=["system", "sentence"], choices=("system", "sentence"),
                   help="what to compute (default: both)")
    p.add_argument("--window", type=int, metavar="N", help="window analysis over N adjacent systems")
    p.add_argument("--bootstrap", type=int, default=0, metavar="B",
                   help="B resamples (sentences for the system level, ranking items for the sentence level) for "
                        "95%% intervals and the paired tests (default 0: none)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="bootstrap seed (default 0)")
    p.add_argument("--model", metavar="MODEL.json", help="the PEET model of the peet metric (default: the published)")
    add_output_option(p, "--summary", metavar="FILE.json", help="write every figure as JSON")
    add_output_option(p, "--plot", metavar="DIR",
                      help="write PNG plots there: window lines, pairwise heatmaps, metric vs human scatter")
    add_pipeline_options(p)
    return p


def _fmt(x) -> str:
    return "-" if x is None else f"{x:+.3f}"


def print_tables(summary: dict, out=sys.stdout) -> None:
    """The system-level table (Pearson r and Spearman rho per human score), the sentence-level one (accuracy, Kendall
    and the tie-aware accuracy per judgments), the windows (with --window) and, with --bootstrap, the tests of every
    two metrics (the summary always holds them)."""
    metrics = summary["metrics"]
    width = max(len("metric"), *(len(m) for m in metrics))
    print(f"{summary['data']} {summary['system_set']}: {len(summary['systems'])} systems, {summary['sentences']} "
          f"sentences; system scores: {summary['aggregation']}; lower-is-better metrics sign-flipped", file=out)
    first = next(iter(metrics.values()))
    if "system" in first:
        humans = list(first["system"])
        print(f"{'metric':<{width}}" + "".join(f"  {HUMAN_TITLES[h] + ' r':>10}  {'rho':>6}" for h in humans), file=out)
        for name, m in metrics.items():
            print(f"{name:<{width}}" + "".join(f"  {_fmt(m['system'][h]['pearson']):>10}  "
                                                f"{_fmt(m['system'][h]['spearman']):>6}" for h in humans), file=out)
    if any("sentence" in m for m in metrics.values()):
        judg = list(next(m for m in metrics.values() if "sentence" in m)["sentence"])
        print(f"{'metric':<{width}}" + "".join(f"  {j + ' acc':>9}  {'tau':>6}  {'tie-aware':>9}" for j in judg),
              file=out)
        for name, m in metrics.items():
            if "sentence" not in m:
                continue
            cells = [m["sentence"][j] for j in judg]
            print(f"{name:<{width}}" + "".join(
                f"  {_fmt(c['accuracy']).lstrip('+'):>9}  {_fmt(c['kendall']):>6}  "
                f"{_fmt(c['tie_aware']['accuracy']).lstrip('+'):>9}" for c in cells), file=out)
    if summary.get("window_size"):
        for name, m in metrics.items():
            for h, rows in m["window"].items():
                print(f"window {summary['window_size']} {name} {HUMAN_TITLES[h]}: " + " ".join(
                    f"{r['from']}-{r['to']}:{_fmt(r['pearson'])}/{_fmt(r['spearman'])}" for r in rows), file=out)
    for c in summary.get("comparisons", []) if summary.get("bootstrap") else []:
        a, b = c["metrics"]
        parts = [f"{HUMAN_TITLES[h]} p={_p(w['p'])}" for h, w in c["system"].items()]
        parts += [f"{j} p={_p(v['p'])}" for j, v in c.get("sentence", {}).items()]
        print(f"{a} > {b}? Williams (system, Pearson): " + ", ".join(parts[:len(c['system'])])
              + ("; paired bootstrap (sentence): " + ", ".join(parts[len(c['system']):]) if "sentence" in c else ""),
              file=out)


def _p(x) -> str:
    return "-" if x is None else f"{x:.3f}"


def run(args) -> int:
    name, root = args.data
    check_output(args.summary, [root, args.gold, args.model])
    if args.plot:
        if os.path.exists(args.plot) and not os.path.isdir(args.plot):
            raise InputError(args.plot, "--plot names a directory; this is a file")
        check_not_input(args.plot, [root, args.gold, args.model, args.summary])
    if args.window is not None and args.window < 2:
        raise InputError("--window", "must be at least 2")
    if args.bootstrap < 0:
        raise InputError("--bootstrap", "must be at least 0")
    if args.seed < 0:
        raise InputError("--seed", "must be a non-negative integer")
    if not os.path.isfile(args.gold):
        raise InputError(args.gold, "no such file (the CoNLL-14 gold M2)")
    from peet_fast.meta_eval.metric.evaluator import meta_eval

    model = None
    if "peet" in args.metric or args.model:
        from peet_fast.peet.model import load_model

        model = load_model(args.model)
    me = meta_eval(name, root, args.gold, args.system_set, annotator=lambda: load_annotator(args), model=model)
    if len(set(args.metric)) != len(args.metric):
        raise InputError("--metric", "a metric is named twice")
    summary = me.summary(args.metric, args.aggregation, args.window, args.bootstrap, args.seed, args.level)
    if args.summary:
        write_json(args.summary, {**summary, "gold": args.gold, "root": root,
                                  "model": None if model is None else model_summary(model, args)})
    if args.plot:
        from peet_fast.meta_eval.metric.plots import write_plots

        for path in write_plots(summary, args.plot, inputs=[root, args.gold, args.model, args.summary]):
            print(f"wrote {path}", file=sys.stderr)
    print_tables(summary)
    return 0
