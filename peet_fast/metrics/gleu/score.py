"""GLEU's figures: the official GLEU.gleu of summed statistics, the mean/deviation/95 % interval compute_gleu
prints, and one system's result (score_system, GleuResult and its printed lines)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from peet_fast.io import InputError
from peet_fast.metrics.gleu.reference_draws import draw_chunks, held_draws, iteration_sums, iterations_for
from peet_fast.metrics.gleu.ngrams import K, ORDER, References


# scipy.special.ndtri((1 - 0.95) / 2) and ndtri((1 + 0.95) / 2) as scipy computes them in norm.interval(0.95)
# (values printed by scipy 1.2.3 under Python 2.7, the official's environment)
Z_LOW = float.fromhex("-0x1.f5c0331eeff84p+0")
Z_HIGH = float.fromhex("0x1.f5c0331eeff84p+0")


def gleu_of(stats: Sequence[int], smooth: bool = False) -> float:
    """The official's ``GLEU.gleu``: 0 when a statistic is 0 (after smoothing: zeros read as 1), else
    exp(min(0, 1 - r/c) + mean of log precisions over 4), in the official's order of float operations."""
    stats = [int(x) for x in stats]
    if smooth:
        stats = [x if x != 0 else 1 for x in stats]
    if any(x == 0 for x in stats):
        return 0.0
    c, r = stats[:2]
    log_prec = sum([math.log(float(x) / y) for x, y in zip(stats[2::2], stats[3::2])]) / 4
    return math.exp(min(0, 1 - float(r) / c) + log_prec)


def kept_columns(n: int) -> int:
    """How many corpus statistics the official keeps for -n n: its per-iteration list has 2n + 2 entries."""
    return min(2 * n + 2, K)


def corpus_values(sums: np.ndarray, n: int = ORDER) -> np.ndarray:
    """Each iteration's corpus GLEU from its summed statistics (iterations, 10)."""
    cols = kept_columns(n)
    return np.array([gleu_of(row[:cols]) for row in sums.tolist()], dtype=np.float64)


def summary(values: Sequence[float] | np.ndarray) -> tuple[float, float, float, float]:
    """compute_gleu's get_gleu_stats: numpy's mean and (population) standard deviation, and scipy's normal 95%
    interval around the mean (nan unless the deviation is positive)."""
    arr = np.asarray(values, dtype=np.float64)
    with np.errstate(all="ignore"):
        mean = float(np.mean(arr)) if len(arr) else math.nan
        std = float(np.std(arr)) if len(arr) else math.nan
    if std > 0 and mean == mean:
        return mean, std, Z_LOW * std + mean, Z_HIGH * std + mean
    return mean, std, math.nan, math.nan


def format_summary(mean: float, std: float, low: float, high: float) -> str:
    """'mean std (low,high)' as compute_gleu prints it."""
    return "%f %f (%.3f,%.3f)" % (mean, std, low, high)


# --- one system ---------------------------------------------------------------------------------------------------

@dataclass
class GleuResult:
    """GLEU of one system as compute_gleu computes it. score: the corpus GLEU it prints (the mean over the
    iterations); std, low, high: the deviation and 95% interval it prints with -d; iterations: each iteration's
    corpus GLEU; sentences: (n, 4) float64, per sentence the mean, deviation, interval low and high of its smoothed
    GLEU against each reference (-d's sentence lines); pairs: (n, R, 10) the statistics of each (sentence,
    reference) pair; picks: (iterations, n) the reference each iteration drew for each sentence."""
    score: float
    std: float
    low: float
    high: float
    iterations: np.ndarray
    sentences: np.ndarray = field(repr=False)
    pairs: np.ndarray = field(repr=False)
    picks: np.ndarray | None = field(repr=False)

    def lines(self, name: str, debug: bool = False) -> list[str]:
        """What compute_gleu prints for this hypothesis file (name: the file's base name): 'name score', or with
        debug the sentence-level and overall report."""
        if not debug:
            return ["%s %f" % (name, self.score)]
        out = ["", "===== Sentence-level scores =====", "SID Mean Stdev 95%CI GLEU"]
        out += [f"{i} {format_summary(*row)}" for i, row in enumerate(self.sentences.tolist())]
        out += ["", "==== Overall score =====", "Mean Stdev 95%CI GLEU",
                format_summary(self.score, self.std, self.low, self.high)]
        return out


def sentence_summaries(pairs: np.ndarray) -> np.ndarray:
    """(n, 4): per sentence, summary() of its smoothed GLEU against each reference."""
    out = np.empty((pairs.shape[0], 4), dtype=np.float64)
    for i, per_ref in enumerate(pairs.tolist()):
        out[i] = summary([gleu_of(stats, smooth=True) for stats in per_ref])
    return out


# the most iterations (--iter): each one's corpus GLEU is kept (8 bytes) and costs a reseeding of MT19937 and one
# draw per sentence (over a minute per million on CoNLL-14's 1,312 sentences); the official's default is 500
MAX_ITERATIONS = 1_000_000


def check_options(n: int, iterations: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise InputError("n", f"the n-gram order must be an integer of at least 1, not {n!r}")
    if not isinstance(iterations, int) or isinstance(iterations, bool) or iterations < 1:
        raise InputError("iterations", f"the number of iterations must be an integer of at least 1, not {iterations!r}")
    if iterations > MAX_ITERATIONS:
        raise InputError("iterations", f"at most {MAX_ITERATIONS:,} iterations (the official's default is 500), not "
                                   f"{iterations:,}")


def score_system(references: References, hypotheses: Sequence[Sequence[bytes]], n: int = ORDER,
                 iterations: int = 500, picks: np.ndarray | None = None, sentences: bool = True,
                 selection: np.ndarray | None = None) -> GleuResult:
    """GLEU of one system (tokenised, as many sentences as the references). picks: the draws (from draws() or
    held_draws(); when None, drawn here: at once where they fit in one chunk, else chunk by chunk, in memory that
    does not grow with the iterations, and then not kept: .picks is None); selection: selection_matrix(picks),
    when already made; sentences: compute the sentence-level figures (-d)."""
    check_options(n, iterations)
    pairs = references.pair_stats(hypotheses)
    iters = iterations_for(references.n_refs, iterations)
    if picks is None:
        picks = held_draws(references.n, references.n_refs, iters)
    if picks is not None:
        values = corpus_values(iteration_sums(pairs, picks, selection), n)
    else:
        values = np.empty(iters, dtype=np.float64)
        for lo, hi, part in draw_chunks(references.n, references.n_refs, iters):
            values[lo:hi] = corpus_values(iteration_sums(pairs, part), n)
    mean, std, low, high = summary(values)
    sent = sentence_summaries(pairs) if sentences else np.empty((0, 4))
    return GleuResult(mean, std, low, high, values, sent, pairs, picks)
