"""GLEU exactly as the official ``compute_gleu`` of cnap/gec-ranking computes it (the 2016 update for several
references, with its 2017 brevity-penalty fix: ``scripts/compute_gleu`` and ``scripts/gleu.py``).

What the official does, and what this module reproduces:

- Tokens: each line split on ASCII whitespace (Python 2's ``str.split()`` on bytes: space, ``\\t \\n \\r \\v \\f``);
  lines end at ``\\n`` only (Python 2's file iteration).
- Statistics of one hypothesis sentence against one reference: hypothesis length c, reference length r, and for
  n-gram orders 1-4: ``max(|h & r| - |h & (s - r)|, 0)`` (clipped counts: n-grams of the hypothesis matching the
  reference, minus those matching source n-grams the reference does not have) and ``max(c + 1 - n, 0)``. The order
  is always 4: the official's GLEU class ignores its ``n`` argument.
- Several references: iteration j (``--iter``, 500 by default; 1 when there is one reference) draws one reference
  per sentence, with Python 2's ``random.seed(j * 101)`` then ``random.randint(0, R - 1)`` for each sentence in
  order, which is ``int(random() * R)`` (Python 2's randrange; Python 3's randint draws otherwise). Seeding an int
  is MT19937's ``init_by_array`` over its 32-bit words, which numpy's legacy RandomState does when given a list;
  ``random()`` is the 53-bit ``genrand_res53`` in both. The statistics of each (sentence, reference) pair are
  computed once; an iteration's corpus statistics are sums selected by its draws (a matrix product, not a pass).
- Corpus GLEU of one iteration: 0 when any statistic is 0, else ``exp(min(0, 1 - r/c) + sum(log(num_n/den_n))/4)``
  over the first ``2n + 2`` statistics (the official sums its per-iteration statistics into a list of length
  ``2n + 2``, so ``-n 1..3`` keeps only the first n precisions, still divided by 4; ``-n`` over 4 is 4).
- Printed: ``'%f'`` of numpy's mean over the iterations; with ``-d``, per sentence the mean, population standard
  deviation and ``'(%.3f,%.3f)'`` normal 95% interval (scipy's ``norm.interval``: nan when the deviation is 0) of
  the smoothed sentence GLEU against each reference (zero statistics replaced by 1), then the same three figures of
  the iterations' corpus GLEU.

Differences, on purpose: files whose line counts differ are refused (the official crashes, or silently scores a
shorter hypothesis file's first lines); a UTF-8 byte order mark at a file's start is dropped (the official makes it
part of the first token); invalid UTF-8 and NUL bytes are refused; ``-n`` and ``--iter`` must be at least 1."""
from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

import numpy as np

from peet_fast.io import InputError, read_bytes
from peet_fast.metrics.base import EvalSet, Metric, register

ORDER = 4                      # the official's GLEU class always counts 1- to 4-grams
K = 2 * ORDER + 2              # statistics per sentence: c, r, then (numerator, denominator) per order
# scipy.special.ndtri((1 - 0.95) / 2) and ndtri((1 + 0.95) / 2) as scipy computes them in norm.interval(0.95)
# (values printed by scipy 1.2.3 under Python 2.7, the official's environment)
Z_LOW = float.fromhex("-0x1.f5c0331eeff84p+0")
Z_HIGH = float.fromhex("0x1.f5c0331eeff84p+0")
SEED_STEP = 101                # iteration j seeds Python 2's random with j * 101


# --- reading ------------------------------------------------------------------------------------------------------

def split_lines(data: bytes) -> list[bytes]:
    """Lines as Python 2's file iteration yields them, without their ``\\n`` (a last line without one counts)."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def read_gleu_lines(path: str, data: bytes | None = None) -> list[bytes]:
    """A file's lines as bytes, split at ``\\n`` only, as compute_gleu reads them; a UTF-8 byte order mark at its
    start is dropped. InputError naming the file (and line) for a missing/unreadable file, a NUL byte, invalid
    UTF-8. data: the bytes already read (e.g. standard input), path then only names them."""
    if data is None:
        data = read_bytes(path)
    else:
        data = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(path, "contains a NUL byte (binary file?)", data.count(b"\n", 0, nul) + 1)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        raise InputError(path, f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at column {exc.start - start + 1})",
                         data.count(b"\n", 0, exc.start) + 1) from None
    return split_lines(data)


def tokens_of(lines: Sequence[str | bytes]) -> list[list[bytes]]:
    """Each line's tokens as compute_gleu splits them (bytes split on ASCII whitespace)."""
    return [(s.encode("utf-8", "surrogatepass") if isinstance(s, str) else s).split() for s in lines]


# --- statistics ---------------------------------------------------------------------------------------------------


