"""`peet-fast report`: an HTML page with plots of a ranking (with --meta-eval, a meta-evaluation section of its
metrics: meta_eval.metric.report_section)."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._by_type import (by_type_from_args, by_type_section, check_by_type, check_sentences_option,
                                    print_by_type)
from peet_fast.cli._common import add_io_option, annotators, flags_named, plural
from peet_fast.cli.rank import add_rank_inputs, print_ranking, rank_inputs, ranking_from_args
from peet_fast.io import InputError, check_not_input


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "report", help="an HTML page with plots of a `rank` result",
        description="Rank the systems as `rank` does and write DIR/index.html with PNG plots (matplotlib): the "
                    "distribution of per-sentence predicted time per system, the contribution of each model term "
                    "to PEET, the ranking with 95 % confidence intervals, and (with --human) PEET and WER against "
                    "the human scores. With --meta-eval, a section meta-evaluating the --metric metrics on SEEDA "
                    "or GJG15 as `meta-eval --data` does: their system-level correlations with each human ranking "
                    "(sign-flipped, as meta-eval prints them) and the window plots; with --meta-eval-own, the same "
                    "on the ranked outputs, as `meta-eval --outputs` does. DIR is written complete or not at all; an existing DIR must be empty or "
                    "an earlier report, which is replaced.")
    add_rank_inputs(p)
    p.add_argument("--by-type-sentences", type=int, metavar="N",
                   help="with --by-type: the page's sentence browser holds the first N sentences (default 2000; the "
                        "page says when it is capped)")
    add_io_option(p, "out", required=True, metavar="DIR", help="the report directory (index.html + *.png)")
    p.add_argument("--title", default="peet-fast report", help="the page title")
    me = p.add_argument_group("meta-evaluation section")
    me.add_argument("--meta-eval", nargs=2, metavar=("NAME", "DIR"),
                    help="add a meta-evaluation of the --metric metrics on a dataset, as meta-eval --data NAME DIR: "
                         "seeda or gjg15 and a clone of its repository (needs --meta-eval-gold)")
    me.add_argument("--meta-eval-gold", metavar="GOLD.m2",
                    help="the CoNLL-14 test set's gold M2 (official-2014.combined.m2), as meta-eval --gold")
    me.add_argument("--meta-eval-set", metavar="SET",
                    help="SEEDA's system set: base (default), +INPUT, +REF-F_GPT-3.5 or all; GJG15: all")
    me.add_argument("--meta-eval-window", type=int, metavar="N",
                    help="the window plots' systems per window (default 4; own data: 4 where it has more than 4 "
                         "systems, else no windows)")
    me.add_argument("--meta-eval-own", action="store_true",
                    help="instead of --meta-eval: meta-evaluate on the ranked outputs themselves, as meta-eval "
                         "--outputs does, the human scores from --human (its --human-ignore, --human-subset) or "
                         "else from --meta-eval-judgments; the references from --ref (a gold M2, or text with --src)")
    me.add_argument("--meta-eval-judgments", metavar="JUDGMENTS.xml",
                    help="with --meta-eval-own: an Appraise ranking XML judging the ranked outputs, as meta-eval "
                         "--judgments (the human system scores where --human is not given)")
    me.add_argument("--meta-eval-human-method", choices=("ew", "ts"),
                    help="with --meta-eval-judgments and no --human: Expected Wins (default) or TrueSkill, as "
                         "meta-eval --human-method")
    return p


def _meta_eval(args, annotator):
    """The --meta-eval dataset loaded (a bad one refused before any ranking), or None without --meta-eval."""
    import os

    own = {"--meta-eval-judgments": args.meta_eval_judgments, "--meta-eval-human-method": args.meta_eval_human_method}
    data = {"--meta-eval-gold": args.meta_eval_gold, "--meta-eval-set": args.meta_eval_set}
    if args.meta_eval_own:
        if args.meta_eval is not None:
            raise InputError("--meta-eval-own", "is instead of --meta-eval, not beside it")
        given = [flag for flag, v in data.items() if v is not None]
        if given:
            raise InputError(given[0], "is for --meta-eval, not --meta-eval-own")
        return _own(args, annotator)
    given = [flag for flag, v in {**data, "--meta-eval-window": args.meta_eval_window}.items() if v is not None]
    if args.meta_eval is None:
        if given:
            raise InputError(given[0], "needs --meta-eval (or --meta-eval-own)")
        given = [flag for flag, v in own.items() if v is not None]
        if given:
            raise InputError(given[0], "needs --meta-eval-own")
        return None
    given = [flag for flag, v in own.items() if v is not None]
    if given:
        raise InputError(given[0], "is for --meta-eval-own, not --meta-eval")
    if args.meta_eval_gold is None:
        raise InputError("--meta-eval-gold", "--meta-eval needs the CoNLL-14 gold M2")
    if not os.path.isfile(args.meta_eval_gold):
        raise InputError(args.meta_eval_gold, "no such file (the gold M2)")
    from peet_fast.metrics.config import spec_parts

    if len({spec_parts(m)[0] for m in args.metric}) != len(args.metric):
        raise InputError("--metric", "a metric is named twice")
    from peet_fast.meta_eval.metric.evaluator import meta_eval

    name, root = args.meta_eval
    me = meta_eval(name, root, args.meta_eval_gold, args.meta_eval_set, annotator=annotator, model=args.model)
    window = 4 if args.meta_eval_window is None else args.meta_eval_window
    if not 2 <= window <= len(me.systems):
        raise InputError("--meta-eval-window", f"must be 2 to {len(me.systems)} (the systems of {name})")
    args.meta_eval_window = window
    return me


def _own(args, annotator):
    """--meta-eval-own: meta_eval's own data from this command line's outputs, references and human scores."""
    from peet_fast.cli._common import hyp_systems
    from peet_fast.formats.m2 import looks_like_m2
    from peet_fast.meta_eval.metric.evaluator import meta_eval

    if args.human is None and args.meta_eval_judgments is None:
        raise InputError("--meta-eval-own", "needs human scores: --human CSV or --meta-eval-judgments XML")
    if args.meta_eval_human_method is not None and (args.human or not args.meta_eval_judgments):
        raise InputError("--meta-eval-human-method", "is for --meta-eval-judgments without --human")
    names, paths = hyp_systems(args)
    gold = next((r for r in args.ref if looks_like_m2(r)), None)
    refs = {"gold": gold} if gold is not None else {"src": args.src, "references": args.ref}
    me = meta_eval(outputs=dict(zip(names, paths)), **refs, judgments=args.meta_eval_judgments, human=args.human,
                   human_method=args.meta_eval_human_method or "ew", human_ignore=args.human_ignore,
                   human_subset=args.human_subset, seed=args.seed, annotator=annotator, model=args.model,
                   names=args.flags)
    n = len(me.systems)
    window = (4 if n > 4 else None) if args.meta_eval_window is None else args.meta_eval_window
    if window is not None and not 2 <= window <= n:
        raise InputError("--meta-eval-window", f"must be 2 to {n} (the ranked systems)")
    args.meta_eval_window = window
    return me


def run(args) -> int:
    import os

    from peet_fast.evaluation.report import check_report_dir, write_report

    extra_inputs = [*args.meta_eval[1:], args.meta_eval_gold] if args.meta_eval else []
    extra_inputs += [args.meta_eval_judgments] if args.meta_eval_judgments else []
    check_not_input(args.out, [*rank_inputs(args), *extra_inputs])
    check_report_dir(args.out, "--out")
    check_sentences_option(args)
    check_by_type(args)
    annotator = annotators(args)                 # one pipeline for the ranking and the meta-evaluation
    with flags_named(args):
        me = _meta_eval(args, annotator)
    ranking, model = ranking_from_args(args, annotator)
    extra, summary = [], None
    by_type = by_type_from_args(args, ranking, annotator)
    if me is not None:
        from peet_fast.cli._flags import metrics_given
        from peet_fast.cli._progress import progress_for
        from peet_fast.meta_eval.metric.report_section import report_section

        with flags_named(args):
            metrics = metrics_given(args.metric)
            for k, metric in enumerate(metrics):      # a stage each, counting the sentences it parses
                with progress_for(args, f"meta-eval {args.metric[k]} ({k + 1}/{len(metrics)} metrics)",
                                  unit="sentences", parse=True):
                    me.scored(metric)
            summary = me.summary(metrics, "corpus", args.meta_eval_window, levels=("system",), pairwise=False)
        extra.append(report_section(summary))
    if by_type is not None:
        extra.append(by_type_section(args, by_type, ranking))
    images = write_report(args.out, ranking, model, args.title, args.human, extra)
    print_ranking(ranking, model)
    if by_type is not None:
        print_by_type(by_type)
    if summary is not None:
        from peet_fast.cli._common import print_signatures
        from peet_fast.cli.meta_eval import print_tables

        print()
        print_tables(summary)
        print_signatures(m.get("signature") for m in summary["metrics"].values())
    print(f"peet-fast report: wrote {os.path.join(args.out, 'index.html')} and {plural(len(images), 'plot')}",
          file=sys.stderr)
    return 0
