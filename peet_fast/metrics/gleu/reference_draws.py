"""The reference draws of compute_gleu's iterations: Python 2's random.seed(j * 101) and randint per sentence
(MT19937 through numpy's legacy RandomState), and each iteration's corpus statistics as sums selected by its draws."""
from __future__ import annotations

import numpy as np


SEED_STEP = 101                # iteration j seeds Python 2's random with j * 101
# (iteration, sentence, reference) cells of draws held at once: more iterations than fit are drawn and summed in
# chunks of DRAW_CELLS // (sentences x references) iterations (the 0/1 selection matrix of a chunk: 8 MB)
DRAW_CELLS = 1 << 20


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
    ``indices``). All of them at once: draw_chunks for many iterations."""
    out = np.empty((iterations, n), dtype=np.int64)
    state = np.random.RandomState(0)
    for j in range(iterations):
        out[j] = python2_randint_stream(j * SEED_STEP, n_refs - 1, n, state)
    return out


def chunk_iterations(n: int, n_refs: int) -> int:
    """How many iterations' draws make one chunk (DRAW_CELLS cells, at least one iteration)."""
    return max(1, DRAW_CELLS // max(1, n * n_refs))


def draw_chunks(n: int, n_refs: int, iterations: int):
    """The rows of draws(n, n_refs, iterations) in chunks of chunk_iterations(n, n_refs): yields (lo, hi, rows lo
    to hi - 1), so that memory does not grow with the number of iterations."""
    state = np.random.RandomState(0)
    step = chunk_iterations(n, n_refs)
    for lo in range(0, iterations, step):
        hi = min(iterations, lo + step)
        out = np.empty((hi - lo, n), dtype=np.int64)
        for j in range(lo, hi):
            out[j - lo] = python2_randint_stream(j * SEED_STEP, n_refs - 1, n, state)
        yield lo, hi, out


def held_draws(n: int, n_refs: int, iterations: int) -> np.ndarray | None:
    """draws(n, n_refs, iterations) where they fit in one chunk (to share among systems), else None (each system
    then draws them chunk by chunk)."""
    return draws(n, n_refs, iterations) if iterations <= chunk_iterations(n, n_refs) else None


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
