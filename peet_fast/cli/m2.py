"""`peet-fast m2`: parallel text to M2 (errant_parallel; --lang zh: ChERRANT)."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._common import (
    add_alignment_options,
    add_io_option,
    add_lang_option,
    add_pipeline_options,
    add_tokenize_option,
    add_zh_alignment_options,
    add_zh_resources,
    load_annotator,
    plural,
    warn_if_untokenised,
    resource_inputs,
)
from peet_fast.cli._progress import progress_for
from peet_fast.io import InputError, atomic_write, check_output, lines_located, read_parallel, shown

def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "m2", help="extract ERRANT edits from parallel files into M2 (as errant_parallel; --lang zh: as ChERRANT)",
        description="Align parallel text files and extract and classify the edits, as errant_parallel does: "
                    "byte-identical M2 under the same spaCy pipeline, except that a blank orig line still gets\n"
                    "a block (no tokens, a noop per corrected file: it scores nothing, as errant_parallel's skipped\n"
                    "line).\n"
                    "errant_parallel's flags (-orig -cor -out -tok -lev -merge), ChERRANT parallel_to_m2's (-f/--file, "
                    "-o/--output, -s/--multi_cheapest_strategy, --segmented, --no_simplified), double-dash "
                    "spellings (--orig --cor --out ...) and peet-fast's --src --hyp --out are all accepted.",
        formatter_class=argparse.RawTextHelpFormatter)
    add_io_option(p, "src", metavar="ORIG",
                  help="the original text file (one sentence per line); required unless -para")
    add_io_option(p, "hyp", nargs="+", metavar="COR", help="one or more corrected text files; required with -orig")
    add_io_option(p, "out", required=True, metavar="OUT", help="the output M2 file")
    add_tokenize_option(p)
    add_alignment_options(p)
    add_pipeline_options(p)
    zh = p.add_argument_group("Chinese (--lang zh): ChERRANT's char-level M2 (MuCGEC)")
    add_lang_option(zh, "en: ERRANT (default); zh: ChERRANT's char granularity, its M2 layout (T<k>-A<j> lines)")
    zh.add_argument("-para", "--para", "-f", "--file", metavar="FILE",
                    help="zh: ChERRANT's parallel file 'id<TAB>source<TAB>target1<TAB>...' (any number of targets "
                         "per line), instead of -orig/-cor")
    add_zh_resources(zh, "zh: ")
    add_zh_alignment_options(zh, "zh: ")
    return p


def run(args) -> int:
    from peet_fast.formats.para import read_para

    if args.para and args.lang != "zh":
        raise InputError("-para", "is for --lang zh only")
    if args.para and (args.src or args.hyp):
        raise InputError("-para", "give either -para FILE or -orig/-cor files, not both")
    if not args.para:
        for flag, given in (("-orig", args.src), ("-cor", args.hyp)):
            if not given:
                raise InputError(flag, "is required (or -para FILE with --lang zh)")
    check_output(args.out, [args.src, *(args.hyp or []), args.para, *resource_inputs(args)])
    if not args.para:
        from peet_fast.formats.m2 import looks_like_m2

        for flag, path in [("-orig", args.src), *(("-cor", h) for h in args.hyp)]:
            if looks_like_m2(path, by_name=False):
                raise InputError(path, f"is an M2 file ('S' and 'A' lines), not text: {flag} takes one sentence per "
                                       "line (for M2 files, use compare or m2scorer)")
    annotator = load_annotator(args, args.lang)
    if args.para:
        sources, targets = read_para(args.para)
        columns = []
    else:
        sources, *cors = read_parallel([args.src, *args.hyp])
        targets = [list(t) for t in zip(*cors)]
        columns = list(zip([args.src, *args.hyp], [sources, *cors]))
        warn_if_untokenised(args, columns)
    with progress_for(args, total=len(sources)) as progress, lines_located(columns), atomic_write(args.out) as out:
        n = annotator.write_m2(out, sources, targets, progress=progress, name=args.para or args.src)
    files = f", {plural(len(args.hyp), 'corrected file')}" if args.hyp else ""
    print(f"peet-fast m2: wrote {plural(n, 'sentence block')} ({annotator.scheme}{files}) to {shown(args.out)}",
          file=sys.stderr)
    blank = [k for k, s in enumerate(sources) if not s.strip()] if annotator.skips_blank_sources else []
    if blank:
        print(f"peet-fast m2: note: {len(blank)} blank orig line{'s' if len(blank) > 1 else ''} (first: "
              f"{args.src}:{blank[0] + 1}) written as an S line with no tokens and a noop per corrected file, "
              f"where errant_parallel writes no block (errant_compare scores both files alike)", file=sys.stderr)
    return 0
