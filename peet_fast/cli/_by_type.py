"""`rank` / `report --by-type LEVEL`: each system's per-type figures as `compare -cat LEVEL` (errant_compare -cat)
reports them, with 95 % intervals from the ranking's bootstrap (peet_fast.evaluation.by_type)."""
from __future__ import annotations

from peet_fast.io import InputError, lines_located


def add_by_type_option(p) -> None:
    p.add_argument("--by-type", type=int, choices=[1, 2, 3], metavar="LEVEL",
                   help="per-type figures of every system, as `compare -cat LEVEL` (errant_compare -cat) reports each "
                        "system alone: 1 operation (M/R/U), 2 main type (NOUN), 3 full type (R:NOUN); TP, FP, FN, P, "
                        "R, F0.5 and F0.5's 95 %% interval from the --bootstrap resamples, printed after the ranking "
                        "as one table and written to --summary's \"by_type\" (needs the sources: --src, or a gold "
                        "M2 as --ref)")


def check_by_type(args) -> None:
    """Refuse --by-type without the sources (no --src and no gold M2 among --ref) before any work."""
    from peet_fast.formats.m2 import looks_like_m2

    if args.by_type is not None and args.src is None and not any(looks_like_m2(r) for r in args.ref):
        raise InputError("--by-type", "needs the source sentences: give --src SRC (or a gold M2 as --ref)")


def by_type_from_args(args, ranking, annotator):
    """The ByType of this command line (None without --by-type): the systems in the ranking's order, the edits
    extracted with the ranking's annotator, the ranking's resamples and seed."""
    from peet_fast.cli._common import flags_named, hyp_systems
    from peet_fast.evaluation.by_type import edits_from_texts, score_types
    from peet_fast.evaluation.inputs import read_eval_inputs
    from peet_fast.metrics.base import EvalSet

    if args.by_type is None:
        return None
    names, paths = hyp_systems(args)
    with flags_named(args):
        data = read_eval_inputs(paths, args.ref, args.src, args.flags)
    if data.sources is None:
        raise InputError("--by-type", "needs the source sentences: give --src SRC (or a gold M2 as --ref)")
    test_set = EvalSet.from_files(data, annotator, {"lang": "en"})
    located = [*zip(paths, data.hyps), *data.columns]
    with lines_located(located if data.gold is None else located[:len(paths)]):
        hyp, ref = edits_from_texts(data.hyps, test_set)
    order = [names.index(s.name) for s in ranking.systems]
    out = score_types([names[k] for k in order], [hyp[k] for k in order], ref, args.by_type,
                      resamples=ranking.resamples, seed=ranking.seed)
    out.sources, out.references = list(data.sources), [list(r) for r in data.references]
    return out


def by_type_section(args, bt, ranking):
    """report's error-analysis section (evaluation.report_by_type) of a ByType, PEET's seconds where ranked."""
    from peet_fast.evaluation.report_by_type import by_type_section as section

    return section(bt, bt.sources, bt.references, ranking.seconds, args.by_type_sentences)


def check_sentences_option(args) -> None:
    """report's --by-type-sentences: at least 1, and only with --by-type."""
    if args.by_type_sentences is None:
        from peet_fast.evaluation.report_by_type import DEFAULT_CAP

        args.by_type_sentences = DEFAULT_CAP
    elif args.by_type is None:
        raise InputError("--by-type-sentences", "needs --by-type")
    if args.by_type_sentences < 1:
        raise InputError("--by-type-sentences", "must be at least 1")


def print_by_type(bt) -> None:
    """The per-type table on stdout, after a blank line and its heading."""
    from peet_fast.evaluation.by_type import MIN_SUPPORT, format_table

    print()
    print(f"per type (compare -cat {bt.level}, each system alone; 95% CI of {bt.f_key} over {bt.resamples} "
          f"resamples; *: fewer than {MIN_SUPPORT} reference edits):")
    print(format_table(bt), end="")
