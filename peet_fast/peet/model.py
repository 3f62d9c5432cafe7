"""The predict stage: the JSON model format, its validation, and a vectorized linear predictor.

A model file is JSON only (never pickle: loading a pickle runs code; UTF-8, a byte order mark at its start dropped).
Format version 1:

    {"format": "peet-fast-model", "format_version": 1, "name": str, "feature_set": "small"|"medium"|"large",
     "features": [names, a subsequence of the set's canonical feature order],
     "coefficients": [numbers, one per feature],
     "intercept": number, "standardization": null | {"mean": [...], "scale": [...]}, "unit": "seconds",
     "estimator": {"type": "ridge"|"svr", ...} (optional), "provenance": str | object (optional),
     "source_mode": "mo-trg"|"src-mo-trg" (optional, default "mo-trg": which features the model reads, see
     features.SOURCE_MODES), "training": object (optional, written by `peet-fast train`, see TRAINING_KEYS)}

prediction = intercept + sum_k coefficient_k * (x_k - mean_k) / scale_k   (mean 0, scale 1 without standardization)
"""
from __future__ import annotations

import importlib.resources
import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from peet_fast.en.features import FEATURE_SETS, SOURCE_MODES, feature_names
from peet_fast.io import JSONTooDeep, json_loads, read_prefix, without_bom

FORMAT = "peet-fast-model"
FORMAT_VERSION = 1
PUBLISHED = "peet_published.json"
MAX_MODEL_BYTES = 16 << 20         # a model file is a few KB; a larger file is refused before it is parsed
_REQUIRED = ("format", "format_version", "name", "feature_set", "features", "coefficients", "intercept", "unit")
_OPTIONAL = ("standardization", "estimator", "provenance", "source_mode", "training")
# The training record written by `peet-fast train` (every key optional; types checked, unknown keys refused):
# counts are non-negative integers; max_time, test_fraction finite numbers; metrics {name: {"mean", "sd"}} (numbers or
# null when undefined); feature_mean / feature_std one finite number per feature (std >= 0): the features' mean and
# standard deviation over the training data, which `peet-fast explain` uses when not given data.
TRAINING_COUNTS = ("rows_read", "rows_over_max_time", "duplicates_merged", "rows", "train_rows", "test_rows", "seed",
                   "repeats")
TRAINING_NUMBERS = ("max_time", "test_fraction")
TRAINING_KEYS = ("data",) + TRAINING_COUNTS + TRAINING_NUMBERS + ("metrics", "feature_mean", "feature_std")
METRICS = ("pearson", "spearman", "mae")


class ModelError(ValueError):
    """A model file that cannot be used; str() names the file and the problem."""


