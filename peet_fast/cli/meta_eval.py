"""`peet-fast meta-eval`: metrics' system-, window- and sentence-level agreement with the human judgments of SEEDA
or GJG15, or of a researcher's own outputs, judgments and human scores (--outputs; meta_eval.metric.own)
(peet_fast.meta_eval; docs/meta-eval.md)."""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile

from peet_fast.cli._common import (add_io_option, add_output_option, add_pipeline_options, annotators, model_summary,
                                    print_signatures)
from peet_fast.io import InputError, check_not_input, check_output

HUMAN_TITLES = {"ew_sent": "EW sent", "ew_edit": "EW edit", "ts_sent": "TS sent", "ts_edit": "TS edit",
                "ew": "EW", "ts": "TS", "human": "human"}


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "meta-eval", help="meta-evaluate metrics against SEEDA's or GJG15's human judgments, or your own",
        description="Score every system of a meta-evaluation dataset with each metric once, then: the Pearson and "
                    "Spearman correlation of the metric's system scores with each human system score (SEEDA: "
                    "Expected Wins and TrueSkill of its sentence- and edit-based judgments; GJG15: its Table 3), "
                    "with --window N the same over each N systems adjacent in the human ranking, and the pairwise "
                    "accuracy and Kendall's tau of its sentence scores over the pairs of outputs an annotator ranked "
                    "differently (counted as gec-metrics and SEEDA count them: a metric tie is a loss of the first "
                    "system), with a tie-aware variant. Lower-is-better metrics (peet, wer) have their sign flipped, "
                    "so a positive figure is agreement. --bootstrap adds 95 % intervals and significance tests of "
                    "every two metrics (Williams' test; paired bootstrap at the sentence level). Own data instead of "
                    "--data: --outputs, --gold or --src/--ref, and --judgments and/or --human CSV.")
    p.add_argument("--data", nargs=2, metavar=("NAME", "DIR"),
                   help="the dataset, seeda or gjg15, and a clone of its repository (tmu-nlp/SEEDA; "
                        "grammatical/evaluation); or own data: --outputs")
    p.add_argument("--gold", metavar="GOLD.m2",
                   help="with --data: the CoNLL-14 test set's gold M2 (official-2014.combined.m2), the references its "
                        "annotators' corrections; with --outputs: any gold M2 of the outputs' sentences (its S lines "
                        "the sources, its annotators the references), or give --src and --ref")
    own = p.add_argument_group("own data (instead of --data)")
    own.add_argument("--outputs", nargs="+", metavar="[NAME=]FILE",
                     help="the systems' outputs, one sentence per line; a system is named NAME, or after its file")
    own.add_argument("--judgments", metavar="JUDGMENTS.xml",
                     help="Appraise ranking XML judging those outputs (every system it ranks needs an output; "
                          "src-id: their lines): the sentence level, and the human system scores unless --human")
    own.add_argument("--human", metavar="CSV",
                     help="human system scores, the 'system,score' CSV rank --human reads (higher is better); "
                          "alone (no --judgments): the system level only")
    own.add_argument("--human-method", choices=("ew", "ts"), default="ew",
                     help="the human system scores from --judgments: Expected Wins (default) or TrueSkill, as "
                          "human-rank --method")
    own.add_argument("--human-runs", type=int, default=1000, metavar="N",
                     help="--human-method ts: the TrueSkill runs averaged (default 1000, as human-rank)")
    own.add_argument("--human-ignore", nargs="+", default=[], metavar="NAME",
                     help="--human rows to skip (e.g. 'ref', a row scoring the references)")
    own.add_argument("--human-subset", action="store_true",
                     help="--human rows naming no output are left out (without it: an error)")
    own.add_argument("--src-base", type=int, choices=[0, 1], default=None,
                     help="--judgments' src-id counts lines from 1 or 0 (default: as human-rank guesses it)")
    own.add_argument("--tie-order", choices=("name", "outputs"), default="name",
                     help="the sentence level counts a metric tie as a loss of the earlier system of a pair: earlier "
                          "by name (default: the figures do not depend on the order of --outputs) or in the order "
                          "of --outputs (SEEDA's and GJG15's convention; their orders: docs/meta-eval.md)")
    add_io_option(own, "src", metavar="SRC", help="the sources, line-aligned with the outputs (without --gold)")
    add_io_option(own, "ref", nargs="+", metavar="FILE", help="references, line-aligned (without --gold)")
    p.add_argument("--metric", nargs="+", required=True, metavar="NAME",
                   help="metrics of the registry (peet, wer, errant, m2, gleu, ...)")
    p.add_argument("--system-set", nargs="+", metavar="SET",
                   help="SEEDA's systems: base (default), +INPUT, +REF-F_GPT-3.5 (+fluency) or all, or several of "
                        "them (each system, sentence and metric is scored once for all of them); GJG15: all")
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


