"""`peet-fast explain`: standardized coefficients of a model."""
from __future__ import annotations

import argparse

from peet_fast.cli._common import (
    add_output_option,
    add_data_columns,
    add_pipeline_options,
    add_tokenize_option,
    load_annotator,
    warn_if_untokenised,
)
from peet_fast.cli._progress import progress_for
from peet_fast.io import InputError, check_output, shown, write_json


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "explain", help="standardized coefficients of a JSON model, ranked by magnitude",
        description="Standardized coefficients: coefficient x the feature's standard deviation on the data (the "
                    "binary NONE/correct features left as they are), ranked by magnitude. The standard deviations "
                    "come from --data (features computed as at training time; with a time column, after the same "
                    "time filter and merging of duplicates) or, without it, from the training record of a model "
                    "written by `peet-fast train`. Per-sentence contributions: `peet-fast score --out DIR "
                    "--contributions`.")
    p.add_argument("model", metavar="MODEL.json", help="a JSON model ('published' for the published model)")
    p.add_argument("--data", metavar="FILE", help=".tsv, .jsonl or .parquet pairs (mo, trg; src for a src-mo-trg "
                                                  "model; time optional)")
    add_output_option(p, "--json", metavar="FILE.json", help="also write the ranked terms as JSON")
    add_data_columns(p)
    add_tokenize_option(p)
    add_pipeline_options(p)
    return p


def run(args) -> int:
    from peet_fast.jobs.annotated import read_annotated
    from peet_fast.peet.explain import format_terms, standardized_terms, std_from_data, stored_std
    from peet_fast.peet.model import load_model

    check_output(args.json, [None if args.model == "published" else args.model, args.data])
    model = load_model(None if args.model == "published" else args.model)
    if args.data:
        from peet_fast.formats.pairs import head_column

        warn_if_untokenised(args, [(args.data, head_column(args.data, args.mo_column))])
        with progress_for(args, "parsing", unit="sentences", parse=True) as progress:
            data = read_annotated(args.data, model.source_mode, need_time=False, mo=args.mo_column,
                                  trg=args.trg_column, src=args.src_column, time=args.time_column)
            std, rows = std_from_data(model, data, lambda: load_annotator(args, progress=progress))
        origin = f"{args.data} ({rows} rows)"
    else:
        std = stored_std(model)
        if std is None:
            raise InputError(args.model, "the model records no feature statistics (not written by peet-fast train): "
                                         "give --data FILE")
        origin = f"the training data ({(model.training or {}).get('data', '?')}, stored in the model)"
    terms = standardized_terms(model, std)
    kind = model.estimator.get("type", "?")
    print(f"model: {shown(model.name)} ({kind}, {model.feature_set} features, {model.source_mode}); intercept "
          f"{model.intercept:.4f}")
    print(f"standard deviations from {origin}")
    print(format_terms(terms))
    if args.json:
        write_json(args.json, {"model": model.name, "std_from": origin, "terms": [
            {"feature": t.feature, "coefficient": t.coefficient, "std": t.std, "standardized": t.standardized}
            for t in terms]})
    return 0
