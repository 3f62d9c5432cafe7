"""Word error rate against the closest reference.

WER of a sentence: word-level Levenshtein distance (unit costs, whitespace tokens, case-sensitive) from the
system's sentence to the closest reference (smallest distance; the first reference on ties) divided by that
reference's length in words, ``max(1, len)``, so an empty reference counts as length 1 (an empty hypothesis against
an empty reference is 0). A system's WER is the mean of its sentence WERs (every line counts), not total edits over
total reference words; a sentence's score (sentence_scores) is its own WER. The distance is rapidfuzz's (imported
when used). :class:`WER` is the metric "wer" of the registry (peet_fast.metrics.base)."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from peet_fast.metrics.base import EvalSet, Metric, register


def word_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Word-level Levenshtein distance (insert, delete, substitute: cost 1 each) between two token lists."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(a, b)


def sentence_distances(hyps: Sequence[Sequence[str]],
                       refs: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-sentence word distance of every system to the closest reference: ((S, n) int64 distance, (S, n) int64
    length of that reference in words as WER divides by it, max(1, len), (S, n) int32 index of the closest reference,
    the first on ties)."""
    from rapidfuzz.distance import Levenshtein

    S, R = len(hyps), len(refs)
    n = len(refs[0]) if refs else 0
    dist = np.empty((S, n), dtype=np.int64)
    words = np.empty((S, n), dtype=np.int64)
    best_ref = np.empty((S, n), dtype=np.int32)
    distance = Levenshtein.distance
    for i in range(n):
        ref_toks = [refs[r][i].split() for r in range(R)]
        cache: dict[str, tuple[int, int, int]] = {}
        for s in range(S):
            h = hyps[s][i]
            got = cache.get(h)
            if got is None:
                toks = h.split()
                d = [distance(toks, rt) for rt in ref_toks]
                k = int(np.argmin(d))
                got = cache[h] = (d[k], max(1, len(ref_toks[k])), k)
            dist[s, i], words[s, i], best_ref[s, i] = got
    return dist, words, best_ref


def sentence_wer(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Per-sentence WER of every system against the closest reference: ((S, n) float64 WER, (S, n) int32 index of
    the closest reference, the first on ties)."""
    dist, words, best_ref = sentence_distances(hyps, refs)
    return dist / words, best_ref


@register
class WER(Metric):
    """WER as `rank` reports it. Per-sentence statistics, shape (n, 2): the word distance to the closest reference
    and that reference's length (max(1, words)); the corpus score is the mean of the sentence ratios (every line
    counts; math.fsum), lower is better."""
    name = "wer"
    title = "WER"
    label = "WER"
    higher_is_better = False
    fmt = ".4f"

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        return self.system_stats([hyp], data)[0]

    def system_stats(self, hyps: Sequence[Sequence[str]], data: EvalSet) -> list[np.ndarray]:
        dist, words, _ = sentence_distances(hyps, data.references)
        return [np.stack([dist[s], words[s]], axis=1).astype(np.float64) for s in range(len(hyps))]

    def corpus_score(self, stats: np.ndarray) -> float:
        stats = np.asarray(stats, dtype=np.float64)
        if len(stats) == 0:
            return float("nan")
        return math.fsum((stats[:, 0] / stats[:, 1]).tolist()) / len(stats)

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        """Each sentence's WER against its closest reference (lower is better)."""
        stats = np.asarray(stats, dtype=np.float64).reshape(len(stats), 2)
        return stats[:, 0] / stats[:, 1]

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return self.bootstrap_systems([stats], idx)[:, 0]

    def bootstrap_systems(self, stats: Sequence[np.ndarray], idx: np.ndarray) -> np.ndarray:
        from peet_fast.metrics.stats import resample_means

        values = np.stack([np.asarray(s, dtype=np.float64)[:, 0] / np.asarray(s, dtype=np.float64)[:, 1]
                           for s in stats])
        return resample_means(values, idx)