def _ci(cell: dict, key: str, signed: bool = True) -> str:
    """ " [lo,hi]" of a figure's bootstrap interval, or "" without one."""
    ci = cell.get(f"{key}_ci")
    if not ci or ci[0] is None:
        return ""
    lo, hi = _fmt(ci[0]), _fmt(ci[1])
    return f" [{lo},{hi}]" if signed else f" [{lo.lstrip('+')},{hi.lstrip('+')}]"


SIGN_NOTE = ("sign: + the metric's own scores; - a lower-is-better metric, its scores negated first (every figure "
             "here: positive = agreement with the humans)")


def print_tables(summary: dict, out=None) -> None:
    """The system-level table (Pearson r and Spearman rho per human score), the sentence-level one (accuracy, Kendall
    and the tie-aware accuracy per judgments), the windows (with --window) and, with --bootstrap, the tests of every
    two metrics (the summary always holds them)."""
    out = sys.stdout if out is None else out          # at call time: a caller may have replaced sys.stdout
    metrics = summary["metrics"]
    width = max(len("metric"), *(len(m) for m in metrics))
    title = "own data" if summary["data"] == "own" else f"{summary['data']} {summary['system_set']}"
    print(f"{title}: {len(summary['systems'])} systems, {summary['sentences']} "
          f"sentences; system scores: {summary['aggregation']}", file=out)
    print(SIGN_NOTE + (f"; [95% interval of {summary['bootstrap']['resamples']} bootstrap resamples]"
                       if summary.get("bootstrap") else ""), file=out)
    sign = {name: "+" if m["higher_is_better"] else "-" for name, m in metrics.items()}
    first = next(iter(metrics.values()))
    if "system" in first:
        humans = list(first["system"])
        ci = any(_ci(m["system"][h], "pearson") for m in metrics.values() for h in humans)
        wide = 16 if ci else 0
        print(f"{'metric':<{width}} sign" + "".join(f"  {HUMAN_TITLES[h] + ' r':>{10 + wide}}  {'rho':>{6 + wide}}"
                                                    for h in humans), file=out)
        for name, m in metrics.items():
            cells = [m["system"][h] for h in humans]
            print(f"{name:<{width}} {sign[name]:>4}" + "".join(
                f"  {_fmt(c['pearson']) + _ci(c, 'pearson'):>{10 + wide}}  "
                f"{_fmt(c['spearman']) + _ci(c, 'spearman'):>{6 + wide}}" for c in cells), file=out)
    if any("sentence" in m for m in metrics.values()):
        judg = list(next(m for m in metrics.values() if "sentence" in m)["sentence"])
        ci = any(_ci(m["sentence"][j], "accuracy") for m in metrics.values() if "sentence" in m for j in judg)
        wide = 16 if ci else 0
        if summary["data"] == "own" and summary.get("tie_order"):
            print("sentence level: a metric tie is a loss of the earlier system in the order "
                  + ", ".join(summary["tie_order"]), file=out)
        print(f"{'metric':<{width}} sign" + "".join(f"  {j + ' acc':>{9 + wide}}  {'tau':>{6 + wide}}  "
                                                    f"{'tie-aware':>9}" for j in judg), file=out)
        for name, m in metrics.items():
            if "sentence" not in m:
                continue
            cells = [m["sentence"][j] for j in judg]
            print(f"{name:<{width}} {sign[name]:>4}" + "".join(
                f"  {_fmt(c['accuracy']).lstrip('+') + _ci(c, 'accuracy', False):>{9 + wide}}  "
                f"{_fmt(c['kendall']) + _ci(c, 'kendall'):>{6 + wide}}  "
                f"{_fmt(c['tie_aware']['accuracy']).lstrip('+'):>9}" for c in cells), file=out)
    if summary.get("window_size"):
        for name, m in metrics.items():
            for h, rows in m["window"].items():
                print(f"window {summary['window_size']} {name} ({sign[name]}) {HUMAN_TITLES[h]}: " + " ".join(
                    f"{r['from']}-{r['to']}:{_fmt(r['pearson'])}/{_fmt(r['spearman'])}" for r in rows), file=out)
    for c in summary.get("comparisons", []) if summary.get("bootstrap") else []:
        a, b = c["metrics"]
        parts = [f"{HUMAN_TITLES[h]} p={_p(w['p'])}" for h, w in c["system"].items()]
        parts += [f"{j} p={_p(v['p'])}" for j, v in c.get("sentence", {}).items()]
        print(f"{a} > {b}? Williams (system, Pearson): " + ", ".join(parts[:len(c['system'])])
              + ("; paired bootstrap (sentence): " + ", ".join(parts[len(c['system']):]) if c.get("sentence") else ""),
              file=out)


