"""GLEU as a metric of the registry (name "gleu"): peet_fast.metrics.gleu's compute_gleu figures over per-sentence
statistics, and gec-metrics' sentence-level GLEU (see GleuMetric)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from peet_fast.io import InputError
from peet_fast.metrics.base import EvalSet, Metric, register
from peet_fast.metrics.config import Config, option
from peet_fast.metrics.gleu.reference_draws import draws, iterations_for
from peet_fast.metrics.gleu.ngrams import K, ORDER, References
from peet_fast.metrics.gleu.read import tokens_of
from peet_fast.metrics.gleu.score import MAX_ITERATIONS, check_options, corpus_values, kept_columns, summary


def _gleu_array(sums: np.ndarray, n: int) -> np.ndarray:
    """gleu_of over the last axis of an array of summed statistics, vectorised (numpy's log/exp: equal to gleu_of
    within a few ulps; for resamples, not for the printed figure)."""
    s = sums[..., :kept_columns(n)].astype(np.float64)
    zero = (s == 0).any(axis=-1)
    with np.errstate(all="ignore"):
        log_prec = np.zeros(s.shape[:-1])
        for k in range(2, s.shape[-1], 2):
            log_prec = log_prec + np.log(s[..., k] / s[..., k + 1])
        value = np.exp(np.minimum(0.0, 1.0 - s[..., 1] / s[..., 0]) + log_prec / 4)
    return np.where(zero, 0.0, value)


# (sentence, iteration) cells of one system's per-sentence statistics (10 int16 each): 20 MB at CoNLL-14's 1,312
# sentences and 500 iterations, 640 MB at this bound
MAX_STATS_CELLS = 1 << 25


@register
class GleuMetric(Metric):
    """GLEU (cnap/gec-ranking compute_gleu, 2016 update). sentence_stats: (n, I + R, 10) int16 (int32 when a
    sentence is longer than 32,767 tokens): sentence i's statistics against the reference iteration j drew for it
    (rows 0..I-1, I iterations), then against each of the R references (rows I..I+R-1); corpus_score: the mean over
    the iterations of the corpus GLEU, compute_gleu's printed figure. Options: n (compute_gleu's -n), iterations
    (--iter).

    Sentence scores follow gec-metrics' GLEUOfficial.score_sentence (gotutiyan/gec-metrics, metrics/gleu.py): per
    reference the sentence's GLEU without smoothing (0 when a precision is 0; a precision with no hypothesis n-grams
    counts 1, as gec-metrics' Score does with no false positive; brevity penalty min(0, 1 - r / max(c, 1))), averaged
    over the references. (compute_gleu's own -d sentence figures are smoothed: GleuResult.sentences.) Checked against
    gec-metrics in tests/metrics/test_sentence_scores.py; gec-metrics counts a line's tokens with split(' '), this
    with whitespace splitting: the same on single-spaced text."""
    name = "gleu"
    title = "GLEU"
    fmt = ".6f"                 # compute_gleu prints 6 decimals
    higher_is_better = True
    needs_sources = True

    @dataclass(frozen=True)
    class Config(Config):
        n: int = option(ORDER, "the n-gram order", low=1)                 # compute_gleu's -n
        iterations: int = option(500, "the number of iterations", low=1, high=MAX_ITERATIONS)    # its --iter

    def __init__(self, n: int = ORDER, iterations: int = 500):
        check_options(n, iterations)
        self.n = n
        self.iterations = iterations

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        if data.sources is None:
            raise InputError("gleu", "GLEU needs the source sentences")
        if not data.references:
            raise InputError("gleu", "GLEU needs at least one reference")
        counts = {len(hyp), len(data.sources), *(len(r) for r in data.references)}
        if len(counts) > 1:
            raise InputError("gleu", f"hypotheses ({len(hyp)}), sources ({len(data.sources)}) and references "
                                     f"({', '.join(str(len(r)) for r in data.references)}) differ in length")
        iters = iterations_for(len(data.references), self.iterations)
        if len(hyp) * iters > MAX_STATS_CELLS:
            raise InputError("gleu", f"{iters:,} iterations x {len(hyp):,} sentences: per-sentence statistics of "
                                     f"{len(hyp) * iters * K:,} numbers, over the {MAX_STATS_CELLS * K:,} this metric "
                                     "holds per system; use fewer iterations (peet-fast gleu itself has no such bound)")
        refs, picks = self._prepared(data)
        pairs = refs.pair_stats(tokens_of(hyp))
        dtype = np.int16 if pairs.size == 0 or pairs.max() <= np.iinfo(np.int16).max else np.int32
        pairs = pairs.astype(dtype)
        return np.concatenate([pairs[np.arange(len(hyp))[:, None], picks.T], pairs], axis=1)

    def _split(self, stats: np.ndarray) -> int:
        """The number of iteration rows I of stats (n, I + R, 10): one when there is one reference."""
        return 1 if stats.shape[1] == 2 else self.iterations

    def iteration_stats(self, stats: np.ndarray) -> np.ndarray:
        """The (n, I, 10) statistics of the iterations' drawn references."""
        return np.asarray(stats)[:, :self._split(np.asarray(stats))]

    def _prepared(self, data: EvalSet) -> tuple[References, np.ndarray]:
        """The prepared references and draws of data, kept for the next system scored on the same EvalSet."""
        return self.prepared(data, self._draws)

    def _draws(self, data: EvalSet) -> tuple[References, np.ndarray]:
        refs = References(tokens_of(data.sources), [tokens_of(r) for r in data.references])
        return refs, draws(refs.n, refs.n_refs, iterations_for(refs.n_refs, self.iterations))

    def corpus_score(self, stats: np.ndarray) -> float:
        sums = self.iteration_stats(stats).sum(axis=0, dtype=np.int64)
        return summary(corpus_values(sums.reshape(-1, K), self.n))[0]

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        per_ref = np.asarray(stats)[:, self._split(np.asarray(stats)):].astype(np.int64)
        out = np.empty(len(per_ref), dtype=np.float64)
        cols = kept_columns(self.n)
        for i, refs in enumerate(per_ref.tolist()):
            values = []
            for row in refs:
                c, r = row[0], row[1]
                precisions = [1.0 if den == 0 else num / den for num, den in zip(row[2:cols:2], row[3:cols:2])]
                if any(p <= 0 for p in precisions):
                    values.append(0.0)
                    continue
                log_prec = sum(math.log(p) for p in precisions) / ORDER
                values.append(math.exp(min(0, 1 - r / max(c, 1)) + log_prec))
            out[i] = sum(values) / len(values)
        return out

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        stats = self.iteration_stats(stats)
        idx = np.asarray(idx)
        B, m = idx.shape
        n = stats.shape[0]
        # float32 products are exact while every possible sum is below 2**24 (m rows, each at most the maximum)
        exact32 = stats.size == 0 or m * int(stats.max()) < 2 ** 24
        dtype = np.float32 if exact32 else np.float64
        flat = stats.reshape(n, -1).astype(dtype)
        out = np.empty(B, dtype=np.float64)
        chunk = max(1, 4_000_000 // max(flat.shape[1], 1))
        for lo in range(0, B, chunk):
            part = idx[lo:lo + chunk]
            counts = np.bincount((part + np.arange(len(part))[:, None] * n).ravel(),
                                 minlength=len(part) * n).reshape(len(part), n).astype(dtype)
            sums = np.rint(counts @ flat).reshape(len(part), -1, K)
            out[lo:lo + len(part)] = _gleu_array(sums, self.n).mean(axis=1)
        return out
