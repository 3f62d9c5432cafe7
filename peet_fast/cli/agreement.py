"""`peet-fast agreement`: inter-annotator agreement of correction sets (each set scored against the others)."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._common import (
    add_output_option,
    add_alignment_options,
    add_io_option,
    add_lang_option,
    add_pipeline_options,
    add_tokenize_option,
    add_zh_alignment_options,
    add_zh_resources,
    load_annotator,
    warn_if_untokenised,
    resource_inputs,
)
from peet_fast.cli._progress import parse_unit, progress_for
from peet_fast.cli.compare import add_scoring_options, check_beta
from peet_fast.io import InputError, check_output, write_json

DRAW = ("numpy.random.default_rng(S); for each set X in input order, one\n"
        "rng.choice(n - 1, size=K, replace=False) over the other sets in input order;\n"
        "the picked sets are used in input order")


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "agreement", help="inter-annotator agreement: each correction set scored against the others (F0.5)",
        description="Bryant and Ng (2015)'s agreement of correction sets: each set X is scored as a system against\n"
                    "the other sets as references, exactly as `peet-fast compare` scores a hypothesis against several\n"
                    "references (the same TP/FP/FN as errant_parallel + errant_compare, or ChERRANT with --lang zh);\n"
                    "the agreement is the mean of the sets' F. Each source sentence is parsed once for all sets.",
        formatter_class=argparse.RawTextHelpFormatter)
    add_io_option(p, "src", metavar="SRC", help="source text, one sentence per line (not with --para)")
    add_io_option(p, "ref", required=True, nargs="+", metavar="SET",
                   help="the correction sets (at least 2), line-aligned with SRC; a set's name is its file name\n"
                        "without extension")
    p.add_argument("--para", "-para", action="store_true",
                   help="--lang zh: the sets are ChERRANT parallel files (id<TAB>source<TAB>target...; the sources\n"
                        "must agree; several targets on a line are that set's annotators); no --src")
    p.add_argument("--sample", type=int, metavar="K",
                   help="score each set against K of the other sets drawn at random without replacement\n"
                        f"(default: all of them). The draw: {DRAW}")
    p.add_argument("--seed", type=int, metavar="S",
                   help="seed of --sample's generator (default 0): same seed, same draw")
    p.add_argument("--pairwise", action="store_true",
                   help="also print the matrix of F of each set (row) against each other set alone (column)")
    add_lang_option(p, "en: errant's edits and errant_compare's scoring (default);\n"
                       "zh: ChERRANT's char-level edits and its scoring rules")
    add_scoring_options(p)
    add_tokenize_option(p)
    add_zh_resources(p, "--lang zh: ")
    add_zh_alignment_options(p, "--lang zh: ")
    add_alignment_options(p)
    add_output_option(p, "--summary", metavar="FILE.json",
                   help='write {"sets": [{"name", "references": [names], "TP", "FP", "FN", "P", "R", "F"}],\n'
                        '"average_f", "beta", "mode", "sample", "seed"} as JSON')
    add_pipeline_options(p)
    return p


def run(args) -> int:
    from peet_fast.evaluation import agreement as A
    from peet_fast.metrics.base import configured

    check_beta(args.beta)
    if args.para == (args.src is not None):
        raise InputError("--src", "give --src with text sets, or --para (ChERRANT parallel files) without it")
    if len(args.ref) < 2:
        raise InputError(args.ref[0], "agreement needs at least 2 sets (--ref), got 1")
    if args.sample is not None and not 1 <= args.sample <= len(args.ref) - 1:
        raise InputError("--sample", f"must be between 1 and {len(args.ref) - 1} (the number of other sets), "
                                     f"not {args.sample}")
    if args.seed is not None and args.sample is None:
        raise InputError("--seed", "needs --sample")
    if args.seed is not None and args.seed < 0:
        raise InputError("--seed", "must be a non-negative integer")
    check_output(args.summary, [args.src, *args.ref, *resource_inputs(args)])
    seed = None if args.sample is None else (args.seed or 0)
    A.set_names(args.ref)
    from peet_fast.metrics.inputs import blank_note, scored_lines

    src, sets = A.read_para_sets(args.ref) if args.para else A.read_text_sets(args.src, args.ref)
    annotator = load_annotator(args, args.lang)
    note = blank_note("agreement", args.src or args.ref[0], src, scored_lines(annotator, src))
    if note:
        print(note, file=sys.stderr)
    if not args.para:
        warn_if_untokenised(args, zip([args.src, *args.ref], [src, *sets]))
    scorer = configured("errant", vars(args))         # the span options, named as compare names them
    with progress_for(args, "comparing", unit=parse_unit(args.lang), parse=True):
        result = A.agreement(annotator, src, sets, args.ref, scorer, sample=args.sample, seed=seed,
                             pairwise=args.pairwise)
    if args.summary:
        write_json(args.summary, result.summary())
    sys.stdout.write(A.format_table(result))
    return 0
