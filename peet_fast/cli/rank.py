"""`peet-fast rank`: systems ranked by PEET with bootstrap intervals, WER and human correlations."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._common import (
    add_pipeline_options,
    add_system_inputs,
    add_tokenize_option,
    hyp_systems,
    load_annotator,
    model_summary,
    resource_inputs,
    warn_if_untokenised,
)
from peet_fast.cli._progress import progress_for
from peet_fast.cli.score import PER_WORD_NOTE
from peet_fast.io import InputError, check_output, lines_located, read_parallel, shown, write_json


def add_rank_inputs(p) -> None:
    add_system_inputs(p)
    p.add_argument("--model", metavar="MODEL.json", help="a JSON PEET model (default: the published model)")
    p.add_argument("--human", metavar="CSV",
                   help="human system scores, a CSV with the header 'system,score' (higher is better; system = "
                        "a --hyp system's name): adds the Spearman and Pearson correlation of PEET and "
                        "of WER with them, over the systems that have a score (at least 3)")
    p.add_argument("--human-ignore", nargs="+", default=[], metavar="NAME",
                   help="--human rows to skip (e.g. a 'ref' row scoring the references); any other row naming a "
                        "system that is not ranked is an error (unless --human-subset)")
    p.add_argument("--human-subset", action="store_true",
                   help="the ranked systems are a subset of --human's: rows naming other systems are left out (listed "
                        "in one notice); without it such rows are an error listing them all")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="B",
                   help="paired bootstrap resamples of the sentences for the confidence intervals and p-values "
                        "(default 1000)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="bootstrap seed (default 0): same seed, same "
                                                                    "intervals and p-values")
    add_tokenize_option(p)
    add_pipeline_options(p)


def rank_inputs(args) -> list:
    """Every file a rank/report command line reads (outputs must not be one of them)."""
    _, paths = hyp_systems(args)
    return [*paths, *args.ref, args.human, *resource_inputs(args)]


def ranking_from_args(args):
    """The Ranking for a `rank`/`report` command line (inputs validated first)."""
    from peet_fast.model import load_model
    from peet_fast.rank import rank_systems, read_human_csv

    names, paths = hyp_systems(args)
    if args.bootstrap < 1:
        raise InputError("--bootstrap", "must be at least 1")
    if args.seed < 0:
        raise InputError("--seed", "must be a non-negative integer")
    for flag, given in (("--human-ignore", args.human_ignore), ("--human-subset", args.human_subset)):
        if given and not args.human:
            raise InputError(flag, "needs --human")
    human = None
    if args.human:
        human, skipped = read_human_csv(args.human, names, args.human_ignore, args.human_subset)
        if skipped:
            print(f"--human-subset: {len(skipped)} system{'s' if len(skipped) > 1 else ''} of {args.human} not "
                  f"ranked, left out: {', '.join(skipped)}", file=sys.stderr)
    model = load_model(args.model)
    texts = read_parallel([*paths, *args.ref])
    warn_if_untokenised(args, zip([*paths, *args.ref], texts))
    hyps, refs = texts[:len(paths)], texts[len(paths):]
    annotator = load_annotator(args)
    with progress_for(args, total=len(refs[0])) as progress, lines_located(list(zip([*paths, *args.ref], texts))):
        ranking = rank_systems(annotator, model, paths, hyps, refs, args.bootstrap, args.seed, human,
                               on_chunk=lambda ch: progress(ch.stop), names=names)
    return ranking, model


def print_ranking(ranking) -> None:
    systems = ranking.systems
    names = [shown(s.name) for s in systems]
    width = max(len("system"), *(len(n) for n in names))
    human = ranking.correlation is not None
    print(f"{'rank':>4}  {'system':<{width}}  {'PEET (s)':>9}  {'95% CI':>17}  {'p(next)':>7}  {'WER':>7}  "
          f"{'s/word':>7}  {'mean s/word':>11}" + (f"  {'human':>9}" if human else ""))
    for k, (s, name) in enumerate(zip(systems, names), 1):
        p = "-" if s.p_next is None else f"{s.p_next:.3f}"
        h = "-" if s.human is None else f"{s.human:.4g}"
        print(f"{k:>4}  {name:<{width}}  {s.peet:>9.3f}  [{s.ci_low:>7.3f}, {s.ci_high:>7.3f}]  {p:>7}  "
              f"{s.wer:>7.4f}  {s.seconds_per_word:>7.4f}  {s.mean_seconds_per_word:>11.4f}"
              + (f"  {h:>9}" if human else ""))
    print(PER_WORD_NOTE, file=sys.stderr)
    if human:
        c = ranking.correlation
        fmt = (lambda x: "nan" if x != x else f"{x:+.3f}")
        for m, label in (("peet", "PEET"), ("wer", "WER")):
            print(f"{label} vs human ({c['systems']} systems): Spearman {fmt(c[m]['spearman'])}, "
                  f"Pearson {fmt(c[m]['pearson'])}")
        missing = [shown(s.name) for s in systems if s.human is None]
        if missing:
            print(f"no human score (left out of the correlations): {', '.join(missing)}", file=sys.stderr)


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "rank", help="rank GEC systems by PEET with bootstrap confidence intervals, WER, and human correlations",
        description="Score the systems as `score` does, then: a 95 % percentile confidence interval for each "
                    "system's PEET from a paired bootstrap over sentences (the same resamples for every system; "
                    "deterministic for --seed); for each system, the paired-bootstrap p-value against the next one "
                    "in the ranking (the share of resamples where it is not strictly better); WER (word edit "
                    "distance to the closest reference / that reference's length, averaged over sentences) as the "
                    "technical-effort baseline; with --human, the Spearman and Pearson correlations of PEET and of "
                    "WER with the human scores (PEET and WER are lower-is-better, so agreement shows as a negative "
                    "correlation; the raw sign is reported).")
    add_rank_inputs(p)
    p.add_argument("--summary", metavar="FILE.json",
                   help='write {"systems": [{"name", "peet", "ci_low", "ci_high", "wer", ...}], "correlation": '
                        '{"peet": {"spearman", "pearson"}, "wer": {...}} or null, ...} as JSON')
    return p


def run(args) -> int:
    check_output(args.summary, rank_inputs(args))
    ranking, model = ranking_from_args(args)
    if args.summary:
        summary = {"model": model_summary(model, args),
                   "references": list(args.ref), "human": args.human, **ranking.summary()}
        write_json(args.summary, summary)
    print_ranking(ranking)
    return 0
