"""Statistics for comparing systems and metrics: the paired bootstrap, percentile intervals, paired p-values, and
Pearson / Spearman correlations.

- **Bootstrap** (paired): B resamples of the n sentences with replacement, drawn once from
  ``numpy.random.default_rng(seed)`` as a (B, n) index matrix (row b = ``rng.integers(0, n, size=n)``, rows drawn in
  order, so it equals ``rng.integers(0, n, size=(B, n))``) and applied to *every* system: resample b of system A and
  of system B use the same sentences. A system's bootstrap mean b is the mean of its per-sentence values at row b.
- **CI**: the percentile interval, ``numpy.quantile`` (linear interpolation) at (1 - level) / 2 and (1 + level) / 2
  of the B bootstrap means (level CI_LEVEL = 95 % by default).
- **Paired p-value** of two systems, A ranked above B (lower is better): the share of resamples in which A is not
  strictly better, ``#{b : mean*_A(b) >= mean*_B(b)} / B`` (one-sided; ties count against A, so identical systems
  get 1). A value of 0 means "below 1/B".
- **Correlation**: Pearson's r, and Spearman's rho = Pearson's r of the ranks (ties given their average rank); nan
  when a vector is constant or has fewer than 2 values."""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from peet_fast.io import InputError

CI_LEVEL = 0.95
_BLOCK_CELLS = 1 << 22          # resamples are processed in blocks of at most this many (resample, sentence) cells
# the most resamples (rank/report --bootstrap): each resample's figure of every system is kept for the intervals and
# p-values (8 bytes x systems per metric: 10 MB for 13 systems at this bound); the resamples themselves are drawn
# in blocks of _BLOCK_CELLS. p-values resolve to 1 / MAX_RESAMPLES
MAX_RESAMPLES = 100_000
# the largest seed: numpy's generators take any non-negative integer, but the TrueSkill runs (ext/trueskill.pyx) are
# seeded from 64 bits, where 2**64 + 1 would run as 1: a seed must fit them
MAX_SEED = 2**64 - 1


def check_bootstrap(resamples: int, minimum: int = 1, option: str = "bootstrap", unit: str = "resamples") -> None:
    """Refuse (InputError naming the option) fewer than `minimum` or more than MAX_RESAMPLES resamples (or runs):
    every command that draws them caps them so, before anything is read."""
    if resamples < minimum:
        raise InputError(option, f"must be at least {minimum}")
    if resamples > MAX_RESAMPLES:
        raise InputError(option, f"at most {MAX_RESAMPLES:,} {unit} (each one's figures are kept), not {resamples:,}")


def check_seed(seed: int, option: str = "seed") -> None:
    """Refuse (InputError naming the option) a seed below 0 or above MAX_SEED (one that would be cut)."""
    if seed < 0:
        raise InputError(option, "must be a non-negative integer")
    if seed > MAX_SEED:
        raise InputError(option, f"at most 2**64 - 1 ({MAX_SEED:,}), not {seed:,}")


# --- bootstrap -------------------------------------------------------------------------------------------------------

def bootstrap_indices(n: int, resamples: int, seed: int) -> np.ndarray:
    """The (resamples, n) index matrix of the bootstrap for a seed: row b lists the sentences of resample b."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=(resamples, n))


def resample_counts(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each of n sentences is drawn in each resample (rows of idx, (k, m) sentence indices): a (k, n)
    float64 array of whole numbers, so that ``resample_counts(idx, n) @ stats`` sums every resample's per-sentence
    statistics in one matrix product (integer sums are exact in float64). The one resampling step every metric's
    bootstrap takes."""
    k = idx.shape[0]
    flat = (np.arange(k, dtype=np.int64)[:, None] * n + idx).reshape(-1)
    return np.bincount(flat, minlength=k * n).reshape(k, n).astype(np.float64)


def resample_means(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Means of each system (rows of values, (S, n)) over each resample (rows of idx, (k, n)): a (k, S) array.
    The same resample rows are applied to every system (paired)."""
    return resample_counts(idx, values.shape[1]) @ values.T / idx.shape[1]


def bootstrap_blocks(n: int, resamples: int, seed: int):
    """The rows of bootstrap_indices(n, resamples, seed) in blocks of at most _BLOCK_CELLS cells (bounded memory):
    yields (lo, hi, idx), idx being rows lo..hi-1."""
    if n == 0:
        raise ValueError("no sentences to resample")
    if not 1 <= resamples <= MAX_RESAMPLES:
        raise ValueError(f"between 1 and {MAX_RESAMPLES:,} resamples, not {resamples:,}")
    rng = np.random.default_rng(seed)
    block = max(1, min(resamples, _BLOCK_CELLS // n))
    for lo in range(0, resamples, block):
        hi = min(resamples, lo + block)
        yield lo, hi, rng.integers(0, n, size=(hi - lo, n))


def bootstrap_means(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """(resamples, S) bootstrap means of every system, paired: equal to
    ``resample_means(values, bootstrap_indices(n, resamples, seed))`` but in blocks (bounded memory)."""
    values = np.asarray(values, dtype=np.float64)
    S, n = values.shape
    out = np.empty((resamples, S), dtype=np.float64)
    for lo, hi, idx in bootstrap_blocks(n, resamples, seed):
        out[lo:hi] = resample_means(values, idx)
    return out


def percentile_ci(boot: np.ndarray, level: float = CI_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each column of boot (B, S): (low, high) arrays of S values."""
    a = (1.0 - level) / 2.0
    low, high = np.quantile(boot, [a, 1.0 - a], axis=0)
    return low, high


def finite_ci(values: np.ndarray, level: float = CI_LEVEL) -> list | None:
    """The percentile interval of the finite values of one vector, [low, high] (percentile_ci of one column), or
    None when no value is finite."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if not len(values):
        return None
    low, high = percentile_ci(values[:, None], level)
    return [float(low[0]), float(high[0])]


def paired_p_value(boot_better: np.ndarray, boot_worse: np.ndarray) -> float:
    """Share of resamples in which the better-ranked system is not strictly better (lower) than the other."""
    return float(np.count_nonzero(boot_better >= boot_worse)) / len(boot_better)


# --- correlation ---------------------------------------------------------------------------------------------------

def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r; nan when either vector is constant or has fewer than 2 values."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if len(x) < 2:
        return float("nan")
    dx, dy = x - x.mean(), y - y.mean()
    den = math.sqrt(float(dx @ dx) * float(dy @ dy))
    if den == 0.0:
        return float("nan")
    return max(-1.0, min(1.0, float(dx @ dy) / den))


def average_ranks(x: Sequence[float]) -> np.ndarray:
    """1-based ranks, ties given the mean of the ranks they span (vectorized: runs of equal sorted values)."""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    ends = np.r_[starts[1:], len(xs)]
    ranks = np.empty(len(x), dtype=np.float64)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)   # mean of the ranks starts+1 .. ends
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson's r of the average ranks."""
    return pearson(average_ranks(x), average_ranks(y))


def correlations(metric: Mapping[str, Sequence[float]], human: Sequence[float]) -> dict:
    """{"systems": k, name: {"spearman", "pearson"} for each metric} over k systems."""
    out: dict = {"systems": len(human)}
    for name, values in metric.items():
        out[name] = {"spearman": spearman(values, human), "pearson": pearson(values, human)}
    return out
