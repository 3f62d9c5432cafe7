"""Explaining a linear PEET model (`peet-fast explain`): standardized coefficients, ranked by magnitude.

A feature's standardized coefficient is its coefficient per unit of the feature times the feature's standard
deviation (population, ddof=0) on the data: the change in predicted seconds for a one-standard-deviation change of
the feature, comparable across features measured in different units. The binary features (NONE, correct) are left
as they are: their coefficient is already the effect of 0 -> 1. The standard deviations come from a data file
(features computed exactly as at training time, after the same time filter and merging of duplicates when the file
has times) or, without one, from the training record a model written by `peet-fast train` carries.

Per-sentence contributions (coefficient x feature, Model.contributions) are written by `peet-fast score --out DIR
--contributions` as `contrib:<feature>` columns."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from peet_fast.en.features import BINARY_FEATURES
from peet_fast.peet.model import Model


@dataclass(frozen=True)
class Term:
    feature: str
    coefficient: float        # seconds per unit of the feature
    std: float                # the feature's standard deviation on the data
    standardized: float       # coefficient * std (binary features: coefficient)


def unit_coefficients(model: Model) -> np.ndarray:
    """Coefficients per unit of each raw feature (a standardized model's coefficient divided by its scale)."""
    coef = np.asarray(model.coefficients, dtype=np.float64)
    return coef / model.scale if model.scale is not None else coef.copy()


def stored_std(model: Model) -> np.ndarray | None:
    """The features' standard deviations recorded at training time, or None."""
    t = model.training or {}
    return np.asarray(t["feature_std"], dtype=np.float64) if "feature_std" in t else None


def standardized_terms(model: Model, std: Sequence[float]) -> list[Term]:
    """One Term per model feature, ranked by |standardized| (descending; ties in the model's feature order)."""
    std = np.asarray(std, dtype=np.float64)
    if std.shape != (len(model.features),):
        raise ValueError(f"expected {len(model.features)} standard deviations, got {std.shape}")
    coef = unit_coefficients(model)
    terms = [Term(f, float(c), float(s), float(c) if f in BINARY_FEATURES else float(c * s))
             for f, c, s in zip(model.features, coef, std)]
    order = sorted(range(len(terms)), key=lambda k: -abs(terms[k].standardized))
    return [terms[k] for k in order]


def format_terms(terms: Sequence[Term]) -> str:
    width = max(len("feature"), *(len(t.feature) for t in terms))
    lines = [f"{'rank':>4}  {'feature':<{width}}  {'coefficient':>12}  {'sd':>10}  {'standardized':>12}"]
    for k, t in enumerate(terms, 1):
        sd = "(binary)" if t.feature in BINARY_FEATURES else f"{t.std:.4f}"
        lines.append(f"{k:>4}  {t.feature:<{width}}  {t.coefficient:>12.4f}  {sd:>10}  {t.standardized:>12.4f}")
    return "\n".join(lines)


def std_from_data(model: Model, data, load_annotator: Callable[[], object]) -> tuple[np.ndarray, int]:
    """The standard deviation of each model feature on the rows of a data file (train.Annotated, as read by
    jobs.annotated.read_annotated with need_time=False), computed as at training time (with a time column: after the
    same time filter and merging of duplicates), and the number of rows used. load_annotator is called once the
    data has been checked (loading the pipeline is the slow part)."""
    from peet_fast.peet import train as T
    from peet_fast.io import InputError

    path = data.path
    prep = T.prepare(data, (model.training or {}).get("max_time", T.MAX_TIME))
    if not prep.mo:
        raise InputError(path, "no rows to compute standard deviations on")
    cols = T.compute_features(load_annotator(), prep, model.feature_set, model.source_mode)
    return T.feature_stats(T.feature_matrix(cols, model.features))[1], len(prep.mo)
