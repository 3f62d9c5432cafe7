"""Uncertainty of meta-evaluation figures, which neither gec-metrics nor SEEDA reports.

- **System-level intervals**: B resamples of the dataset's sentences with replacement (one (B, n) index matrix,
  peet_fast.metrics.stats.bootstrap_indices(n, B, seed), the same for every metric and system: paired); each
  resample's system scores are the metric's corpus scores of the resampled sentences (Metric.bootstrap_systems, the
  sentence statistics chosen once over the whole data), or their Expected Wins for ``--aggregation ew``; the human
  scores stay fixed. The interval is the 95 % percentile interval of the resamples' Pearson / Spearman (numpy's
  vectorised formulas: equal to scipy's to rounding). TrueSkill aggregation has no interval (a TrueSkill run per
  resample).
- **Sentence-level intervals**: B resamples of the ranking items with replacement (an item's pairs stay together);
  accuracy = resampled agreeing pairs / resampled pairs.
- **Williams' test** (Williams 1959, as Graham and Baldwin 2014 apply it to metrics): whether metric 1 correlates
  with the humans more than metric 2, given the two metrics' correlation with each other:
  ``t = (r12 - r13) sqrt((n - 1)(1 + r23)) / sqrt(2 K (n - 1) / (n - 3) + (r12 + r13)^2 / 4 (1 - r23)^3)``,
  ``K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23``, with n - 3 degrees of freedom; one-sided p = P(T > t).
- **Paired bootstrap** (sentence level): the share of the item resamples in which metric 1's accuracy is not
  strictly higher than metric 2's."""
from __future__ import annotations

import math

import numpy as np

from peet_fast.metrics.stats import average_ranks, bootstrap_indices, check_bootstrap, check_seed, finite_ci

DEFAULT_SEED = 0


def rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of x (B, S) with the vector y (S,); nan for a constant row."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    dx = x - x.mean(axis=1, keepdims=True)
    dy = y - y.mean()
    den = np.sqrt((dx * dx).sum(axis=1) * float(dy @ dy))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(np.where(den > 0, dx @ dy / np.where(den > 0, den, 1), np.nan), -1.0, 1.0)


def rowwise_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row of x (B, S) with y (S,): Pearson's r of the average ranks."""
    ranks = np.array([average_ranks(row) for row in np.asarray(x, dtype=np.float64)]).reshape(np.shape(x))
    return rowwise_pearson(ranks, average_ranks(y))


def system_intervals(boot: np.ndarray, human: dict, systems: list) -> dict:
    """{HUMAN: {"pearson_ci", "spearman_ci"}} from (B, S) resampled system scores (columns in `systems` order)."""
    out = {}
    for name, h in human.items():
        y = np.array([h[s] for s in systems], dtype=np.float64)
        out[name] = {"pearson_ci": finite_ci(rowwise_pearson(boot, y)),
                     "spearman_ci": finite_ci(rowwise_spearman(boot, y))}
    return out


def checked_resampling(bootstrap, seed) -> tuple[int, int]:
    """bootstrap (0: none; at most MAX_RESAMPLES, refused before a (B, n) index array is drawn) and seed, checked at
    the API's edge (InputError naming `bootstrap` or `seed`): each a non-negative integer, then bounded by
    metrics.stats' checks (check_bootstrap, check_seed: what every command's options are checked by)."""
    bootstrap, seed = _non_negative(bootstrap, "bootstrap"), _non_negative(seed, "seed")
    check_bootstrap(bootstrap, 0, "bootstrap")
    check_seed(seed, "seed")
    return bootstrap, seed


def _non_negative(value, name: str) -> int:
    from peet_fast.io import InputError

    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
        raise InputError(name, f"{value!r} is not a non-negative integer")
    return int(value)


def sentence_indices(n: int, resamples: int, seed: int = DEFAULT_SEED) -> np.ndarray:
    """(resamples, n) indices of the resampled units; InputError naming `bootstrap` or `seed` for a count or seed
    that checked_resampling refuses."""
    resamples, seed = checked_resampling(resamples, seed)
    return bootstrap_indices(n, resamples, seed)


def ratio_resamples(counts: np.ndarray, numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """Per resample (rows of counts, (B, items)): sum of the resampled numerators / sum of the denominators."""
    num = counts @ np.asarray(numerator, dtype=np.float64)
    den = counts @ np.asarray(denominator, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def sentence_intervals(accuracy: np.ndarray) -> dict:
    """{"accuracy_ci", "kendall_ci"} from the resamples' accuracies (kendall = 2 accuracy - 1)."""
    return {"accuracy_ci": finite_ci(accuracy), "kendall_ci": finite_ci(2.0 * np.asarray(accuracy) - 1.0)}


def williams(r12: float, r13: float, r23: float, n: int) -> dict:
    """Williams' test that r12 > r13 (see the module docstring): {"t", "p"} (one-sided), None figures where it is
    undefined (n < 4, a correlation missing, or K <= 0)."""
    from scipy.stats import t as student_t

    if n < 4 or any(x is None or x != x for x in (r12, r13, r23)):
        return {"t": None, "p": None}
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    den = 2 * k * (n - 1) / (n - 3) + (r12 + r13) ** 2 / 4 * (1 - r23) ** 3
    if k <= 0 or den <= 0:
        return {"t": None, "p": None}
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(den)
    return {"t": t, "p": float(student_t.sf(t, n - 3))}


def paired_p(first: np.ndarray, second: np.ndarray) -> float | None:
    """Share of resamples in which `first` is not strictly above `second` (finite pairs only)."""
    first, second = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    ok = np.isfinite(first) & np.isfinite(second)
    if not ok.any():
        return None
    return float(np.count_nonzero(first[ok] <= second[ok])) / int(ok.sum())
