"""`peet-fast train`: fit a PEET model on time-annotated pairs."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._common import (
    add_data_columns,
    add_io_option,
    add_pipeline_options,
    add_tokenize_option,
    load_annotator,
    warn_if_untokenised,
)
from peet_fast.cli._progress import progress_for
from peet_fast.en.features import FEATURE_SETS, SOURCE_MODES
from peet_fast.io import InputError, check_output


def _train_options(args) -> dict:
    """Validate the estimator options; returns the estimator record stored in the model."""
    import math

    def finite(flag, v, low, strict):
        if not math.isfinite(v) or v < low or (strict and v == low):
            raise InputError(flag, f"must be a finite number {'>' if strict else '>='} {low:g}, not {v!r}")

    if args.model == "ridge":
        for flag, v in (("--C", args.svr_c), ("--epsilon", args.epsilon)):
            if v is not None:
                raise InputError(flag, "applies to --model svr only")
        alpha = 1.0 if args.alpha is None else args.alpha
        finite("--alpha", alpha, 0.0, False)
        return {"type": "ridge", "alpha": alpha}
    if args.alpha is not None:
        raise InputError("--alpha", "applies to --model ridge only (SVR takes --C and --epsilon)")
    c = 1.0 if args.svr_c is None else args.svr_c
    eps = 0.1 if args.epsilon is None else args.epsilon
    finite("--C", c, 0.0, True)
    finite("--epsilon", eps, 0.0, False)
    return {"type": "svr", "kernel": "linear", "C": c, "epsilon": eps}


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "train", help="fit a PEET model on time-annotated pairs (the published protocol) and write it as JSON",
        description="Fit a linear post-editing-time model. Protocol: drop rows with time > --max-time (250 s); merge "
                    "duplicate (mo, trg) rows (src-mo-trg: (src, mo, trg)) by averaging their times; compute the "
                    "feature set's edit features plus NumWordsS, NumWordsT, NumEditedWords; split 80/20 with a "
                    "seeded permutation (split r uses seed + r); fit Ridge or linear-kernel SVR (scikit-learn) on the "
                    "training part; report Pearson r, Spearman rho and MAE on the test part (mean and sd over "
                    "--repeats splits). The model written is split 0's fit, the JSON model `score`, `predict` and "
                    "`explain` load.")
    p.add_argument("--data", required=True, metavar="FILE",
                   help=".tsv (header line), .jsonl or .parquet with columns mo, trg, time (seconds) and, for "
                        "--source src-mo-trg, src")
    p.add_argument("--features", required=True, choices=FEATURE_SETS, help="edit feature set")
    p.add_argument("--source", choices=SOURCE_MODES, default="mo-trg",
                   help="mo-trg (default): edits MO -> TRG; src-mo-trg: incorrect edits (SRC -> MO, not "
                        "SRC -> TRG) and ignored edits (SRC -> TRG, not SRC -> MO)")
    p.add_argument("--model", choices=["ridge", "svr"], default="ridge", help="estimator (default: ridge)")
    p.add_argument("--alpha", type=float, metavar="A", help="Ridge regularization strength (default 1.0)")
    p.add_argument("--C", type=float, dest="svr_c", metavar="C", help="SVR regularization parameter (default 1.0)")
    p.add_argument("--epsilon", type=float, metavar="E", help="SVR epsilon-tube width in seconds (default 0.1)")
    p.add_argument("--repeats", type=int, default=1, metavar="N",
                   help="fit N seeded splits and report mean and sd of the metrics (default 1)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of split 0 (default 0)")
    p.add_argument("--max-time", type=float, default=250.0, metavar="SECONDS",
                   help="drop rows with a longer time (default 250)")
    p.add_argument("--name", metavar="NAME", help="the model's name (default: the --out file name)")
    add_io_option(p, "out", required=True, metavar="MODEL.json", help="the JSON model to write")
    add_data_columns(p)
    add_tokenize_option(p)
    add_pipeline_options(p)
    return p


def run(args) -> int:
    import math
    import os

    from peet_fast.jobs.annotated import read_annotated
    from peet_fast.peet import train as T

    check_output(args.out, [args.data])
    estimator = _train_options(args)
    if args.repeats < 1:
        raise InputError("--repeats", "must be at least 1")
    if not math.isfinite(args.max_time) or args.max_time <= 0:
        raise InputError("--max-time", f"must be a positive number of seconds, not {args.max_time!r}")
    data = read_annotated(args.data, args.source, mo=args.mo_column, trg=args.trg_column, src=args.src_column,
                          time=args.time_column)
    prep = T.training_rows(data, args.max_time)
    warn_if_untokenised(args, [(args.data, prep.mo)])
    name = args.name or os.path.splitext(os.path.basename(args.out))[0] or "peet-model"
    with progress_for(args, "parsing", unit="sentences", parse=True) as progress:
        options = T.TrainOptions(args.features, args.source, estimator, name, os.path.basename(args.data),
                                 args.max_time, args.repeats, args.seed)
        trained = T.train_model(load_annotator(args, progress=progress), prep, options)
    trained.model.save(args.out)
    fitted, names = trained.fitted, trained.names
    run0 = fitted.runs[0]
    params = ", ".join(f"{k} {v:g}" for k, v in estimator.items() if k not in ("type", "kernel"))
    print(f"data: {args.data}: {prep.rows_read} rows read, {prep.rows_over_max_time} over {args.max_time:g} s "
          f"dropped, {prep.duplicates_merged} duplicates merged -> {len(prep.mo)} rows")
    print(f"model: {args.model} ({params}), {args.features} features ({args.source}), {len(names)} features")
    print(f"split: 80/20 (train {run0['train_rows']}, test {run0['test_rows']}), seed {args.seed}, "
          f"{args.repeats} repeat{'s' if args.repeats > 1 else ''}")
    print(f"{'test metric':<12}  {'mean':>8}  {'sd':>8}")
    for key, label in (("pearson", "Pearson r"), ("spearman", "Spearman"), ("mae", "MAE (s)")):
        mean, sd = fitted.summary[key]
        print(f"{label:<12}  {mean:>8.4f}  {'-' if math.isnan(sd) else f'{sd:.4f}':>8}")
    print(f"wrote {args.out} (split 0's fit); features {trained.feature_seconds:.1f} s, fitting "
          f"{trained.fit_seconds:.1f} s", file=sys.stderr)
    return 0
