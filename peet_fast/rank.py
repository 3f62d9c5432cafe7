"""System ranking with uncertainty: bootstrap confidence intervals and paired p-values for PEET, WER as the
technical-effort baseline, and correlation with human system scores.

Definitions (all documented in the README's `rank` section):

- **Bootstrap** (paired): B resamples of the n sentences with replacement, drawn once from
  ``numpy.random.default_rng(seed)`` as a (B, n) index matrix (row b = ``rng.integers(0, n, size=n)``, rows drawn in
  order, so it equals ``rng.integers(0, n, size=(B, n))``) and applied to *every* system: resample b of system A and
  of system B use the same sentences. A system's bootstrap mean b is the mean of its per-sentence seconds at row b.
- **95 % CI**: the percentile interval, ``numpy.quantile`` (linear interpolation) at 2.5 % and 97.5 % of the B
  bootstrap means.
- **Paired p-value** of two adjacent systems in the ranking, A ranked above B (PEET_A <= PEET_B): the share of
  resamples in which A is not strictly better, ``#{b : mean*_A(b) >= mean*_B(b)} / B`` (one-sided; ties count against
  A, so identical systems get 1). A value of 0 means "below 1/B".
- **WER** of a sentence: word-level Levenshtein distance (unit costs, whitespace tokens, case-sensitive) from the
  system's sentence to the closest reference (smallest distance; the first reference on ties) divided by that
  reference's length in words, ``max(1, len)``, so an empty reference counts as length 1 (an empty hypothesis against
  an empty reference is 0). A system's WER is the mean of its sentence WERs (every line counts), not total edits over
  total reference words.
- **Correlation** with human scores (higher is better): Pearson's r and Spearman's rho (Pearson's r of the ranks,
  ties given their average rank) over the systems that have a human score. PEET and WER are lower-is-better, so a good
  metric correlates *negatively*; the raw sign is reported.
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from peet_fast.io import InputError, open_input

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
CI_LEVEL = 0.95
MIN_CORRELATION_SYSTEMS = 3
_BLOCK_CELLS = 1 << 22          # resamples are processed in blocks of at most this many (resample, sentence) cells


# --- bootstrap -------------------------------------------------------------------------------------------------------

def bootstrap_indices(n: int, resamples: int, seed: int) -> np.ndarray:
    """The (resamples, n) index matrix of the bootstrap for a seed: row b lists the sentences of resample b."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=(resamples, n))


