"""The n-gram statistics of GLEU: a test set's source and references prepared once (References: a vocabulary,
dense n-gram ids, per-sentence count tables) and the official's gleu_stats of every (sentence, reference) pair of a
hypothesis text, as clipped-count set operations on sorted tables."""
from __future__ import annotations

from typing import Sequence

import numpy as np


ORDER = 4                      # the official's GLEU class always counts 1- to 4-grams
K = 2 * ORDER + 2              # statistics per sentence: c, r, then (numerator, denominator) per order


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