def _p(x) -> str:
    return "-" if x is None else f"{x:.3f}"


def run(args) -> int:
    from peet_fast.cli._flags import flags_named

    with flags_named(args):       # the library's parameters (InputError("system_set", ...)) as the flags
        return _run(args)


def _own_inputs(args) -> list:
    """own data's input files ([] with --data); its options refused with --data and --data's without them."""
    own = {"--outputs": args.outputs, "--judgments": args.judgments, "--human": args.human, "--src": args.src,
           "--ref": args.ref, "--human-ignore": args.human_ignore, "--human-subset": args.human_subset,
           "--src-base": args.src_base, "--tie-order": args.tie_order != "name"}
    if args.data is not None:
        given = [flag for flag, v in own.items() if v]
        if given:
            raise InputError(given[0], "is for own data (--outputs), not --data")
        if args.gold is None:
            raise InputError("--gold", "--data needs the CoNLL-14 gold M2")
        return []
    if not args.outputs:
        raise InputError("--data", "give a dataset (--data NAME DIR) or own data (--outputs ...)")
    for flag in ("--human-ignore", "--human-subset"):
        if own[flag] and not args.human:
            raise InputError(flag, "needs --human")
    if args.system_set:
        raise InputError("--system-set", "is for --data; own data is one system set, the outputs")
    from peet_fast.formats.systems import named_systems

    names, paths = named_systems(args.outputs, param="outputs")      # an error names --outputs (args.flags)
    args.own_outputs = dict(zip(names, paths))
    return [*paths, args.judgments, args.human, args.src, *(args.ref or [])]


def _needs_model(name) -> bool:
    """Whether the metric called name (or the metric given) scores with a PEET model (Metric.needs_model); an
    unknown name is refused where it is scored, as before."""
    from peet_fast.metrics.base import get_metric

    try:
        return (get_metric(name) if isinstance(name, str) else name).needs_model
    except ValueError:
        return False


def _run(args) -> int:
    own = _own_inputs(args)
    name, root = args.data if args.data is not None else (None, None)
    check_output(args.summary, [root, args.gold, args.model, *own])
    if args.plot:
        if os.path.exists(args.plot) and not os.path.isdir(args.plot):
            raise InputError(args.plot, "--plot names a directory; this is a file")
        check_not_input(args.plot, [root, args.gold, args.model, args.summary, *own])
    if args.window is not None and args.window < 2:
        raise InputError("--window", "must be at least 2")
    from peet_fast.metrics.stats import check_bootstrap, check_seed

    check_bootstrap(args.bootstrap, 0, "--bootstrap")
    check_seed(args.seed, "--seed")
    if args.gold is not None and not os.path.isfile(args.gold):
        raise InputError(args.gold, "no such file (the gold M2)")
    from peet_fast.meta_eval.metric.evaluator import meta_eval

    from peet_fast.cli._flags import metrics_given
    from peet_fast.metrics.config import spec_parts

    named = [spec_parts(m)[0] for m in args.metric]
    args.metric = metrics_given(args.metric)
    model = None
    if args.model or any(_needs_model(name) for name in args.metric):
        from peet_fast.peet.model import load_model

        model = load_model(args.model)
    if len(set(named)) != len(named):
        raise InputError("--metric", "a metric is named twice")
    sets = args.system_set or [None]
    if len(set(sets)) != len(sets):
        raise InputError("--system-set", "a system set is named twice")
    from peet_fast.cli._progress import progress_for

    annotator = annotators(args)      # loaded when a metric first needs it; its parses: the progress of the stage

    if args.data is None:
        evals = [meta_eval(gold=args.gold, outputs=args.own_outputs, judgments=args.judgments, human=args.human,
                           human_method=args.human_method, src=args.src, references=args.ref or (),
                           human_runs=args.human_runs, human_ignore=args.human_ignore,
                           human_subset=args.human_subset, src_base=args.src_base, seed=args.seed,
                           tie_order=args.tie_order,
                           names=args.flags,
                           annotator=annotator, model=model)]
    else:
        evals = [meta_eval(name, root, args.gold, s, annotator=annotator, model=model) for s in sets]
    for k, metric in enumerate(args.metric):       # every set's scores come from one scoring (evaluator.meta_eval)
        with progress_for(args, f"{metric} ({k + 1}/{len(args.metric)} metrics)", unit="sentences", parse=True):
            evals[0].scored(metric)
    summaries = [me.summary(args.metric, args.aggregation, args.window, args.bootstrap, args.seed, args.level)
                 for me in evals]
    extra = {"gold": args.gold, "root": root, **({} if args.data else {"outputs": args.own_outputs,
             "judgments": args.judgments, "human_csv": args.human, "src": args.src, "references": args.ref}), "model": None if model is None else model_summary(model, args)}
    inputs = [root, args.gold, args.model, args.summary, *own]
    staged = Staged()
    written: list = []
    try:                       # every output to a temporary first; all renamed into place once the last is complete
        if args.summary:
            with staged.file(args.summary) as fh:
                json.dump({**summaries[0], **extra} if len(summaries) == 1 else
                          {"system_sets": {s["system_set"]: s for s in summaries}, **extra},
                          fh, indent=2, ensure_ascii=False)
                fh.write("\n")
        if args.plot:
            from peet_fast.meta_eval.metric.plots import write_plots

            for summary in summaries:       # several sets: one directory each, --plot/SET
                target = args.plot if len(summaries) == 1 else os.path.join(args.plot, summary["system_set"])
                for path in write_plots(summary, staged.directory(target), inputs=inputs):
                    final = os.path.join(target, os.path.basename(path))
                    check_not_input(final, inputs)
                    if os.path.isdir(final):
                        raise InputError(final, "is a directory; a plot would replace it")
                    written.append(final)
        staged.commit()
    except BaseException:
        staged.discard()
        raise
    for final in written:
        print(f"wrote {final}", file=sys.stderr)
    for k, summary in enumerate(summaries):
        if k:
            print()
        print_tables(summary)
        print_signatures(m.get("signature") for m in summary["metrics"].values())
    return 0


