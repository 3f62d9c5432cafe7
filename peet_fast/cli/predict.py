"""`peet-fast predict`: a JSON model over a features file, streamed."""
from __future__ import annotations

import argparse

from peet_fast.cli._common import add_io_option
from peet_fast.io import check_output


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "predict", help="predicted post-editing seconds for a features file (streaming, vectorized)",
        description="Apply a JSON PEET model to a features file written by `peet-fast featurize` (Parquet, or Arrow "
                    "IPC read memory-mapped), one record batch at a time: memory stays flat for any size.")
    p.add_argument("--features", required=True, metavar="PATH",
                   help="a .parquet or .arrow features file, or a sharded featurize job's directory")
    p.add_argument("--model", metavar="MODEL.json", help="a JSON PEET model (default: the published model)")
    add_io_option(p, "out", metavar="PATH", help="write (sentence, seconds) to a .parquet or .arrow file")
    return p


def run(args) -> int:
    import os

    from peet_fast.jobs.layout import iter_dataset_batches
    from peet_fast.peet.model import load_model, predict_file

    check_output(args.out, [args.features, args.model])
    model = load_model(args.model)
    read_batches = iter_dataset_batches if os.path.isdir(args.features) else None    # a featurize job's directory
    n, total = predict_file(model, args.features, args.out, read_batches=read_batches)
    mean = total / n if n else float("nan")
    print(f"rows: {n}\nmean predicted seconds: {mean:.4f}")
    return 0
