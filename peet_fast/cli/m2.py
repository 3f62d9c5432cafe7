"""`peet-fast m2`: parallel text to M2 (errant_parallel; --lang zh: ChERRANT)."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._common import (
    add_lang_option,
    add_pipeline_options,
    add_tokenize_option,
    add_zh_resources,
    load_annotator,
    resource_inputs,
)
from peet_fast.cli._progress import progress_for
from peet_fast.io import InputError, atomic_write, check_output, lines_located, read_parallel, shown

MERGES = ["rules", "all-split", "all-merge", "all-equal"]


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "m2", help="extract ERRANT edits from parallel files into M2 (as errant_parallel; --lang zh: as ChERRANT)",
        description="Align parallel text files and extract and classify the edits, as errant_parallel does: "
                    "byte-identical M2 under the same spaCy pipeline. An empty orig line still gets its block.\n"
                    "errant_parallel's flags (-orig -cor -out -tok -lev -merge), ChERRANT parallel_to_m2's (-f/--file, "
                    "-o/--output, -s/--multi_cheapest_strategy, --segmented, --no_simplified) and double-dash "
                    "spellings (--orig --cor --out ...) are all accepted.",
        formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("-orig", "--orig", metavar="ORIG",
                   help="the original text file (one sentence per line); required unless -para")
    p.add_argument("-cor", "--cor", nargs="+", metavar="COR",
                   help="one or more corrected text files; required with -orig")
    p.add_argument("-out", "--out", "-o", "--output", required=True, metavar="OUT", help="the output M2 file")
    add_tokenize_option(p)
    p.add_argument("-lev", "--lev", action="store_true", help="align with plain Levenshtein (default: ERRANT's costs)")
    p.add_argument("-merge", "--merge", choices=MERGES, default="rules",
                   help="merging strategy:\n"
                        "rules: rule-based merging (default)\n"
                        "all-split: merge nothing: MSSDI -> M, S, S, D, I\n"
                        "all-merge: merge adjacent non-matches: MSSDI -> M, SSDI\n"
                        "all-equal: merge adjacent same-type non-matches: MSSDI -> M, SS, D, I")
    add_pipeline_options(p)
    zh = p.add_argument_group("Chinese (--lang zh): ChERRANT's char-level M2 (MuCGEC)")
    add_lang_option(zh, "en: ERRANT (default); zh: ChERRANT's char granularity, its M2 layout (T<k>-A<j> lines)")
    zh.add_argument("-para", "--para", "-f", "--file", metavar="FILE",
                    help="zh: ChERRANT's parallel file 'id<TAB>source<TAB>target1<TAB>...' (any number of targets "
                         "per line), instead of -orig/-cor")
    zh.add_argument("-s", "--strategy", "--multi_cheapest_strategy", choices=["all", "first"], default="all",
                    help="zh: every minimum-cost alignment of a target (all, default) or the first only")
    add_zh_resources(zh, "zh: ")
    zh.add_argument("--no-t2s", "--no_simplified", action="store_true",
                    help="zh: do not convert targets to simplified (OpenCC t2s)")
    zh.add_argument("--segmented", action="store_true",
                    help="zh: texts are pre-segmented (whitespace-separated tokens) instead of split into characters")
    return p


def run(args) -> int:
    from peet_fast.formats.para import read_para

    if args.para and args.lang != "zh":
        raise InputError("-para", "is for --lang zh only")
    if args.para and (args.orig or args.cor):
        raise InputError("-para", "give either -para FILE or -orig/-cor files, not both")
    if not args.para:
        for flag, given in (("-orig", args.orig), ("-cor", args.cor)):
            if not given:
                raise InputError(flag, "is required (or -para FILE with --lang zh)")
    check_output(args.out, [args.orig, *(args.cor or []), args.para, *resource_inputs(args)])
    annotator = load_annotator(args, args.lang)
    if args.para:
        sources, targets = read_para(args.para)
        columns = []
    else:
        sources, *cors = read_parallel([args.orig, *args.cor])
        targets = [list(t) for t in zip(*cors)]
        columns = list(zip([args.orig, *args.cor], [sources, *cors]))
    with progress_for(args, total=len(sources)) as progress, lines_located(columns), atomic_write(args.out) as out:
        n = annotator.write_m2(out, sources, targets, progress=progress, name=args.para or args.orig)
    files = f", {len(args.cor)} corrected file{'s' if len(args.cor) > 1 else ''}" if args.cor else ""
    print(f"peet-fast m2: wrote {n} sentence blocks ({annotator.scheme}{files}) to {shown(args.out)}", file=sys.stderr)
    return 0