class Staged:
    """A command's outputs written to temporaries beside their targets (a file: .peet-fast-...tmp in its directory;
    a directory of plots: a temporary directory inside it, or beside it where it does not exist yet), renamed into
    place together by commit() once every one is complete; discard() (a failure, an interruption) removes them and
    leaves every earlier output as it was (docs/safety.md)."""

    def __init__(self):
        self.files: list[tuple[str, str]] = []          # (temporary, target)
        self.dirs: list[tuple[str, str]] = []           # (temporary directory, target directory)

    @contextlib.contextmanager
    def file(self, path: str):
        from peet_fast.io.write import _temp_prefix, check_parent, current_umask, naming, output_target

        target, in_place = output_target(path)
        if in_place:                                    # a device or a process's stream: written at commit
            buffer = io.StringIO()
            yield buffer
            self.files.append((buffer, path))
            return
        directory = os.path.dirname(os.path.abspath(target))
        check_parent(path, directory)
        with naming(path):
            fd, tmp = tempfile.mkstemp(prefix=f"{_temp_prefix()}-", suffix=".tmp", dir=directory)
        self.files.append((tmp, target))
        with naming(path):
            os.chmod(tmp, 0o666 & ~current_umask())
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                yield fh

    def directory(self, path: str) -> str:
        from peet_fast.io.write import _temp_prefix, current_umask, naming

        base = os.path.abspath(path)
        while not os.path.isdir(base):                 # the directory itself, else its nearest existing ancestor
            if os.path.lexists(base) and base != os.path.abspath(path):
                raise InputError(path, f"cannot be created: {base} is a file, not a directory")
            base = os.path.dirname(base)
        with naming(path):
            tmp = tempfile.mkdtemp(prefix=f"{_temp_prefix()}-", suffix=".tmp", dir=base)
            os.chmod(tmp, 0o777 & ~current_umask())       # the mode of a directory made by makedirs
        self.dirs.append((tmp, path))
        return tmp

    def commit(self) -> None:
        from peet_fast.io.write import naming

        for tmp, target in self.dirs:
            with naming(target):
                if os.path.isdir(target):
                    for name in sorted(os.listdir(tmp)):
                        os.replace(os.path.join(tmp, name), os.path.join(target, name))
                    os.rmdir(tmp)
                else:
                    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
                    shutil.move(tmp, target)
        for tmp, target in self.files:
            with naming(target):
                if isinstance(tmp, io.StringIO):
                    with open(target, "a", encoding="utf-8") as fh:
                        fh.write(tmp.getvalue())
                else:
                    os.replace(tmp, target)
        self.files, self.dirs = [], []

    def discard(self) -> None:
        for tmp, _ in self.files:
            if isinstance(tmp, str):
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        for tmp, _ in self.dirs:
            shutil.rmtree(tmp, ignore_errors=True)
        self.files, self.dirs = [], []
