"""Training PEET models (`peet-fast train`): the published protocol on time-annotated pairs.

The protocol, in order:

1. read the pairs (`mo`, `trg`, `time` in seconds, and `src` for the src-mo-trg mode) from TSV, JSONL or Parquet
   (peet_fast.jobs.annotated.read_annotated, on the jobs' table reader); times must be finite, non-negative numbers;
2. drop the rows with time > max_time (250 s);
3. merge the rows with the same (mo, trg) - in the src-mo-trg mode the same (src, mo, trg) - into one row whose
   time is the mean of theirs (kept at the place of its first occurrence);
4. compute the features (features.featurize / featurize_src; each distinct sentence is parsed once);
5. split the rows 80/20: split r (r = 0 .. repeats-1) is numpy.random.default_rng(seed + r).permutation(n); its
   first ceil(0.2 n) rows are the test part, the rest the training part;
6. fit Ridge (alpha 1.0 by default) or linear-kernel SVR (scikit-learn) on the training part (raw, unstandardized
   features: the published model's form) and measure Pearson r, Spearman rho and the MAE on the test part.

With repeats N the metrics are summarised as mean and sample standard deviation over the N splits. The model
returned (and written) is the one fitted on split 0's training part, so the metrics it records are held out; it
also records the features' mean and standard deviation over all the rows used (after steps 2-3), for `explain`.
Everything here works on rows already read (Annotated) and plain NumPy arrays; the boundary (reading, validation) is
jobs.annotated.read_annotated, which the caller (cli/train.py, cli/explain.py) applies: peet imports nothing of jobs.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from peet_fast.io import InputError
from peet_fast.metrics.stats import pearson, spearman

MAX_TIME = 250.0
TEST_FRACTION = 0.2
ESTIMATORS = ("ridge", "svr")
MIN_PART_ROWS = 2      # the smallest test part on which Pearson r, Spearman rho and the MAE are all defined


# --- the annotated data (read and validated by peet_fast.jobs.annotated.read_annotated) ----------------------------

@dataclass
class Annotated:
    """Time-annotated pairs as read: parallel lists, `time` None when the file has no time column."""
    path: str
    mo: list
    trg: list
    src: list | None
    time: np.ndarray | None

    def __len__(self) -> int:
        return len(self.mo)


# --- the protocol on plain arrays ----------------------------------------------------------------------------------

def within_max_time(time: np.ndarray, max_time: float = MAX_TIME) -> np.ndarray:
    """The rows to keep: time <= max_time (a row of exactly max_time is kept)."""
    return np.asarray(time) <= max_time


def merge_duplicates(keys: Sequence, time: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows with equal keys merged: (index of each group's first row, in order of first occurrence; the group's
    mean time)."""
    groups: dict = {}
    inverse = np.fromiter((groups.setdefault(key, len(groups)) for key in keys), dtype=np.int64, count=len(keys))
    _, first = np.unique(inverse, return_index=True)          # groups are numbered in order of first occurrence
    counts = np.bincount(inverse, minlength=len(groups))
    sums = np.bincount(inverse, weights=np.asarray(time, dtype=np.float64), minlength=len(groups))
    return first, sums / counts


def split_indices(n: int, seed: int, test_fraction: float = TEST_FRACTION) -> tuple[np.ndarray, np.ndarray]:
    """(training rows, test rows), each sorted: the first ceil(test_fraction * n) rows of a seeded permutation are
    the test part."""
    perm = np.random.default_rng(seed).permutation(n)
    n_test = math.ceil(test_fraction * n)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def min_rows(test_fraction: float = TEST_FRACTION) -> int:
    """The fewest rows whose split has at least MIN_PART_ROWS rows in both parts."""
    n = 2 * MIN_PART_ROWS
    while math.ceil(test_fraction * n) < MIN_PART_ROWS or n - math.ceil(test_fraction * n) < MIN_PART_ROWS:
        n += 1
    return n