def _ngram_tables(texts: Sequence[Sequence[Sequence[bytes]]]) -> tuple[list[np.ndarray], list[list[np.ndarray]],
                                                                        list[int]]:
    """For texts (each a list of n tokenised sentences): each text's sentence lengths; per text and order 1..4 a
    (2, m) int64 array of the sorted unique keys ``sentence * G + gram`` of its n-grams and their counts (gram: a
    dense id of the n-gram shared by all the texts); and G per order."""
    vocab: dict[bytes, int] = {}
    flat: list[int] = []
    lengths: list[np.ndarray] = []
    bounds: list[tuple[int, int]] = []
    n = len(texts[0]) if texts else 0
    for sents in texts:
        lengths.append(np.fromiter((len(s) for s in sents), dtype=np.int64, count=len(sents)))
        start = len(flat)
        setdefault = vocab.setdefault
        for s in sents:
            flat.extend([setdefault(t, len(vocab)) for t in s])
        bounds.append((start, len(flat)))
    tok = np.asarray(flat, dtype=np.int64)
    total = len(tok)
    sent_of = np.empty(total, dtype=np.int64)       # the token's sentence within its text
    left = np.empty(total, dtype=np.int64)          # tokens from it to its sentence's end, itself included
    for (lo, hi), lens in zip(bounds, lengths):
        if hi > lo:
            idx = np.repeat(np.arange(n, dtype=np.int64), lens)
            ends = lo + np.cumsum(lens)
            sent_of[lo:hi] = idx
            left[lo:hi] = ends[idx] - np.arange(lo, hi)
    tables: list[list[np.ndarray]] = [[] for _ in texts]
    divisors: list[int] = []
    gram = tok
    n_grams = max(len(vocab), 1)
    valid = np.ones(total, dtype=bool)
    for order in range(1, ORDER + 1):
        if order > 1:
            valid = left >= order
            pos = np.flatnonzero(valid)
            uniq, inv = np.unique(gram[pos] * len(vocab) + tok[pos + order - 1], return_inverse=True)
            gram = np.full(total, -1, dtype=np.int64)
            gram[pos] = inv.reshape(-1)
            n_grams = max(len(uniq), 1)
        divisors.append(n_grams)
        for t, (lo, hi) in enumerate(bounds):
            ok = valid[lo:hi]
            uniq, counts = np.unique(sent_of[lo:hi][ok] * n_grams + gram[lo:hi][ok], return_counts=True)
            tables[t].append(np.stack([uniq, counts.astype(np.int64)]))
    return lengths, tables, divisors


