"""`peet-fast synth`: synthetic (MO, TRG) pairs."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._common import add_io_option, plural
from peet_fast.cli._progress import progress_for
from peet_fast.io import InputError, check_output, shown


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "synth", help="synthetic (MO, TRG) pairs: GEC errors injected into clean sentences",
        description="Make realistic synthetic (MO, TRG) pairs from clean pre-tokenised sentences: TRG is the sentence, "
                    "MO the sentence with injected learner errors (determiners, prepositions, verb tense/form/"
                    "agreement, noun number, spelling, punctuation, word order, missing and extra words, case). "
                    "Deterministic for a seed; the first k pairs are the same for any larger --pairs.")
    p.add_argument("--sentences", required=True, metavar="FILE", help="clean sentences, one per line")
    p.add_argument("--pairs", required=True, type=int, metavar="N", help="number of pairs to write")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument("--rates", default="", metavar="SPEC",
                   help="per-sentence probability of each error kind, e.g. 'det=0.3,spelling=0' or 'all=0,prep=1' "
                        "(unnamed kinds keep their defaults)")
    add_io_option(p, "out", required=True, metavar="FILE", help="output .tsv, .jsonl or .parquet (id, mo, trg)")
    return p


def run(args) -> int:
    from peet_fast.en.synth import parse_rates, synthesize
    from peet_fast.formats.pairs import pair_format, write_pairs
    from peet_fast.io import read_lines

    if args.pairs < 0:
        raise InputError("--pairs", "must be at least 0")
    pair_format(args.out)
    check_output(args.out, [args.sentences])
    try:
        rates = parse_rates(args.rates)
    except ValueError as exc:
        raise InputError("--rates", str(exc)) from None
    sentences = read_lines(args.sentences)
    try:
        with progress_for(args, total=args.pairs, unit="pairs") as progress:
            pairs = synthesize(sentences, args.pairs, args.seed, rates, progress=progress)
    except ValueError as exc:
        raise InputError(args.sentences, str(exc)) from None
    write_pairs(args.out, pairs)
    same = sum(m == t for m, t in pairs)
    print(f"peet-fast synth: wrote {plural(len(pairs), 'pair')} ({same} identical) to {shown(args.out)}", file=sys.stderr)
    return 0
