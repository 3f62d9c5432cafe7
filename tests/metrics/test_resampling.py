"""The one resampling step and the one interval helper of peet_fast.metrics.stats (issue 34): resample_counts, which
every metric's vectorised bootstrap multiplies its per-sentence statistics by, and finite_ci, the interval of one
vector (meta-evaluation's), checked against plain loops and against percentile_ci."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from peet_fast.metrics import stats as ms


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 12), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_resample_counts_count_each_draw(n, k, seed):
    idx = np.random.default_rng(seed).integers(0, n, size=(k, n))
    counts = ms.resample_counts(idx, n)
    expected = np.zeros((k, n))
    for row, drawn in enumerate(idx):
        for i in drawn:
            expected[row, i] += 1
    assert counts.dtype == np.float64 and np.array_equal(counts, expected)
    values = np.random.default_rng(seed + 1).normal(size=(3, n))
    sums = counts @ values.T
    assert np.allclose(sums, values[:, idx].sum(axis=2).T, rtol=1e-12, atol=1e-12)


def test_resample_means_are_the_means_of_the_resamples():
    values = np.array([[1.0, 2.0, 4.0], [0.0, 3.0, 3.0]])
    idx = np.array([[0, 0, 2], [1, 2, 2]])
    assert ms.resample_means(values, idx).tolist() == [[2.0, 1.0], [10 / 3, 3.0]]


def test_finite_ci_is_percentile_ci_of_the_finite_values():
    values = np.array([3.0, np.nan, 1.0, 2.0, np.inf, 5.0, 4.0])
    low, high = ms.percentile_ci(np.array([[3.0], [1.0], [2.0], [5.0], [4.0]]))
    assert ms.finite_ci(values) == [low[0], high[0]]
    assert ms.finite_ci(values) == [1.1, 4.9]          # numpy's linear interpolation at 2.5 % and 97.5 % of 1..5
    assert ms.finite_ci(np.array([np.nan, np.inf])) is None
