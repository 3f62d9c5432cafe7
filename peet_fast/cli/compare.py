"""`peet-fast compare`: span-based P/R/F as errant_compare and ChERRANT's compare."""
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
    annotators,
    print_signatures,
    resource_inputs,
    warn_if_untokenised,
)
from peet_fast.cli._progress import parse_unit, progress_for
from peet_fast.io import InputError, check_output, lines_located, read_parallel, read_text, write_json


def add_scoring_options(p) -> None:
    """The scoring options compare and agreement share: the mode (-cs default, -cse, -ds, -dt or --mode), -b, -single,
    -multi and -filt."""
    modes = p.add_mutually_exclusive_group()
    modes.add_argument("--mode", choices=["cs", "cse", "ds", "dt"], dest="mode",
                       help="cs: span correction (default); cse: span correction + type;\n"
                            "ds: span detection; dt: token detection")
    for m, text in (("cs", "span-based correction (default)"), ("cse", "span-based correction + error type"),
                    ("ds", "span-based detection"), ("dt", "token-based detection")):
        modes.add_argument("-" + m, "--" + m, action="store_const", const=m, dest="mode",
                           help=f"= --mode {m}: {text}")
    p.add_argument("-b", "--beta", type=float, default=0.5, help="beta of the F-score (default 0.5)")
    p.add_argument("-single", "--single", action="store_true", help="only single-token edits (0:1, 1:0, 1:1)")
    p.add_argument("-multi", "--multi", action="store_true", help="only multi-token edits (2+:n or n:2+)")
    p.add_argument("-filt", "--filt", nargs="+", default=[], metavar="TYPE", help="leave out these error types")
    p.set_defaults(mode="cs")


def check_beta(beta: float) -> None:
    """Refuse a beta that is not a finite number > 0."""
    import math

    if not math.isfinite(beta) or beta <= 0:
        raise InputError("--beta", f"must be a finite number > 0, not {beta!r}")


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "compare", help="span-based P/R/F0.5 of a hypothesis against references (errant_compare / ChERRANT)",
        description="Score a hypothesis M2 against a reference M2 as errant_compare (--lang en) or ChERRANT's\n"
                    "compare (--lang zh) do: the same TP/FP/FN/P/R/F and the same printed report. Per sentence\n"
                    "the (hyp, ref) annotator pair maximising the running corpus F is chosen (ties: more TP,\n"
                    "fewer FP, fewer FN, first in file order).\n"
                    "With --src, --hyp and --ref are plain text (one sentence per line, line-aligned with SRC)\n"
                    "and the edits are extracted here: English as `peet-fast m2` (errant_parallel), Chinese at\n"
                    "character level as ChERRANT. With --para (Chinese), ChERRANT's parallel files.\n"
                    "errant_compare's single-dash flags (-hyp -ref -b -v -cs -cse -ds -dt -single -multi -filt\n"
                    "-cat) and their double-dash spellings (--hyp --ref ...) are both accepted.",
        formatter_class=argparse.RawTextHelpFormatter)
    add_io_option(p, "hyp", required=True, metavar="HYP",
                   help="hypothesis M2 file (with --src: hypothesis text)")
    add_io_option(p, "ref", required=True, nargs="+", metavar="REF",
                   help="reference M2 file (with --src: one or more reference texts, annotators 0, 1, ...)")
    add_io_option(p, "src", metavar="SRC", help="source text: --hyp/--ref are parallel text, not M2")
    p.add_argument("--para", action="store_true",
                   help="--lang zh: --hyp and --ref are ChERRANT parallel files (id<TAB>source<TAB>target...;\n"
                        "any number of references per line), annotated here")
    add_lang_option(p, "en: errant_compare (default); zh: ChERRANT (spaces removed from corrections, NA sentences "
                       "skipped; with --src, char-level ChERRANT annotation)")
    add_scoring_options(p)
    p.add_argument("-cat", "--cat", type=int, choices=[1, 2, 3],
                   help="print per-type scores: 1 operation (M/R/U), 2 main type (NOUN), 3 full type (R:NOUN)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="errant_compare's verbose report: per sentence, every (hyp, ref) annotator pair's edits,\n"
                        "local and running TP/FP/FN and P/R/F, and the pair chosen (before the totals)")
    p.add_argument("--alignments", choices=["pool", "separate"], default="pool",
                   help="ChERRANT's alternative alignments of one target (T<i>-A<j>):\n"
                        "pool: one candidate per annotator id, as the tools do (default);\n"
                        "separate: one candidate per alignment (the best is chosen)")
    add_zh_resources(p, "--lang zh with --src or --para: ")
    add_zh_alignment_options(p, "--lang zh with --src or --para: ")
    add_alignment_options(p)
    p.add_argument("--allow-source-mismatch", action="store_true",
                   help="score M2 blocks whose S lines differ between --hyp and --ref (refused by default: the\n"
                        "spans would not refer to the same tokens); ChERRANT's own demo files need it")
    p.add_argument("--metric", default="errant", metavar="NAME",
                   help="errant: span-based P/R/F as errant_compare / ChERRANT (default);\n"
                        "cleme: CLEME's chunk-level P/R/F (Ye et al. 2023; THUKElab/CLEME), on the same inputs;\n"
                        "any other metric of the registry (peet_fast.metric_names(): wer, peet, m2, gleu, green,\n"
                        "cleme2, ...): its corpus score on text input (--src, or a gold M2 as the one --ref),\n"
                        "printed as 'TITLE<TAB>score' (--lang zh: cleme2)")
    p.add_argument("--cleme-mode", choices=["dependent", "independent"],
                   help="--metric cleme / cleme2: references scored each on its own, the best kept per sentence\n"
                        "(dependent, default), or pooled (independent)")
    p.add_argument("--cleme-weighted", action="store_true",
                   help="--metric cleme / cleme2: CLEME's length-weighted counts (default: unweighted)")
    add_output_option(p, "--summary", metavar="FILE.json",
                   help='write {"TP", "FP", "FN", "P", "R", "F0.5", "per_type": {type: {...}}, ...} as JSON '
                        "(per_type at the -cat level, full types by default)")
    add_tokenize_option(p)
    add_pipeline_options(p)
    return p


