"""Rank ranges and clusters of systems from bootstrap runs, as GJG15's Table 3 (grammatical/evaluation's
data/scripts/wmt-trueskill/eval/cluster.py -by-rank -i 0.95, from WMT14).

cluster.py ranks the systems within each run by score (ties by the second value of the run's file: TrueSkill's
variance, a constant for Expected Wins; then by name, the later name first: its reversed sort of (score, value,
name)); a system's rank range is the lowest and highest of its sorted ranks once alpha = ceil((n - n * 0.95) / 2)
are cut from each end (n runs: 1000 runs keep the 26th to the 975th). Systems are listed by their mean score; a
cluster ends after a system whose worst rank is better than the best rank of every system listed after it.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np


def run_ranks(scores: np.ndarray, tiebreak: np.ndarray | None = None) -> np.ndarray:
    """(runs, systems) 1-based ranks within each run: by score, then tiebreak (both higher first), then the system
    of the later index first (systems in name order: cluster.py's reversed sort of (mu, sigma^2, name))."""
    scores = np.asarray(scores, dtype=np.float64)
    runs, n = scores.shape
    tiebreak = np.zeros_like(scores) if tiebreak is None else np.asarray(tiebreak, dtype=np.float64)
    index = np.broadcast_to(np.arange(n), scores.shape)
    ascending = np.lexsort((index, tiebreak, scores), axis=-1)         # last key is the primary one
    order = ascending[:, ::-1]                                         # best first
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, n + 1)[None, :].repeat(runs, 0), axis=-1)
    return ranks


def trimmed_alpha(n_runs: int, confidence: float) -> int:
    """cluster.py's `int(math.ceil((num_points - (num_points * 1.0 * args.conf_int)) / 2.0))`."""
    return int(math.ceil((n_runs - (n_runs * 1.0 * confidence)) / 2.0))


def rank_ranges(ranks: np.ndarray, confidence: float = 0.95) -> list[tuple[int, int]]:
    """Per system (a column of ranks), the (best, worst) rank of its middle `confidence` share of runs. Where the
    cut would leave nothing (few runs; cluster.py fails there) all runs count."""
    ranks = np.sort(np.asarray(ranks), axis=0)
    alpha = trimmed_alpha(ranks.shape[0], confidence)
    kept = ranks[alpha:ranks.shape[0] - alpha] if 0 < alpha and 2 * alpha < ranks.shape[0] else ranks
    return [(int(kept[0, k]), int(kept[-1, k])) for k in range(ranks.shape[1])]


def cluster_numbers(ranges: Sequence[tuple[int, int]]) -> list[int]:
    """Cluster numbers (1, 2, ...) of systems listed best first with these rank ranges (cluster.py's
    check_boundary: a boundary after system i when its worst rank is better than every later system's best)."""
    numbers, current = [], 1
    for i, (_, worst) in enumerate(ranges):
        numbers.append(current)
        later = [best for best, _ in ranges[i + 1:]]
        if later and all(worst < best for best in later):
            current += 1
    return numbers


def range_text(rank_range: tuple[int, int] | None) -> str:
    """Table 3's spelling: "3-5", or "1" where both ends are equal; "-" without a range."""
    if rank_range is None:
        return "-"
    best, worst = rank_range
    return str(best) if best == worst else f"{best}-{worst}"
