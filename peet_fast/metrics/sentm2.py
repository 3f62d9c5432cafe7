"""SentM2: the sentence-level M2 F0.5 averaged over sentences, as PT-M2 computes it (github pygongnlp/PT-M2,
``evaluate.py --base sentm2 --scorer self``: metrics.PTM2.compute_sentm2 over m2score/levenshtein.py's
batch_multi_pre_rec_f1_sent), the SentM2 column of SEEDA's README (Kobayashi et al. 2024). Metric "sentm2" of the
registry; higher is better; needs a gold M2.

Per sentence, each annotator's edit sequence is the official m2scorer 3.2's (the lattice of ext/m2lattice.pyx, as the
``m2`` metric extracts it: PT-M2's m2score is a Python 3 port of that scorer with the same lattice, weights and
matching); the sentence's F is that of the annotator giving the best F *for that sentence alone* (PT-M2 starts every
sentence from zero counts), with PT-M2's conventions: P = 1 without proposed edits, R = 1 without gold edits, F = 0
when beta^2 P + R = 0. So a sentence without edits scores 1 if some annotator has no gold edit there and 0 otherwise
(SEEDA's INPUT row: 31.33). The corpus score is the plain mean over all sentences (PT-M2 sums left to right and
divides by the line count; so does corpus_score). With the scorer "self" every edit weighs 1, so
PT-M2's weighting reduces to counting.

Checked against PT-M2's own code (its non-neural part, run unchanged but for torch-free imports): every sentence's F
of hand-written cases and 300 generated CoNLL-14 hypotheses (tests/metrics/test_sentm2.py, fixtures in
tests/fixtures/sentm2/), of the unchanged CoNLL-14 input and of the first 100 sentences of the 27 CoNLL-14 / SEEDA
outputs (benchmarks/new_metrics.py: PT-M2's pure-Python lattice takes minutes per system); and against the SEEDA
README's SentM2 column on all 15 of its outputs (docs/rank-metrics.md). REF-F: SEEDA prints 48.99 where PT-M2 (and
this metric) give 48.93 on the published output, whose line 97 is empty (the rewriter merged source sentences 96 and
97 into line 96; so since SEEDA's first commit of the file). The empty hypothesis deletes all 18 tokens of sentence
97; the lattice proposes three deletions, one of them annotator 1's deletion of "to": F 0.3125. With line 97 scoring
1.0 instead the file gives 48.985, SEEDA's figure: their run saw another line 97.

Departures, on input PT-M2 rejects: PT-M2 asserts that the hypothesis is its edit sequence applied to the source (it
stops at a hypothesis with a double space inside, or whose edit sequence holds two insertions at one position, which
it applies back in the wrong order); here every line is scored, with the figure PT-M2 gives without its check.
Tokens are split as Python 2 splits them (the ``m2`` metric's reader), which differs from PT-M2's Python 3 only at
U+180E. Lattices beyond m2.search.MAX_VERTICES / MAX_WORK take the ``m2`` metric's bounded search (PT-M2 would run for
hours).

Per-sentence statistics, shape (n, 4): the sentence's F and the chosen annotator's correct, proposed and gold
counts (PT-M2's tie-breaks: more correct, then fewer proposed + beta^2 gold, then the first annotator).
sentence_scores is column 0; a resample's score is the mean of its sentences' F."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from peet_fast.metrics.base import EvalSet, register
from peet_fast.metrics.m2.py2 import _strip
from peet_fast.metrics.m2.score import M2Metric
from peet_fast.metrics.m2.search import _Sentence, _ws_case_only, edit_seqs
from peet_fast.metrics.m2_types import matched_gold


def sentence_prf(correct: float, proposed: float, gold: float, beta: float = 0.5) -> tuple[float, float, float]:
    """PT-M2's comp_p, comp_r and comp_f1 of one sentence's counts."""
    p = correct / proposed if proposed else 1.0
    r = correct / gold if gold else 1.0
    b2 = beta * beta
    f = (1.0 + b2) * p * r / (b2 * p + r) if b2 * p + r else 0.0
    return p, r, f


def annotator_counts(sentence: _Sentence | list, golds_set: Sequence[tuple[int, list]],
                     ignore_whitespace_casing: bool = False) -> list[tuple[int, int, int, int, list[int]]]:
    """Per annotator of one sentence: (annotator, correct, proposed, gold, indices of the matched gold edits).
    sentence: its _Sentence, or the edit sequences it gives per annotator (m2.search.edit_seqs)."""
    out = []
    seqs = [sentence.edit_seq(g) for _, g in golds_set] if isinstance(sentence, _Sentence) else sentence
    for (annotator, g), seq in zip(golds_set, seqs):
        if ignore_whitespace_casing:
            seq = [x for x in seq if not _ws_case_only(x[2], x[3])]
        hits = matched_gold(seq, g)
        out.append((annotator, len(hits), len(seq), len(g), hits))
    return out


def best_for_sentence(counts: Sequence[tuple], beta: float = 0.5) -> tuple[int, float]:
    """(position in counts, F) of the annotator PT-M2 chooses for a sentence scored alone: the best F, then more
    correct, then fewer proposed + beta^2 gold, then the first."""
    b2 = beta * beta
    best, f_max, c_max, cost_min = 0, -float("inf"), -float("inf"), float("inf")
    for k, (_, c, e, g, _) in enumerate(counts):
        f = sentence_prf(c, e, g, beta)[2]
        if f_max < f or (f_max == f and c_max < c) or (f_max == f and c_max == c and cost_min > e + b2 * g):
            best, f_max, c_max, cost_min = k, f, c, e + b2 * g
    return best, f_max


class MeanOfSentences:
    """corpus_score, sentence_scores and bootstrap of a metric whose statistics hold each sentence's F in column 0:
    the corpus score is their mean (summed left to right, as PT-M2 sums them)."""
    width = 4

    def corpus_score(self, stats: np.ndarray) -> float:
        f = self.sentence_scores(stats)
        return sum(f.tolist()) / len(f) if len(f) else float("nan")

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        return np.asarray(stats, dtype=np.float64).reshape(-1, self.width)[:, 0].copy()

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return self.bootstrap_systems([stats], idx)[:, 0]

    def bootstrap_systems(self, stats: Sequence[np.ndarray], idx: np.ndarray) -> np.ndarray:
        from peet_fast.metrics.stats import resample_means

        if not len(stats):
            return np.zeros((len(idx), 0), dtype=np.float64)
        return resample_means(np.stack([self.sentence_scores(s) for s in stats]), idx)


@register
class SentM2(MeanOfSentences, M2Metric):
    """SentM2 F_beta (PT-M2's figure): per-sentence statistics (F, correct, proposed, gold), the mean of F."""
    name = "sentm2"
    title = "SentM2 F0.5"
    label = "SentM2 F0.5"
    higher_is_better = True
    needs_gold = True
    fmt = ".4f"

    def __init__(self, beta: float = 0.5, max_unchanged_words: int = 2, ignore_whitespace_casing: bool = False):
        super().__init__(beta, max_unchanged_words, ignore_whitespace_casing)
        self.title = self.label = f"SentM2 F{self.beta:g}"

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        from peet_fast.io import InputError

        gold = self._gold(data)
        if len(hyp) != len(gold.sources):
            raise InputError("sentm2", f"{len(hyp)} hypotheses, but the gold {gold.path} has {len(gold.sources)} "
                                       "sentences")
        out = np.zeros((len(hyp), 4), dtype=np.float64)
        for i, (h, source, golds_set) in enumerate(zip(hyp, gold.sources, gold.edits)):
            counts = annotator_counts(edit_seqs(_strip(h), source, self.max_unchanged_words, golds_set), golds_set,
                                      self.ignore_whitespace_casing)
            k, f = best_for_sentence(counts, self.beta)
            out[i] = (f, counts[k][1], counts[k][2], counts[k][3])
        return out

    def breakdown(self, stats: np.ndarray):
        return None