def fit(X: np.ndarray, y: np.ndarray, estimator: str = "ridge", alpha: float = 1.0, C: float = 1.0,
        epsilon: float = 0.1) -> tuple[np.ndarray, float]:
    """(coefficients, intercept) of scikit-learn's Ridge(alpha) or SVR(kernel="linear", C, epsilon) fitted on X, y.
    Only the numbers leave this function: models are stored as JSON, never as estimator objects."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if estimator == "ridge":
        from sklearn.linear_model import Ridge

        m = Ridge(alpha=alpha).fit(X, y)
        return np.asarray(m.coef_, dtype=np.float64).ravel(), float(m.intercept_)
    if estimator == "svr":
        from sklearn.svm import SVR

        m = SVR(kernel="linear", C=C, epsilon=epsilon).fit(X, y)
        return np.asarray(m.coef_, dtype=np.float64).ravel(), float(np.ravel(m.intercept_)[0])
    raise ValueError(f"unknown estimator {estimator!r}; choose from: {', '.join(ESTIMATORS)}")


def metrics(y_true: np.ndarray, y_pred: np.ndarray) -> dict:
    """Pearson r, Spearman rho and mean absolute error (seconds)."""
    return {"pearson": pearson(y_true, y_pred), "spearman": spearman(y_true, y_pred),
            "mae": float(np.mean(np.abs(np.asarray(y_true) - np.asarray(y_pred))))}


def summarize(runs: Sequence[dict]) -> dict:
    """{metric: (mean, sample sd)} over the runs; sd is NaN for a single run, both NaN if any run's value is."""
    out = {}
    for name in ("pearson", "spearman", "mae"):
        v = np.array([r[name] for r in runs], dtype=np.float64)
        out[name] = (float(np.mean(v)), float(np.std(v, ddof=1)) if len(v) > 1 else float("nan"))
    return out


@dataclass
class Fit:
    coefficients: np.ndarray
    intercept: float
    runs: list                 # per split: {"pearson", "spearman", "mae", "train_rows", "test_rows"}
    summary: dict              # metric -> (mean, sd)


def fit_repeats(X: np.ndarray, y: np.ndarray, estimator: dict, splits: tuple = (1, 0, TEST_FRACTION),
                on_split: Callable[[int], None] | None = None) -> Fit:
    """Fit on seeded splits, splits = (repeats, seed, test fraction); the coefficients returned are split 0's.
    estimator: {"type": "ridge", "alpha"} or {"type": "svr", "kernel": "linear", "C", "epsilon"}."""
    repeats, seed, test_fraction = splits
    kind, alpha = estimator.get("type", "ridge"), estimator.get("alpha", 1.0)
    C, epsilon = estimator.get("C", 1.0), estimator.get("epsilon", 0.1)
    first = None
    runs = []
    for r in range(repeats):
        train, test = split_indices(len(y), seed + r, test_fraction)
        coef, intercept = fit(X[train], y[train], kind, alpha, C, epsilon)
        pred = X[test] @ coef + intercept
        runs.append({**metrics(y[test], pred), "train_rows": len(train), "test_rows": len(test)})
        if first is None:
            first = (coef, intercept)
        if on_split is not None:
            on_split(r + 1)
    return Fit(first[0], first[1], runs, summarize(runs))


# --- the protocol on annotated data --------------------------------------------------------------------------------

@dataclass
class Prepared:
    """The rows used after the time filter and the merging of duplicates."""
    mo: list
    trg: list
    src: list | None
    time: np.ndarray | None
    rows_read: int
    rows_over_max_time: int
    duplicates_merged: int
    data: Annotated | None = None     # the rows as read (to name the line of a sentence refused by the parser)


def prepare(data: Annotated, max_time: float = MAX_TIME) -> Prepared:
    """Steps 2-3 of the protocol (nothing is done without times: every row is used as it is)."""
    n = len(data)
    if data.time is None:
        return Prepared(data.mo, data.trg, data.src, None, n, 0, 0, data)
    keep = np.flatnonzero(within_max_time(data.time, max_time))
    mo = [data.mo[i] for i in keep]
    trg = [data.trg[i] for i in keep]
    src = [data.src[i] for i in keep] if data.src is not None else None
    keys = list(zip(src, mo, trg)) if src is not None else list(zip(mo, trg))
    first, time = merge_duplicates(keys, data.time[keep])
    pick = first.tolist()
    return Prepared([mo[i] for i in pick], [trg[i] for i in pick], [src[i] for i in pick] if src is not None else None,
                    time, n, n - len(keep), len(keep) - len(pick), data)


def compute_features(annotator, prep: Prepared, feature_set: str, source_mode: str) -> dict:
    """Feature columns (canonical order) of the prepared rows."""
    from peet_fast.en.features import featurize, featurize_src

    with _lines_of(prep.data):
        if source_mode == "src-mo-trg":
            return featurize_src(annotator, prep.src, prep.mo, prep.trg, feature_set)
        return featurize(annotator, prep.mo, prep.trg, feature_set)


def _lines_of(data: Annotated | None):
    """lines_located for the rows as read: the file's line (TSV, JSONL) or row (Parquet) of a refused sentence."""
    from peet_fast.formats.pairs import pair_format
    from peet_fast.io import lines_located

    if data is None:
        return contextlib.nullcontext()
    kind = pair_format(data.path)
    columns = [(data.path, col) for col in (data.src, data.mo, data.trg) if col is not None]
    return lines_located(columns, None if kind == "parquet" else 2 if kind == "tsv" else 1)


