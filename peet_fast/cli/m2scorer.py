"""`peet-fast m2scorer`: MaxMatch (M2) scores, a drop-in for the official NUS m2scorer 3.2 (same arguments, same
printed lines, the same -v report)."""
from __future__ import annotations

import argparse
import sys


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "m2scorer", allow_abbrev=True,     # as the official's getopt: unique prefixes of its long options
        help="MaxMatch (M2) precision, recall and F0.5, as the official NUS m2scorer 3.2",
        description="Score a system's output (one tokenised sentence per line) against a gold M2 file exactly as the "
                    "official NUS m2scorer 3.2 (CoNLL-2013/2014) does: the same figures, the same printed lines, the "
                    "same -v report, in C and in polynomial time. Files ending in .gz are read decompressed.")
    p.add_argument("system", metavar="SYSTEM", help="the system output, one sentence per line")
    p.add_argument("gold", metavar="SOURCE_GOLD", help="the source sentences with gold edits (M2)")
    p.add_argument("-v", "--verbose", action="store_true", help="print the official per-sentence report")
    p.add_argument("--very_verbose", action="store_true",
                   help="accepted for compatibility; prints the -v report (the official's lattice dumps are not "
                        "reproduced)")
    p.add_argument("--max_unchanged_words", type=int, default=2, metavar="N",
                   help="maximum unchanged words inside one extracted edit (default 2; at least 0)")
    p.add_argument("--beta", type=float, default=0.5, metavar="B", help="beta of the F-measure (default 0.5; finite, at least 0)")
    p.add_argument("--ignore_whitespace_casing", action="store_true",
                   help="ignore edits that only change whitespace and casing")
    return p


def run(args) -> int:
    from peet_fast.metrics.m2 import check_options, read_gold, read_system, score_corpus, summary_lines

    check_options(args.beta, args.max_unchanged_words, ("--beta", "--max_unchanged_words"))
    gold = read_gold(args.gold)
    system = read_system(args.system)
    report = [] if (args.verbose or args.very_verbose) else None
    result = score_corpus(system, gold, args.max_unchanged_words, args.beta, args.ignore_whitespace_casing,
                          verbose=report, system_path=args.system)
    lines = (report or []) + summary_lines(result)
    out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None
    text = "\n".join(lines) + "\n"
    if out is not None:
        sys.stdout.flush()
        out.write(text.encode("utf-8", "surrogateescape"))
        out.flush()
    else:
        sys.stdout.write(text)
    from peet_fast.cli._common import print_signatures
    from peet_fast.metrics.base import get_metric

    metric = get_metric("m2", beta=args.beta, max_unchanged_words=args.max_unchanged_words,
                        ignore_whitespace_casing=args.ignore_whitespace_casing)
    print_signatures([metric.signature(refs="m2", nrefs=_annotators(gold))])
    return 0


def _annotators(gold) -> int:
    """The annotators of a gold M2 (the ids its A lines name; at least 1)."""
    return max(1, len({a for sentence in gold.edits for a, _ in sentence}))
