"""The reference draws of compute_gleu's iterations: Python 2's random.seed(j * 101) and randint per sentence
(MT19937 through numpy's legacy RandomState), and each iteration's corpus statistics as sums selected by its draws."""
from __future__ import annotations

import numpy as np


SEED_STEP = 101                # iteration j seeds Python 2's random with j * 101


def seed_key(seed: int) -> list[int]:
    """The init_by_array key Python (2 and 3) seeds MT19937 with for an int: |seed|'s 32-bit words, least
    significant first ([0] for 0)."""
    seed = abs(seed)
    words = []
    while seed:
        words.append(seed & 0xFFFFFFFF)
        seed >>= 32
    return words or [0]


def python2_randint_stream(seed: int, high: int, count: int, state: np.random.RandomState | None = None) -> np.ndarray:
    """``random.seed(seed); [random.randint(0, high) for _ in range(count)]`` as Python 2 draws it (high + 1 <
    2**53): ``int(random() * (high + 1))`` with random() from MT19937 seeded by init_by_array(seed_key(seed))."""
    if state is None:
        state = np.random.RandomState(0)
    state.seed(seed_key(seed))           # a list: init_by_array (an int would be init_genrand)
    u = state.random_sample(count)
    return (u * float(high + 1)).astype(np.int64)


def draws(n: int, n_refs: int, iterations: int) -> np.ndarray:
    """(iterations, n) reference indices: row j is iteration j's draw for each sentence (compute_gleu's
    ``indices``)."""
    out = np.empty((iterations, n), dtype=np.int64)
    state = np.random.RandomState(0)
    for j in range(iterations):
        out[j] = python2_randint_stream(j * SEED_STEP, n_refs - 1, n, state)
    return out


def iterations_for(n_refs: int, iterations: int) -> int:
    """compute_gleu runs one iteration when there is one reference."""
    return 1 if n_refs == 1 else iterations


def iteration_sums(stats: np.ndarray, picks: np.ndarray, selection: np.ndarray | None = None) -> np.ndarray:
    """(iterations, 10) int64 corpus statistics of each iteration: stats (n, R, 10) summed over the sentences with
    each sentence's drawn reference (picks (iterations, n)): one matrix product, exact in float64. selection: the
    matrix of picks (selection_matrix), when already made."""
    if selection is None:
        selection = selection_matrix(picks, stats.shape[1])
    return np.rint(selection @ stats.reshape(-1, stats.shape[2]).astype(np.float64)).astype(np.int64)


def selection_matrix(picks: np.ndarray, n_refs: int) -> np.ndarray:
    """(iterations, n * R) float64: 1 where iteration j drew reference r for sentence i (column i * R + r)."""
    iters, n = picks.shape
    out = np.zeros((iters, n * n_refs), dtype=np.float64)
    out[np.arange(iters)[:, None], np.arange(n)[None, :] * n_refs + picks] = 1.0
    return out
