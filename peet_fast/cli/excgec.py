"""`peet-fast excgec`: EXCGEC explanation and correction metrics."""
from __future__ import annotations

import argparse

from peet_fast.cli._common import add_output_option, add_io_option, add_zh_resources, load_annotator, resource_inputs
from peet_fast.cli._progress import parse_unit, progress_for
from peet_fast.io import InputError, check_output, write_json


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "excgec", help="EXCGEC: score edit explanations (type, severity, description) and corrections",
        description="Evaluate an explainable Chinese GEC system (EXCGEC) as the EXCGEC evaluator does: hypothesis "
                    "edits are matched to reference edits by source overlap (hit/miss); on hit edits the error-type "
                    "accuracy and P/R/F1 (17 types), severity MAE and description BLEU/METEOR/ROUGE (character "
                    "tokens); and the correction score of the targets: CLEME F0.5 (dependent and independent, "
                    "length-weighted and not) and ChERRANT span-correction F0.5. Reads the dataset layout "
                    "({\"samples\": [...]}, as test.json) or the evaluator's layout (a list of {\"input\", "
                    "\"output\"}, as test.ref.json); hyp and ref pair up sample by sample.")
    add_io_option(p, "hyp", required=True, metavar="HYP.json", help="the system's samples (EXCGEC JSON)")
    add_io_option(p, "ref", required=True, metavar="REF.json", help="the reference samples (EXCGEC JSON)")
    add_output_option(p, "--summary", metavar="FILE.json", help="write every metric to this JSON file")
    p.add_argument("--merge-distance", type=int, default=1, metavar="D",
                   help="CLEME chunk merge distance (default 1, as the EXCGEC evaluator)")
    add_zh_resources(p, "for the character edits of the correction scores (the evaluator uses ChERRANT's "
                         "cilin.txt and confusion_dict.txt: give both to reproduce its numbers exactly): ")
    p.add_argument("--no-correction", action="store_true",
                   help="skip the correction scores (CLEME, ChERRANT): explanation metrics only")
    return p


def run(args) -> int:
    from peet_fast.evaluation.excgec import check_aligned, evaluate, format_report, read_excgec

    check_output(args.summary, [args.hyp, args.ref, *resource_inputs(args)])
    if args.merge_distance < 0:
        raise InputError("--merge-distance", "must be at least 0")
    hyp = read_excgec(args.hyp)
    ref = read_excgec(args.ref)
    check_aligned(hyp, ref, args.hyp, args.ref)
    annotator = None
    progress = progress_for(args, "aligning", unit=parse_unit("zh"), parse=True)
    if not args.no_correction:
        annotator = load_annotator(args, "zh", t2s=False, progress=progress)
    with progress:
        summary = evaluate(hyp, ref, annotator, merge_distance=args.merge_distance)
    from peet_fast.cli._common import print_signatures
    from peet_fast.languages import Annotators
    from peet_fast.metrics.base import get_metric

    signatures = {} if args.no_correction else {
        m.name: m.signature(refs="text", nrefs=1, annotators=Annotators("zh"))
        for m in (get_metric("cleme", merge_distance=args.merge_distance), get_metric("errant"))}
    summary = {"hyp": args.hyp, "ref": args.ref, **summary}
    if args.summary:
        write_json(args.summary, {**summary, "signature": signatures})
    print(format_report(summary))
    print_signatures(signatures.values())
    return 0