def feature_matrix(columns: dict, names: Sequence[str]) -> np.ndarray:
    return np.column_stack([np.asarray(columns[n], dtype=np.float64) for n in names]) if names else np.empty((0, 0))


def feature_stats(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column mean and standard deviation (population, ddof=0)."""
    return X.mean(axis=0), X.std(axis=0)


def _json_number(x: float):
    return None if not math.isfinite(x) else float(x)


@dataclass
class TrainOptions:
    """What `train` fits: the feature set and source mode, the estimator ({"type": "ridge", "alpha"} or {"type":
    "svr", "kernel": "linear", "C", "epsilon"}), the model's name, the data's name (its training record), the time
    limit of a row, and the seeded splits (repeats, seed, test_fraction)."""
    feature_set: str
    source_mode: str
    estimator: dict
    name: str
    data_name: str
    max_time: float = MAX_TIME
    repeats: int = 1
    seed: int = 0
    test_fraction: float = TEST_FRACTION


def build_model(fitted: Fit, names: Sequence[str], prep: Prepared, X: np.ndarray, options: TrainOptions):
    """The trained Model, with its training record (counts, metrics, feature statistics)."""
    from peet_fast.peet.model import Model

    o = options
    feature_set, source_mode, estimator, name = o.feature_set, o.source_mode, o.estimator, o.name
    data_name, max_time, seed, repeats, test_fraction = o.data_name, o.max_time, o.seed, o.repeats, o.test_fraction

    mean, std = feature_stats(X)
    run0 = fitted.runs[0]
    training = {
        "data": data_name, "rows_read": prep.rows_read, "rows_over_max_time": prep.rows_over_max_time,
        "duplicates_merged": prep.duplicates_merged, "rows": len(prep.mo), "train_rows": run0["train_rows"],
        "test_rows": run0["test_rows"], "seed": seed, "repeats": repeats, "max_time": float(max_time),
        "test_fraction": float(test_fraction),
        "metrics": {k: {"mean": _json_number(m), "sd": _json_number(s)} for k, (m, s) in fitted.summary.items()},
        "feature_mean": [float(v) for v in mean], "feature_std": [float(v) for v in std],
    }
    provenance = (f"peet-fast train on {data_name}: rows with time > {max_time:g} s dropped, duplicate pairs "
                  f"averaged, {source_mode} {feature_set} features, {estimator['type']} fitted on the training part "
                  f"({1 - test_fraction:.0%}) of split 0 (seed {seed})")
    return Model(name=name, feature_set=feature_set, features=tuple(names), coefficients=fitted.coefficients,
                 intercept=fitted.intercept, estimator=estimator, provenance=provenance, source_mode=source_mode,
                 training=training)


# --- the whole protocol, for the `train` command -----------------------------------------------------------------

def training_rows(data: Annotated, max_time: float = MAX_TIME) -> Prepared:
    """Steps 2-3 (prepare) on the rows of a data file (as read by jobs.annotated.read_annotated); refuses (InputError, naming the
    file) data too small for the split."""
    prep = prepare(data, max_time)
    need = min_rows()
    if len(prep.mo) < need:
        raise InputError(data.path, f"{len(prep.mo)} usable row(s) ({prep.rows_read} read, {prep.rows_over_max_time} "
                               f"over {max_time:g} s, {prep.duplicates_merged} merged duplicates); the "
                               f"80/20 split needs at least {need}")
    return prep


@dataclass
class Trained:
    """train_model's result: the model, its feature names, the fits of every split, and the seconds spent on the
    features and on fitting."""
    model: object
    names: tuple
    fitted: Fit
    feature_seconds: float
    fit_seconds: float


def train_model(annotator, prep: Prepared, options: TrainOptions) -> Trained:
    """Steps 3-5 on prepared rows: features, the seeded splits and fits, and the model with its training record."""
    import time as clock

    from peet_fast.en.features import feature_names

    t0 = clock.perf_counter()
    names = feature_names(options.feature_set, options.source_mode)
    X = feature_matrix(compute_features(annotator, prep, options.feature_set, options.source_mode), names)
    t1 = clock.perf_counter()
    fitted = fit_repeats(X, prep.time, options.estimator, (options.repeats, options.seed, options.test_fraction))
    t2 = clock.perf_counter()
    model = build_model(fitted, names, prep, X, options)
    return Trained(model, names, fitted, t1 - t0, t2 - t1)
