"""`peet-fast ensemble`: edit-wise majority voting over system outputs."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._common import (
    add_alignment_options,
    add_io_option,
    add_lang_option,
    add_pipeline_options,
    add_tokenize_option,
    add_zh_resources,
    load_annotator,
    plural,
    resource_inputs,
    warn_if_untokenised,
)
from peet_fast.cli._progress import parse_unit, progress_for
from peet_fast.io import InputError, atomic_write, check_output, lines_located, read_parallel, shown


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "ensemble", help="edit-wise majority voting over N system outputs",
        description="Extract each system's edits against the source (English: ERRANT, pre-tokenised text or\n"
                    "raw text with -tok;\n"
                    "Chinese: ChERRANT char level, first alignment), keep an edit (start, end, correction)\n"
                    "produced by more than N/2 systems (word-order and spelling edits: N/2 - 1, at least 1),\n"
                    "apply the kept edits that do not overlap (more votes first, then position, then --hyp\n"
                    "order) and write the corrected sentences (English tokens joined by spaces, Chinese\n"
                    "characters without spaces).",
        formatter_class=argparse.RawTextHelpFormatter)
    add_io_option(p, "src", required=True, metavar="SRC", help="the source text, one sentence per line")
    add_io_option(p, "hyp", required=True, nargs="+", metavar="HYP", help="two or more system outputs, line-aligned")
    add_io_option(p, "out", required=True, metavar="FILE", help="the ensembled sentences")
    add_lang_option(p, "en (default) or zh")
    p.add_argument("--min-votes", type=int, metavar="K", help="votes to keep an edit (default: N // 2 + 1)")
    p.add_argument("--min-votes-relaxed", type=int, metavar="K",
                   help="votes to keep a word-order or spelling edit (default: max(1, ceil(N/2 - 1)));\n"
                        "MuCGEC's rule_ensemble.py with -T T: --min-votes T --min-votes-relaxed T-1")
    add_zh_resources(p, "--lang zh: ")
    add_tokenize_option(p)
    add_alignment_options(p)
    add_pipeline_options(p)
    return p


def run(args) -> int:
    from peet_fast.evaluation import ensemble as E

    if len(args.hyp) < 2:
        raise InputError("--hyp", "give at least two system outputs to vote over")
    default = E.default_thresholds(len(args.hyp))
    th = E.Thresholds(default.min_votes if args.min_votes is None else args.min_votes,
                      default.min_votes_relaxed if args.min_votes_relaxed is None else args.min_votes_relaxed)
    for flag, v in (("--min-votes", th.min_votes), ("--min-votes-relaxed", th.min_votes_relaxed)):
        if not 1 <= v <= len(args.hyp):
            raise InputError(flag, f"must be between 1 and the number of systems ({len(args.hyp)}), not {v}")
    check_output(args.out, [args.src, *args.hyp, *resource_inputs(args)])
    from peet_fast.languages import language

    progress = progress_for(args, "parsing", unit=parse_unit(args.lang), parse=True)
    annotator = load_annotator(args, args.lang, progress=progress, **language(args.lang).ENSEMBLE_OPTIONS)
    src, *hyps = read_parallel([args.src, *args.hyp])
    warn_if_untokenised(args, zip([args.src, *args.hyp], [src, *hyps]))
    with progress, lines_located(list(zip([args.src, *args.hyp], [src, *hyps]))):
        result = E.ensemble(annotator, src, hyps, th)
    with atomic_write(args.out) as fh:
        fh.writelines(s + "\n" for s in result.sentences)
    print(f"peet-fast ensemble: {len(args.hyp)} systems, {result.candidates} distinct edits, {result.kept} applied "
          f"({result.dropped_overlaps} with enough votes dropped for overlapping); thresholds {th.min_votes} / "
          f"{th.min_votes_relaxed} (word order, spelling); wrote {plural(len(result.sentences), 'line')} to {shown(args.out)}",
          file=sys.stderr)
    return 0
