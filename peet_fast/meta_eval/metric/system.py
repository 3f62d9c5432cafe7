"""System-level meta-evaluation: a metric's system scores against human system scores.

Everything here takes scores in which **higher is better** (meta_eval.evaluator flips the sign of a lower-is-better
metric such as peet or wer before it gets here), so agreement with the humans is a positive correlation.

- :func:`correlation`: Pearson's r and Spearman's rho as scipy.stats.pearsonr / spearmanr compute them (what
  gec-metrics' ``corr_system`` and SEEDA's ``utils/corr_system.py`` call), over the systems in the given order.
- :func:`aggregate`: system scores from per-sentence scores (S systems x n sentences), as gec-metrics'
  ``rank_systems(aggregation=...)`` does: ``"ts"`` is its ``run_trueskill`` (each sentence's metric scores turned
  into pairwise wins, losses and draws of every two systems, in sentence order and for each sentence in
  itertools.combinations order, each rated as a two-player TrueSkill match with mu 0, sigma 0.5, beta 0.25, tau 0,
  draw probability 0.25; the score is the final mu), ``"ew"`` its ``run_expected_wins`` (Bojar et al. 2011: the mean
  over the other systems j of wins(i, j) / (wins(i, j) + wins(j, i)), a win being a strictly higher sentence
  score). Where two systems never beat each other (identical outputs) gec-metrics divides by zero; here that pair
  counts 0.5. ``"mean"`` is the mean of the sentence scores (gec-metrics' default score_corpus: sum() / count).
- :func:`window_analysis`: the systems sorted by the human score, best first (a stable sort: systems tied on the
  human score keep the dataset's order, as gec-metrics' window_analysis_system; SEEDA's
  ``window_analysis_system.py`` reverses numpy's argsort instead, which orders ties the other way), then the
  correlations over each run of `window` adjacent systems: windows (1, N), (2, N + 1), ... in 1-based ranks."""
from __future__ import annotations

import itertools
from typing import Mapping, Sequence

import numpy as np

from peet_fast.meta_eval.human.expected_wins import expected_wins_of

AGGREGATIONS = ("corpus", "ts", "ew", "mean")
TRUESKILL = {"mu": 0.0, "sigma": 0.5, "beta": 0.25, "tau": 0.0, "draw_probability": 0.25}


def _nan_none(x: float) -> float | None:
    return None if x is None or x != x else float(x)


def correlation(metric: Sequence[float], human: Sequence[float]) -> dict:
    """{"pearson", "spearman"} of two equally long score lists (scipy's figures; None where undefined: fewer than
    3 systems or a constant list)."""
    import warnings

    from scipy.stats import pearsonr, spearmanr

    m = np.asarray(metric, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    if len(m) != len(h):
        raise ValueError(f"{len(m)} metric scores but {len(h)} human scores")
    if len(m) < 3 or np.ptp(m) == 0 or np.ptp(h) == 0 or not np.isfinite(m).all():
        return {"pearson": None, "spearman": None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {"pearson": _nan_none(float(pearsonr(m, h)[0])), "spearman": _nan_none(float(spearmanr(m, h)[0]))}


def corr_system(scores: Mapping[str, float], human: Mapping[str, Mapping[str, float]]) -> dict:
    """{HUMAN: {"pearson", "spearman"}} of the system scores against each human score (over the systems of
    `scores`, in its order; every one must have a human score)."""
    systems = list(scores)
    return {name: correlation([scores[s] for s in systems], [h[s] for s in systems]) for name, h in human.items()}


def window_analysis(scores: Mapping[str, float], human: Mapping[str, float], window: int) -> list[dict]:
    """Per window of `window` systems adjacent in the human ranking (best first): {"from", "to" (1-based ranks),
    "systems", "pearson", "spearman"}."""
    systems = list(scores)
    if not 2 <= window <= len(systems):
        raise ValueError(f"the window must hold 2 to {len(systems)} systems, not {window}")
    order = sorted(systems, key=lambda s: human[s], reverse=True)
    out = []
    for i in range(len(order) - window + 1):
        part = order[i:i + window]
        out.append({"from": i + 1, "to": i + window, "systems": part,
                    **correlation([scores[s] for s in part], [human[s] for s in part])})
    return out


# --- aggregation of sentence scores ----------------------------------------------------------------------------------

def pairwise_wins(scores: np.ndarray) -> np.ndarray:
    """(n, S, S) int8: [i, a, b] = 1 where system a's sentence i scores strictly higher than system b's."""
    s = np.asarray(scores, dtype=np.float64).T            # (n, S)
    return (s[:, :, None] > s[:, None, :]).astype(np.int8)


def expected_wins(wins: np.ndarray) -> np.ndarray:
    """Expected Wins of each system from a (S, S) win-count matrix (wins[a, b]: sentences where a beat b), in
    gec-metrics' convention (human.expected_wins.expected_wins_of, opponents "all")."""
    return expected_wins_of(wins, "all")


def trueskill_scores(scores: np.ndarray) -> np.ndarray:
    """gec-metrics' run_trueskill on the pairwise comparisons of (S, n) sentence scores: the final mu of each
    system (the trueskill package, with the module's TRUESKILL parameters)."""
    import trueskill

    scores = np.asarray(scores, dtype=np.float64)
    S, n = scores.shape
    env = trueskill.TrueSkill(**TRUESKILL)
    ratings = [env.create_rating() for _ in range(S)]
    rate = env.rate
    pairs = list(itertools.combinations(range(S), 2))
    cols = scores.T.tolist()
    for i in range(n):
        row = cols[i]
        for a, b in pairs:
            x, y = row[a], row[b]
            ranks = (0, 1) if x > y else (1, 0) if x < y else (0, 0)
            (ra,), (rb,) = rate([(ratings[a],), (ratings[b],)], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
    return np.array([r.mu for r in ratings], dtype=np.float64)


def aggregate(scores: np.ndarray, how: str) -> np.ndarray:
    """System scores from (S, n) per-sentence scores (higher is better): "ts", "ew" or "mean" (see the module
    docstring)."""
    scores = np.asarray(scores, dtype=np.float64)
    if how == "ts":
        return trueskill_scores(scores)
    if how == "ew":
        return expected_wins(pairwise_wins(scores).sum(axis=0, dtype=np.int64))
    if how == "mean":
        return np.array([sum(row) / len(row) if len(row) else float("nan") for row in scores.tolist()])
    raise ValueError(f"unknown aggregation {how!r}; choose from ts, ew, mean")