def m2_source_texts(path: str, blocks) -> list[str]:
    """The sentence texts errant_compare -v shows for an M2 file's blocks: each block's text after its 'S ' up to
    its first A line, cut as errant cuts it (blocks split at blank lines, so an 'S' line with nothing after it shows
    its first edit line); the parsed source tokens where the file's blocks do not split that way."""
    raw = read_text(path).strip().split("\n\n")
    if len(raw) != len(blocks):
        return [" ".join(b.source) for b in blocks]
    return [block[2:].split("\nA")[0] for block in raw]


def run(args) -> int:
    from peet_fast.cli._flags import metrics_given
    from peet_fast.metrics.base import get_metric
    from peet_fast.metrics.config import spec_parts

    spec, args.metric = args.metric, spec_parts(args.metric)[0]
    check_beta(args.beta)
    if args.para and args.src is not None:
        raise InputError("--para", "applies without --src (ChERRANT parallel files)")
    text = args.src is not None or args.para
    for flag, given in (("--strategy", args.strategy != "all"), ("--cilin", args.cilin is not None),
                        ("--confusion", args.confusion is not None), ("--no-t2s", args.no_t2s),
                        ("--segmented", args.segmented), ("-lev", args.lev), ("-merge", args.merge != "rules")):
        if given and not text:
            raise InputError(flag, "applies to text input (--src or --para) only")
    if args.allow_source_mismatch and text:
        raise InputError("--allow-source-mismatch", "applies to M2 input only (without --src or --para)")
    check_metric_options(args)
    check_output(args.summary, [args.src, args.hyp, *args.ref, *resource_inputs(args)])
    metric = metrics_given([spec], vars(args))[0]
    metric = get_metric(metric) if isinstance(metric, str) else metric
    compared = compare_edits(args, metric) if metric.scores_edits else compare_text(args, metric)
    signature = metric.signature(refs="text" if text else "m2", nrefs=len(args.ref),
                                 annotators=annotators(args, args.lang) if text else None, lang=args.lang)
    if args.summary:
        write_json(args.summary, {**compared.summary, "hyp": args.hyp, "ref": list(args.ref), "src": args.src,
                                  "signature": signature})
    sys.stdout.write(compared.report)
    print_signatures([signature])
    return 0


def compare_edits(args, metric):
    """compare of a metric scoring edits (Metric.compare: errant, cleme) on this command line's inputs: M2 files,
    parallel text (--src) or ChERRANT parallel files (--para)."""
    from peet_fast.metrics.base import Comparison

    src, hyp_t, refs_t, blocks = read_inputs(args)
    if args.src is not None:
        warn_if_untokenised(args, [(args.src, src), (args.hyp, hyp_t), *args.ref])
    given = Comparison(blocks, (args.hyp, args.ref[0]), src, hyp_t, refs_t, args.lang, args.para,
                       notice=lambda line: print(line, file=sys.stderr))
    if blocks is None:
        given.annotator = annotators(args, args.lang)
        given.src_path = args.src or args.hyp
        given.progress = progress_for(args, "parsing", unit=parse_unit(args.lang), parse=True)
        if args.src is not None:           # where a sentence too long to parse is: file and line
            given.columns = [(args.src, src), (args.hyp, hyp_t),
                             *((path, [r[k] for r in refs_t]) for k, path in enumerate(args.ref))]
    if args.verbose:
        given.verbose = sys.stdout
        given.shown = m2_source_texts(args.hyp, blocks[0]) if blocks is not None else None
        given.verbose_note = ("peet-fast compare: note: -v prints errant_compare's verbose report (ChERRANT's own "
                              "-v layout differs)")
    return metric.compare(given)