def resample_means(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Means of each system (rows of values, (S, n)) over each resample (rows of idx, (k, n)): a (k, S) array.
    The same resample rows are applied to every system (paired)."""
    k, m = idx.shape
    n = values.shape[1]
    flat = (np.arange(k, dtype=np.int64)[:, None] * n + idx).reshape(-1)
    counts = np.bincount(flat, minlength=k * n).reshape(k, n).astype(np.float64)
    return counts @ values.T / m


def bootstrap_means(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """(resamples, S) bootstrap means of every system, paired: equal to
    ``resample_means(values, bootstrap_indices(n, resamples, seed))`` but in blocks (bounded memory)."""
    values = np.asarray(values, dtype=np.float64)
    S, n = values.shape
    if n == 0:
        raise ValueError("no sentences to resample")
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, S), dtype=np.float64)
    block = max(1, min(resamples, _BLOCK_CELLS // n))
    for lo in range(0, resamples, block):
        hi = min(resamples, lo + block)
        out[lo:hi] = resample_means(values, rng.integers(0, n, size=(hi - lo, n)))
    return out


def percentile_ci(boot: np.ndarray, level: float = CI_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each column of boot (B, S): (low, high) arrays of S values."""
    a = (1.0 - level) / 2.0
    low, high = np.quantile(boot, [a, 1.0 - a], axis=0)
    return low, high


def paired_p_value(boot_better: np.ndarray, boot_worse: np.ndarray) -> float:
    """Share of resamples in which the better-ranked system is not strictly better (lower) than the other."""
    return float(np.count_nonzero(boot_better >= boot_worse)) / len(boot_better)


# --- WER ---------------------------------------------------------------------------------------------------------------

def word_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Word-level Levenshtein distance (insert, delete, substitute: cost 1 each) between two token lists."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(a, b)


def sentence_wer(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Per-sentence WER of every system against the closest reference: ((S, n) float64 WER, (S, n) int32 index of
    the closest reference, the first on ties)."""
    from rapidfuzz.distance import Levenshtein

    S, R = len(hyps), len(refs)
    n = len(refs[0]) if refs else 0
    wer = np.empty((S, n), dtype=np.float64)
    best_ref = np.empty((S, n), dtype=np.int32)
    dist = Levenshtein.distance
    for i in range(n):
        ref_toks = [refs[r][i].split() for r in range(R)]
        cache: dict[str, tuple[float, int]] = {}
        for s in range(S):
            h = hyps[s][i]
            got = cache.get(h)
            if got is None:
                toks = h.split()
                d = [dist(toks, rt) for rt in ref_toks]
                k = int(np.argmin(d))
                got = cache[h] = (d[k] / max(1, len(ref_toks[k])), k)
            wer[s, i], best_ref[s, i] = got
    return wer, best_ref


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


# --- human scores --------------------------------------------------------------------------------------------------

def read_human_scores(path: str, systems: Sequence[str], ignore: Sequence[str] = ()) -> dict[str, float]:
    """A `system,score` CSV (header line required; higher is better) -> {system: score}.

    Every row must name one of `systems` (the hyp file names without extension) or a name in `ignore` (those rows are
    skipped on request); an unknown or repeated system, a missing or non-finite score, or a malformed row raises
    InputError naming the file and line, and so do fewer than MIN_CORRELATION_SYSTEMS scored systems."""
    with open_input(path) as fh:
        data = fh.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(path, "invalid UTF-8") from None
    rows = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        return _human_rows(path, rows, set(systems), set(ignore))
    except csv.Error as exc:
        raise InputError(path, f"malformed CSV: {exc}", line=rows.line_num) from None


def _human_rows(path: str, rows, known: set, skip: set) -> dict[str, float]:
    scores: dict[str, float] = {}
    header = next(rows, None)
    if header is None or [h.strip().lower() for h in header] != ["system", "score"]:
        raise InputError(path, f"the header must be 'system,score', got {','.join(header or [])!r}", line=1)
    for row in rows:
        line = rows.line_num
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != 2:
            raise InputError(path, f"expected 2 fields (system,score), got {len(row)}", line=line)
        name, value = row[0].strip(), row[1].strip()
        if name in skip:
            continue
        if name not in known:
            raise InputError(path, f"unknown system {name!r}: not one of the --hyp systems "
                                   f"({', '.join(sorted(known))}); skip it with --human-ignore {name}", line=line)
        if name in scores:
            raise InputError(path, f"system {name!r} appears twice", line=line)
        try:
            score = float(value)
        except ValueError:
            raise InputError(path, f"score {value!r} is not a number", line=line) from None
        if not math.isfinite(score):
            raise InputError(path, f"score {value!r} is not finite", line=line)
        scores[name] = score
    if len(scores) < MIN_CORRELATION_SYSTEMS:
        raise InputError(path, f"a correlation needs at least {MIN_CORRELATION_SYSTEMS} --hyp systems with a human "
                               f"score; this file scores {len(scores)}")
    return scores


# --- the ranking ---------------------------------------------------------------------------------------------------

@dataclass
class RankedSystem:
    name: str
    file: str
    peet: float
    ci_low: float
    ci_high: float
    wer: float
    sentences: int
    p_next: float | None        # paired p-value against the next system in the ranking (None for the last)
    human: float | None


@dataclass
class Ranking:
    """The result of `rank_systems`, systems in rank order; per-sentence arrays are in that order too."""
    systems: list[RankedSystem]
    resamples: int
    seed: int
    seconds: np.ndarray                  # (S, n) predicted seconds per sentence
    wer: np.ndarray                      # (S, n) sentence WER
    features: dict[str, np.ndarray]      # feature -> (S, n) value for the reference giving the minimum
    correlation: dict | None             # {"systems": k, "peet": {"spearman", "pearson"}, "wer": {...}}
    boot: np.ndarray = field(repr=False, default=None)   # (B, S) bootstrap means

    def summary(self) -> dict:
        """The `--summary` JSON body (without model/references, which the caller adds)."""
        return {
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "ci": CI_LEVEL,
                          "p_value": "share of resamples where the higher-ranked system is not strictly better "
                                     "than the next one"},
            "systems": [{"name": s.name, "file": s.file, "peet": s.peet, "ci_low": s.ci_low, "ci_high": s.ci_high,
                         "wer": s.wer, "sentences": s.sentences, "p_next": s.p_next, "human": s.human}
                        for s in self.systems],
            "correlation": _json_safe(self.correlation),
        }


def _json_safe(x):
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def correlations(metric: Mapping[str, Sequence[float]], human: Sequence[float]) -> dict:
    """{"systems": k, name: {"spearman", "pearson"} for each metric} over k systems."""
    out: dict = {"systems": len(human)}
    for name, values in metric.items():
        out[name] = {"spearman": spearman(values, human), "pearson": pearson(values, human)}
    return out


def rank_systems(annotator, model, hyp_files: Sequence[str], hyps: Sequence[Sequence[str]],
                 refs: Sequence[Sequence[str]], resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 human: Mapping[str, float] | None = None,
                 on_chunk: Callable | None = None, timings: dict | None = None) -> Ranking:
    """Score every system (the `score` path: one annotation batch per chunk for all systems x references), then
    bootstrap CIs, paired p-values of adjacent systems, WER and (with human scores) correlations. `timings`, when
    given, receives the seconds spent in each phase: "score", "wer", "bootstrap" (bootstrap, CIs, p-values,
    correlations)."""
    import time

    from peet_fast.scoring import rank, score_systems

    parts: list[np.ndarray] = []
    feats: dict[str, list[np.ndarray]] = {}

    def keep(ch) -> None:
        parts.append(ch.seconds)
        for k, v in ch.features.items():
            feats.setdefault(k, []).append(v)
        if on_chunk is not None:
            on_chunk(ch)

    t0 = time.perf_counter()
    scores = score_systems(annotator, model, hyp_files, hyps, refs, on_chunk=keep)
    seconds = np.concatenate(parts, axis=1)
    features = {k: np.concatenate(v, axis=1) for k, v in feats.items()}
    t1 = time.perf_counter()
    wer, _ = sentence_wer(hyps, refs)
    t2 = time.perf_counter()
    out = assemble(scores, seconds, wer, features, resamples, seed, human, rank)
    if timings is not None:
        timings.update(score=t1 - t0, wer=t2 - t1, bootstrap=time.perf_counter() - t2)
    return out


def assemble(scores, seconds: np.ndarray, wer: np.ndarray, features: Mapping[str, np.ndarray], resamples: int,
             seed: int, human: Mapping[str, float] | None, order: Callable) -> Ranking:
    """The Ranking from per-system scores (input order) and per-sentence arrays (same order); `order` sorts
    scores into rank order (scoring.rank)."""
    ranked = order(scores)
    pos = [next(k for k, s in enumerate(scores) if s is r) for r in ranked]
    seconds, wer = seconds[pos], wer[pos]
    features = {k: v[pos] for k, v in features.items()}
    boot = bootstrap_means(seconds, resamples, seed)
    low, high = percentile_ci(boot)
    n = seconds.shape[1]
    systems = []
    for k, s in enumerate(ranked):
        p = paired_p_value(boot[:, k], boot[:, k + 1]) if k + 1 < len(ranked) else None
        systems.append(RankedSystem(s.name, s.file, s.peet, float(low[k]), float(high[k]),
                                    math.fsum(wer[k].tolist()) / n, n, p,
                                    None if human is None else human.get(s.name)))
    corr = None
    if human is not None:
        have = [s for s in systems if s.human is not None]
        corr = correlations({"peet": [s.peet for s in have], "wer": [s.wer for s in have]},
                            [s.human for s in have])
    return Ranking(systems, resamples, seed, seconds, wer, features, corr, boot)
