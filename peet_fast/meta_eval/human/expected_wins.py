"""Expected Wins (Bojar et al. 2011 as GJG15 compute it: grammatical/evaluation's data/scripts/EW.pl) from pairwise
judgments, and its bootstrap over pairwise judgments (EW.pl's, and EW.py's resamples behind GJG15's Table 3 ranges)
or over ranking items.

EW.pl, on every pairwise judgment of the file: wins[i][j] = the judgments ranking system i above system j (ties
count for neither; with -t, for both), and

    EW(i) = 1/|O_i| * sum over j in O_i of wins[i][j] / (wins[i][j] + wins[j][i]),   O_i = {j : wins[i][j] > 0},

the average over the opponents i beat at least once (where every pair of systems won both ways, as in GJG15 and
SEEDA, that is every opponent; a system that never won gets 0 here; EW.pl lists no score for it).
"""
from __future__ import annotations

import numpy as np

from peet_fast.meta_eval.human.judgments import FIRST, SECOND, TIE, Pairs


def win_matrix(counts: np.ndarray, n: int, ties: bool = False) -> np.ndarray:
    """(..., n, n) wins[i, j] from per-pair judgment counts (..., pairs, 3) in pair_table order (Pairs.counts);
    ties: a tie counts as a win for both (EW.pl -t)."""
    counts = np.asarray(counts)
    i, j = np.triu_indices(n, 1)
    wins = np.zeros(counts.shape[:-2] + (n, n), dtype=np.float64)
    wins[..., i, j] = counts[..., FIRST]
    wins[..., j, i] = counts[..., SECOND]
    if ties:
        wins[..., i, j] += counts[..., TIE]
        wins[..., j, i] += counts[..., TIE]
    return wins


OPPONENTS = ("beaten", "all")


def expected_wins_of(wins: np.ndarray, opponents: str = "beaten") -> np.ndarray:
    """Each system's Expected Wins from a win matrix (..., n, n) (several at once along the leading axes), the one
    implementation of both conventions:

    - opponents "beaten": EW.pl's (the module docstring), for human judgments;
    - opponents "all": gec-metrics' run_expected_wins, for a metric's sentence scores turned into wins
      (peet_fast.meta_eval.metric.system): the mean over every other system j of wins[i, j] / (wins[i, j] +
      wins[j, i]), a pair never compared counting 0.5, summed over j in index order then divided by n - 1 (as
      gec-metrics sums, so the figures are its own to the last bit)."""
    wins = np.asarray(wins, dtype=np.float64)
    played = wins + np.swapaxes(wins, -1, -2)
    if opponents == "all":
        n = wins.shape[-1]
        share = np.divide(wins, played, out=np.full_like(wins, 0.5), where=played > 0)
        total = np.zeros(wins.shape[:-1])
        for j in range(n):                            # in gec-metrics' order (numpy's sum would pair the terms)
            column = share[..., j].copy()
            column[..., j] = 0.0                      # not an opponent of itself: adds nothing
            total = total + column
        return total / max(n - 1, 1)
    if opponents != "beaten":
        raise ValueError(f"opponents must be one of {', '.join(OPPONENTS)}, not {opponents!r}")
    beat = wins > 0
    share = np.divide(wins, played, out=np.zeros_like(wins), where=beat)
    count = beat.sum(axis=-1)
    return np.divide(share.sum(axis=-1), count, out=np.zeros(share.shape[:-1]), where=count > 0)


def expected_wins(pairs: Pairs, ties: bool = False) -> dict[str, float]:
    """Each system's Expected Wins on all the pairwise judgments, as EW.pl prints it (it prints 4 decimals)."""
    scores = expected_wins_of(win_matrix(pairs.counts(), len(pairs.systems), ties))
    return dict(zip(pairs.systems, scores.tolist()))


def resampled_counts(pairs: Pairs, samples: int, rng: np.random.Generator, unit: str = "pairs",
                     chunk: int = 250) -> np.ndarray:
    """(samples, pairs of systems, 3) judgment counts of bootstrap resamples: unit "pairs" draws len(pairs) pairwise
    judgments with replacement (EW.pl's and EW.py's bootstrap: a multinomial draw over the distinct judgments);
    "items" draws the judged ranking items (those with a pairwise judgment) with replacement, each bringing all of
    its judgments."""
    n_pairs = len(pairs.systems) * (len(pairs.systems) - 1) // 2
    out = np.empty((samples, 3 * n_pairs), dtype=np.int64)
    if len(pairs) == 0 or samples == 0:
        out[:] = 0
        return out.reshape(samples, n_pairs, 3)
    if unit == "pairs":
        totals = pairs.counts().ravel()
        out[:] = rng.multinomial(len(pairs), totals / totals.sum(), size=samples)
    elif unit == "items":
        category = pairs.pair_id * 3 + pairs.outcome
        items, item_of_row = np.unique(pairs.item, return_inverse=True)
        key, mult = np.unique(item_of_row * (3 * n_pairs) + category, return_counts=True)
        key_item, key_cat = np.divmod(key, 3 * n_pairs)
        k = len(items)
        for start in range(0, samples, chunk):
            stop = min(samples, start + chunk)
            draws = rng.multinomial(k, np.full(k, 1.0 / k), size=stop - start)
            weights = draws[:, key_item] * mult                       # (chunk, distinct (item, category))
            rows = np.repeat(np.arange(stop - start), len(key)) * (3 * n_pairs) + np.tile(key_cat, stop - start)
            out[start:stop] = np.bincount(rows, weights=weights.ravel(),
                                          minlength=(stop - start) * 3 * n_pairs).reshape(stop - start, -1)
    else:
        raise ValueError(f"unit must be 'pairs' or 'items', not {unit!r}")
    return out.reshape(samples, n_pairs, 3)


def bootstrap_expected_wins(pairs: Pairs, samples: int, rng: np.random.Generator, unit: str = "pairs",
                            ties: bool = False) -> np.ndarray:
    """(samples, systems): the Expected Wins of each bootstrap resample (resampled_counts)."""
    counts = resampled_counts(pairs, samples, rng, unit)
    return expected_wins_of(win_matrix(counts, len(pairs.systems), ties))