def _clipped(a: np.ndarray, b: np.ndarray, divisor: int, n: int) -> np.ndarray:
    """Per sentence: the sum over the n-grams both have of min(count in a, count in b) (``sum((a & b).values())``)."""
    _, ia, ib = np.intersect1d(a[0], b[0], assume_unique=True, return_indices=True)
    if len(ia) == 0:
        return np.zeros(n, dtype=np.int64)
    weights = np.minimum(a[1][ia], b[1][ib]).astype(np.float64)
    return np.rint(np.bincount(a[0][ia] // divisor, weights=weights, minlength=n)).astype(np.int64)


def pair_stats(sources: Sequence[Sequence[bytes]], references: Sequence[Sequence[Sequence[bytes]]],
               hypotheses: Sequence[Sequence[bytes]]) -> np.ndarray:
    """The official's ``gleu_stats`` of every (sentence, reference) pair: an int64 array (n, R, 10) of
    (c, r, num1, den1, ..., num4, den4). Arguments tokenised (tokens_of), every text of length n."""
    n, R = len(hypotheses), len(references)
    lengths, tables, divisors = _ngram_tables([hypotheses, sources, *references])
    out = np.zeros((n, R, K), dtype=np.int64)
    hlen = lengths[0]
    out[:, :, 0] = hlen[:, None]
    for r in range(R):
        out[:, r, 1] = lengths[2 + r]
    for o in range(ORDER):
        h, s, div = tables[0][o], tables[1][o], divisors[o]
        for r in range(R):
            ref = tables[2 + r][o]
            s_not_r = s[:, ~np.isin(s[0], ref[0], assume_unique=True)]
            out[:, r, 2 + 2 * o] = np.maximum(_clipped(h, ref, div, n) - _clipped(h, s_not_r, div, n), 0)
        out[:, :, 3 + 2 * o] = np.maximum(hlen + 1 - (o + 1), 0)[:, None]
    return out


# --- the reference draws ------------------------------------------------------------------------------------------

def seed_key(seed: int) -> list[int]:
    """The init_by_array key Python (2 and 3) seeds MT19937 with for an int: |seed|'s 32-bit words, least
    significant first ([0] for 0)."""
    seed = abs(seed)
    words = []
    while seed:
        words.append(seed & 0xFFFFFFFF)
        seed >>= 32
    return words or [0]


def python2_randint_stream(seed: int, high: int, count: int) -> np.ndarray:
    """``random.seed(seed); [random.randint(0, high) for _ in range(count)]`` as Python 2 draws it (high + 1 <
    2**53): ``int(random() * (high + 1))`` with random() from MT19937 seeded by init_by_array(seed_key(seed))."""
    u = np.random.RandomState(seed_key(seed)).random_sample(count)
    return (u * float(high + 1)).astype(np.int64)


def draws(n: int, n_refs: int, iterations: int) -> np.ndarray:
    """(iterations, n) reference indices: row j is iteration j's draw for each sentence (compute_gleu's
    ``indices``)."""
    out = np.empty((iterations, n), dtype=np.int64)
    for j in range(iterations):
        out[j] = python2_randint_stream(j * SEED_STEP, n_refs - 1, n)
    return out


def iterations_for(n_refs: int, iterations: int) -> int:
    """compute_gleu runs one iteration when there is one reference."""
    return 1 if n_refs == 1 else iterations


def iteration_sums(stats: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """(iterations, 10) int64 corpus statistics of each iteration: stats (n, R, 10) summed over the sentences with
    each sentence's drawn reference (picks (iterations, n)); a product per reference, exact in float64."""
    iters = picks.shape[0]
    total = np.zeros((iters, stats.shape[2]), dtype=np.float64)
    for r in range(stats.shape[1]):
        total += (picks == r).astype(np.float64) @ stats[:, r, :].astype(np.float64)
    return np.rint(total).astype(np.int64)


# --- scores -------------------------------------------------------------------------------------------------------

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
    picks: np.ndarray = field(repr=False)

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


def check_options(n: int, iterations: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise InputError("-n", f"the n-gram order must be an integer of at least 1, not {n!r}")
    if not isinstance(iterations, int) or isinstance(iterations, bool) or iterations < 1:
        raise InputError("--iter", f"the number of iterations must be an integer of at least 1, not {iterations!r}")


def score_system(sources: Sequence[Sequence[bytes]], references: Sequence[Sequence[Sequence[bytes]]],
                 hypotheses: Sequence[Sequence[bytes]], n: int = ORDER, iterations: int = 500,
                 picks: np.ndarray | None = None, sentences: bool = True) -> GleuResult:
    """GLEU of one system (tokenised texts, all of one length). picks: the draws (from draws(); computed when
    None); sentences: compute the sentence-level figures (-d)."""
    check_options(n, iterations)
    pairs = pair_stats(sources, references, hypotheses)
    if picks is None:
        picks = draws(len(hypotheses), len(references), iterations_for(len(references), iterations))
    values = corpus_values(iteration_sums(pairs, picks), n)
    mean, std, low, high = summary(values)
    sent = sentence_summaries(pairs) if sentences else np.empty((0, 4))
    return GleuResult(mean, std, low, high, values, sent, pairs, picks)


# --- the metric interface -----------------------------------------------------------------------------------------

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


@register
class GleuMetric(Metric):
    """GLEU (cnap/gec-ranking compute_gleu, 2016 update). sentence_stats: (n, iterations, 10) int32, sentence i's
    statistics against the reference iteration j drew for it; corpus_score: the mean over the iterations of the
    corpus GLEU, compute_gleu's printed figure. Options: n (compute_gleu's -n), iterations (--iter)."""
    name = "gleu"
    title = "GLEU"
    fmt = ".6f"                 # compute_gleu prints 6 decimals
    higher_is_better = True
    needs_sources = True

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
        refs = [tokens_of(r) for r in data.references]
        pairs = pair_stats(tokens_of(data.sources), refs, tokens_of(hyp))
        picks = draws(len(hyp), len(refs), iterations_for(len(refs), self.iterations))
        return pairs[np.arange(len(hyp))[:, None], picks.T].astype(np.int32)

    def corpus_score(self, stats: np.ndarray) -> float:
        sums = stats.sum(axis=0, dtype=np.int64)
        return summary(corpus_values(sums.reshape(-1, K), self.n))[0]

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        idx = np.asarray(idx)
        B, m = idx.shape
        n = stats.shape[0]
        flat = stats.reshape(n, -1).astype(np.float64)
        out = np.empty(B, dtype=np.float64)
        chunk = max(1, 4_000_000 // max(flat.shape[1], 1))
        for lo in range(0, B, chunk):
            part = idx[lo:lo + chunk]
            counts = np.bincount((part + np.arange(len(part))[:, None] * n).ravel(),
                                 minlength=len(part) * n).reshape(len(part), n).astype(np.float64)
            sums = np.rint(counts @ flat).reshape(len(part), -1, K)
            out[lo:lo + len(part)] = _gleu_array(sums, self.n).mean(axis=1)
        return out
