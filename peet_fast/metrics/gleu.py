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
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from peet_fast.io import InputError, read_bytes

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


class References:
    """The source and references of a test set, prepared once for scoring any number of hypothesis texts against
    them: a token vocabulary, per n-gram order the n-grams that occur in the source or a reference (dense ids), and
    per order the source's and each reference's n-gram counts per sentence. A hypothesis n-gram that occurs in
    neither can match nothing and is not counted."""

    def __init__(self, sources: Sequence[Sequence[bytes]], references: Sequence[Sequence[Sequence[bytes]]]):
        self.n = len(sources)
        self.n_refs = len(references)
        for ref in references:
            if len(ref) != self.n:
                raise ValueError("the references and the sources differ in length")
        self.vocab: dict[bytes, int] = {}
        self._tables: dict[tuple[int, int], np.ndarray] = {}     # (text, order) -> _count table; text 0: source
        texts = [sources, *references]
        toks, lengths = [], []
        setdefault = self.vocab.setdefault
        for sents in texts:
            flat: list[int] = []
            for sent in sents:
                flat.extend([setdefault(t, len(self.vocab)) for t in sent])
            toks.append(np.asarray(flat, dtype=np.int64))
            lengths.append(np.fromiter((len(x) for x in sents), dtype=np.int64, count=len(sents)))
        self.ref_lengths = lengths[1:]
        V = max(len(self.vocab), 1)
        # grams[o]: the sorted keys (id of the (o-1)-gram prefix * V + last token) of the fixed o-grams, o >= 2
        self.grams: list[np.ndarray | None] = [None]
        self.sizes = [V]
        ids = [self._positions(t, ln) for t, ln in zip(toks, lengths)]
        gram_ids = [t.copy() for t in toks]
        for o in range(2, ORDER + 1):
            positions, keys = [], []
            for t, (sent_of, left), g in zip(toks, ids, gram_ids):
                positions.append(np.flatnonzero(left >= o))
                keys.append(g[positions[-1]] * V + t[positions[-1] + o - 1])
            uniq, inverse = np.unique(np.concatenate(keys), return_inverse=True)
            self.grams.append(uniq)
            self.sizes.append(max(len(uniq), 1))
            start = 0
            for k, (t, (sent_of, left)) in enumerate(zip(toks, ids)):
                g = np.full(len(t), -1, dtype=np.int64)
                g[positions[k]] = inverse.reshape(-1)[start:start + len(positions[k])]
                start += len(positions[k])
                gram_ids[k] = g
                self._tables_add(k, o, sent_of, g)
        for k, (t, (sent_of, left)) in enumerate(zip(toks, ids)):
            self._tables_add(k, 1, sent_of, t)
        # per reference and order: the source's n-grams that the reference does not have, with their counts
        self.src_not_ref = [[self._table(0, o)[:, ~np.isin(self._table(0, o)[0], self._table(1 + r, o)[0],
                                                            assume_unique=True)]
                             for o in range(1, ORDER + 1)] for r in range(self.n_refs)]

    def _tables_add(self, text: int, order: int, sent_of: np.ndarray, gram: np.ndarray) -> None:
        self._tables[text, order] = self._count(sent_of, gram, order)

    def _table(self, text: int, order: int) -> np.ndarray:
        return self._tables[text, order]

    def _count(self, sent_of: np.ndarray, gram: np.ndarray, order: int) -> np.ndarray:
        """(2, m): sorted unique keys sentence * G + gram of the known n-grams (gram >= 0), and their counts."""
        ok = gram >= 0
        uniq, counts = np.unique(sent_of[ok] * self.sizes[order - 1] + gram[ok], return_counts=True)
        return np.stack([uniq, counts.astype(np.int64)])

    def _positions(self, tok: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per token: its sentence and how many tokens from it to its sentence's end (itself included)."""
        sent_of = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        ends = np.cumsum(lengths)
        return sent_of, ends[sent_of] - np.arange(len(tok), dtype=np.int64)

    def hypothesis_tables(self, hypotheses: Sequence[Sequence[bytes]]) -> tuple[np.ndarray, list[np.ndarray]]:
        """The hypothesis' sentence lengths and, per order, its table of known n-grams (as _count)."""
        get = self.vocab.get
        flat: list[int] = []
        for sent in hypotheses:
            flat.extend([get(t, -1) for t in sent])
        tok = np.asarray(flat, dtype=np.int64)
        lengths = np.fromiter((len(x) for x in hypotheses), dtype=np.int64, count=len(hypotheses))
        sent_of, left = self._positions(tok, lengths)
        V = self.sizes[0]
        tables = [self._count(sent_of, tok, 1)]
        gram = tok
        for o in range(2, ORDER + 1):
            nxt = np.full(len(tok), -1, dtype=np.int64)
            pos = np.flatnonzero(left >= o)
            pos = pos[(gram[pos] >= 0) & (tok[pos + o - 1] >= 0)]
            keys = gram[pos] * V + tok[pos + o - 1]
            uniq = self.grams[o - 1]
            at = np.minimum(np.searchsorted(uniq, keys), max(len(uniq) - 1, 0))
            found = uniq[at] == keys if len(uniq) else np.zeros(len(keys), dtype=bool)
            nxt[pos[found]] = at[found]
            gram = nxt
            tables.append(self._count(sent_of, gram, o))
        return lengths, tables

    def pair_stats(self, hypotheses: Sequence[Sequence[bytes]]) -> np.ndarray:
        """The official's ``gleu_stats`` of every (sentence, reference) pair: an int64 array (n, R, 10) of
        (c, r, num1, den1, ..., num4, den4)."""
        n = self.n
        if len(hypotheses) != n:
            raise ValueError("the hypotheses and the sources differ in length")
        hlen, tables = self.hypothesis_tables(hypotheses)
        out = np.zeros((n, self.n_refs, K), dtype=np.int64)
        out[:, :, 0] = hlen[:, None]
        for r in range(self.n_refs):
            out[:, r, 1] = self.ref_lengths[r]
        for o in range(1, ORDER + 1):
            h, div = tables[o - 1], self.sizes[o - 1]
            for r in range(self.n_refs):
                matched = _clipped(h, self._table(1 + r, o), div, n)
                penalised = _clipped(h, self.src_not_ref[r][o - 1], div, n)
                out[:, r, 2 * o] = np.maximum(matched - penalised, 0)
            out[:, :, 2 * o + 1] = np.maximum(hlen + 1 - o, 0)[:, None]
        return out


def _clipped(a: np.ndarray, b: np.ndarray, divisor: int, n: int) -> np.ndarray:
    """Per sentence: the sum over the n-grams both have of min(count in a, count in b) (``sum((a & b).values())``).
    a, b: _count tables (sorted unique keys)."""
    if a.shape[1] == 0 or b.shape[1] == 0:
        return np.zeros(n, dtype=np.int64)
    at = np.searchsorted(b[0], a[0])
    at[at == b.shape[1]] = 0
    both = b[0][at] == a[0]
    weights = np.minimum(a[1][both], b[1][at[both]]).astype(np.float64)
    return np.rint(np.bincount(a[0][both] // divisor, weights=weights, minlength=n)).astype(np.int64)


def pair_stats(sources: Sequence[Sequence[bytes]], references: Sequence[Sequence[Sequence[bytes]]],
               hypotheses: Sequence[Sequence[bytes]]) -> np.ndarray:
    """References(sources, references).pair_stats(hypotheses): (n, R, 10) int64 statistics (tokenised texts)."""
    return References(sources, references).pair_stats(hypotheses)


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


def score_system(references: References, hypotheses: Sequence[Sequence[bytes]], n: int = ORDER,
                 iterations: int = 500, picks: np.ndarray | None = None, sentences: bool = True,
                 selection: np.ndarray | None = None) -> GleuResult:
    """GLEU of one system (tokenised, as many sentences as the references). picks: the draws (from draws();
    computed when None); selection: selection_matrix(picks), when already made; sentences: compute the
    sentence-level figures (-d)."""
    check_options(n, iterations)
    pairs = references.pair_stats(hypotheses)
    if picks is None:
        picks = draws(references.n, references.n_refs, iterations_for(references.n_refs, iterations))
    values = corpus_values(iteration_sums(pairs, picks, selection), n)
    mean, std, low, high = summary(values)
    sent = sentence_summaries(pairs) if sentences else np.empty((0, 4))
    return GleuResult(mean, std, low, high, values, sent, pairs, picks)


# The metric interface (GleuMetric, the registry's "gleu") is peet_fast.metrics.gleu_metric.
