"""`peet-fast featurize`: edit and length features of (MO, TRG) pairs."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._common import (
    add_io_option,
    add_pipeline_options,
    add_tokenize_option,
    plural,
    warn_if_untokenised,
)
from peet_fast.cli._jobs import add_job_options, job_options, job_runner, task_options
from peet_fast.cli._progress import progress_for
from peet_fast.en.features import FEATURE_SETS
from peet_fast.io import InputError, check_not_input, shown


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "featurize", help="edit and length features of (MO, TRG) pairs, to Parquet or Arrow IPC",
        description="Features of each pair (line k of --mo, line k of --trg) from the ERRANT edits MO -> TRG. Output "
                    "columns: sentence (int64, 0-based line), then the feature set's columns in canonical order "
                    "(int32): small = R M U NONE, medium = the 24 error types + NONE, large = the 54 "
                    "operation:type labels + NONE; then NumWordsS NumWordsT NumEditedWords. The schema metadata "
                    "records the feature set (peet_fast.feature_set).")
    add_io_option(p, "hyp", "--mo", metavar="FILE", help="MO sentences (system output), one per line")
    add_io_option(p, "ref", "--trg", metavar="FILE", help="TRG sentences (post-edits), line-aligned")
    p.add_argument("--pairs", metavar="FILE", help="pairs as .jsonl, .tsv (header line) or .parquet with named columns")
    p.add_argument("--mo-column", default="mo", metavar="NAME", help="MO column of --pairs (default: mo)")
    p.add_argument("--trg-column", default="trg", metavar="NAME", help="TRG column of --pairs (default: trg)")
    p.add_argument("--id-column", default="id", metavar="NAME", help="optional id column of --pairs (default: id)")
    p.add_argument("--features", choices=FEATURE_SETS, default="small", help="feature set (default: small)")
    add_io_option(p, "out", required=True, metavar="PATH",
                   help="a .parquet or .arrow (Arrow IPC) file, or a directory: a resumable sharded dataset "
                        "(part-*.parquet + _manifest.json)")
    add_tokenize_option(p)
    add_pipeline_options(p)
    add_job_options(p)
    return p


def run(args) -> int:
    from peet_fast.jobs import table_source, text_source
    from peet_fast.jobs.tasks import featurize

    runner = job_runner(args)
    if bool(args.pairs) == bool(args.hyp or args.ref) or (not args.pairs and not (args.hyp and args.ref)):
        raise InputError("featurize", "give either --hyp FILE --ref FILE (or --mo FILE --trg FILE), or --pairs FILE")
    check_not_input(args.out, [args.pairs, args.hyp, args.ref])
    source = (table_source(args.pairs, args.mo_column, args.trg_column, args.id_column) if args.pairs
              else text_source([args.hyp, args.ref]))
    if args.pairs:
        from peet_fast.formats.pairs import head_column

        warn_if_untokenised(args, [(args.pairs, head_column(args.pairs, args.mo_column))])
    else:
        warn_if_untokenised(args, [args.hyp, args.ref])
    with job_options(args), progress_for(args, unit="rows" if args.pairs else "lines") as progress:
        done = featurize(source, args.out, args.features, task_options(args, runner, progress))
    if done.shards is None:
        print(f"peet-fast featurize: wrote {plural(done.rows, 'row')} ({args.features} features) to {shown(args.out)}",
              file=sys.stderr)
    else:
        print(f"peet-fast featurize: {plural(done.rows, 'row')} ({args.features} features) in "
              f"{plural(done.shards, 'shard')} in {shown(args.out)}", file=sys.stderr)
    return 0
