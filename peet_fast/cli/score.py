"""`peet-fast score`: PEET of GEC systems, ranked."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._common import (
    add_job_options,
    add_pipeline_options,
    job_options,
    job_runner,
    max_line_tokens,
    model_summary,
)
from peet_fast.cli._progress import progress_for
from peet_fast.io import check_output, write_json


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "score", help="PEET of GEC systems: predicted post-editing seconds per sentence, ranked",
        description="Score GEC system outputs (MO) against human post-edits (TRG): ERRANT edits MO -> TRG, edit and "
                    "length features, and the PEET model's predicted seconds of post-editing per sentence. With "
                    "several references a sentence takes the minimum; a system's PEET is the mean over its sentences "
                    "(every line, empty ones included). Systems are ranked by PEET, ascending (less editing time is "
                    "better).")
    p.add_argument("--hyp", required=True, nargs="+", metavar="FILE", help="system outputs, one sentence per line")
    p.add_argument("--ref", required=True, nargs="+", metavar="FILE", help="references (post-edits), line-aligned")
    p.add_argument("--model", metavar="MODEL.json", help="a JSON PEET model (default: the published model)")
    p.add_argument("--out", metavar="DIR",
                   help="run as a resumable sharded job: per-sentence results in DIR/part-*.parquet (one dataset: "
                        "pyarrow.parquet.read_table(DIR)), progress in DIR/_manifest.json")
    p.add_argument("--summary", metavar="FILE.json", help="write the system scores as JSON")
    p.add_argument("--contributions", action="store_true",
                   help="with --out: add a contrib:<feature> column per model feature (coefficient x feature, its "
                        "share of seconds; seconds = intercept + their sum)")
    add_pipeline_options(p)
    add_job_options(p)
    return p


def run(args) -> int:
    from peet_fast.jobs.tasks import score
    from peet_fast.model import load_model
    from peet_fast.scoring import rank

    check_output(args.summary)
    runner = job_runner(args)
    model = load_model(args.model)
    with job_options(), progress_for(args) as progress:
        scores = score(args.hyp, args.ref, model, args.out, contributions=args.contributions,
                       spacy_model=args.spacy_model, batch_size=args.batch_size, shard_rows=args.shard_rows,
                       max_line_tokens=max_line_tokens(args), runner=runner, progress=progress)
    ranked = rank(scores)
    if args.summary:
        summary = {"model": model_summary(model, args),
                   "references": list(args.ref),
                   "systems": [{"name": s.name, "file": s.file, "peet": s.peet, "sentences": s.sentences}
                               for s in ranked]}
        write_json(args.summary, summary)
    width = max(len("system"), *(len(s.name) for s in ranked))
    print(f"{'rank':>4}  {'system':<{width}}  {'PEET (s)':>9}  {'sentences':>9}")
    for k, s in enumerate(ranked, 1):
        print(f"{k:>4}  {s.name:<{width}}  {s.peet:>9.3f}  {s.sentences:>9}")
    print(f"model: {model.name} ({model.feature_set} features); references: {len(args.ref)}", file=sys.stderr)
    return 0