def check_metric_options(args) -> None:
    """Refuse an unknown metric, and the options of one metric given with another (Metric.compare_options: the
    options each takes, Metric.langs: the languages)."""
    from peet_fast.metrics.base import metric_class, metric_names

    edit_metrics = [n for n in metric_names() if metric_class(n).scores_edits]
    if args.metric not in metric_names():
        listed = [*edit_metrics, *(n for n in metric_names() if n not in edit_metrics)]
        raise InputError("--metric", f"unknown metric {args.metric!r}; known: {', '.join(listed)}")
    cls = metric_class(args.metric)
    for option, flag, given in (("cat", "-cat", args.cat is not None), ("single", "-single", args.single),
                                ("multi", "-multi", args.multi), ("filt", "-filt", bool(args.filt)),
                                ("mode", f"-{args.mode}", args.mode != "cs"),
                                ("alignments", "--alignments", args.alignments != "pool"),
                                ("para", "--para", args.para),
                                ("allow_source_mismatch", "--allow-source-mismatch", args.allow_source_mismatch),
                                ("verbose", "-v", args.verbose), ("beta", "-b", args.beta != 0.5),
                                ("lang", "--lang", args.lang not in cls.langs),
                                ("cleme_mode", "--cleme-mode", args.cleme_mode is not None),
                                ("cleme_weighted", "--cleme-weighted", args.cleme_weighted)):
        if not given or (option in cls.compare_options and option != "lang"):
            continue
        if not cls.scores_edits:
            raise InputError(flag, f"applies to --metric {' or '.join(edit_metrics)} only, not {args.metric}")
        takers = [n for n in edit_metrics if option in metric_class(n).compare_options]
        raise InputError(flag, f"applies to --metric {' or '.join(takers)} only"
                               + (f" ({cls.refusal})" if cls.refusal else ""))


def read_inputs(args) -> tuple:
    """(src, hyp texts, per-sentence ref texts, None) for text input (--src, --para); (None, None, None, (hyp
    blocks, ref blocks)) for M2 input."""
    from peet_fast.evaluation import inputs as C

    if args.para:
        if len(args.ref) != 1:
            raise InputError("--ref", "give one reference parallel file (its targets are the references)")
        return (*C.load_para_pair(args.hyp, args.ref[0]), None)
    if args.src is None:
        if len(args.ref) != 1:
            raise InputError("--ref", "give one reference M2 file (its annotators are the references); several "
                                      "reference files need --src (parallel text)")
        return None, None, None, C.load_m2_pair(args.hyp, args.ref[0], not args.allow_source_mismatch)
    src, hyp_t, *refs_t = read_parallel([args.src, args.hyp, *args.ref])
    return src, hyp_t, [list(r) for r in zip(*refs_t)], None


def compare_text(args, metric):
    """compare --metric NAME for a metric scoring text (Metric.compare_set): its corpus score of the hypothesis text
    against the references (text with --src, or one gold M2 as --ref), as `rank --metric NAME` computes it;
    --summary holds {"metric", "title", "higher_is_better", "score", "sentences", "hyp", "ref", "src"}."""
    from peet_fast.evaluation.inputs import read_eval_inputs
    from peet_fast.metrics.base import EvalSet
    from peet_fast.evaluation.rank import check_metric_inputs

    if args.src is None and not (len(args.ref) == 1 and _is_m2(args.ref[0])):
        raise InputError("--metric", f"{args.metric} scores text: give --src SRC with text --hyp/--ref, or a gold "
                                     "M2 as the one --ref")
    inputs = read_eval_inputs([args.hyp], args.ref, args.src, args.flags)
    data = EvalSet.from_files(inputs, annotators(args, args.lang), {"lang": args.lang})
    try:
        check_metric_inputs([metric], data, "--src SRC (or a gold M2 as --ref)", "a gold M2 as --ref")
    except ValueError as exc:
        raise InputError("--metric", str(exc)) from None
    columns = [(args.hyp, inputs.hyps[0]), *inputs.columns]
    warn_if_untokenised(args, columns)
    with lines_located(columns if inputs.gold is None else columns[:1]):
        return metric.compare_set(inputs.hyps[0], data)


def _is_m2(path: str) -> bool:
    from peet_fast.formats.m2 import looks_like_m2

    return looks_like_m2(path)