@dataclass(frozen=True)
class Model:
    name: str
    feature_set: str
    features: tuple[str, ...]
    coefficients: np.ndarray
    intercept: float
    mean: np.ndarray | None = None
    scale: np.ndarray | None = None
    unit: str = "seconds"
    estimator: dict = field(default_factory=dict)
    provenance: Any = None
    source: str = "<memory>"
    source_mode: str = "mo-trg"
    training: dict | None = None

    def __post_init__(self):
        _validate(self.to_json(), self.source)

    # --- prediction ---------------------------------------------------------------------------------------------
    def predict(self, columns: Mapping[str, Any]) -> np.ndarray:
        """Predicted seconds for each row, from a mapping of feature name -> 1-D array (any numeric dtype)."""
        missing = [f for f in self.features if f not in columns]
        if missing:
            raise ModelError(f"{self.source}: features missing from the input: {', '.join(missing)}")
        n = len(columns[self.features[0]])
        y = np.full(n, self.intercept, dtype=np.float64)
        tmp = np.empty(n, dtype=np.float64)
        for k, name in enumerate(self.features):
            x = np.asarray(columns[name])
            if x.shape != (n,):
                raise ModelError(f"{self.source}: feature {name!r} has shape {x.shape}, expected ({n},)")
            np.copyto(tmp, x, casting="unsafe")
            if self.mean is not None:
                tmp -= self.mean[k]
                tmp /= self.scale[k]
            tmp *= self.coefficients[k]
            y += tmp
        return y

    def contributions(self, columns: Mapping[str, Any]) -> dict:
        """Each feature's share of the prediction, name -> float64 array: coefficient * feature (with
        standardization: coefficient * (feature - mean) / scale); intercept + their sum = predict(columns)."""
        out = {}
        for k, name in enumerate(self.features):
            x = np.asarray(columns[name], dtype=np.float64)
            if self.mean is not None:
                x = (x - self.mean[k]) / self.scale[k]
            out[name] = x * self.coefficients[k]
        return out

    # --- (de)serialisation ---------------------------------------------------------------------------------------
    def to_json(self) -> dict:
        d = {"format": FORMAT, "format_version": FORMAT_VERSION, "name": self.name, "feature_set": self.feature_set,
             "features": list(self.features), "coefficients": [float(c) for c in self.coefficients],
             "intercept": float(self.intercept),
             "standardization": None if self.mean is None else
             {"mean": [float(v) for v in self.mean], "scale": [float(v) for v in self.scale]},
             "unit": self.unit}
        if self.estimator:
            d["estimator"] = self.estimator
        if self.provenance is not None:
            d["provenance"] = self.provenance
        if self.source_mode != "mo-trg":
            d["source_mode"] = self.source_mode
        if self.training is not None:
            d["training"] = self.training
        return d

    def save(self, path: str | os.PathLike) -> None:
        from peet_fast.io import atomic_write

        with atomic_write(path) as fh:
            json.dump(self.to_json(), fh, indent=2)
            fh.write("\n")


