"""`peet-fast score`: PEET of GEC systems, ranked."""
from __future__ import annotations

import argparse

from peet_fast.cli._common import (
    add_output_option,
    add_io_option,
    add_pipeline_options,
    add_system_inputs,
    add_tokenize_option,
    annotators,
    hyp_systems,
    model_summary,
    print_signatures,
    print_model_line,
    resource_inputs,
    warn_if_untokenised,
)
from peet_fast.cli._jobs import add_job_options, job_options, job_runner, task_options
from peet_fast.cli._progress import progress_for
from peet_fast.io import check_not_input, check_output, shown, write_json

PER_WORD_HELP = ("Columns: PEET (s) = the system's mean predicted seconds per sentence; s/word = its total predicted "
                 "seconds / its total MO words (whitespace-separated; spaCy tokens with -tok); mean s/word = the mean "
                 "over sentences of seconds / MO words, over the sentences with at least one MO word (a 0-word "
                 "sentence has no ratio).")


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "score", help="PEET of GEC systems: predicted post-editing seconds per sentence, ranked",
        description="Score GEC system outputs (MO) against human post-edits (TRG): ERRANT edits MO -> TRG, edit and "
                    "length features, and the PEET model's predicted seconds of post-editing per sentence. With "
                    "several references a sentence takes the minimum; a system's PEET is the mean over its sentences "
                    "(every line, empty ones included). Systems are ranked by PEET, ascending (less editing time is "
                    "better). " + PER_WORD_HELP)
    add_system_inputs(p)
    p.add_argument("--model", metavar="MODEL.json", help="a JSON PEET model (default: the published model)")
    add_io_option(p, "out", metavar="DIR|FILE",
                   help="per-sentence results. FILE.tsv/.csv/.jsonl/.parquet/.arrow: one file of that format; DIR "
                        "(no suffix, or an existing directory): a resumable sharded job, DIR/part-*.parquet (one "
                        "dataset: pyarrow.parquet.read_table(DIR)), progress in DIR/_manifest.json")
    add_output_option(p, "--summary", metavar="FILE.json", help="write the system scores as JSON")
    p.add_argument("--contributions", action="store_true",
                   help="with --out: add a contrib:<feature> column per model feature (coefficient x feature, its "
                        "share of seconds; seconds = intercept + their sum)")
    add_tokenize_option(p)
    p.add_argument("--edits", action="store_true",
                   help="with --out: add an edits column, the pair's ERRANT edits MO -> TRG (of the reference giving "
                        "the minimum; annotator id = its index) as M2 A lines: a list in .jsonl/.parquet/DIR, joined "
                        "by ' ;; ' in .tsv/.csv")
    add_pipeline_options(p)
    add_job_options(p)
    return p


def run(args) -> int:
    from peet_fast.jobs.tasks import score
    from peet_fast.peet.model import load_model
    from peet_fast.peet.scoring import json_number, rank

    names, paths = hyp_systems(args)
    inputs = [*paths, *args.ref, *resource_inputs(args)]
    check_output(args.summary, inputs)
    check_not_input(args.out, inputs)
    runner = job_runner(args)
    model = load_model(args.model)
    warn_if_untokenised(args, [*paths, *args.ref])
    with job_options(args), progress_for(args) as progress:
        scores = score(paths, args.ref, model, args.out, contributions=args.contributions, edits=args.edits,
                       names=names, options=task_options(args, runner, progress))
    ranked = rank(scores)
    from peet_fast.metrics.base import get_metric

    signature = get_metric("peet", model=model).signature(refs="text", nrefs=len(args.ref),
                                                          annotators=annotators(args))
    if args.summary:
        summary = {"model": model_summary(model, args),
                   "references": list(args.ref),
                   "systems": [{"name": s.name, "file": s.file, "peet": s.peet, "sentences": s.sentences,
                                "words": s.words, "seconds_per_word": json_number(s.seconds_per_word),
                                "mean_seconds_per_word": json_number(s.mean_seconds_per_word)} for s in ranked],
                   "signature": signature}
        write_json(args.summary, summary)
    names = [shown(s.name) for s in ranked]       # a file or NAME= given name: escaped, never a forged line
    width = max(len("system"), *(len(n) for n in names))
    print(f"{'rank':>4}  {'system':<{width}}  {'PEET (s)':>9}  {'sentences':>9}  {'s/word':>7}  {'mean s/word':>11}")
    for k, (s, name) in enumerate(zip(ranked, names), 1):
        print(f"{k:>4}  {name:<{width}}  {s.peet:>9.3f}  {s.sentences:>9}  {s.seconds_per_word:>7.4f}  "
              f"{s.mean_seconds_per_word:>11.4f}")
    print_model_line(model, len(args.ref))
    print_signatures([signature])
    return 0
