"""`peet-fast rank`: systems ranked by PEET with bootstrap intervals, WER and human correlations."""
from __future__ import annotations

import argparse
import sys
from typing import NamedTuple

from peet_fast.cli._common import (
    add_output_option,
    add_io_option,
    add_pipeline_options,
    add_system_inputs,
    add_tokenize_option,
    hyp_systems,
    annotators,
    print_signatures,
    flags_named,
    model_summary,
    print_model_line,
    resource_inputs,
    warn_if_untokenised,
)
from peet_fast.cli._by_type import add_by_type_option, by_type_from_args, check_by_type, print_by_type
from peet_fast.cli._progress import progress_for
from peet_fast.cli.score import PER_WORD_HELP
from peet_fast.io import InputError, check_output, shown, write_json


def add_rank_inputs(p) -> None:
    add_system_inputs(p)
    p.add_argument("--metric", nargs="+", default=["peet"], metavar="NAME",
                   help="the metrics to rank by, side by side, each with its bootstrap interval, p-values and human "
                        "correlations (default: peet); the first orders the ranking. Known: every name of "
                        "peet_fast.metric_names(): peet (predicted post-editing seconds), wer, errant (errant_compare's "
                        "span F0.5), gleu, senterrant, green, cleme, cleme2, m2, sentm2 and gotoscorer (a gold M2 as "
                        "--ref) (docs/rank-metrics.md)")
    p.add_argument("--gotoscorer-weights", metavar="W",
                   help="gotoscorer's chunk weights: a GTS weight file (what GTS's gotoscorer.py -gen_w_file writes; "
                        "its sentences and chunks must be this test set's and reference's), or 'none' (every chunk "
                        "weighs 1: GTS -no_weight); default: from the ranked systems (or --gotoscorer-systems)")
    p.add_argument("--gotoscorer-systems", nargs="+", metavar="FILE",
                   help="outputs (line-aligned with --hyp) whose corrections give gotoscorer's chunk weights instead "
                        "of the ranked systems'")
    add_io_option(p, "src", metavar="SRC",
                  help="source sentences, line-aligned with --hyp and --ref text, for the metrics that need them "
                       "(errant, gleu); a gold M2 given as --ref supplies them itself")
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
                        "(default 1000, at most 100,000)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="bootstrap seed (default 0): same seed, same "
                                                                    "intervals and p-values")
    add_by_type_option(p)
    add_tokenize_option(p)
    add_pipeline_options(p)


def rank_inputs(args) -> list:
    """Every file a rank/report command line reads (outputs must not be one of them)."""
    _, paths = hyp_systems(args)
    weights = [args.gotoscorer_weights] if args.gotoscorer_weights not in (None, "none") else []
    return [*paths, *args.ref, args.src, args.human, *weights, *(args.gotoscorer_systems or []),
            *resource_inputs(args)]


def metrics_from_args(args) -> list:
    """--metric's metrics (NAME or NAME:FIELD=VALUE:...), those taking one of the metric options given built with
    them (cli._flags.metrics_given); an option given without a metric taking it is refused."""
    from peet_fast.cli._flags import metrics_given

    if args.gotoscorer_weights is not None and args.gotoscorer_systems:
        raise InputError("--gotoscorer-systems", "give either --gotoscorer-weights or --gotoscorer-systems")
    weights = args.gotoscorer_weights
    values = {"gotoscorer_no_weight": True if weights == "none" else None,
              "gotoscorer_weight_file": weights if weights not in (None, "none") else None,
              "gotoscorer_systems": list(args.gotoscorer_systems) if args.gotoscorer_systems else None}
    return metrics_given(args.metric, values, args.flags)


def ranking_from_args(args, annotator=None):
    """The Ranking for a `rank`/`report` command line (inputs validated first), and the PEET model (None when
    PEET is not among the metrics): evaluation.from_files.rank_files, given this command line's annotator (or
    `annotator`, an Annotators shared with other work: report --meta-eval), progress and messages."""
    from peet_fast.evaluation.from_files import RankHooks, RankRequest, rank_files
    from peet_fast.metrics.stats import check_bootstrap, check_seed

    check_bootstrap(args.bootstrap, 1, "--bootstrap")
    check_seed(args.seed, "--seed")
    for flag, given in (("--human-ignore", args.human_ignore), ("--human-subset", args.human_subset)):
        if given and not args.human:
            raise InputError(flag, "needs --human")
    request = RankRequest(args.hyp, args.ref, args.names, args.src, metrics_from_args(args), args.model, args.human,
                          args.human_ignore, args.human_subset, args.bootstrap, args.seed)
    hooks = RankHooks(check_texts=lambda columns: warn_if_untokenised(args, columns),
                      progress=lambda total: progress_for(args, total=total),
                      notice=lambda text: print(f"--human-subset: {text}", file=sys.stderr),
                      hints=("--src SRC (or a gold M2 as --ref)", "a gold M2 as --ref"), names=args.flags)
    with flags_named(args):
        return rank_files(request, annotators(args) if annotator is None else annotator, hooks)


def references_label(ranking) -> str:
    """The references of a ranking as its model line names them: their number, and for a gold M2 that they are its
    annotators (every annotator's corrected sentences are one reference set)."""
    if ranking.gold_path is None:
        return str(ranking.references)
    return f"{ranking.references} (the annotator{'s' if ranking.references != 1 else ''} of {shown(ranking.gold_path)})"