def _fail(source: str, msg: str):
    raise ModelError(f"{source}: {msg}")


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _validate(d: Any, source: str) -> None:
    if not isinstance(d, dict):
        _fail(source, "a model must be a JSON object")
    missing = [k for k in _REQUIRED if k not in d]
    if missing:
        _fail(source, f"missing key(s): {', '.join(missing)}")
    unknown = sorted(set(d) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        _fail(source, f"unknown key(s): {', '.join(unknown)}")
    if d["format"] != FORMAT:
        _fail(source, f"not a peet-fast model (format is {d['format']!r}, expected {FORMAT!r})")
    if d["format_version"] != FORMAT_VERSION or isinstance(d["format_version"], bool):
        _fail(source, f"unsupported format_version {d['format_version']!r} (this peet-fast reads {FORMAT_VERSION})")
    if not isinstance(d["name"], str) or not d["name"]:
        _fail(source, "name must be a non-empty string")
    fs = d["feature_set"]
    if fs not in FEATURE_SETS:
        _fail(source, f"unknown feature_set {fs!r}; expected one of: {', '.join(FEATURE_SETS)}")
    mode = d.get("source_mode", "mo-trg")
    if mode not in SOURCE_MODES:
        _fail(source, f"unknown source_mode {mode!r}; expected one of: {', '.join(SOURCE_MODES)}")
    feats = d["features"]
    if not isinstance(feats, list) or not feats or not all(isinstance(f, str) for f in feats):
        _fail(source, "features must be a non-empty list of feature names")
    canon = feature_names(fs, mode)
    unknown_f = [f for f in feats if f not in canon]
    if unknown_f:
        _fail(source, f"unknown feature(s) for the {fs!r} set ({mode}): {', '.join(unknown_f)} "
                      f"(known: {', '.join(canon)})")
    if len(set(feats)) != len(feats):
        _fail(source, "features lists a feature more than once")
    order = [canon.index(f) for f in feats]
    if order != sorted(order):
        expected = [f for f in canon if f in feats]
        _fail(source, f"features are reordered: expected the canonical order {expected}, got {feats}")
    coefs = d["coefficients"]
    if not isinstance(coefs, list) or len(coefs) != len(feats) or not all(_number(c) for c in coefs):
        _fail(source, f"coefficients must be a list of {len(feats)} finite numbers, one per feature")
    if not _number(d["intercept"]):
        _fail(source, "intercept must be a finite number")
    st = d.get("standardization")
    if st is not None:
        if not isinstance(st, dict) or set(st) != {"mean", "scale"}:
            _fail(source, "standardization must be null or an object with exactly 'mean' and 'scale'")
        for key in ("mean", "scale"):
            v = st[key]
            if not isinstance(v, list) or len(v) != len(feats) or not all(_number(x) for x in v):
                _fail(source, f"standardization.{key} must be a list of {len(feats)} finite numbers")
        if any(x <= 0 for x in st["scale"]):
            _fail(source, "standardization.scale must be positive")
    if d["unit"] != "seconds":
        _fail(source, f"unit must be 'seconds', not {d['unit']!r}")
    if "estimator" in d and not (isinstance(d["estimator"], dict) and isinstance(d["estimator"].get("type"), str)):
        _fail(source, "estimator must be an object with a 'type' string")
    if d.get("training") is not None:
        _validate_training(d["training"], len(feats), source)


def _count(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _validate_training(t: Any, n_features: int, source: str) -> None:
    if not isinstance(t, dict):
        _fail(source, "training must be null or an object")
    unknown = sorted(set(t) - set(TRAINING_KEYS))
    if unknown:
        _fail(source, f"unknown training key(s): {', '.join(unknown)}")
    if "data" in t and not isinstance(t["data"], str):
        _fail(source, "training.data must be a string")
    for key in TRAINING_COUNTS:
        if key in t and not _count(t[key]):
            _fail(source, f"training.{key} must be a non-negative integer")
    for key in TRAINING_NUMBERS:
        if key in t and not _number(t[key]):
            _fail(source, f"training.{key} must be a finite number")
    if "metrics" in t:
        m = t["metrics"]
        if not isinstance(m, dict) or set(m) - set(METRICS):
            _fail(source, f"training.metrics must be an object with keys among {', '.join(METRICS)}")
        for name, v in m.items():
            if not isinstance(v, dict) or set(v) != {"mean", "sd"} or \
                    not all(x is None or _number(x) for x in v.values()):
                _fail(source, f"training.metrics.{name} must be {{\"mean\": number|null, \"sd\": number|null}}")
    for key in ("feature_mean", "feature_std"):
        v = t.get(key)
        if key in t and (not isinstance(v, list) or len(v) != n_features or not all(_number(x) for x in v)):
            _fail(source, f"training.{key} must be a list of {n_features} finite numbers, one per feature")
    if "feature_std" in t and any(x < 0 for x in t["feature_std"]):
        _fail(source, "training.feature_std must be non-negative")


def from_json(d: Any, source: str = "<memory>") -> Model:
    """Validate a parsed JSON model and build it."""
    _validate(d, source)
    st = d.get("standardization")
    return Model(name=d["name"], feature_set=d["feature_set"], features=tuple(d["features"]),
                 coefficients=np.array(d["coefficients"], dtype=np.float64), intercept=float(d["intercept"]),
                 mean=None if st is None else np.array(st["mean"], dtype=np.float64),
                 scale=None if st is None else np.array(st["scale"], dtype=np.float64),
                 unit=d["unit"], estimator=d.get("estimator") or {}, provenance=d.get("provenance"), source=source,
                 source_mode=d.get("source_mode", "mo-trg"), training=d.get("training"))


def load_model(path: str | os.PathLike | None = None) -> Model:
    """Load and validate a JSON model file; None gives the published PEET model shipped with the package."""
    if path is None:
        res = importlib.resources.files("peet_fast.peet") / "models" / PUBLISHED
        return from_json(json.loads(res.read_text(encoding="utf-8")), f"<published model {PUBLISHED}>")
    path = os.fspath(path)
    try:
        raw = read_prefix(path, MAX_MODEL_BYTES + 1)
    except OSError as exc:
        raise ModelError(f"{path}: cannot read model: {exc.strerror or exc}") from None
    if len(raw) > MAX_MODEL_BYTES:
        raise ModelError(f"{path}: not a JSON model file (larger than {MAX_MODEL_BYTES >> 20} MiB)")
    try:
        text = without_bom(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise ModelError(f"{path}: not a JSON model file (not UTF-8 text)") from None
    try:
        d = json_loads(text)
    except json.JSONDecodeError as exc:
        raise ModelError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except JSONTooDeep as exc:
        raise ModelError(f"{path}: not a JSON model file ({exc})") from None
    return from_json(d, path)


def check_source_mode(model: Model, mode: str, where: str) -> None:
    """Refuse to apply a model to features of another source mode (e.g. a src-mo-trg model to MO -> TRG pairs)."""
    if model.source_mode != mode:
        raise ModelError(f"{model.source}: model {model.name!r} was trained on {model.source_mode} features, but "
                         f"{where} gives {mode} features")


def predict_file(model: Model, features_path: str | os.PathLike, out_path: str | os.PathLike | None = None,
                 batch_rows: int = 1 << 16, read_batches=None) -> tuple[int, float]:
    """Stream a features file (Parquet, memory-mapped Arrow IPC, or a featurize job's directory) through the model,
    one record batch at a time, NumPy over the Arrow buffers. Writes (sentence, seconds) to out_path if given, with
    the table's `id` column (a sharded featurize job's pair ids) between them when it has one.
    Returns (rows, sum of seconds); a table with no rows is refused (InputError, nothing written).
    read_batches(path, columns=None, batch_rows=...) -> (schema, batches) reads the input: by default a Parquet or
    Arrow file (formats.pairs.iter_table_batches); for a job's directory the caller passes the jobs' reader
    (jobs.layout.iter_dataset_batches, as cli/predict.py does): peet imports nothing of jobs."""
    import pyarrow as pa

    from peet_fast.formats.pairs import TableWriter, iter_table_batches
    from peet_fast.io import InputError

    path = os.fspath(features_path)
    if read_batches is None:
        if os.path.isdir(path):
            raise InputError(path, "a directory: read a job's directory with its reader (read_batches)")
        read_batches = iter_table_batches
    schema, _ = read_batches(path)
    meta = {k.decode(): v.decode() for k, v in (schema.metadata or {}).items()}
    fs = meta.get("peet_fast.feature_set")
    check_source_mode(model, meta.get("peet_fast.source_mode", "mo-trg"), path)
    if fs is not None and fs != model.feature_set:
        raise ModelError(f"{model.source}: model uses the {model.feature_set!r} feature set, but {path} holds "
                         f"{fs!r} features")
    missing = [f for f in model.features if f not in schema.names]
    if missing:
        raise InputError(path, f"features missing for model {model.name!r}: {', '.join(missing)}")
    keep = [c for c in ("sentence", "id") if c in schema.names] if out_path else []
    _, batches = read_batches(path, columns=list(model.features) + keep, batch_rows=batch_rows)
    fields = [pa.field("sentence", pa.int64())]
    fields += [schema.field("id")] if "id" in keep else []
    out_schema = pa.schema(fields + [pa.field("seconds", pa.float64())])
    n = 0
    total = 0.0
    writer = TableWriter(out_path, out_schema) if out_path else None
    if writer is not None:
        writer.__enter__()
    try:
        for batch in batches:
            cols = {}
            for name in model.features:
                col = batch.column(name)
                if col.null_count:
                    raise InputError(path, f"column {name!r} has missing values")
                cols[name] = col.to_numpy(zero_copy_only=False)
            y = model.predict(cols)
            if writer is not None:
                sent = (batch.column("sentence") if "sentence" in batch.schema.names
                        else pa.array(np.arange(n, n + len(y), dtype=np.int64)))
                ids = [batch.column("id")] if "id" in keep else []
                writer.write(pa.RecordBatch.from_arrays([sent, *ids, pa.array(y)], schema=out_schema))
            n += len(y)
            total += float(y.sum())
        if n == 0:
            raise InputError(path, "no rows (the table is empty)")
    except BaseException as exc:
        if writer is not None:
            writer.__exit__(type(exc), exc, exc.__traceback__)
        raise
    if writer is not None:
        writer.__exit__(None, None, None)
    return n, total
