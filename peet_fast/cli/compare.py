"""`peet-fast compare`: span-based P/R/F as errant_compare and ChERRANT's compare."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._common import add_lang_option, add_pipeline_options, add_zh_resources, load_annotator
from peet_fast.cli._progress import parse_unit, progress_for
from peet_fast.io import InputError, check_output, lines_located, read_parallel, write_json


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "compare", help="span-based P/R/F0.5 of a hypothesis against references (errant_compare / ChERRANT)",
        description="Score a hypothesis M2 against a reference M2 as errant_compare (--lang en) or ChERRANT's\n"
                    "compare (--lang zh) do: the same TP/FP/FN/P/R/F and the same printed report. Per sentence\n"
                    "the (hyp, ref) annotator pair maximising the running corpus F is chosen (ties: more TP,\n"
                    "fewer FP, fewer FN, first in file order).\n"
                    "With --src, --hyp and --ref are plain text (one sentence per line, line-aligned with SRC)\n"
                    "and the edits are extracted here: English as `peet-fast m2` (errant_parallel), Chinese at\n"
                    "character level as ChERRANT. With --para (Chinese), ChERRANT's parallel files.",
        formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--hyp", required=True, metavar="HYP", help="hypothesis M2 file (with --src: hypothesis text)")
    p.add_argument("--ref", required=True, nargs="+", metavar="REF",
                   help="reference M2 file (with --src: one or more reference texts, annotators 0, 1, ...)")
    p.add_argument("--src", metavar="SRC", help="source text: --hyp/--ref are parallel text, not M2")
    p.add_argument("--para", action="store_true",
                   help="--lang zh: --hyp and --ref are ChERRANT parallel files (id<TAB>source<TAB>target...;\n"
                        "any number of references per line), annotated here")
    add_lang_option(p, "en: errant_compare (default); zh: ChERRANT (spaces removed from corrections, NA sentences "
                       "skipped; with --src, char-level ChERRANT annotation)")
    modes = p.add_mutually_exclusive_group()
    modes.add_argument("--mode", choices=["cs", "cse", "ds", "dt"], dest="mode",
                       help="cs: span correction (default); cse: span correction + type;\n"
                            "ds: span detection; dt: token detection")
    for m, text in (("cs", "span-based correction (default)"), ("cse", "span-based correction + error type"),
                    ("ds", "span-based detection"), ("dt", "token-based detection")):
        modes.add_argument("-" + m, action="store_const", const=m, dest="mode", help=f"= --mode {m}: {text}")
    p.add_argument("-b", "--beta", type=float, default=0.5, help="beta of the F-score (default 0.5)")
    p.add_argument("-single", action="store_true", help="only single-token edits (0:1, 1:0, 1:1)")
    p.add_argument("-multi", action="store_true", help="only multi-token edits (2+:n or n:2+)")
    p.add_argument("-filt", nargs="+", default=[], metavar="TYPE", help="leave out these error types")
    p.add_argument("-cat", type=int, choices=[1, 2, 3],
                   help="print per-type scores: 1 operation (M/R/U), 2 main type (NOUN), 3 full type (R:NOUN)")
    p.add_argument("--alignments", choices=["pool", "separate"], default="pool",
                   help="ChERRANT's alternative alignments of one target (T<i>-A<j>):\n"
                        "pool: one candidate per annotator id, as the tools do (default);\n"
                        "separate: one candidate per alignment (the best is chosen)")
    p.add_argument("--strategy", choices=["all", "first"], default="all",
                   help="--lang zh with --src: keep all minimum-cost alignments (default) or the first")
    add_zh_resources(p, "--lang zh with --src: ")
    p.add_argument("--allow-source-mismatch", action="store_true",
                   help="score M2 blocks whose S lines differ between --hyp and --ref (refused by default: the\n"
                        "spans would not refer to the same tokens); ChERRANT's own demo files need it")
    p.add_argument("--summary", metavar="FILE.json",
                   help='write {"TP", "FP", "FN", "P", "R", "F0.5", "per_type": {type: {...}}, ...} as JSON '
                        "(per_type at the -cat level, full types by default)")
    add_pipeline_options(p)
    p.set_defaults(mode="cs")
    return p


def run(args) -> int:
    import math

    from peet_fast import compare as C
    from peet_fast.languages import span_rules
    from peet_fast.metrics import span

    if not math.isfinite(args.beta) or args.beta <= 0:
        raise InputError("--beta", f"must be a finite number > 0, not {args.beta!r}")
    if args.para and args.src is not None:
        raise InputError("--para", "applies without --src (ChERRANT parallel files)")
    text = args.src is not None or args.para
    for flag, given in (("--strategy", args.strategy != "all"), ("--cilin", args.cilin is not None),
                        ("--confusion", args.confusion is not None)):
        if given and not text:
            raise InputError(flag, "applies to text input (--src or --para) only")
    if args.allow_source_mismatch and text:
        raise InputError("--allow-source-mismatch", "applies to M2 input only (without --src or --para)")
    check_output(args.summary)
    if args.para:
        if len(args.ref) != 1:
            raise InputError("--ref", "give one reference parallel file (its targets are the references)")
        src, hyp_t, refs_t = C.load_para_pair(args.hyp, args.ref[0])
    elif args.src is None:
        if len(args.ref) != 1:
            raise InputError("--ref", "give one reference M2 file (its annotators are the references); several "
                                      "reference files need --src (parallel text)")
        hyp_b, ref_b = C.load_m2_pair(args.hyp, args.ref[0], not args.allow_source_mismatch)
        hyp = span.m2_sentences(hyp_b, alignments=args.alignments)
        ref = span.m2_sentences(ref_b, alignments=args.alignments)
    else:
        texts = read_parallel([args.src, args.hyp, *args.ref])
        columns = list(zip([args.src, args.hyp, *args.ref], texts))
        src, hyp_t, *refs_t = texts
        refs_t = [list(r) for r in zip(*refs_t)]
    if text:
        progress = progress_for(args, unit=parse_unit(args.lang))
        annotator = load_annotator(args, args.lang, progress=progress)
        with progress, lines_located(columns if args.src is not None else []):
            hyp, ref = C.sentences_from_parallel(annotator, src, hyp_t, refs_t, args.alignments)
    result = span.compare_edits(hyp, ref, beta=args.beta, mode=args.mode, **span_rules(args.lang), single=args.single,
                                multi=args.multi, filt=args.filt)
    if args.summary:
        summary = result.summary(args.cat or 3)
        summary.update({"lang": args.lang, "sentences": len(hyp), "hyp": args.hyp, "ref": list(args.ref),
                        "src": args.src})
        write_json(args.summary, summary)
    sys.stdout.write(span.format_results(result, args.cat))
    return 0
