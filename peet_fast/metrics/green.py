"""GREEN (Koyama et al. 2024, "n-gram F-score for evaluating grammatical error correction"), name "green" in the
registry: n-gram true keeps/deletions/insertions against the source and a reference, per order n P and R, their
geometric means over n = 1..4, F_beta (beta 2 by default), the best reference per sentence.

Reproduces gotutiyan/gec-metrics' ``GREEN`` (gec_metrics/metrics/green.py, gec-metrics 0.1.1):

- a sentence is ``line.strip()``; word unit: its tokens are ``split(' ')`` (one space: two spaces in a row make an
  empty token, as in gec-metrics), no tokens for an empty line; char unit (``unit="char"``): its characters, spaces
  included;
- per (sentence, reference) and order n = 1..N: TP = TD + TI + TK, FP = OD + OI, FN = UD + UI over the distinct
  n-grams of source, hypothesis and reference (counted by the compiled kernel peet_fast._ext.green, which documents
  the formulas); P_n = 1 when FP_n = 0, R_n = 1 when FN_n = 0;
- score = F_beta of the geometric means of the P_n and of the R_n (0 when any is 0), with gec-metrics' float
  operations (libm log and exp, the same order of additions: equal to the last bit);
- per sentence the reference with the highest score (the first on ties) is kept; the corpus score is the score of
  the summed counts of the kept references; a sentence's score is that of its own kept counts (gec-metrics'
  score_sentence).

Checked against gec-metrics itself: its own test values (tests/metrics/test_green.py), and fixtures of its figures
over hand-written edge cases and generated hypotheses of CoNLL-14 sentences (tests/fixtures/green, written by
running gec-metrics 0.1.1; see the README there); the differential test runs gec-metrics live where its venv is.

Per-sentence statistics: (n, N, 3) float64, the kept reference's (TP, FP, FN) per order (the choice is the sentence's
own, so any subset or resample of the sentences is scored exactly as gec-metrics would score it). No departures."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from peet_fast.io import InputError
from peet_fast.metrics.base import EvalSet, Metric, register
from peet_fast.metrics.config import Config, option

UNITS = ("word", "char")


def _tokens(lines: Sequence[str], unit: str, vocab: dict | None) -> tuple[np.ndarray, np.ndarray]:
    """(token ids int32, offsets int64 (len + 1)) of lines as gec-metrics splits them. Word ids come from vocab
    (extended); char ids are code points."""
    ids: list[int] = []
    offsets = [0]
    if unit == "char":
        for line in lines:
            ids.extend(map(ord, line.strip()))
            offsets.append(len(ids))
    else:
        setdefault = vocab.setdefault
        for line in lines:
            s = line.strip()
            if s:
                ids.extend([setdefault(t, len(vocab)) for t in s.split(" ")])
            offsets.append(len(ids))
    return np.asarray(ids, dtype=np.int32), np.asarray(offsets, dtype=np.int64)


def pair_counts(sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]], n: int = 4,
                unit: str = "word") -> np.ndarray:
    """(sentences, references, n, 3) int64: GREEN's (TP, FP, FN) of every (sentence, reference) pair and order."""
    if unit not in UNITS:
        raise InputError("unit", f"must be 'word' or 'char', not {unit!r}")
    vocab: dict = {}
    src = _tokens(sources, unit, vocab)
    hyp = _tokens(hypotheses, unit, vocab)
    refs = [_tokens(r, unit, vocab) for r in references]
    return _counts(src, hyp, refs, n)


def _counts(src, hyp, refs, n: int) -> np.ndarray:
    from peet_fast._ext.green import green_counts

    ref_tok = np.concatenate([t for t, _ in refs]) if refs else np.zeros(0, dtype=np.int32)
    shift = np.cumsum([0] + [len(t) for t, _ in refs[:-1]]) if refs else []
    ref_off = np.stack([o + s for (_, o), s in zip(refs, shift)]) if refs else np.zeros((0, len(src[1])), np.int64)
    return green_counts(src[0], src[1], hyp[0], hyp[1], np.ascontiguousarray(ref_tok, dtype=np.int32),
                        np.ascontiguousarray(ref_off, dtype=np.int64), n)


def scores(counts: np.ndarray, beta: float = 2.0) -> np.ndarray:
    """GREEN of each row of counts (..., N, 3) (TP, FP, FN per order): shape counts.shape[:-2]."""
    from peet_fast._ext.green import green_scores

    c = np.ascontiguousarray(counts, dtype=np.float64)
    lead = c.shape[:-2]
    return green_scores(c.reshape(-1, *c.shape[-2:]), float(beta)).reshape(lead)


def best_reference(counts: np.ndarray, beta: float = 2.0) -> np.ndarray:
    """(n,) index of the kept reference of each sentence: the highest score, the first on ties (counts (n, R, N, 3))."""
    return np.argmax(scores(counts, beta), axis=1)


@register
class Green(Metric):
    """GREEN F_beta (gec-metrics). Options: n (the highest n-gram order, 4), beta (2.0), unit ("word" or "char")."""
    name = "green"
    title = "GREEN F2"
    label = "GREEN"
    fmt = ".4f"
    higher_is_better = True
    needs_sources = True

    @dataclass(frozen=True)
    class Config(Config):
        n: int = option(4, "the n-gram order", low=1)
        beta: float = option(2.0, "the F-measure's beta", low=0)
        unit: str = option("word", choices=UNITS)

    def __init__(self, n: int = 4, beta: float = 2.0, unit: str = "word"):
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise InputError("n", f"the n-gram order must be an integer of at least 1, not {n!r}")
        if unit not in UNITS:
            raise InputError("unit", f"must be 'word' or 'char', not {unit!r}")
        self.n, self.beta, self.unit = n, float(beta), unit
        self.title = f"GREEN F{self.beta:g}" + (" (char)" if unit == "char" else "")

    def _fixed(self, data: EvalSet):
        """The tokenised sources and references of data (kept for the next system on the same EvalSet)."""
        return self.prepared(data, self._tokenised)

    def _tokenised(self, data: EvalSet):
        if data.sources is None:
            raise InputError("green", "GREEN needs the source sentences")
        if not data.references:
            raise InputError("green", "GREEN needs at least one reference")
        vocab: dict = {}
        src = _tokens(data.sources, self.unit, vocab)
        refs = [_tokens(r, self.unit, vocab) for r in data.references]
        return vocab, src, refs

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        vocab, src, refs = self._fixed(data)
        counts = {len(hyp), len(data.sources), *(len(r) for r in data.references)}
        if len(counts) > 1:
            raise InputError("green", f"hypotheses ({len(hyp)}), sources ({len(data.sources)}) and references "
                                      f"({', '.join(str(len(r)) for r in data.references)}) differ in length")
        pairs = _counts(src, _tokens(hyp, self.unit, vocab), refs, self.n)
        keep = best_reference(pairs, self.beta)
        return pairs[np.arange(len(hyp)), keep].astype(np.float64)

    def corpus_score(self, stats: np.ndarray) -> float:
        stats = np.asarray(stats, dtype=np.float64).reshape(-1, self.n, 3)
        return float(scores(stats.sum(axis=0)[None], self.beta)[0])

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        return scores(np.asarray(stats, dtype=np.float64).reshape(-1, self.n, 3), self.beta)

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Each resample's summed counts (one matrix product; integer sums are exact in float64), then the score."""
        st = np.asarray(stats, dtype=np.float64).reshape(len(stats), -1)
        from peet_fast.metrics.stats import resample_counts

        k = len(idx)
        return scores((resample_counts(idx, len(st)) @ st).reshape(k, self.n, 3), self.beta)