class Column(NamedTuple):
    """A column of rank's table: its header, its cells (one per system), right-aligned to `width`, or (fit) to the
    widest of them and the header (a wider cell than a fixed width overflows it, as an f-string field does)."""
    head: str
    cells: list
    width: int = 0
    fit: bool = False

    def shown_width(self) -> int:
        return max(self.width, len(self.head), *(len(x) for x in self.cells)) if self.fit else self.width


def _value(x: float, fmt: str) -> str:
    return "nan" if x != x else format(x, fmt)


def _fmt_corr(x: float) -> str:
    return "nan" if x != x else f"{x:+.3f}"


def ranking_columns(ranking) -> tuple[list[Column], list]:
    """The columns of rank's table after rank and system, and the metrics (MetricInfo) whose scores it shows, in
    their order (their correlations with the human scores are printed in it): per ranked metric its score, 95 % CI
    and p(next); ranked by one metric with figures of its own (Ranking.own_figures), the baseline's score and those
    figures too."""
    systems = ranking.systems
    alone = ranking.own_figures
    shown_metrics = list(ranking.metrics.values())
    columns = []
    for m in shown_metrics:
        got = [s.metrics[m.name] for s in systems]
        pad = 7 if alone else 0
        columns += [Column(m.title if alone else m.title + (" ^" if m.higher_is_better else " v"),
                           [_value(f.score, m.fmt) for f in got], 9 if alone else 0, not alone),
                    Column("95% CI", [f"[{_value(f.ci_low, m.fmt):>{pad}}, {_value(f.ci_high, m.fmt):>{pad}}]"
                                      for f in got], 17 if alone else len("95% CI"), not alone),
                    Column("p(next)", ["-" if f.p_next is None else f"{f.p_next:.3f}" for f in got], 7)]
    if alone:
        base = ranking.baseline
        columns.append(Column(base.title, [_value(s.metrics[base.name].score, base.fmt) for s in systems], 7))
        shown_metrics.append(base)
        figures = systems[0].metrics[shown_metrics[0].name].figures
        columns += [Column(head, [f"{s.metrics[shown_metrics[0].name].figures[k]:.4f}" for s in systems],
                           max(len(head), 7)) for k, (head, _) in shown_metrics[0].shown_figures.items() if k in figures]
    if ranking.correlation is not None:
        columns.append(Column("human", ["-" if s.human is None else f"{s.human:.4g}" for s in systems], 9))
    return columns, shown_metrics


def print_ranking(ranking, model, references: int | str | None = None) -> None:
    """The ranking on stdout: per system its rank, name and ranking_columns; then the correlations with the human
    scores of each metric shown. On stderr: the direction marks' legend (several metrics), the systems without a
    human score, the model line (references: as it names them; default references_label) and the signatures."""
    references = references_label(ranking) if references is None else references
    systems = ranking.systems
    names = [shown(s.name) for s in systems]
    columns, shown_metrics = ranking_columns(ranking)
    widths = [c.shown_width() for c in columns]
    width = max(len("system"), *(len(n) for n in names))
    print(f"{'rank':>4}  {'system':<{width}}" + "".join(f"  {c.head:>{w}}" for c, w in zip(columns, widths)))
    for k, name in enumerate(names):
        print(f"{k + 1:>4}  {name:<{width}}" + "".join(f"  {c.cells[k]:>{w}}" for c, w in zip(columns, widths)))
    if not ranking.own_figures:
        print("^: higher is better, v: lower is better; ranked by " + shown_metrics[0].label + "; p(next): share of "
              "paired resamples in which a system is not strictly better than the next one by that metric",
              file=sys.stderr)
    if ranking.correlation is not None:
        c = ranking.correlation
        for m in shown_metrics:
            print(f"{m.label} vs human ({c['systems']} systems): Spearman {_fmt_corr(c[m.name]['spearman'])}, "
                  f"Pearson {_fmt_corr(c[m.name]['pearson'])}")
        missing = [name for s, name in zip(systems, names) if s.human is None]
        if missing:
            print(f"no human score (left out of the correlations): {', '.join(missing)}", file=sys.stderr)
    if model is not None:
        print_model_line(model, references)
    print_signatures(m.signature for m in ranking.metrics.values())


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
                    "correlation; the raw sign is reported). " + PER_WORD_HELP + " WER = the mean over sentences of "
                    "word edit distance to the closest reference / its length; p(next) = the paired-bootstrap p-value "
                    "against the next system. With --metric, any metrics of the registry side by "
                    "side, ranked by the first, each with its interval, p-values and correlations (the same "
                    "resamples for all); a gold M2 as --ref gives the sources and one reference per annotator "
                    "(docs/rank-metrics.md).")
    add_rank_inputs(p)
    add_output_option(p, "--summary", metavar="FILE.json",
                   help='write {"systems": [{"name", "peet", "ci_low", "ci_high", "wer", ..., "metrics": {NAME: '
                        '{"score", "ci_low", "ci_high", "p_next"}}}], "correlation": {"peet": {"spearman", '
                        '"pearson"}, "wer": {...}, NAME: {...}} or null, ...} as JSON')
    return p


def run(args) -> int:
    check_output(args.summary, rank_inputs(args))
    check_by_type(args)
    annotator = annotators(args)                 # one pipeline for the ranking and --by-type
    ranking, model = ranking_from_args(args, annotator)
    by_type = by_type_from_args(args, ranking, annotator)
    if args.summary:
        summary = {"model": None if model is None else model_summary(model, args),
                   "references": list(args.ref), "src": args.src, "human": args.human, **ranking.summary()}
        if by_type is not None:
            summary["by_type"] = by_type.summary()
        write_json(args.summary, summary)
    print_ranking(ranking, model)
    if by_type is not None:
        print_by_type(by_type)
    return 0
